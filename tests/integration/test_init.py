"""`config-harness init` on a small Hydra tree: what it writes, what it leaves out, and what it refuses."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.conftest import SMALL_TREE, write_tree

PROJECT_HEAD = b'[project]\nname = "demo"\n# keep: a comment, odd spacing   and no final newline\n[tool.other]\nx=1'


def adoptable(root: Path) -> Path:
    write_tree(root / "conf", SMALL_TREE)
    (root / "pyproject.toml").write_bytes(PROJECT_HEAD)
    return root


def test_init_appends_a_table_that_generate_and_check_accept(tmp_path, cli):
    project = adoptable(tmp_path)
    result = cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=project)
    assert result.code == 0, result.err
    data = (project / "pyproject.toml").read_bytes()
    assert data.startswith(PROJECT_HEAD + b"\n\n")  # the rest of the file, byte for byte
    table = tomllib.loads(data.decode())["tool"]["config-harness"]
    assert table["config_dir"] == "conf" and table["engine_group"] == "backend" and "engines" not in table
    assert table["presets"] == {"default": []}
    assert set(table["roots"]) == {"train", "legacy"}  # both select an option of `backend`
    assert table["snapshot_dir"] == "config-harness/snapshots" and (project / "config-harness/snapshots").is_dir()
    assert (project / table["contracts"][0]).read_text().rstrip().endswith("waivers: []")
    assert "engines       cpu, gpu" in result.out and result.out.rstrip().splitlines()[-1].startswith("next:")

    assert cli("generate").code == 0
    assert cli("check").code == 0
    goldens = sorted(p.name for p in (project / "config-harness/snapshots").iterdir())
    assert goldens and not list((project / "conf").rglob("_generated_*"))


def test_init_says_which_configs_and_engines_it_left_out_and_why(tmp_path, cli):
    project = adoptable(tmp_path)
    write_tree(project / "conf", {
        "broken.yaml": "defaults:\n  - backend: tpu\n",  # no such option
        "fragment.yaml": "just: values\n",  # composes, but selects no engine: a route
        "_generated_train.yaml": "a: 1\n",  # another tool's golden
        "backend/bad.yaml": "defaults:\n  - missing_group: x\n",
    })
    result = cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=project)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert any(line.startswith("left out broken: does not compose:") and "tpu" in line for line in lines), lines
    assert any(line.startswith("left out _generated_train: a generated file") for line in lines), lines
    assert any(line.startswith("left out engine bad:") for line in lines), lines
    table = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["config-harness"]
    assert table["engines"] == ["cpu", "gpu"]  # explicit, so the engine that does not compose stays out
    assert table["routes"] == [{"name": "fragment", "config_name": "fragment"}]
    assert "# Left out broken: does not compose:" in (project / "pyproject.toml").read_text()
    assert cli("generate").code == 0 and cli("check").code == 0


def test_init_refuses_an_existing_table_and_goldens_inside_the_config_folder(tmp_path, cli):
    project = adoptable(tmp_path)
    inside = cli("init", "--config-dir", "conf", "--snapshot-dir", "conf/snapshots", cwd=project)
    assert inside.code == 2 and "outside the config folder" in inside.err and len(inside.err.splitlines()) == 1
    assert (project / "pyproject.toml").read_bytes() == PROJECT_HEAD and not (project / "config-harness").exists()

    assert cli("init", "--config-dir", "conf").code == 0
    before = (project / "pyproject.toml").read_bytes()
    again = cli("init", "--config-dir", "conf")
    assert again.code == 2 and "already has a [tool.config-harness] table" in again.err
    assert (project / "pyproject.toml").read_bytes() == before

    assert cli("init", "--config-dir", "nowhere").code == 2
    assert cli("init").code == 2  # --config-dir is required


def test_init_writes_a_standalone_settings_file_with_quoted_paths(tmp_path, cli):
    odd = 'my "conf" \\ dir'
    write_tree(tmp_path / odd, SMALL_TREE)
    (tmp_path / "contracts.yaml").write_text("contracts: []\n")
    result = cli("init", "--config-dir", odd, "--settings", "harness.toml", "--contracts", "contracts.yaml", cwd=tmp_path)
    assert result.code == 0, result.err
    settings = tomllib.loads((tmp_path / "harness.toml").read_text())
    assert settings["config_dir"] == odd and settings["contracts"] == ["contracts.yaml"]
    assert (tmp_path / "contracts.yaml").read_text() == "contracts: []\n"  # an existing contracts file is kept
    assert "--settings harness.toml generate" in result.out
    assert not (tmp_path / "pyproject.toml").exists()
    assert cli("--settings", "harness.toml", "generate").code == 0
    assert cli("--settings", "harness.toml", "check").code == 0
    assert cli("init", "--config-dir", odd, "--settings", "harness.toml").code == 2  # never overwrites
