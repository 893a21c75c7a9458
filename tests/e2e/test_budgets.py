"""The speed budgets CI runs (benchmarks/budgets.py, issue 52) are counted in CPU-seconds of the whole process tree
and fail a slowed build: every Python process of the run made to burn 2.5 CPU-seconds as it starts (a
`sitecustomize` on PYTHONPATH, the build itself untouched) passes the warm check's budget, and says by how much."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("budgets")]

SLOW = "import time\nend = time.process_time() + 2.5\nwhile time.process_time() < end:\n    pass\n"


def budgets(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "benchmarks/budgets.py", "--runs", "1", "--only", "verl-warm"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_a_slowed_build_fails_the_warm_check_budget_with_its_figure(tmp_path: Path):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    normal = budgets(env)
    assert normal.returncode == 0, normal.stdout + normal.stderr
    assert "budget verl-warm: " in normal.stdout and "(ok)" in normal.stdout
    (tmp_path / "sitecustomize.py").write_text(SLOW)
    slowed = budgets({**env, "PYTHONPATH": str(tmp_path)})
    assert slowed.returncode == 1, slowed.stdout + slowed.stderr
    figure = float(slowed.stderr.split("verl-warm used ")[1].split(" CPU-s")[0])
    assert figure > 2.5 and "over its budget of 2.00" in slowed.stderr
