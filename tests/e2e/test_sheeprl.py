"""End to end on sheeprl 0.8.4's real config tree (its PyPI wheel, config folder only, never imported).

sheeprl writes defaults entries with the file suffix (`- buffer: default.yaml`), uses `override /algo: ...`,
`/optim@optimizer` and `# @package _global_` experiments: composition and provenance must follow Hydra.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.baselines.releases import fetch_wheel_tree
from tests.conftest import CACHE
from tests.e2e.real_trees import (
    Project,
    assert_goldens_equal_plain_hydra,
    check_edit,
    replace_once,
    run_cli,
    shared_project,
    write_settings,
)
from tests.provenance_checks import assert_every_leaf_names_its_writing_line

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("sheeprl")]

SETTINGS = """roots = ["config"]
engine_group = "exp"

[presets]
default = []
cpu = ["fabric=ddp-cpu", "fabric.devices=2"]
short = ["algo.total_steps=1024", "env.num_envs=2", "buffer.memmap=false"]
"""
NARROWER = 'engines = ["a2c", "dreamer_v3", "ppo", "ppo_recurrent", "sac"]\n'


@pytest.fixture(scope="session")
def sheeprl(tmp_path_factory: pytest.TempPathFactory) -> Project:
    def fetch() -> Path:
        return fetch_wheel_tree("sheeprl==0.8.4", "sheeprl/configs", CACHE / "sheeprl-0.8.4")

    return shared_project(tmp_path_factory, "sheeprl", fetch, SETTINGS)


def test_every_golden_equals_plain_hydra_and_nothing_plain_hydra_composes_fails(sheeprl):
    assert len(sheeprl.cases) == 45 * 3
    assert_goldens_equal_plain_hydra(sheeprl)


def test_a_buffer_edit_fails_exactly_the_changed_cases(sheeprl, tmp_path):
    # The `short` preset sets buffer.memmap itself: those cases must stay ok.
    report, changed = check_edit(sheeprl, tmp_path, "buffer/default.yaml", "memmap: True", "memmap: False", NARROWER)
    assert not any(case_id.endswith("/short") for case_id in changed)
    # The entry is written `- buffer: default.yaml`; the finding still names the file and line that sets it.
    sources = {f["source"] for case in report["cases"] for f in case["findings"] if f["path"] == "buffer.memmap"}
    assert len(sources) == 1 and sources.pop().endswith("buffer/default.yaml:2")


def test_a_ppo_edit_fails_exactly_the_changed_cases(sheeprl, tmp_path):
    check_edit(sheeprl, tmp_path, "algo/ppo.yaml", "clip_coef: 0.2", "clip_coef: 0.3", NARROWER)


def test_a_gym_env_edit_fails_exactly_the_changed_cases(sheeprl, tmp_path):
    check_edit(sheeprl, tmp_path, "env/gym.yaml", "mask_velocities: False", "mask_velocities: True", NARROWER)


@pytest.mark.parametrize("case_id", ["config/ppo/default", "config/dreamer_v3/cpu", "config/sac/short"])
def test_every_leaf_has_a_source_whose_line_holds_its_key(sheeprl, case_id):
    case = next(c for c in sheeprl.cases if c["id"] == case_id)
    assert_every_leaf_names_its_writing_line(sheeprl.folder / "harness.toml", case, sheeprl.plain[case_id])


def test_reports_are_the_same_cold_warm_and_uncached(sheeprl, tmp_path):
    """Issue 52: each case's result kept in the cache by its inputs; the report's bytes never depend on the cache."""
    settings = str(sheeprl.folder / "harness.toml")
    cache = str(tmp_path / "cache")

    def reports(*more: str) -> list[tuple[int, str]]:
        return [run_cli("--settings", settings, *more, "check", "--format", output) for output in ("json", "text")]

    cold = reports("--cache-dir", cache)
    warm = reports("--cache-dir", cache)
    assert cold == warm == reports("--no-cache")


def test_a_value_edit_carried_over_reports_what_no_cache_reports(sheeprl, tmp_path):
    """Issue 52: after a value edit, the compositions that read the file are carried over it (harness.composition.carry)
    and the report's bytes are the same as without a cache, edit after edit, and back."""
    copy = Path(shutil.copytree(sheeprl.tree, tmp_path / "config"))
    snapshots = Path(shutil.copytree(sheeprl.snapshots, tmp_path / "snapshots"))
    settings = str(write_settings(tmp_path, copy, snapshots, NARROWER + SETTINGS))
    cache = str(tmp_path / "cache")

    def reports(*more: str) -> list[tuple[int, str]]:
        return [run_cli("--settings", settings, *more, "check", "--format", output) for output in ("json", "text")]

    assert reports("--cache-dir", cache) == reports("--no-cache")
    original = (copy / "algo" / "ppo.yaml").read_text(encoding="utf-8")
    for value in ("3", "20"):
        replace_once(copy / "algo" / "ppo.yaml", "update_epochs: 10", f"update_epochs: {value}")
        carried = reports("--cache-dir", cache)
        assert carried[0][0] == 1  # the edit is a change the goldens do not hold
        assert carried == reports("--no-cache")
        (copy / "algo" / "ppo.yaml").write_text(original, encoding="utf-8")
    assert reports("--cache-dir", cache) == reports("--no-cache")
