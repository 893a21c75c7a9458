"""Benchmark `config-harness log` over a synthetic year of history: verl 0.7.1, 0.8.0 and 0.9.1 committed
from their PyPI wheels, then a few hundred small edits (a quarter of them change the tracked key).

    python benchmarks/bench_log.py [--edits 300] [--runs 3]

Each run uses an empty cache (a fresh CI machine); the result is checked against the commits built.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.synthetic_history import CASE, KEY, build  # noqa: E402


def main() -> int:
    """Build the history once, time `log` on it, print one line per run and the median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=int(os.environ.get("BENCH_LOG_EDITS", 300)))
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_REPEAT", 3)))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        history = build(Path(scratch) / "repo", ROOT / ".cache", arguments.edits)
        commits = len(history.releases) + len(history.edits)
        print(f"log benchmark: {commits} commits built in {time.perf_counter() - started:.1f} s")
        timings = []
        for run in range(arguments.runs):
            env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(Path(scratch) / f"cache-{run}")}
            started = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-m", "harness", "log", KEY, "--case", CASE, "--format", "json"],
                cwd=history.repository,
                capture_output=True,
                text=True,
                env=env,
            )
            timings.append(time.perf_counter() - started)
            if completed.returncode != 0:
                print(completed.stderr, file=sys.stderr)
                return 1
            changes = json.loads(completed.stdout)["changes"]
            found = {c["commit"] for c in changes} & set(history.edits)
            assert found == set(history.key_changes), "log missed or invented a change"
            print(f"  run {run + 1}: {timings[-1]:.2f} s, {len(changes)} changes")
        print(
            f"log over {commits} commits: median {statistics.median(timings):.2f} s "
            f"({statistics.median(timings) / commits * 1000:.0f} ms per commit), cold cache each run"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
