"""What a reader's work grows by when its input doubles: CPU time (the process's, not the wall clock, so a busy
machine slows both sides alike), the fastest of a few runs at n, 2n and 4n. A linear reader doubles; a quadratic one
quadruples, an exponential one never ends. The tests allow 3x, between the two, so that noise on a shared machine
does not fail them; `make bench` (benchmarks/bench_budgets.py) holds the readers to 2.2x."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

LIMIT = 3.0


def cpu_seconds(work: Callable[[], Any], runs: int = 3) -> float:
    """The fastest of `runs` runs of `work`, in CPU-seconds of this process (the garbage collector off while timed:
    a full collection of the test process's heap would cost more than the work)."""
    best = float("inf")
    for _ in range(runs):
        gc.disable()
        try:
            start = time.process_time()
            work()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def worst_doubling(build: Callable[[int], Callable[[], Any]], start: int, runs: int = 3) -> float:
    """The larger of the two ratios of `build(n)`'s work at n -> 2n and 2n -> 4n (the input built before timing)."""
    times = [cpu_seconds(build(start * factor), runs) for factor in (1, 2, 4)]
    return max(later / max(earlier, 1e-4) for earlier, later in zip(times, times[1:]))
