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
    assert table["roots"] == ["train"] and "version_base" not in table
    # legacy is train plus `override backend: gpu`: a route with parity, not a root whose cases repeat train's
    assert table["routes"] == [{"name": "legacy", "config_name": "legacy", "same_as": "train/gpu/default"}]
    assert "routes        legacy (same_as train/gpu/default: it is that root plus an engine override)" in result.out
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
    assert table["routes"][0] == {"name": "fragment", "config_name": "fragment"}
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
    assert settings["config_dir"] == odd and settings["contracts"] == ["contracts.yaml", "known.yaml"]
    assert (tmp_path / "contracts.yaml").read_text() == "contracts: []\n"  # an existing contracts file is kept
    assert "--settings harness.toml generate" in result.out
    assert not (tmp_path / "pyproject.toml").exists()
    assert cli("--settings", "harness.toml", "generate").code == 0
    assert cli("--settings", "harness.toml", "check").code == 0
    assert cli("init", "--config-dir", odd, "--settings", "harness.toml").code == 2  # never overwrites


def test_init_reads_version_base_from_the_entry_point_and_else_from_the_files(tmp_path, cli):
    project = adoptable(tmp_path)
    write_tree(project, {"app/main.py": """
        import hydra

        @hydra.main(config_path="../conf", config_name="train", version_base="1.2")
        def main(cfg):
            pass
        """})
    result = cli("init", "--config-dir", "conf", "--settings", "a.toml", cwd=project)
    assert tomllib.loads((project / "a.toml").read_text())["version_base"] == "1.2"
    assert "hydra         version_base '1.2' as @hydra.main at app/main.py:3" in result.out

    (project / "app" / "main.py").unlink()
    (project / "conf" / "optimizer" / "adam.yaml").write_text("# @package _group_\nname: adam\n")
    result = cli("init", "--config-dir", "conf", "--settings", "b.toml")
    assert tomllib.loads((project / "b.toml").read_text())["version_base"] == "1.1"
    assert "optimizer/adam.yaml has a Hydra 1.0-style '# @package _group_' header" in result.out
    assert cli("--settings", "b.toml", "generate").code == 0
    golden = (project / "config-harness/snapshots/_generated_train__base__default.yaml").read_text()
    assert "_group_" not in golden  # composed with 1.1 semantics, as the application does

    forced = cli("init", "--config-dir", "conf", "--settings", "c.toml", "--version-base", "none")
    assert forced.code == 0 and "version_base" not in tomllib.loads((project / "c.toml").read_text())


def test_init_roots_in_subfolders_presets_and_a_suggested_engine_group(tmp_path, cli):
    write_tree(tmp_path / "conf", {
        "experiments/run.yaml": "# @package _global_\ndefaults:\n  - /backend: cpu\n  - /task: ???\n  - _self_\nname: run\n",
        "backend/cpu.yaml": "kind: cpu\n",
        "backend/gpu.yaml": "kind: gpu\n",
        "task/a.yaml": "size: 1\n",
    })
    bare = cli("init", "--config-dir", "conf", "--roots", "experiments/*.yaml", "--settings", "x.toml", cwd=tmp_path)
    assert bare.code == 2 and "You must specify 'task'" in bare.err  # the root needs an override
    assert not (tmp_path / "x.toml").exists()
    result = cli("init", "--config-dir", "conf", "--roots", "experiments/*.yaml", "--preset", "a=task=a", "--settings", "x.toml")
    assert result.code == 0, result.err
    table = tomllib.loads((tmp_path / "x.toml").read_text())
    assert table["roots"] == ["experiments/run"] and table["presets"] == {"a": ["task=a"]}
    assert "suggestion: group 'backend' looks like the engine" in result.out
    assert cli("--settings", "x.toml", "generate").code == 0
    assert (tmp_path / "config-harness/snapshots/_generated_experiments.run__base__a.yaml").is_file()


def test_init_refuses_golden_name_collisions_before_writing_anything(tmp_path, cli):
    write_tree(tmp_path / "conf", {"a.b.yaml": "x: 1\n", "a/b.yaml": "x: 2\n"})
    result = cli("init", "--config-dir", "conf", "--roots", "*.yaml", "--roots", "*/*.yaml", "--settings", "x.toml", cwd=tmp_path)
    assert result.code == 2 and "nothing written" in result.err and "a.b" in result.err
    assert not (tmp_path / "x.toml").exists() and not (tmp_path / "config-harness").exists()


def test_init_gives_one_short_reason_and_the_rest_with_verbose(tmp_path, cli):
    project = adoptable(tmp_path)
    write_tree(project / "conf", {"broken.yaml": "defaults:\n  - backend: tpu\n"})
    short = cli("init", "--config-dir", "conf", "--settings", "a.toml", cwd=project).out
    (line,) = [line for line in short.splitlines() if line.startswith("left out broken")]
    assert line == "left out broken: does not compose: conf/broken.yaml:2: In 'broken': 'tpu' is not an option of backend; did you mean 'gpu'? (options: cpu, gpu)"
    assert "search path" not in (project / "a.toml").read_text()
