"""Speed budgets counted in work, not wall time (issue 52): CPU-seconds of each command's whole process tree (user +
system of the process and every child it waited for, Python's RUSAGE_CHILDREN), so a verdict does not change with
how busy the machine is. `.ci/run` runs it (`make budgets`); it fails naming the figure that passed its budget.

    python benchmarks/budgets.py [--runs 3] [--only NAME ...]

Each measurement is the median of `--runs` runs after one run that warms the cache (the cache is a scratch folder
of its own). Budgets are about twice what a quiet 2-core machine measures (benchmarks/README.md), so noise passes
and a collapse (a warm run doing a cold run's work again, issue 52's 8x) does not:

- `version`: `config-harness --version`, what every run pays before any work (imports);
- `verl-warm`: `check` of this project's 13 verl cases, nothing changed;
- `scale-warm`: `check` of the 1,000-case synthetic tree (25 engines x 40 presets), nothing changed;
- `scale-edit`: the same after one engine's file changed (40 cases judged again; alternately two values, so
  every run sees an edit);
- `verl-review`: a warm review (`diff --base main`) of a one-file change on a git repository holding this
  project's verl tree, goldens and contracts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

HARNESS = [sys.executable, "-m", "harness"]
# CPU-seconds; the quiet machine's figures are in benchmarks/README.md.
BUDGETS = {"version": 1.0, "verl-warm": 2.0, "scale-warm": 3.0, "scale-edit": 6.0, "verl-review": 6.0}


def cpu_seconds(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """CPU-seconds of `command`'s process tree: a child of a fresh interpreter, so the counter holds it alone."""
    measure = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(usage.ru_utime + usage.ru_stime)\n"
    )
    out = subprocess.run([sys.executable, "-c", measure, *command], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def environment(cache: Path) -> dict[str, str]:
    env = dict(os.environ, CONFIG_HARNESS_CACHE_DIR=str(cache))
    env.pop("CONFIG_HARNESS_CACHE_KEY", None)
    return env


def median_of(runs: int, command: list[str], cwd: Path, env: dict[str, str], before: Callable[[], None] = lambda: None) -> float:
    """The median CPU-seconds of `runs` runs, after one warming run (each run preceded by `before`)."""
    before()
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    figures = []
    for _ in range(runs):
        before()
        figures.append(cpu_seconds(command, cwd, env))
    return statistics.median(figures)


def verl_project(folder: Path) -> Path:
    """A git repository holding this project's verl tree, goldens and contracts (tests/conftest.py's copy), committed."""
    from tests.conftest import copy_verl_project

    copy_verl_project(folder)
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"]):
        subprocess.run(["git", *command], cwd=folder, check=True)
    return folder


def measure(name: str, runs: int, scratch: Path) -> float:
    cache = scratch / "cache"
    env = environment(cache)
    if name == "version":
        return median_of(runs, [*HARNESS, "--version"], ROOT, env)
    if name == "verl-warm":
        return median_of(runs, [*HARNESS, "check"], ROOT, env)
    if name in ("scale-warm", "scale-edit"):
        from bench_matrix import synthetic_project

        settings = synthetic_project(scratch / "scale", 25, 40)
        subprocess.run([*HARNESS, "--settings", str(settings), "generate", "--quiet"], cwd=settings.parent, env=env, check=True)
        engine = settings.parent / "conf" / "engine" / "e3.yaml"
        original = engine.read_text()
        flip = iter(range(10**6))

        def edit() -> None:
            engine.write_text(original.replace("engine_key_0: 300", f"engine_key_0: {300 + next(flip) % 2}"))

        return median_of(
            runs,
            [*HARNESS, "--settings", str(settings), "check", "--quiet"],
            settings.parent,
            env,
            edit if name == "scale-edit" else lambda: None,
        )
    if name == "verl-review":
        project = verl_project(scratch / "verl")
        actor = project / "config" / "actor" / "actor.yaml"
        actor.write_text(actor.read_text() + "\n# a one-file change\n")
        text = actor.read_text()
        actor.write_text(text.replace("ppo_epochs: 1", "ppo_epochs: 2", 1))
        subprocess.run([*HARNESS, "--settings", "harness.toml", "generate", "--quiet"], cwd=project, env=env, check=False)
        return median_of(runs, [*HARNESS, "--settings", "harness.toml", "diff", "--base", "main"], project, env)
    raise ValueError(f"no budget named {name!r}; the budgets: {', '.join(BUDGETS)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=list(BUDGETS), help="the budgets to measure (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    figures = {}
    failed = []
    for name in args.only:
        scratch = Path(tempfile.mkdtemp(prefix=f"budget-{name}-"))
        try:
            figures[name] = measure(name, args.runs, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        verdict = "ok" if figures[name] <= BUDGETS[name] else "OVER BUDGET"
        if verdict != "ok":
            failed.append(name)
        if not args.json:
            print(f"budget {name}: {figures[name]:.2f} CPU-s of {BUDGETS[name]:.2f} ({verdict})", flush=True)
    if args.json:
        print(json.dumps({"figures": figures, "budgets": BUDGETS, "load": load, "cores": os.cpu_count()}))
    else:
        print(f"budgets: {len(figures) - len(failed)} of {len(figures)} within budget (load average {load:.1f}, {os.cpu_count()} cores)")
    for name in failed:
        print(f"budgets: {name} used {figures[name]:.2f} CPU-s, over its budget of {BUDGETS[name]:.2f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
