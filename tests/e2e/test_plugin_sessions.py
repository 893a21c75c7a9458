"""Real pytest sessions of tests/integration/test_plugin_workflow.py that belong to this tier: two xdist workers
(three processes) and verl's real tree (13 cases composed by the CLI and by pytest)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from harness.cli import main
from tests.conftest import copy_verl_project
from tests.e2e.adoption import WAIVED_CONTRACT, with_contracts
from tests.integration.test_plugin_workflow import project, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e


def test_two_workers_report_each_case_and_the_run_summary_as_one_process_does(project: pytest.Pytester) -> None:  # noqa: F811
    with_contracts(project.path, WAIVED_CONTRACT)
    result = run(project, "-n", "2")
    result.assert_outcomes(failed=4, passed=11)
    result.stdout.re_match_lines(
        [
            ".*" + re.escape(line)
            for line in (
                " golden[train/gpu/default] _",
                "device.count: 8 -> 4  (set by conf/backend/gpu.yaml:5)",
                "= config-harness =",
                "3 waived warnings on 3 cases, 1 distinct (`config-harness check --verbose` lists them)",
                "Next: if these changes are intended: run `pytest --config-harness --snapshot-update` and commit snapshots",
            )
        ]
    )
    assert run(project, "-n", "2", "--snapshot-update").ret == 0
    assert "count: 4" in (project.path / "snapshots" / "_generated_train__gpu__default.yaml").read_text()


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

    result = run(pytester, "--config-harness-settings", str(settings), str(settings))
    assert result.ret == 1
    counted = lines_per_failing_case(result.stdout.lines)
    assert len(counted) == 13 and max(counted.values()) <= 12, counted
    assert counted["ppo_trainer/megatron/default"] == 10  # 4 values + 2 contract errors, 2 headers, 2 summary lines
    result.stdout.fnmatch_lines(
        [
            "*= config-harness =*",
            waived.replace(" (--verbose lists them)", " (`config-harness check --verbose` lists them)"),
            "Next: contract megatron-critical fails: fix the config, or change the contract at contracts.yaml:*",
            "Next: if these changes are intended: run `pytest --config-harness --config-harness-settings *harness.toml --snapshot-update` and commit snapshots",
        ]
    )
    assert "waived:" not in result.stdout.str()  # never per test
