"""The findings about a run as a whole are the same data from both shells: `check --format json`'s top-level
`findings` and the plugin's run test (its recorded findings), compared as kinds, paths and severities, never as text."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.cli import main
from harness.plugin import FINDINGS_PROPERTY
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree

# Contract files that do less than they seem to, each a run-level finding: a duplicate name, a glob that matches no
# case, a waiver no rule names, a waiver that excuses nothing, a known entry that excuses nothing.
CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
  - name: gpu-critical
    cases: "legacy/*"
    equal: {trainer.lr: 0.1}
waivers:
  - contract: gpu-critical
    path: device.map.qkv
    reason: kept after the fix
  - contract: gpu-critical
    path: trainer.epochs
    reason: a path no rule names
  - finding: fallback
    path: trainer.gone_flag
    source: conf/train.yaml
    reason: known at adoption
"""
# A route whose root has no `_self_` in its defaults list: Hydra warns, and the warning is said once for the run.
EVAL = "defaults:\n  - train\nsplit: test\n"
ROUTE = '\n[[routes]]\nname = "eval"\nconfig_name = "eval"\n'


def project(path: Path) -> Path:
    write_tree(path / "conf", {**SMALL_TREE, "eval.yaml": EVAL})
    (path / "contracts.yaml").write_text(CONTRACTS)
    settings = path / "harness.toml"
    settings.write_text('contracts = ["contracts.yaml"]\n' + SMALL_SETTINGS + ROUTE)
    assert main(["--settings", str(settings), "generate"]) == 0
    return settings


def shape(findings: list[dict]) -> Counter:
    return Counter((f["kind"], f["path"], f["severity"], f.get("status")) for f in findings)


def test_both_shells_report_the_same_run_level_findings(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    settings = project(pytester.path)
    capsys.readouterr()
    assert main(["--settings", str(settings), "check", "--format", "json"]) == 0  # warnings only
    from_cli = json.loads(capsys.readouterr().out)["findings"]

    recorder = pytester.inline_run("--config-harness-settings", str(settings), "-p", "no:cacheprovider", str(settings))
    (run,) = [r for r in recorder.getreports("pytest_runtest_logreport") if r.when == "call" and r.nodeid.endswith("::run")]
    assert run.passed
    (from_plugin,) = [findings for name, findings in run.user_properties if name == FINDINGS_PROPERTY]

    assert shape(from_plugin) == shape(from_cli)
    assert shape(from_cli) == Counter(
        {
            ("contract", "", "warning", None): 2,  # the duplicate name; `legacy/*` matches no case
            ("contract", "trainer.epochs", "warning", None): 2,  # a waiver for a path no rule names, which excuses nothing
            ("contract", "device.map.qkv", "warning", None): 1,  # a waiver that excuses nothing
            ("contract", "trainer.gone_flag", "warning", None): 1,  # a known entry that excuses nothing
            ("hydra_warning", "", "warning", None): 1,  # once for the run, not once per case
        }
    )
    assert [f["source"] for f in from_plugin if f["kind"] == "hydra_warning"] == [
        f["source"] for f in from_cli if f["kind"] == "hydra_warning"
    ]
