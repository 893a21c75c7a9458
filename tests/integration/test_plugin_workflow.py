"""Real pytest sessions (pytester, in process) on a small Hydra tree: the five-step golden workflow, what a
failure prints, and syrupy's options (two xdist workers and verl's tree: tests/e2e/test_plugin_sessions.py)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree

PYPROJECT = "[tool.config-harness]\n" + SMALL_SETTINGS.replace("[presets]", "[tool.config-harness.presets]").replace(
    "[[routes]]", "[[tool.config-harness.routes]]"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_tree(pytester.path / "conf", SMALL_TREE)
    (pytester.path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A pytest session in this process (see conftest for what every session imports once). With `-n 2` its
    workers are processes of their own, which need not load hypothesis's plugin (this project's test tooling,
    not the subject): it costs each worker a second."""
    workers = ("-p", "no:hypothesispytest") if "-n" in args else ()
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *workers, *args)


def test_workflow_fail_create_pass_edit_update_pass(project: pytest.Pytester) -> None:
    golden = project.path / "snapshots" / "_generated_train__gpu__default.yaml"

    first = run(project)
    first.assert_outcomes(failed=7, passed=8)  # 7 cases without goldens; semantics and orphans pass
    assert not golden.exists()

    created = run(project, "--snapshot-update")
    assert created.ret == 0
    assert golden.read_text().startswith("# config-harness golden for case train/gpu/default")

    run(project).assert_outcomes(passed=15)

    gpu = project.path / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))
    edited = run(project)
    assert edited.ret == 1
    edited.stdout.fnmatch_lines(['device.map.qkv: "qkv_proj" -> —*'])
    edited.stdout.no_fnmatch_line("*- *qkv: qkv_proj*")  # semantic, not a text diff

    assert run(project, "--snapshot-update").ret == 0
    assert "qkv_proj" not in golden.read_text()
    run(project).assert_outcomes(passed=15)


# Two xdist workers, and verl's daily two-edit scenario: tests/e2e/test_plugin_sessions.py.


def test_orphan_golden_fails_the_run_and_update_removes_it(project: pytest.Pytester) -> None:
    assert run(project, "--snapshot-update").ret == 0
    orphan = project.path / "snapshots" / "_generated_gone__case.yaml"
    orphan.write_text("a: 1\n")
    result = run(project)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["1 golden with no case: --snapshot-update removes it; --snapshot-details lists it"])
    result.stdout.no_fnmatch_line("*_generated_gone__case.yaml*")  # listed only on request, as syrupy does
    updated = run(project, "--snapshot-update")
    assert updated.ret == 0
    updated.stdout.fnmatch_lines(["*removed orphan golden snapshots/_generated_gone__case.yaml*"])
    assert not orphan.exists()


def test_snapshot_warn_unused_makes_an_orphan_golden_a_warning_and_details_lists_it(project: pytest.Pytester) -> None:
    assert run(project, "--snapshot-update").ret == 0
    (project.path / "snapshots" / "_generated_gone__case.yaml").write_text("a: 1\n")
    warned = run(project, "--snapshot-warn-unused", "--snapshot-details")
    assert warned.ret == 0
    warned.stdout.fnmatch_lines(
        [
            "*= config-harness =*",
            "warning: 1 golden with no case: --snapshot-update removes it",
            "  snapshots/_generated_gone__case.yaml",
        ]
    )
    run(project, "--snapshot-details").stdout.fnmatch_lines(["  snapshots/_generated_gone__case.yaml"])


def test_snapshot_update_writes_every_golden_without_a_warning(project: pytest.Pytester) -> None:
    result = run(project, "--snapshot-update", "-W", "error::UserWarning")
    assert result.ret == 0 and "warnings" not in result.parseoutcomes()
    assert len(list((project.path / "snapshots").glob("_generated_*.yaml"))) == 7
    result.stdout.no_fnmatch_line("*Can not relate*")


def test_a_failing_case_is_one_short_section_named_by_its_case_id(project: pytest.Pytester) -> None:
    assert run(project, "--snapshot-update").ret == 0
    gpu = project.path / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    result = run(project, "-v")
    assert result.ret == 1
    result.stdout.re_match_lines(
        [
            ".*" + re.escape(line)
            for line in (
                "pyproject.toml::golden[train/gpu/default] FAILED",
                " golden[train/gpu/default] _",
                "device.count: 8 -> 4  (set by conf/backend/gpu.yaml:5)",
                " golden[train/gpu/fast] _",
                # pytest 8 ends a short summary line at the test's id when a failure is text (the plugin's is).
                "FAILED pyproject.toml::golden[train/gpu/default]" + (" - device.count: 8 -> 4" if pytest.version_tuple >= (9,) else ""),
            )
        ],
        consecutive=False,
    )
    output = result.stdout.str()
    for noise in ("Captured", "traceback", "Traceback", "pyproject.toml.golden", "changed:", "CHANGED", "plugin.py"):
        assert noise not in output, noise


LONG_EDIT = {"lr: 0.1": "lr: 0.2", "epochs: 3": "epochs: 4", "layers: [a, b]": "layers: [a]", "name: ???": "name: run"}


def test_a_long_failure_shows_four_lines_and_minus_vv_shows_them_all(project: pytest.Pytester) -> None:
    assert run(project, "--snapshot-update").ret == 0
    train = project.path / "conf" / "train.yaml"
    text = train.read_text()
    for old, new in LONG_EDIT.items():
        text = text.replace(old, new)
    train.write_text(text)
    short = run(project, "-k", "golden and cpu/default")
    body = section(short.stdout.lines, "golden[train/cpu/default]")
    assert len(body) == 4 and body[-1] == "… and 2 more (-vv lists them all)"
    full = section(run(project, "-k", "golden and cpu/default", "-vv").stdout.lines, "golden[train/cpu/default]")
    assert len(full) == 5 and body[:3] == full[:3]
    assert {line.split(":")[0] for line in full} == {f"trainer.{key}" for key in ("effective_lr", "epochs", "layers", "lr", "name")}


def section(lines: list[str], title: str) -> list[str]:
    """The lines under a failure section's header, up to the next header."""
    start = next(index for index, line in enumerate(lines) if re.fullmatch(rf"_+ {re.escape(title)} _+", line))
    end = next(index for index in range(start + 1, len(lines)) if re.match(r"^(_{3,} |={3,} |-{3,} )", lines[index]))
    return lines[start + 1 : end]


def test_fixtures_for_custom_assertions(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_custom="""
        def test_cases(harness_cases):
            assert [c.id for c in harness_cases][:3] == ["train/cpu/default", "train/cpu/fast", "train/cpu/sgd"]

        def test_composed(composed_config):
            assert composed_config("train/gpu/fast").trainer.epochs == 1
            assert composed_config("route/legacy").device.count == 8
        """
    )
    run(project, "test_custom.py", "--config-harness-no-collect").assert_outcomes(passed=2)


def test_contract_violation_fails_pytest_whatever_the_goldens_say(project: pytest.Pytester) -> None:
    (project.path / "contracts.yaml").write_text("contracts:\n  - name: gpu-map\n    cases: 'train/gpu/*'\n    require: [device.map.qkv]\n")
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('roots = ["train"]', 'roots = ["train"]\ncontracts = ["contracts.yaml"]'))
    assert run(project, "--snapshot-update").ret == 0
    gpu = project.path / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))
    assert run(project, "--snapshot-update").ret == 1  # regenerating goldens cannot hide it
    result = run(project)
    result.stdout.fnmatch_lines(["*gpu-map: device.map.qkv is required but missing*"])


def test_bad_contracts_file_is_a_usage_error_not_a_traceback(project: pytest.Pytester) -> None:
    (project.path / "contracts.yaml").write_text("contracts:\n  - name: x\n    bogus: 1\n")
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('roots = ["train"]', 'roots = ["train"]\ncontracts = ["contracts.yaml"]'))
    result = run(project)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error
    result.stdout.fnmatch_lines(["config-harness: *contracts.yaml:3: unknown key 'bogus'*"])
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "plugin.py" not in output


def test_a_launch_that_no_longer_composes_fails_the_run_test_as_it_fails_check(project: pytest.Pytester) -> None:
    write_tree(
        project.path,
        {
            "app/__init__.py": "",
            "app/main.py": "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\n"
            "def main(cfg):\n    print(cfg)\n",
            "scripts/run.sh": "python -m app.main trainer.epochs=5 trainer.name=run\npython -m app.main trainer.epoch=5 trainer.name=run\n",
        },
    )
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[[tool.config-harness.commands]]\nglob = "scripts/*.sh"\n', encoding="utf-8")
    assert run(project, "--snapshot-update").ret == 1  # the goldens are written; the broken launch still fails
    result = run(project)
    result.assert_outcomes(failed=1, passed=14)
    result.stdout.fnmatch_lines(
        ["*trainer.epoch*  (scripts/run.sh:2: trainer.epoch=5)", "*2 launches checked of 2 found: 1 compose, 1 fail*"]
    )
