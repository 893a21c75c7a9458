import json
import subprocess
import sys

from harness.composition.parallel import map_shards, plan_shards
from harness.model.matrix import Case
from tests.conftest import ROOT


def cases():
    return [
        Case("r/a/default", "r", ("engine=a",)),
        Case("r/a/fast", "r", ("engine=a",), ("x=1",)),
        Case("r/b/default", "r", ("engine=b",)),
        Case("r/b/fast", "r", ("engine=b",), ("x=1",)),
        Case("r/c/default", "r", ("engine=c",)),
        Case("route/legacy", "legacy", (), same_as="r/b/default"),
    ]


def test_shards_cover_every_case_once_and_keep_bases_and_twins_together():
    matrix = cases()
    shards = plan_shards(matrix, 2)
    assert len(shards) == 2
    assert sorted(i for shard in shards for i in shard) == list(range(len(matrix)))
    where = {matrix[i].id: n for n, shard in enumerate(shards) for i in shard}
    assert where["r/a/default"] == where["r/a/fast"]
    assert where["r/b/default"] == where["r/b/fast"] == where["route/legacy"]
    assert all(shard == sorted(shard) for shard in shards)


def test_one_job_is_one_shard_and_more_jobs_than_bases_is_capped():
    assert plan_shards(cases(), 1) == [list(range(6))]
    assert len(plan_shards(cases(), 16)) == 3  # bases a, c, and b joined with its route


def test_map_shards_keeps_case_order_serially():
    matrix = cases()
    seen = []
    results = map_shards(lambda shard, done: [done(case) or case.id for case in shard], matrix, 1, seen.append)
    assert results == [case.id for case in matrix] and seen == list(matrix)


WORKERS = """
import json, os
from tests.unit.composition.test_parallel import cases
from harness.composition.parallel import map_shards
seen = []
results = map_shards(lambda shard, done: [done(case) or (case.id, os.getpid()) for case in shard], cases(), 2, seen.append)
print(json.dumps({"parent": os.getpid(), "results": results, "seen": sorted(case.id for case in seen)}))
"""


def test_map_shards_forks_workers_and_returns_results_in_case_order():
    # A fresh single-threaded interpreter: pytest's own process may run threads, where forking is refused.
    out = subprocess.run([sys.executable, "-c", WORKERS], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    assert [case_id for case_id, _ in report["results"]] == [case.id for case in cases()]
    pids = {pid for _, pid in report["results"]}
    assert len(pids) == 2 and report["parent"] not in pids
    assert report["seen"] == sorted(case.id for case in cases())  # every finished case reported back


READING_WORKERS = """
import json, os, sys
from pathlib import Path
from tests.unit.composition.test_parallel import cases
from harness.composition.parallel import beside, map_shards
from harness.gates.reader import read_bytes, recording
folder = Path(sys.argv[1])
def read(shard, done):
    pids = []
    for case in shard:
        path = folder / case.id.replace("/", "_")
        path.write_text("x")
        read_bytes(path)
        pids.append(os.getpid())
    return pids
PARENT = os.getpid()
with recording() as asked:
    pids = map_shards(read, cases(), 2)
    (folder / "beside").write_text("y")
    beside(lambda: read_bytes(folder / "beside") and os.getpid(), lambda: None, 2)
print(json.dumps({"parent": PARENT, "pids": pids, "asked": sorted(Path(p).name for p in asked)}))
"""


def test_what_forked_workers_read_reaches_the_parents_record(tmp_path):
    """A kept review checks again every file any process of it read (harness.runner.kept_runs): each worker sends
    its record back with its results."""
    out = subprocess.run([sys.executable, "-c", READING_WORKERS, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert report["parent"] not in report["pids"] and len(set(report["pids"])) == 2  # read in two workers, not here
    assert report["asked"] == sorted([case.id.replace("/", "_") for case in cases()] + ["beside"])


FAILING_WORKERS = """
import os
from tests.unit.composition.test_parallel import cases
from harness.composition.parallel import map_shards
from harness.model.settings import SettingsError
def refuse(shard, done):
    raise SettingsError("bad input found in a worker")
try:
    map_shards(refuse, cases(), 2)
except SettingsError as error:
    print("raised:", error)
try:
    map_shards(lambda shard, done: os._exit(7), cases(), 2)
except RuntimeError as error:
    print("died:", error)
try:
    map_shards(lambda shard, done: [lambda: None for _ in shard], cases(), 2)
except Exception as error:
    print("unpicklable: raised", "pickle" in str(error))
"""


def test_a_worker_error_is_raised_in_the_parent_and_a_dead_worker_is_named():
    out = subprocess.run([sys.executable, "-c", FAILING_WORKERS], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60).stdout
    # A result that cannot be pickled is raised in the parent too (it once hung: the worker exited 0 without it).
    assert out.splitlines() == [
        "raised: bad input found in a worker",
        "died: a worker process died (exit code 7)",
        "unpicklable: raised True",
    ]


def test_workers_never_outnumber_the_cores_whatever_the_settings_ask():
    """`jobs` is read from settings a pull request controls: a huge value forks no more processes than cores."""
    script = WORKERS.replace("cases(), 2,", "cases(), 100_000,")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    from harness.composition.parallel import default_jobs

    pids = {pid for _, pid in json.loads(out)["results"]}
    assert len(pids) <= max(default_jobs(), 1)


BUDGETED = """
import io, os, signal, subprocess, sys, time
from harness.composition.parallel import within_budget
from harness.composition.session import Session
from harness.gates.budget import BudgetExceeded, ProcessBudgetExceeded, ProcessBudget
from harness.gates.errors import BadInput

def size_mib():
    return int(next(line for line in open("/proc/self/status") if line.startswith("VmSize")).split()[1]) // 1024

def spin():
    return any(iter(int, 1))  # zeros forever: CPU, no memory

def refuse():
    raise BudgetExceeded("the x budget", "f.sh:3")  # its __init__ takes two arguments: pickle cannot rebuild it

def leave_a_process_and_crash():
    sleeper = subprocess.Popen(["sleep", "600"])
    print(sleeper.pid, flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)  # as a parser in C that met the memory limit

with Session():
    held, sys.stdout = sys.stdout, io.StringIO()  # not a file: what the child prints comes back with its result
    value = within_budget(lambda: print("said in the child") or 6 * 7, ProcessBudget())
    said, sys.stdout = sys.stdout.getvalue(), held
    print("value:", value, repr(said))
    for name, work, budget in (
        ("memory", lambda: len(bytearray(1024 * 1024 * 1024)), ProcessBudget(memory_mib=size_mib() + 64)),
        ("cpu", spin, ProcessBudget(cpu_seconds=1)),
        ("bad input", refuse, ProcessBudget()),
    ):
        try:
            within_budget(work, budget)
        except ProcessBudgetExceeded as error:
            print(name + ":", "over budget:", error)
        except BadInput as error:
            print(name + ":", "bad input:", error)
    held, sys.stdout = sys.stdout, io.StringIO()
    try:
        within_budget(leave_a_process_and_crash, ProcessBudget())
    except ProcessBudgetExceeded as error:
        print("signal:", error, file=held)
    sleeper = int(sys.stdout.getvalue() or 0)
    sys.stdout = held
    for _ in range(100):
        try:
            if open(f"/proc/{sleeper}/stat").read().split()[2] == "Z":
                break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        print("the child's process outlived it")
"""


def test_work_within_a_process_budget_comes_back_and_past_it_is_one_over_budget_error():
    # Issue 53 item 3: the last line under every reader. A fresh interpreter: pytest's process may run threads.
    out = subprocess.run([sys.executable, "-c", BUDGETED], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120).stdout
    lines = out.splitlines()
    assert lines[0] == "value: 42 'said in the child\\n'", out  # the child's print, held and written here
    assert lines[1].startswith("memory: over budget: the review went past its ") and lines[1].endswith(
        " MiB of memory (CONFIG_HARNESS_REVIEW_MEMORY_MB)"
    ), out
    assert lines[2:] == [
        "cpu: over budget: the review went past its 1 CPU-seconds (CONFIG_HARNESS_REVIEW_CPU_SECONDS)",
        # the one line the CLI prints for it (exit 2), though pickle cannot rebuild the error itself
        "bad input: bad input: YAML input: not read: the x budget exceeded at f.sh:3",
        # and the process it started is gone with it (else a line says it outlived it)
        "signal: the review was stopped by SIGSEGV while reading (its budget: 4096 MiB, 900 CPU-seconds)",
    ], out
