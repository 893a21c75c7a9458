"""Real pytest sessions (pytester, in process) on a small Hydra tree and on verl's: the five-step golden workflow,
what a failure prints, and syrupy's options."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from harness.cli import main
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, copy_verl_project, write_tree

PYPROJECT = "[tool.config-harness]\n" + SMALL_SETTINGS.replace("[presets]", "[tool.config-harness.presets]").replace(
    "[[routes]]", "[[tool.config-harness.routes]]"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_tree(pytester.path / "conf", SMALL_TREE)
    (pytester.path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)


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


WAIVED_CONTRACT = """
contracts:
  - name: gpu-map
    cases: 'train/gpu/*'
    require: [device.map.proj]
waivers:
  - contract: gpu-map
    path: device.map.proj
    reason: not there yet
"""


def test_two_workers_report_each_case_and_the_run_summary_as_one_process_does(project: pytest.Pytester) -> None:
    (project.path / "contracts.yaml").write_text(WAIVED_CONTRACT)
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('roots = ["train"]', 'roots = ["train"]\ncontracts = ["contracts.yaml"]'))
    assert main(["--settings", str(pyproject), "generate"]) == 0
    gpu = project.path / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    result = run(project, "-n", "2")
    result.assert_outcomes(failed=4, passed=11)
    result.stdout.re_match_lines([".*" + re.escape(line) for line in (
        " golden[train/gpu/default] _",
        "device.count: 8 -> 4  (set by conf/backend/gpu.yaml:5)",
        "= config-harness =",
        "3 waived warnings on 3 cases, 1 distinct (`config-harness check --verbose` lists them)",
        "Next: if these changes are intended: run `pytest --snapshot-update` and commit snapshots",
    )])
    assert run(project, "-n", "2", "--snapshot-update").ret == 0
    assert "count: 4" in (project.path / "snapshots" / "_generated_train__gpu__default.yaml").read_text()


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
    warned.stdout.fnmatch_lines([
        "*= config-harness =*",
        "warning: 1 golden with no case: --snapshot-update removes it",
        "  snapshots/_generated_gone__case.yaml",
    ])
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
    result.stdout.re_match_lines([".*" + re.escape(line) for line in (
        "pyproject.toml::golden[train/gpu/default] FAILED",
        " golden[train/gpu/default] _",
        "device.count: 8 -> 4  (set by conf/backend/gpu.yaml:5)",
        " golden[train/gpu/fast] _",
        "FAILED pyproject.toml::golden[train/gpu/default] - device.count: 8 -> 4",
    )], consecutive=False)
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


CASE_TEST = re.compile(r"(?:_+ |FAILED \S+::)(?:golden|semantics)\[([^\]]+)\]")


def lines_per_failing_case(lines: list[str]) -> Counter[str]:
    """How many lines pytest prints about each failing case: its sections' headers and bodies, its short summary lines."""
    counted: Counter[str] = Counter()
    current = None
    for line in lines:
        match = CASE_TEST.match(line)
        if match:
            current = match.group(1)
        elif re.match(r"^(_{3,} |={3,} |-{3,} )", line):
            current = None  # another section: the run's, syrupy's, the short summary's title
        if current is not None:
            counted[current] += 1
            current = current if not line.startswith("FAILED ") else None
    return counted


def test_verl_two_edits_print_at_most_twelve_lines_per_failing_case(pytester: pytest.Pytester, capsys) -> None:
    """tensor_model_parallel_size 1 -> 2 in engine/megatron.yaml and gamma 1.0 -> 0.99: the issue's daily edit."""
    settings = copy_verl_project(pytester.path)
    megatron = pytester.path / "config" / "engine" / "megatron.yaml"
    megatron.write_text(megatron.read_text().replace("\ntensor_model_parallel_size: 1\n", "\ntensor_model_parallel_size: 2\n"))
    trainer = pytester.path / "config" / "ppo_trainer.yaml"
    trainer.write_text(trainer.read_text().replace("  gamma: 1.0\n", "  gamma: 0.99\n"))
    capsys.readouterr()
    assert main(["--settings", str(settings), "check"]) == 1
    waived = next(line for line in capsys.readouterr().out.splitlines() if "waived warnings on" in line)

    result = run(pytester, "--harness-settings", str(settings), str(settings))
    assert result.ret == 1
    counted = lines_per_failing_case(result.stdout.lines)
    assert len(counted) == 13 and max(counted.values()) <= 12, counted
    assert counted["ppo_trainer/megatron/default"] == 10  # 4 values + 2 contract errors, 2 headers, 2 summary lines
    result.stdout.fnmatch_lines([
        "*= config-harness =*",
        waived.replace(" (--verbose lists them)", " (`config-harness check --verbose` lists them)"),
        "Next: contract megatron-critical fails: fix the config, or change the contract at contracts.yaml:*",
        "Next: if these changes are intended: run `pytest --snapshot-update` and commit snapshots",
    ])
    assert "waived:" not in result.stdout.str()  # never per test
