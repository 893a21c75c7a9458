"""Time the review of verl PR #5848 on the adopted parent (issue 29), with all of verl's launches.

verl's whole repository (../shared/data/verl-full.bundle) is adopted at `pr5848-parent` with the README's commands
and a maintainer's contracts, the PR's own diff is applied on a branch, and `diff --base adopted` is timed: cold (an
empty cache: every config parsed, the base extracted and its launches composed) and warm (the cache the first run
filled). Targets: warm <= 5 s, cold <= 10 s on the project's 2-core machine. Wall time and the process's CPU time
(user + system) are both printed: on a busy machine only the CPU time says what the run costs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT.parent / "shared" / "data" / "verl-full.bundle"
sys.path.insert(0, str(ROOT))
from tests.e2e.test_day_one import CONTRACTS  # noqa: E402 - the maintainer's contracts of the e2e test, one copy


def git(repo: Path, *args: str, **options: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@b", *args], check=True, capture_output=True, **options
    )  # type: ignore[call-overload]


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system of the child) and the exit code of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not BUNDLE.is_file():
        print(f"bench_review: {BUNDLE} is absent; skipped")
        return 0
    harness = str(Path(sys.executable).parent / "config-harness")
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch) / "verl"
        subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(repo)], check=True)
        git(repo, "checkout", "-q", "-b", "adopted", "pr5848-parent")
        (repo / "config-harness").mkdir()
        (repo / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(scratch) / "adopt-cache")}
        subprocess.run(
            [harness, "init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"],
            cwd=repo,
            env=env,
            check=True,
            capture_output=True,
        )
        subprocess.run([harness, "generate"], cwd=repo, env=env, check=True, capture_output=True)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "adopt")
        git(repo, "checkout", "-q", "-b", "pr")
        diff = git(repo, "diff", "--binary", "pr5848-parent", "pr5848", "--", ".", ":!pyproject.toml").stdout
        subprocess.run(["git", "-C", str(repo), "apply", "--index"], input=diff, check=True)
        git(repo, "commit", "-q", "-m", "PR #5848")
        command = [harness, "diff", "--base", "adopted"]
        cold, warm = [], []
        for run in range(args.runs):
            env = {**os.environ, "XDG_CACHE_HOME": str(Path(scratch) / f"cache-{run}")}
            cold.append(timed(command, repo, env))
            warm.append(timed(command, repo, env))
        for label, runs in (("cold", cold), ("warm", warm)):
            walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
            print(
                f"review of verl PR #5848 on the adopted parent, {label}: median {statistics.median(walls):.2f} s wall "
                f"(min {min(walls):.2f}, max {max(walls):.2f}), {statistics.median(cpus):.2f} CPU-s; exit {runs[0][2]}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
