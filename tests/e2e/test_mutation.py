"""The mutation run's floor: scripts/mutation_score.py fails a score under it and names it. The run itself
(`make mutation`: mutmut over harness/model and harness/rules, judged by their unit tests) is a step of its own in
.ci/run, after the e2e tier: inside the tier's two xdist workers its two children shared the cores with every other
e2e test and doubled the tier's time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("mutation")]


def score_of(stats: dict[str, int], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "stats.json").write_text(json.dumps(stats), encoding="utf-8")
    command = [sys.executable, "scripts/mutation_score.py", str(tmp_path / "stats.json")]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_score_under_the_floor_fails_and_names_it(tmp_path: Path):
    low = score_of({"total": 100, "killed": 40, "timeout": 2, "survived": 50, "no_tests": 8, "skipped": 0}, tmp_path)
    assert low.returncode == 1 and "mutation score 42.0% (40 killed, 2 timed out, 58 survived of 100 tested" in low.stdout
    high = score_of({"total": 110, "killed": 95, "timeout": 0, "survived": 5, "no_tests": 0, "skipped": 10}, tmp_path)
    assert high.returncode == 0 and "mutation score 95.0%" in high.stdout, high.stdout
