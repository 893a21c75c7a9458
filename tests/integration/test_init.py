"""`config-harness init` on a small Hydra tree: what it writes, what it leaves out, and what it refuses."""

from __future__ import annotations

import re
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
    write_tree(
        project / "conf",
        {
            "broken.yaml": "defaults:\n  - backend: tpu\n",  # no such option
            "fragment.yaml": "just: values\n",  # composes, but selects no engine: a route
            "_generated_train.yaml": "a: 1\n",  # another tool's golden
            "backend/bad.yaml": "defaults:\n  - missing_group: x\n",
        },
    )
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
    write_tree(
        project,
        {
            "app/main.py": """
        import hydra

        @hydra.main(config_path="../conf", config_name="train", version_base="1.2")
        def main(cfg):
            pass
        """
        },
    )
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
    write_tree(
        tmp_path / "conf",
        {
            "experiments/run.yaml": "# @package _global_\ndefaults:\n  - /backend: cpu\n  - /task: ???\n  - _self_\nname: run\n",
            "backend/cpu.yaml": "kind: cpu\n",
            "backend/gpu.yaml": "kind: gpu\n",
            "task/a.yaml": "size: 1\n",
        },
    )
    # The root leaves `task` mandatory (`/task: ???`): init takes it as the engine group (issue 54), so the root composes.
    bare = cli("init", "--config-dir", "conf", "--roots", "experiments/*.yaml", "--settings", "bare.toml", cwd=tmp_path)
    assert bare.code == 0, bare.err
    assert tomllib.loads((tmp_path / "bare.toml").read_text())["engine_group"] == "task"
    result = cli("init", "--config-dir", "conf", "--roots", "experiments/*.yaml", "--preset", "a=task=a", "--settings", "x.toml")
    assert result.code == 0, result.err
    table = tomllib.loads((tmp_path / "x.toml").read_text())
    assert table["roots"] == ["experiments/run"] and table["presets"] == {"a": ["task=a"]}
    assert "  candidate     backend: 1 root(s) select it; 2 options; every option composes with every root" in result.out
    assert cli("--settings", "x.toml", "generate").code == 0
    assert (tmp_path / "config-harness/snapshots/_generated_experiments.run__base__a.yaml").is_file()


def test_init_writes_nested_options_of_the_engine_group_as_presets_with_the_reason(tmp_path, cli):
    write_tree(
        tmp_path / "conf",
        {
            "config.yaml": "defaults:\n  - _self_\n  - optional task: null\nname: app\n",
            "task/tasks/spec/validate.yaml": "# @package task\nkind: validate\n",
            "task/tasks/spec/build.yaml": "# @package task\nkind: build\n",
            "task/tasks/sim/simulate.yaml": "# @package task\nkind: sim\n",
        },
    )
    result = cli("init", "--config-dir", "conf", "--engine-group", "task", "--settings", "x.toml", cwd=tmp_path)
    assert result.code == 0, result.err
    table = tomllib.loads((tmp_path / "x.toml").read_text())
    assert "engine_group" not in table and table["presets"] == {
        "default": [],
        "tasks.sim.simulate": ["task=tasks/sim/simulate"],
        "tasks.spec.build": ["task=tasks/spec/build"],
        "tasks.spec.validate": ["task=tasks/spec/validate"],
    }
    assert (
        "note: engine group 'task' has options in subfolders (tasks/sim/simulate, tasks/spec/build, tasks/spec/validate): "
        "written as presets task=OPTION, since an engine name holds no '/' (case ids and golden names are split on it)"
    ) in result.out
    assert cli("--settings", "x.toml", "generate").code == 0
    golden = (tmp_path / "config-harness/snapshots/_generated_config__base__tasks.spec.validate.yaml").read_text()
    assert "kind: validate" in golden


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
    assert (
        line
        == "left out broken: does not compose: conf/broken.yaml:2: In 'broken': 'tpu' is not an option of backend; did you mean 'gpu'? (options: cpu, gpu)"
    )
    assert "search path" not in (project / "a.toml").read_text()


def test_init_reads_initialize_calls_and_picks_the_entry_point_most_launches_run(tmp_path, cli):
    project = adoptable(tmp_path)
    write_tree(
        project,
        {
            "app/infer.py": """
        from hydra import compose, initialize as start

        def load():
            with start(version_base="1.1", config_path="../conf"):
                return compose(config_name="train")
        """
        },
    )
    result = cli("init", "--config-dir", "conf", "--settings", "a.toml", cwd=project)
    assert tomllib.loads((project / "a.toml").read_text())["version_base"] == "1.1"  # never this Hydra's 1.3 silently
    assert "hydra         version_base '1.1' as initialize at app/infer.py:4 (1 call(s) agree)" in result.out

    # A helper (found first) disagrees with the entry point the launch scripts run: the launches decide, and the
    # entry point's package becomes python_sources.
    write_tree(
        project,
        {
            "aaa/merge.py": "import hydra\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n",
            "app/__init__.py": "",
            "app/train.py": "import hydra\n\n@hydra.main(config_path='../conf', config_name='train', version_base='1.2')\ndef main(cfg):\n    pass\n",
            "examples/run.sh": "python -m app.train backend=gpu\npython3 app/train.py backend=cpu\n",
        },
    )
    result = cli("init", "--config-dir", "conf", "--settings", "b.toml", cwd=project)
    table = tomllib.loads((project / "b.toml").read_text())
    assert table["version_base"] == "1.2" and table["python_sources"] == ["app"]
    assert (
        "hydra         version_base '1.2' as @hydra.main at app/train.py:3 (the entry point 2 launch(es) run; the call(s) "
        "disagree: 1 say '1.2', 1 say None (first at aaa/merge.py:3), 1 say '1.1' (first at app/infer.py:4))"
    ) in result.out
    assert cli("--settings", "b.toml", "generate").code == 0


def test_init_names_every_group_that_looks_like_the_engine(tmp_path, cli):
    write_tree(
        tmp_path / "conf",
        {
            "train.yaml": "defaults:\n  - backend: cpu\n  - optim: sgd\n  - _self_\nname: run\n",
            "backend/cpu.yaml": "kind: cpu\n",
            "backend/gpu.yaml": "kind: gpu\n",
            "optim/sgd.yaml": "lr: 1\n",
            "optim/adam.yaml": "lr: 2\n",
        },
    )
    result = cli("init", "--config-dir", "conf", "--settings", "x.toml", cwd=tmp_path)
    assert result.code == 0, result.err
    # Nothing tells the two apart: init writes no engine group, and asks, with each candidate's evidence.
    lines = result.out.splitlines()
    at = lines.index("question: which group's options are the engines? The evidence does not decide, so init wrote none:")
    assert lines[at + 1 : at + 3] == [
        "  candidate     backend: 1 root(s) select it; 2 options; every option composes with every root",
        "  candidate     optim: 1 root(s) select it; 2 options; every option composes with every root",
    ]
    assert result.out.splitlines()[-1].startswith("next: config-harness init --engine-group backend (or another candidate")
    assert "engine_group" not in tomllib.loads((tmp_path / "x.toml").read_text())


# One step to take init's suggestion (issue 32): `init --engine-group G` rewrites what init wrote while nobody edited it.

BROKEN_CONTRACT = "contracts:\n  - name: tpu-only\n    cases: 'train/*'\n    equal: {backend: tpu}\nwaivers: []\n"


def with_contract(root: Path) -> Path:
    """The small project with a contracts file the tree breaks, so init records known entries that name case ids."""
    project = adoptable(root)
    write_tree(project, {"config-harness/contracts.yaml": BROKEN_CONTRACT})
    return project


def test_init_engine_group_rewrites_the_table_init_wrote_as_a_fresh_init_would(tmp_path, cli):
    project = with_contract(tmp_path / "one")
    first = cli("init", "--config-dir", "conf", cwd=project)
    assert first.code == 0, first.err
    assert "next: config-harness init --engine-group backend (or another candidate; the same flags: it rewrites this table)" in first.out
    assert "source: conf/backend/cpu.yaml" in (project / "config-harness/known.yaml").read_text()  # a cause, no case

    again = cli("init", "--config-dir", "conf", "--engine-group", "backend")
    assert again.code == 0, again.err
    assert again.out.splitlines()[0] == (
        "rewrote [tool.config-harness] in pyproject.toml: init wrote it and nobody edited "
        "it since (it had no engine group; now engine group backend)"
    )
    assert re.search(r"  known         config-harness/known.yaml \(\d+ known entr(y|ies)", again.out), again.out
    assert "  contracts     config-harness/contracts.yaml (kept as it was)" in again.out  # the user's, not init's stub

    # The same bytes as `init --engine-group backend` run first, in a twin project: table, known file and contracts.
    twin = with_contract(tmp_path / "twin")
    assert cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=twin).code == 0
    for name in ("pyproject.toml", "config-harness/known.yaml", "config-harness/contracts.yaml"):
        assert (project / name).read_bytes() == (twin / name).read_bytes(), name
    assert (project / "pyproject.toml").read_bytes().startswith(PROJECT_HEAD + b"\n\n")
    known = (project / "config-harness/known.yaml").read_text()
    assert "cases:" not in known and "source: conf/backend/cpu.yaml" in known

    cli.chdir(project)
    assert cli("generate").code == 0
    assert cli("check").code == 0


def test_init_rewrites_a_standalone_file_and_says_so_when_asked_without_a_group(tmp_path, cli):
    project = adoptable(tmp_path)
    assert cli("init", "--config-dir", "conf", "--write", "h.toml", cwd=project).code == 0
    plain = cli("init", "--config-dir", "conf", "--write", "h.toml")
    assert plain.code == 2 and plain.err.strip().endswith(
        "already exists; init writes a new settings file only; `init --engine-group GROUP` rewrites it while it is exactly what init wrote"
    )
    result = cli("init", "--config-dir", "conf", "--write", "h.toml", "--engine-group", "backend", "--quiet")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "rewrote h.toml: init wrote it and nobody edited it since (it had no engine group; now engine group backend)"
    ]
    assert tomllib.loads((project / "h.toml").read_text())["engine_group"] == "backend"
    assert (project / "pyproject.toml").read_bytes() == PROJECT_HEAD


def refused(cli, project: Path, named: str) -> str:
    """`init --engine-group backend` refuses with one line naming `named`, and writes nothing."""
    files = {path: path.read_bytes() for path in project.rglob("*") if path.is_file()}
    result = cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=project)
    assert result.code == 2 and len(result.err.splitlines()) == 1 and str(project / named) in result.err, result.err
    assert {path: path.read_bytes() for path in project.rglob("*") if path.is_file()} == files
    return result.err.strip()


def test_init_rewrites_nothing_anybody_edited_or_generated(tmp_path, cli):
    project = with_contract(tmp_path)
    assert cli("init", "--config-dir", "conf", cwd=project).code == 0
    pyproject, written = project / "pyproject.toml", (project / "pyproject.toml").read_text()
    known = project / "config-harness/known.yaml"
    recorded = known.read_bytes()

    pyproject.write_text(written.replace("default = []", 'default = ["backend=gpu"]'))
    assert refused(cli, project, "pyproject.toml").endswith(
        "already has a [tool.config-harness] table, edited since init wrote it (it is not byte for byte what "
        '`config-harness init --config-dir conf` writes now); set engine_group = "backend" in it by hand, or remove it '
        "to run init again"
    )
    pyproject.write_text(written + '\n[tool.config-harness.extra]\nx = "mine"\n')
    assert "(the file adds keys to it outside the lines init wrote)" in refused(cli, project, "pyproject.toml")
    pyproject.write_text(written.replace("# Written by `config-harness init` from", "# Written from"))
    assert "that init did not write (no line recording init's flags)" in refused(cli, project, "pyproject.toml")

    pyproject.write_text(written + "\n[tool.ruff]\nline-length = 100\n")  # another tool's table is no edit of this one
    assert cli("generate", "--quiet").code == 0
    assert refused(cli, project, "config-harness/snapshots").endswith(
        'init rewrites it only before the first generate: set engine_group = "backend" in the table by hand and run '
        "`config-harness generate` (the old goldens are then orphans)"
    )
    for golden in (project / "config-harness/snapshots").iterdir():
        golden.unlink()

    known.write_text(known.read_text().replace("reason: ", "reason: checked by hand; "))
    assert "then run `config-harness known` to record what the new cases already have" in refused(cli, project, "config-harness/known.yaml")

    known.write_bytes(recorded)
    result = cli("init", "--config-dir", "conf", "--engine-group", "backend")
    assert result.code == 0, result.err
    assert pyproject.read_text().endswith("\n[tool.ruff]\nline-length = 100\n")
    assert tomllib.loads(pyproject.read_text())["tool"]["config-harness"]["engine_group"] == "backend"


def test_init_on_a_pyproject_whose_tool_is_no_table_says_so_in_one_line(tmp_path, cli):
    project = adoptable(tmp_path)
    (project / "pyproject.toml").write_text('tool = "x"\n')
    result = cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=project)
    assert result.code == 2 and "appending [tool.config-harness] would make invalid TOML" in result.err
    assert (project / "pyproject.toml").read_text() == 'tool = "x"\n'


def _run_findings(cli, *args: str) -> tuple[int, list[dict]]:
    result = cli("check", "--format", "json", *args)
    return result.code, result.json()["findings"]


def test_a_root_init_left_out_is_a_known_entry_checked_again_until_it_composes_and_a_new_root_that_fails_is_an_error(tmp_path, cli):
    """Issue 42 item 9: init said once that `broken` does not compose and then nothing did. Now it is recorded in the
    known file (which root, the one-line cause), `check` counts it as known on one line, composes it again on every
    run, and says its entry is stale once it composes; a root the settings name that fails is an error as ever."""
    project = adoptable(tmp_path)
    write_tree(project / "conf", {"broken.yaml": "defaults:\n  - backend: tpu\n"})
    assert cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=project).code == 0
    known = (project / "config-harness/known.yaml").read_text()
    assert "- finding: error\n  path: ''\n  source: conf/broken.yaml\n  what: root\n" in known, known
    assert re.search(r"reason: .known at adoption \(\S+\): root broken left out: does not compose: .*tpu", known), known
    assert cli("generate").code == 0

    check = cli("check")
    assert check.code == 0 and check.out.splitlines()[-1].endswith("(1 known finding, excused by the known file; --verbose lists them)")
    code, findings = _run_findings(cli)
    (left_out,) = [f for f in findings if f["kind"] == "error"]
    assert code == 0 and (left_out["status"], left_out["severity"], left_out["detail"]) == ("known", "info", ["root"])
    assert left_out["message"].startswith("root broken left out by init: broken does not compose: ") and "tpu" in left_out["message"]

    # A root the settings name that does not compose is an error: the entry for `broken` excuses only `broken`.
    write_tree(project / "conf", {"other.yaml": "defaults:\n  - backend: tpu\n"})
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('roots = ["train"]', 'roots = ["train", "other"]'))
    assert cli("check").code == 1
    pyproject.write_text(pyproject.read_text().replace('roots = ["train", "other"]', 'roots = ["train"]'))

    (project / "conf/broken.yaml").write_text("defaults:\n  - backend: gpu\n")  # it composes now
    code, findings = _run_findings(cli)
    assert code == 0 and not [f for f in findings if f["kind"] == "error"]
    (stale,) = [f for f in findings if "known finding fixed" in f["message"]]
    assert stale["severity"] == "warning" and "the root init left out (conf/broken.yaml) composes now; remove its entry" in stale["message"]


NESTED_ENGINES = {
    "train.yaml": "defaults:\n  - model: small\n  - _self_\nlr: 0.1\n",
    "model/small.yaml": "defaults:\n  - representation: a\nsize: 1\n",
    "model/none.yaml": "size: 0\n",  # selects no representation, so `model/representation=X` cannot be applied
    "model/representation/a.yaml": "kind: a\n",
    "model/representation/b.yaml": "kind: b\n",
}


def test_a_preset_init_left_out_is_a_known_entry_checked_again_on_every_engine_until_it_composes(tmp_path, cli):
    """Bar 32's shape (schnetpack): a preset that composes with no option of the engine group is dropped by init; it
    is recorded with its overrides, counted as known while it fails, and stale once it composes."""
    write_tree(tmp_path / "conf", NESTED_ENGINES)
    (tmp_path / "pyproject.toml").write_bytes(PROJECT_HEAD)
    flags = ("--engine-group", "model/representation", "--preset", "default=", "--preset", "bare=model=none")
    result = cli("init", "--config-dir", "conf", *flags, cwd=tmp_path)
    assert result.code == 0 and "left out preset bare: does not compose with engine group model/representation" in result.out
    known = (tmp_path / "config-harness/known.yaml").read_text()
    assert "- finding: error\n  path: ''\n  source: --preset bare=model=none\n  what: preset\n" in known, known
    assert cli("generate").code == 0
    code, findings = _run_findings(cli)
    (left_out,) = [f for f in findings if f["kind"] == "error"]
    assert (
        code == 0
        and left_out["status"] == "known"
        and left_out["message"].startswith("preset bare left out by init: train does not compose with model/representation=a model=none: ")
    )
    (tmp_path / "conf/model/none.yaml").write_text("defaults:\n  - representation: a\nsize: 0\n")
    code, findings = _run_findings(cli)
    assert code == 0 and [f["message"] for f in findings if f["kind"] != "contract"] == []
    assert any(
        "known finding fixed: the preset init left out (--preset bare=model=none) composes now; remove its entry" in f["message"]
        for f in findings
    ), findings
