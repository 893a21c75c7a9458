"""The plugin's tests spread over `pytest -n auto` (workers of their own: this tier) give the serial run's results,
test by test, failure text included; and the shards of `--config-harness-shard K/N` together are the serial run
(issue 46 item 4)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from tests.e2e.adoption import STALE_WAIVER, WAIVED_CONTRACT, with_contracts
from tests.integration.test_plugin_workflow import project, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e

CONTRACTS = WAIVED_CONTRACT + STALE_WAIVER


def _outcomes(report: Path) -> dict[str, tuple[str, str]]:
    """Each test of a JUnit report: its outcome and its failure text."""
    found = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        failure = case.find("failure")
        outcome = "failed" if failure is not None else "skipped" if case.find("skipped") is not None else "passed"
        found[case.get("name", "")] = (outcome, "" if failure is None else (failure.text or failure.get("message", "")))
    return found


def _changed_project(project: pytest.Pytester) -> None:  # noqa: F811
    with_contracts(project.path, CONTRACTS)
    train = project.path / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))


def test_n_auto_gives_the_serial_results_test_by_test(project: pytest.Pytester) -> None:  # noqa: F811
    _changed_project(project)
    run(project, f"--junitxml={project.path / 'serial.xml'}")
    run(project, "-n", "auto", f"--junitxml={project.path / 'spread.xml'}")
    serial, spread = _outcomes(project.path / "serial.xml"), _outcomes(project.path / "spread.xml")
    assert any(outcome == "failed" for outcome, _ in serial.values()) and "run" in serial
    assert spread == serial


def test_the_shards_together_are_the_serial_run(project: pytest.Pytester) -> None:  # noqa: F811
    _changed_project(project)
    run(project, f"--junitxml={project.path / 'serial.xml'}")
    serial = _outcomes(project.path / "serial.xml")
    together: dict[str, tuple[str, str]] = {}
    for index in (1, 2, 3):
        run(project, f"--config-harness-shard={index}/3", f"--junitxml={project.path / f'shard{index}.xml'}")
        shard = _outcomes(project.path / f"shard{index}.xml")
        shard.pop("run")  # each shard judges its own part of the run; stale waivers only a whole run judges
        assert not set(shard) & set(together)
        together.update(shard)
    serial.pop("run")
    assert together == serial
