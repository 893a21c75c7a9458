"""The config trees of a repository as init sees them before composing: folders that look like config folders, and
the flags that adopt another tree beside the one adopted."""

from __future__ import annotations

from harness.runner.config_trees import candidate_folders, other_trees_note, own_settings_flags
from tests.conftest import write_tree


def test_folders_with_a_primary_config_are_candidates_most_roots_first(tmp_path):
    write_tree(
        tmp_path,
        {
            "configurations/a.yaml": "defaults:\n  - data: x\n",
            "configurations/b.yaml": "defaults:\n  - data: y\n",
            "configurations/data/x.yaml": "k: 1\n",
            "docs/example.yaml": "defaults:\n  - thing: 1\n",
            "profiles/small.yaml": "size: 1\n",  # no defaults list: no primary config here
            ".venv/conf/x.yaml": "defaults: []\n",
        },
    )
    found = candidate_folders(tmp_path, lambda folder, subfolders: sorted(name for name in subfolders if name != ".venv"))
    assert [item.shown(tmp_path) for item in found] == [
        "configurations (2 config(s) with a defaults list, 1 group folder(s))",
        "docs (1 config(s) with a defaults list, 0 group folder(s))",
    ]


def test_another_tree_gets_a_settings_file_snapshots_and_contracts_of_its_own(tmp_path):
    flags = own_settings_flags(tmp_path / "rfd3" / "configs", tmp_path)
    assert flags == (
        "--config-dir rfd3/configs --write config-harness-rfd3-configs.toml --write-snapshots "
        "config-harness/rfd3-configs/snapshots --write-contracts config-harness/rfd3-configs/contracts.yaml"
    )
    adopted, other = tmp_path / "rf3/configs", tmp_path / "rfd3/configs"
    assert other_trees_note(adopted, [adopted], tmp_path) is None
    assert other_trees_note(adopted, [adopted, other], tmp_path).startswith(
        "1 other config tree(s) the entry points name are not adopted: rfd3/configs;"
    )
