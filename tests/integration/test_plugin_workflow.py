"""Real pytest sessions (pytester) on a small, non-verl Hydra tree: the five-step golden workflow."""

from __future__ import annotations

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
    """A pytest session in this process (the plugin keeps its state in the session's config; see conftest for
    what every session imports once). With `-n 2` its workers are processes of their own, which need not load
    hypothesis's plugin (this project's test tooling, not the subject): it costs each worker a second."""
    workers = ("-p", "no:hypothesispytest") if "-n" in args else ()
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *workers, *args)


def test_workflow_fail_create_pass_edit_update_pass(project: pytest.Pytester) -> None:
    five_steps(project, [])  # with `-n 2`: tests/e2e/test_plugin_xdist.py (12 worker processes)


def five_steps(project: pytest.Pytester, workers: list[str]) -> None:
    golden = project.path / "snapshots" / "_generated_train__gpu__default.yaml"

    first = run(project, *workers)
    first.assert_outcomes(failed=7, passed=8)  # 7 cases without goldens; semantics and orphans pass
    assert not golden.exists()

    created = run(project, "--snapshot-update", *workers)
    assert created.ret == 0
    assert golden.read_text().startswith("# config-harness golden for case train/gpu/default")

    run(project, *workers).assert_outcomes(passed=15)

    gpu = project.path / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))
    edited = run(project, *workers)
    assert edited.ret == 1
    edited.stdout.fnmatch_lines(["*REMOVED device.map.qkv (was 'qkv_proj')*"])
    edited.stdout.no_fnmatch_line("*- *qkv: qkv_proj*")  # semantic, not a text diff

    assert run(project, "--snapshot-update", *workers).ret == 0
    assert "qkv_proj" not in golden.read_text()
    run(project, *workers).assert_outcomes(passed=15)


def test_orphan_golden_is_reported_then_removed_by_update(project: pytest.Pytester) -> None:
    assert run(project, "--snapshot-update").ret == 0
    orphan = project.path / "snapshots" / "_generated_gone__case.yaml"
    orphan.write_text("a: 1\n")
    result = run(project)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*golden(s) with no case*", "*_generated_gone__case.yaml*"])
    updated = run(project, "--snapshot-update", "-s")
    assert updated.ret == 0
    updated.stdout.fnmatch_lines(["*removed orphan golden snapshots/_generated_gone__case.yaml*"])
    assert not orphan.exists()


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
    run(project, "test_custom.py", "--harness-no-collect").assert_outcomes(passed=2)


def test_contract_violation_fails_pytest_whatever_the_goldens_say(project: pytest.Pytester) -> None:
    (project.path / "contracts.yaml").write_text(
        "contracts:\n  - name: gpu-map\n    cases: 'train/gpu/*'\n    require: [device.map.qkv]\n"
    )
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
