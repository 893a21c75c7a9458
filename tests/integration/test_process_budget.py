"""The last line under every reader (issue 53 item 3): a review reads the pull request in a process of its own under the
operating system's limits on memory and CPU time, so an input no reader's budget foresaw is one blocking "unreadable:
over budget" finding, never a hang, an out-of-memory kill or exit 3. Real console-script runs on a minimal repository
whose pull request adds a launch script within every file budget that costs its reader seconds; the budget is lowered
through the trusted environment, as a test can (the default is far above verl's review: gates/budget.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.gates.budget import PROCESS_CPU_ENV, PROCESS_MEMORY_ENV, UNREADABLE
from tests.conftest import SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT
from tests.synthetic_history import git

ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
# 12,000 assignments each holding the one before it (254 KB, under the 256 KiB script budget): every value stops at the
# word budget, and the reader spends about 8 CPU-seconds on them.
HEAVY = "".join(f'v{i}="a b c $v{i - 1}"\n' for i in range(12_000)) + "python -m app.main trainer.name=x\n"


def review(repo: Path, *arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **environment, "CONFIG_HARNESS_CACHE_DIR": ""}
    command = [sys.executable, "-m", "harness", "diff", "--base", "main", *arguments]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def repository(root: Path) -> Path:
    """A small tree with one launch script, its goldens committed on `main`."""
    write_tree(root / "conf", SMALL_TREE)
    (root / "pyproject.toml").write_text(PYPROJECT + '\n[[tool.config-harness.commands]]\nglob = "scripts/*"\n')
    write_tree(root, {"app/__init__.py": "", "app/main.py": ENTRY, "scripts/launch": "python -m app.main trainer.name=run\n"})
    generated = subprocess.run([sys.executable, "-m", "harness", "generate"], cwd=root, capture_output=True, text=True)
    assert generated.returncode == 0, generated.stderr
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_a_review_whose_reading_goes_past_the_cpu_budget_is_one_blocking_finding(tmp_path):
    repo = repository(tmp_path)
    within = review(repo, "--format", "json", **{PROCESS_CPU_ENV: "3"})
    assert within.returncode == 0 and json.loads(within.stdout)["ok"], within.stdout[-2000:] + within.stderr[-2000:]
    (repo / "scripts" / "heavy.sh").write_text(HEAVY)
    report = tmp_path / "review.sarif"
    over = review(repo, "--format", "json", "--report", f"sarif:{report}", **{PROCESS_CPU_ENV: "3"})
    assert over.returncode == 1 and "Traceback" not in over.stderr, over.stderr[-2000:]
    document = json.loads(over.stdout)
    (finding,) = document["findings"]
    assert not document["ok"] and document["cases"] == [] and finding["severity"] == "error", document
    assert finding["message"].startswith(f"{UNREADABLE} the review went past its 3 CPU-seconds ({PROCESS_CPU_ENV})"), finding
    assert UNREADABLE in report.read_text()  # every --report says it too


def test_a_review_whose_reading_goes_past_the_memory_budget_is_one_blocking_finding(tmp_path):
    repo = repository(tmp_path)
    within = review(repo, **{PROCESS_MEMORY_ENV: "300"})  # a small review's process peaks near 60 MiB
    assert within.returncode == 0, within.stdout[-2000:] + within.stderr[-2000:]
    (repo / "scripts" / "heavy.sh").write_text(HEAVY)  # its reader holds about 300 MiB more
    over = review(repo, **{PROCESS_MEMORY_ENV: "300"})
    assert over.returncode == 1 and "Traceback" not in over.stderr, over.stderr[-2000:]
    lines = over.stdout.splitlines()
    assert lines[0] == "FAILED: 0 cases against git ref main; 1 blocking cause", over.stdout
    assert f"ERROR {UNREADABLE} the review went past its 300 MiB of memory ({PROCESS_MEMORY_ENV})" in over.stdout
