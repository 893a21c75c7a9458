"""Spread a matrix over forked worker processes, whole bases per worker, results back in case order; and run a review
in a forked process under the operating system's limits (`within_budget`)."""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import queue
import resource
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.composition.session import current
from harness.gates.budget import PROCESS_CPU_ENV, PROCESS_MEMORY_ENV, ProcessBudget, ProcessBudgetExceeded
from harness.gates.errors import BadInput, bad_input_line
from harness.gates.reader import asked, note_asked
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


def machine_memory_mib() -> int | None:
    """The machine's memory in MiB, or None where the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)
    except (ValueError, OSError):  # pragma: no cover - not Linux
        return None


def review_budget() -> ProcessBudget:
    """The budget of each process of a review on this machine: the reading one and the workers it forks share its
    memory (gates.budget says why)."""
    return ProcessBudget.of(os.environ, machine_memory_mib(), default_jobs() + 1)


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
        # With what it read (gates.reader.asked): a kept run checks those files again (harness.runner.kept_runs).
        results.put((position, True, pickle.dumps((_run_shard(indexes), asked()))))
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
                    raise _worker_died(workers[dead[0]].exitcode) from None
                continue
            if not succeeded:
                raise value
            shard_results[position], read = pickle.loads(value)  # our own worker's bytes, pickled in _serve_shard
            note_asked(read)
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
                    raise _worker_died(worker.exitcode) from None
        if not succeeded:
            raise value
        value, read = value
        note_asked(read)
        return value, mine
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join()
        session.handoff = None


def _serve_beside(results: Any) -> None:
    """In a forked worker: run the session's handed-off call and send back its result, or what stopped it."""
    try:
        results.put((True, (current().handoff(), asked())))
    except BaseException as error:
        try:
            pickle.dumps(error)
        except Exception:
            error = RuntimeError(f"{type(error).__name__}: {error}")
        results.put((False, error))


def within_budget(work: Callable[[], Any], budget: ProcessBudget) -> Any:
    """`work()` in a forked child process under `budget` (the operating system limits its address space and CPU time,
    and those of every process it starts), its result back here; ProcessBudgetExceeded when it went past either, or was stopped
    by a signal while reading (a parser in C that met the memory limit aborts); any other exception it raises is
    raised here. The child runs in a process group of its own, stopped whole when it ends, and makes its temporary
    folders in one of this session's. Its standard output and error reach this process's (through the file
    descriptors, or held and written here when those are not files). Where forking is not safe, `work()` runs here."""
    if not can_fork():
        return work()
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    session = current()
    scratch = session.scratch_folder("config-harness-review-")
    session.handoff = work
    worker = context.Process(target=_serve_budgeted, args=(writer, budget, str(scratch)))
    payload = None
    try:
        worker.start()
        writer.close()  # the child's end only: a child that dies mid-result is an end of file here, never a wait
        while not reader.poll(0.05) and worker.is_alive():
            pass
        try:
            payload = reader.recv_bytes()
        except EOFError:
            payload = None
        worker.join()
    finally:
        if worker.pid is not None:
            _stop_group(worker.pid)
            worker.join()
        reader.close()
        session.handoff = None
    if payload is None:
        raise _died(worker.exitcode, budget)
    outcome, value, held = pickle.loads(payload)  # our own child's bytes, pickled in _serve_budgeted
    for name, text in held.items():
        getattr(sys, name).write(text)
    if outcome == "memory":
        raise ProcessBudgetExceeded(f"the review went past its {budget.memory_mib} MiB of memory ({PROCESS_MEMORY_ENV})")
    if outcome == "raised":
        raise value
    return value


def _serve_budgeted(writer: Any, budget: ProcessBudget, scratch: str) -> None:
    """In the forked child: limit this process, run the session's handed-off work, send back what came of it."""
    try:
        os.setpgid(0, 0)  # a group of its own: whatever it starts (workers, git) is stopped with it
    except OSError:  # pragma: no cover - refused only to a session leader, which a forked child is not
        pass
    tempfile.tempdir = scratch  # inside the parent's session: removed with it, however this process ends
    held = {name: io.StringIO() for name in ("stdout", "stderr") if not _has_descriptor(getattr(sys, name))}
    for name, stream in held.items():
        setattr(sys, name, stream)
    for which, value in ((resource.RLIMIT_AS, budget.memory_mib * 1024 * 1024), (resource.RLIMIT_CPU, budget.cpu_seconds)):
        soft, hard = resource.getrlimit(which)
        lowest = min(limit for limit in (value, soft, hard) if limit != resource.RLIM_INFINITY)
        resource.setrlimit(which, (lowest, hard))  # only lowered: a limit the machine set stays
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # SIGXCPU dumps no core
    outcome: tuple[str, Any]
    try:
        outcome = ("value", current().handoff())
    except MemoryError:
        outcome = ("memory", None)
    except BaseException as error:
        outcome = ("raised", _sendable(error))
    texts = {name: stream.getvalue() for name, stream in held.items()}
    try:
        data = pickle.dumps((*outcome, texts))
    except MemoryError:
        data = pickle.dumps(("memory", None, texts))
    except Exception as error:  # a result pickle cannot carry: a bug, said as one
        data = pickle.dumps(("raised", RuntimeError(f"the review's result cannot be sent back: {error}"), texts))
    writer.send_bytes(data)


def _sendable(error: BaseException) -> BaseException:
    """The error as the parent can rebuild it: itself, else its one line as bad input, else a bug's summary."""
    if os.environ.get("CONFIG_HARNESS_DEBUG") and bad_input_line(error) is None:
        traceback.print_exception(error, file=sys.stderr)  # the child's traceback, where the parent's would be
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        line = bad_input_line(error)
        return BadInput(line) if line is not None else RuntimeError(f"{type(error).__name__}: {error}")


def _has_descriptor(stream: Any) -> bool:
    try:
        stream.fileno()
        return True
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both an OSError and a ValueError
        return False


def _stop_group(pid: int) -> None:
    """Stop every process left in the child's group (a worker or git it started): nothing outlives the review."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _died(code: int | None, budget: ProcessBudget) -> BaseException:
    """What a child that sent nothing back died of."""
    if code is not None and code < 0:
        stopped = -code
        if stopped in (signal.SIGINT, signal.SIGTERM):
            return KeyboardInterrupt()
        if stopped == signal.SIGXCPU:
            return ProcessBudgetExceeded(f"the review went past its {budget.cpu_seconds} CPU-seconds ({PROCESS_CPU_ENV})")
        return ProcessBudgetExceeded(
            f"the review was stopped by {_signal_name(stopped)} while reading (its budget: {budget.memory_mib} MiB, "
            f"{budget.cpu_seconds} CPU-seconds)"
        )
    return RuntimeError(f"the review's process ended with exit code {code} and sent no result")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _worker_died(code: int | None) -> BaseException:
    """What a worker that died without a result stands for: stopped by a signal (a limit it inherited, the system's
    out-of-memory killer), the input was over a budget; any other end is a bug."""
    if code is not None and code < 0:
        return ProcessBudgetExceeded(f"a worker process was stopped by {_signal_name(-code)} while composing")
    return RuntimeError(f"a worker process died (exit code {code})")
