"""`check` at scale (issue 46): the synthetic tree of E engines x P presets at 1,000, 4,000 and 10,000 cases.

For each size: `check` cold (an empty cache), warm (nothing changed), after a one-file edit (one engine's file: the
cases of that engine recompose), each with the peak memory of the whole process tree (the parent and its workers,
summed, sampled every 20 ms); at the largest size also the sharded runs (`--shard K/N`, N = 2 and 4, each shard cold
on an empty cache of its own, as a fresh CI runner is) and `merge` of their JSON results. Not part of `make test`:

    python benchmarks/bench_scale.py [--sizes 1000 4000 10000] [--shards 2 4] [--jobs 2]

Targets on 2 cores: 10,000 cases cold <= 60 s, warm <= 5 s, peak memory <= 500 MB, growth 1,000 -> 10,000 <= 11x,
each of 4 shards <= 30% of the unsharded cold time, the merge <= 2 s. Prints a table and the targets met or not.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_matrix import synthetic_project  # noqa: E402

HARNESS = [sys.executable, "-m", "harness"]
PRESETS = 100  # each size is ENGINES x 100 presets


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants, from /proc."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/statm") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    stack += [int(child) for child in children.read().split()]
        except (OSError, ValueError):
            continue
    return total


def measured(command: list[str], cwd: Path, env: dict[str, str], stdout: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (the process and its workers: user + system) and peak MiB of the process tree."""
    with open(stdout or os.devnull, "w") as out, tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=errors)
        peak, done = [0], threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss(child.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(child.pid, 0)  # its rusage counts the workers it reaped
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            errors.seek(0)
            sys.exit(f"bench: {' '.join(command)} exited {code}: {errors.read().decode()[-800:]}")
    return seconds, usage.ru_utime + usage.ru_stime, peak[0] / 2**20


def environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(cache), "CI": "true"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 10000])
    parser.add_argument("--shards", type=int, nargs="*", default=[2, 4])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes per run (a 2-core runner: 2)")
    parser.add_argument("--shard-size", type=int, help="the size the shards and the merge run at (default: the largest)")
    parser.add_argument("--no-edit-at", type=int, nargs="*", default=[], help="sizes measured cold and warm only")
    args = parser.parse_args()
    rows: dict[int, dict[str, tuple[float, float, float]]] = {}
    shard_rows: list[tuple[int, list[float], float, float]] = []
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'cases':>6} {'run':<14} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}", flush=True)
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
            folder = Path(scratch) / "project"
            folder.mkdir()
            settings = synthetic_project(folder, size // PRESETS, PRESETS)
            base = [*HARNESS, "--settings", str(settings), "--jobs", str(args.jobs)]
            cache = Path(scratch) / "cache"
            measured([*base, "--no-cache", "generate", "--quiet"], folder, environment(cache))
            row = rows[size] = {}
            engine = folder / "conf" / "engine" / "e1.yaml"
            for name in ("cold", "warm", "one-file edit")[: 2 if size in args.no_edit_at else 3]:
                if name == "one-file edit":
                    engine.write_text(engine.read_text().replace("engine_key_0: 100", "engine_key_0: 101"))
                row[name] = seconds, cpu, peak = measured([*base, "check", "--quiet"], folder, environment(cache))
                print(f"{size:>6} {name:<14} {seconds:>8.1f} {cpu:>8.1f} {peak:>9.0f}", flush=True)
            if size != (args.shard_size or max(args.sizes)):
                continue
            engine.write_text(engine.read_text().replace("engine_key_0: 101", "engine_key_0: 100"))
            for count in args.shards:
                seconds_each, results = [], []
                peak_shards = 0.0
                for index in range(1, count + 1):
                    result = Path(scratch) / f"shard-{index}-of-{count}.json"
                    fresh = Path(scratch) / f"cache-{index}-of-{count}"  # a fresh runner: an empty cache
                    seconds, cpu, peak = measured(
                        [*base, f"--shard={index}/{count}", "check", "--format", "json"], folder, environment(fresh), result
                    )
                    seconds_each.append(seconds)
                    peak_shards = max(peak_shards, peak)
                    results.append(str(result))
                    print(f"{size:>6} {f'shard {index}/{count}':<14} {seconds:>8.1f} {cpu:>8.1f} {peak:>9.0f}", flush=True)
                merge_seconds, merge_cpu, merge_peak = measured([*HARNESS, "merge", *results, "--quiet"], folder, environment(cache))
                print(f"{size:>6} {f'merge of {count}':<14} {merge_seconds:>8.1f} {merge_cpu:>8.1f} {merge_peak:>9.0f}", flush=True)
                shard_rows.append((count, seconds_each, merge_seconds, peak_shards))
    largest, smallest = max(rows), min(rows)
    cold = rows[largest]["cold"][0]
    print("\ntargets (2 cores):")
    checks = [
        (f"{largest} cases cold <= 60 s", cold, cold <= 60),
        (f"{largest} cases warm <= 5 s", rows[largest]["warm"][0], rows[largest]["warm"][0] <= 5),
        (
            "peak memory <= 500 MB",
            max(p for r in rows.values() for *_, p in r.values()),
            max(p for r in rows.values() for *_, p in r.values()) <= 500,
        ),
    ]
    if largest != smallest:
        growth = cold / rows[smallest]["cold"][0]
        checks.append(
            (f"growth {smallest} -> {largest} cold <= {largest / smallest * 1.1:.0f}x", growth, growth <= largest / smallest * 1.1)
        )
    sharded = args.shard_size or largest
    for count, seconds_each, merge_seconds, _ in shard_rows:
        if count == 4:
            share = max(seconds_each) / rows[sharded]["cold"][0]
            checks.append((f"longest of 4 shards <= 30% of unsharded cold ({sharded} cases)", share, share <= 0.30))
        checks.append((f"merge of {count} <= 2 s", merge_seconds, merge_seconds <= 2))
    for what, value, met in checks:
        print(f"  {'met    ' if met else 'MISSED '} {what}: {value:.2f}")
    print(f"load average after: {os.getloadavg()[0]:.1f} (wall seconds on a loaded machine grow with the load; CPU seconds less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
