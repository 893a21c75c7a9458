"""Time the review of verl PR #5848 on the adopted parent against `check` of the same tree (issues 29 and 45).

verl's whole repository (../shared/data/verl-full.bundle) is adopted at `pr5848-parent` with the README's commands
and a maintainer's contracts, and the PR's own diff is applied on a branch. Each run, in caches of its own:

- `check` of that tree, cold (an empty cache) then warm;
- `diff --base adopted` (the review), cold then warm;
- a change of one config file (`actor/megatron_actor.yaml`, read only by the megatron cases and launches) on another
  branch: `check`, then the review (a base it has not seen: it reuses what `check` composed and composes again at the
  base only what reads that file; its stderr line says how many), then the review warm; `check` warm on it too, for
  issue 52's target: the first review of a one-file change at most 2x a warm check.

Printed: the machine (cores, load average before and after), each step's median wall and CPU seconds (user + system
of the process and its workers, git included), and warm review / warm check. Targets (issue 45): warm review at most
1.5x a warm `check`; issue 29: warm review <= 5 s, cold <= 10 s wall on 2 cores. On a busy machine only the CPU
seconds say what a run costs. `make bench-review` runs it; `--runs N` repeats (3 by default).
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
sys.path.insert(0, str(ROOT))
from tests.e2e.real_trees import SHARED_DATA  # noqa: E402 - where the e2e tests find the bundles (CONFIG_HARNESS_TEST_DATA)
from tests.e2e.test_day_one import CONTRACTS  # noqa: E402 - the maintainer's contracts of the e2e test, one copy

BUNDLE = SHARED_DATA / "verl-full.bundle"

ONE_FILE = "verl/trainer/config/actor/megatron_actor.yaml"


def git(repo: Path, *args: str, **options: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@b", *args], check=True, capture_output=True, **options
    )  # type: ignore[call-overload]


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (user + system of the child and its children) and the exit code of one run, and
    the last line it wrote to stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    said = done.stderr.strip().splitlines()
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode, said[-1] if said else ""


def adopted_repository(scratch: Path, harness: str) -> Path:
    """verl at pr5848-parent adopted (branch `adopted`), PR #5848 on branch `pr`, a one-file change on `one-file`."""
    repo = scratch / "verl"
    subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(repo)], check=True)
    git(repo, "checkout", "-q", "-b", "adopted", "pr5848-parent")
    (repo / "config-harness").mkdir()
    (repo / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "adopt-cache")}
    init = [harness, "init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"]
    subprocess.run(init, cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run([harness, "generate"], cwd=repo, env=env, check=True, capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "adopt")
    git(repo, "checkout", "-q", "-b", "one-file")
    edited = repo / ONE_FILE
    edited.write_text(edited.read_text().replace("load_weight: True", "load_weight: False", 1))
    git(repo, "commit", "-q", "-am", "one config file")
    git(repo, "checkout", "-q", "-b", "pr", "adopted")
    diff = git(repo, "diff", "--binary", "pr5848-parent", "pr5848", "--", ".", ":!pyproject.toml").stdout
    subprocess.run(["git", "-C", str(repo), "apply", "--index"], input=diff, check=True)
    git(repo, "commit", "-q", "-m", "PR #5848")
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not BUNDLE.is_file():
        print(f"bench_review: {BUNDLE} is absent; skipped")
        return 0
    harness = str(Path(sys.executable).parent / "config-harness")
    check, review = [harness, "check"], [harness, "diff", "--base", "adopted"]
    steps: dict[str, list[tuple[float, float, int, str]]] = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        repo = adopted_repository(scratch, harness)
        for run in range(args.runs):
            git(repo, "checkout", "-q", "pr")
            for name, command, cache in (
                ("check cold", check, "check"),
                ("check warm", check, "check"),
                ("review cold", review, "review"),
                ("review warm", review, "review"),
            ):
                env = {**os.environ, "XDG_CACHE_HOME": str(scratch / f"{cache}-{run}")}
                steps.setdefault(name, []).append(timed(command, repo, env))
            git(repo, "checkout", "-q", "one-file")
            env = {**os.environ, "XDG_CACHE_HOME": str(scratch / f"one-file-{run}")}
            for name, command in (
                ("one file: check cold", check),
                ("one file: check warm", check),
                ("one file: review after check", review),
                ("one file: review warm", review),
            ):
                steps.setdefault(name, []).append(timed(command, repo, env))
    load_after = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores (nproc), load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'step (verl PR #5848 at the adopted parent)':<34} {'wall s':>7} {'min':>6} {'max':>6} {'CPU s':>7}  exit")
    medians = {}
    for name, runs in steps.items():
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        medians[name] = (statistics.median(walls), statistics.median(cpus))
        print(f"{name:<34} {medians[name][0]:7.2f} {min(walls):6.2f} {max(walls):6.2f} {medians[name][1]:7.2f}  {runs[0][2]}")
        if name.startswith("one file: review"):
            print(f"    {runs[-1][3]}")
    wall, cpu = (medians["review warm"][i] / medians["check warm"][i] for i in (0, 1))
    print(f"warm review / warm check: {wall:.2f}x wall, {cpu:.2f}x CPU (target: at most 1.5x)")
    wall, cpu = (medians["one file: review after check"][i] / medians["one file: check warm"][i] for i in (0, 1))
    print(f"first review of a one-file change / warm check: {wall:.2f}x wall, {cpu:.2f}x CPU (target: at most 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
