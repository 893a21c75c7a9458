"""The CLI and the pytest plugin are two shells over one engine: for the same edit they report the same findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.plugin import FINDINGS_PROPERTY
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, copy_verl_project, write_tree

CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/default"
    require: [device.map.qkv]
    equal: {trainer.lr: 0.1}
"""


def small_project(path: Path) -> Path:
    """The small tree with a contract, goldens generated, then edited: a value, an interpolation input, a removal."""
    write_tree(path / "conf", SMALL_TREE)
    (path / "contracts.yaml").write_text(CONTRACTS)
    settings = path / "harness.toml"
    settings.write_text('contracts = ["contracts.yaml"]\n' + SMALL_SETTINGS)
    assert main(["--settings", str(settings), "generate"]) == 0
    train = path / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))
    gpu = path / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", "    other: x\n"))
    return settings


def verl_project(path: Path) -> Path:
    """verl 0.9.1 with the project's settings, contracts and goldens, and one default changed in rollout.yaml."""
    settings = copy_verl_project(path)
    rollout = path / "config" / "rollout" / "rollout.yaml"
    rollout.write_text(rollout.read_text().replace("\ntemperature: 1.0\n", "\ntemperature: 0.7\n"))
    return settings


def canonical(findings: list[dict]) -> set[str]:
    return {json.dumps(finding, sort_keys=True, default=str) for finding in json.loads(json.dumps(findings, default=str))}


# verl_project: tests/e2e/test_one_engine_verl.py (verl's real tree, composed twice: the e2e tier).
@pytest.mark.parametrize("make_project", [small_project], ids=["small"])
def test_cli_and_plugin_report_the_same_findings_for_the_same_edit(pytester, capsys, make_project):
    settings = make_project(pytester.path)
    capsys.readouterr()
    assert main(["--settings", str(settings), "check", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    from_cli = {case["id"]: canonical(case["findings"]) for case in document["cases"]}
    assert any(from_cli.values())

    recorder = pytester.inline_run("--config-harness-settings", str(settings), "-p", "no:cacheprovider", str(settings))
    from_plugin: dict[str, set[str]] = {case_id: set() for case_id in from_cli}
    for report in recorder.getreports("pytest_runtest_logreport"):
        if report.when != "call" or "[" not in report.nodeid:
            continue
        case_id = report.nodeid[report.nodeid.index("[") + 1 : -1]
        for name, findings in report.user_properties:
            if name == FINDINGS_PROPERTY:
                from_plugin[case_id] |= canonical(findings)
    assert from_plugin == from_cli
    kinds = {json.loads(f)["kind"] for findings in from_cli.values() for f in findings}
    if make_project is small_project:
        assert {"changed", "effective", "removed", "contract"} <= kinds  # values, interpolations, provenance, rules
        assert any(json.loads(f)["source"] for f in from_cli["train/cpu/default"])


STALE_WAIVER = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
waivers:
  - contract: gpu-critical
    path: device.map.qkv
    reason: kept after the fix
"""


@pytest.mark.parametrize("strict", [False, True], ids=["warning", "strict"])
def test_a_stale_waiver_fails_pytest_exactly_as_it_fails_check(pytester: pytest.Pytester, strict: bool) -> None:
    """The run-level findings (here a waiver that excuses nothing) come from one engine in both shells."""
    write_tree(pytester.path / "conf", SMALL_TREE)
    (pytester.path / "contracts.yaml").write_text(STALE_WAIVER)
    pyproject = (
        "[tool.config-harness]\n"
        + 'contracts = ["contracts.yaml"]\n'
        + SMALL_SETTINGS.replace("[presets]", "[tool.config-harness.presets]").replace("[[routes]]", "[[tool.config-harness.routes]]")
    )
    (pytester.path / "pyproject.toml").write_text(pyproject)
    settings = ["--settings", str(pytester.path / "pyproject.toml")]
    assert main([*settings, "generate"]) == 0
    flag = ["--strict-waivers"] if strict else []
    check_code = main([*settings, "check", "--format", "json", *flag])
    message = "gpu-critical: waiver no longer needed: no case violates device.map.qkv"

    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *(["--config-harness-strict-waivers"] if strict else []))
    assert (check_code, result.ret) == ((1, pytest.ExitCode.TESTS_FAILED) if strict else (0, pytest.ExitCode.OK))
    if strict:  # an error: the run test fails with it
        result.assert_outcomes(failed=1, passed=14)
        # pytest 8 ends a failed test's short summary line at its id; 9 adds the first line of the failure.
        summary = "FAILED pyproject.toml::run" + (" - *waiver no longer*" if pytest.version_tuple >= (9,) else "")
        result.stdout.fnmatch_lines(["*_ run _*", f"{message}*", summary])
    else:  # a warning: once, in the run's summary section
        result.stdout.fnmatch_lines(["*= config-harness =*", f"warning: {message}*"])
