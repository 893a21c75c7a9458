"""The mutation run (`make mutation`: mutmut over harness/model and harness/rules, judged by their unit tests) scores
at least the floor of scripts/mutation_score.py, and the script fails a score under it."""

from __future__ import annotations

import json
import os
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


def test_the_mutation_run_scores_at_least_the_floor():
    # The run is pytest inside pytest: the outer session's variables (xdist's worker, coverage's hooks) stay outside.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "COV_CORE_"))}
    run = subprocess.run(["make", "mutation"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mutation score " in run.stdout and run.stdout.rstrip().endswith(": ok"), run.stdout
