"""Spread a matrix over forked worker processes, whole bases per worker, results back in case order."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.composition.session import current
from harness.model.matrix import Case

# Cost of a case relative to a full compose: presets on a shared base are applied to a copy.
DERIVED_CASE_WEIGHT = 0.2


def plan_shards(cases: Sequence[Case], jobs: int) -> list[list[int]]:
    """Case indexes per worker: cases sharing a base stay together, and so do a route and its twin."""
    groups = base_groups(cases)
    bins: list[list[int]] = [[] for _ in range(max(1, min(jobs, len(groups))))]
    loads = [0.0] * len(bins)
    for group in sorted(groups, key=lambda g: (-weight(cases, g), g[0])):
        lightest = loads.index(min(loads))
        bins[lightest].extend(group)
        loads[lightest] += weight(cases, group)
    return [sorted(b) for b in bins if b]


def base_groups(cases: Sequence[Case]) -> list[list[int]]:
    """Case indexes grouped by the base they compose on, a route with its `same_as` twin (parity needs the twin's
    tree in the same process), in the order each group is first met."""
    index_of = {case.id: index for index, case in enumerate(cases)}
    parent = list(range(len(cases)))

    def find(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    first_of_base: dict[tuple[str, tuple[str, ...]], int] = {}
    for index, case in enumerate(cases):
        parent[find(index)] = find(first_of_base.setdefault((case.config_name, case.stem_overrides), index))
        if case.same_as in index_of:
            parent[find(index)] = find(index_of[case.same_as])
    groups: dict[int, list[int]] = {}
    for index in range(len(cases)):
        groups.setdefault(find(index), []).append(index)
    return list(groups.values())


def weight(cases: Sequence[Case], group: Sequence[int]) -> float:
    """What composing a group costs, in full composes: each base once, each preset on it a fraction."""
    bases = {(cases[i].config_name, cases[i].stem_overrides) for i in group}
    return len(bases) + DERIVED_CASE_WEIGHT * (len(group) - len(bases))


def default_jobs() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Forking is safe only where it exists and while this process runs a single thread."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


Work = Callable[[list[Case], Callable[[Case], None]], list[Any]]


@dataclass(frozen=True)
class _Handoff:
    """What forked workers inherit from the parent through the session: the work, the cases, a queue of finished ids."""

    work: Work
    cases: Sequence[Case]
    done: Any


def _run_shard(indexes: list[int]) -> list[Any]:
    handoff: _Handoff = current().handoff
    return handoff.work([handoff.cases[i] for i in indexes], lambda case: handoff.done.put(case.id))


def _serve_shard(position: int, indexes: list[int], results: Any) -> None:
    """In a forked worker: run one shard and send back its results, or the exception that stopped it."""
    try:
        # Pickled here, not in the queue's feeder thread: a result that cannot be pickled is an error the parent
        # raises, where the feeder would print it and drop the result, and the parent would wait for it forever.
        results.put((position, True, pickle.dumps(_run_shard(indexes))))
    except BaseException as error:  # re-raised in the parent, as a pool would
        try:
            pickle.dumps(error)
        except Exception:
            error = RuntimeError(f"{type(error).__name__}: {error}")
        results.put((position, False, error))


def map_shards(work: Work, cases: Sequence[Case], jobs: int, on_done: Callable[[Case], None] = lambda case: None) -> list[Any]:
    """`work(shard, done)` over shards of `cases`, in forked workers when that helps; one result per case, in
    case order. `work` calls `done(case)` as each case finishes, and `on_done` hears of it in this process."""
    # Never more workers than cores, whatever the settings ask: `jobs` comes from a file a pull request controls,
    # and each worker is a process (forty one-line engine files and `jobs = 100000` once forked forty-two).
    shards = plan_shards(cases, max(1, min(jobs, default_jobs())))
    if len(shards) < 2 or not can_fork():
        return work(list(cases), on_done)
    context = multiprocessing.get_context("fork")
    by_id = {case.id: case for case in cases}
    session = current()
    done = context.Queue()
    session.handoff = _Handoff(work, cases, done)
    results = context.Queue()
    shard_results: list[Any] = [None] * len(shards)
    # One forked process per shard (not a pool): every shard runs in a worker of its own, whatever the load.
    # Workers inherit the imported modules and the parse cache; nothing but results is pickled.
    workers = [context.Process(target=_serve_shard, args=(position, shard, results)) for position, shard in enumerate(shards)]
    try:
        for worker in workers:
            worker.start()
        pending = set(range(len(shards)))
        while pending:
            try:
                position, succeeded, value = results.get(timeout=0.05)
            except queue.Empty:
                _drain(done, by_id, on_done, wait=0.0)
                dead = [p for p in pending if not workers[p].is_alive() and workers[p].exitcode not in (0, None)]
                if dead and results.empty():
                    raise RuntimeError(f"a worker process died (exit code {workers[dead[0]].exitcode})") from None
                continue
            if not succeeded:
                raise value
            shard_results[position] = pickle.loads(value)  # our own worker's bytes, pickled in _serve_shard
            pending.discard(position)
    finally:
        for worker in workers:
            if worker.pid is None:
                continue  # never started (the system refused a process or a pipe): nothing to stop
            if worker.is_alive() and any(r is None for r in shard_results):
                worker.terminate()
            worker.join()
        session.handoff = None
    # Only now: a worker's last `done` may still be in its queue's feeder thread when its result arrives (seen on a
    # loaded machine); a worker that exited has flushed everything it put.
    _drain(done, by_id, on_done, wait=0.0)
    ordered: list[Any] = [None] * len(cases)
    for indexes, results in zip(shards, shard_results):
        for index, result in zip(indexes, results):
            ordered[index] = result
    return ordered


def _drain(done: Any, by_id: dict[str, Case], on_done: Callable[[Case], None], wait: float) -> None:
    try:
        while True:
            on_done(by_id[done.get(timeout=wait) if wait else done.get_nowait()])
    except queue.Empty:
        return


def beside(first: Callable[[], Any], second: Callable[[], Any], jobs: int) -> tuple[Any, Any]:
    """`first()` in a forked worker while this process runs `second()`, both results back (on one core, or where
    forking is not safe, one after the other). An exception in either is raised here, as map_shards raises it."""
    if jobs < 2 or default_jobs() < 2 or not can_fork():
        return first(), second()
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    session = current()
    session.handoff = first  # what the worker runs, inherited through the session (nothing is pickled but results)
    worker = context.Process(target=_serve_beside, args=(results,))
    worker.start()
    try:
        mine = second()
        while True:
            try:
                succeeded, value = results.get(timeout=0.05)
                break
            except queue.Empty:
                if not worker.is_alive() and worker.exitcode not in (0, None) and results.empty():
                    raise RuntimeError(f"a worker process died (exit code {worker.exitcode})") from None
        if not succeeded:
            raise value
        return value, mine
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join()
        session.handoff = None


def _serve_beside(results: Any) -> None:
    """In a forked worker: run the session's handed-off call and send back its result, or what stopped it."""
    try:
        results.put((True, current().handoff()))
    except BaseException as error:
        try:
            pickle.dumps(error)
        except Exception:
            error = RuntimeError(f"{type(error).__name__}: {error}")
        results.put((False, error))
