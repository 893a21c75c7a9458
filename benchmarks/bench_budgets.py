"""Doubling any input of the pull-request readers costs at most 2.2x the time (issue 31): each reader timed at n, 2n
and 4n on the shape a hostile pull request would grow, in process (CPU time, fastest of `--runs`).

- Python sources (`harness.readers.pysource`, a fresh index each run, parse included): n classes each resolved as a
  `_target_`, an inheritance chain n deep, a lattice of n levels (two paths to every base), a class with n bases,
  `__all__ = m.__all__ + m.__all__` chained through n modules (issue 41); config writes (issue 43): n writes in an
  entry point, n functions it calls by name that call each other in a circle;
- launch scripts (`harness.readers.bash.launches_in`): n scripts, one launch of n overrides, `if` nested n deep,
  n variables read across n branches, a variable doubled n times (past the word budget from the 11th), n sources
  refused, a sourced file of n assignments, n assignments each followed by a source, a function called n times, and n variables hidden by `eval`/`read`/`trap`;
- settings (`harness.gates.budget.toml_document`): n presets, and arrays nested n deep (past the budget from 65).
- issue 53's probes, from the registry of tests/integration/test_reader_growth.py (config-name patterns, `.gitmodules`,
  builder calls, a defaults line, a golden header, whole-array expansions, config writes of many entry points).

Sizes stay within each budget where the budget would otherwise cut the work short (inheritance and nesting
depth), so the ratio measures the algorithm, not the budget. Prints one line per input with its times and the
ratio of each doubling; exits 1 when a ratio passes 2.2.

    python benchmarks/bench_budgets.py [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_scaling import SCRATCH, doublings  # noqa: E402
from harness.gates.budget import toml_document  # noqa: E402
from harness.readers.bash import launches_in  # noqa: E402
from harness.readers.pysource import SourceIndex  # noqa: E402
from tests import hostile_inputs as hostile  # noqa: E402
from tests.integration.test_reader_growth import READERS  # noqa: E402

LIMIT = 2.2
LAUNCH = "python -m app.main trainer.epochs=1 model.width=${WIDTH:-3} data.path=$DATA/train +extra.flag=true\n"


def sources(files: dict[str, str], targets: list[str]) -> Callable[[], Any]:
    """Resolve `targets` in a fresh index of `files` (an `app` package): what a check does once per run."""
    folder = Path(tempfile.mkdtemp(prefix="bench-budgets-")) / "app"
    SCRATCH.append(folder.parent)  # removed at the end, with bench_scaling's own
    folder.mkdir()
    for name, text in ({"__init__.py": "from .m import *\n"} | files).items():
        (folder / name).write_text(text)

    def resolve() -> None:
        index = SourceIndex([folder])
        for target in targets:
            index.signature(target)

    return resolve


def classes(n: int) -> Callable[[], Any]:
    text = "".join(f"class K{i}:\n    def __init__(self, width=1, depth={i}):\n        pass\n" for i in range(n))
    return sources({"m.py": text}, [f"app.K{i}" for i in range(n)])


def inheritance(n: int) -> Callable[[], Any]:
    return sources({"m.py": hostile.inheritance_chain(n)}, ["app.m.Model"])


def lattice(n: int) -> Callable[[], Any]:
    return sources({"m.py": hostile.class_lattice(n)}, ["app.m.Model"])


def bases(n: int) -> Callable[[], Any]:
    text = "class C0:\n    pass\n" + "".join(f"class B{i}(C0):\n    pass\n" for i in range(n))
    text += f"class Model({', '.join(f'B{i}' for i in range(n))}):\n    pass\n"
    return sources({"m.py": text}, ["app.m.Model"])


def all_chain(n: int) -> Callable[[], Any]:
    return sources(hostile.doubled_all_chain(n), ["app.Model"])


def writes_in(n_functions: int, n_writes: int) -> Callable[[], Any]:
    from harness.readers.writes import OverBudget, entry_points, entry_writes

    folder = Path(tempfile.mkdtemp(prefix="bench-budgets-")) / "app"
    SCRATCH.append(folder.parent)
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "main.py").write_text(hostile.config_writes(n_functions, n_writes))

    def read() -> None:
        index = SourceIndex([folder])
        try:
            for entry in entry_points(index):
                entry_writes(index, entry)
        except OverBudget:
            return  # the reading stops at its statement budget, as `program_writes` does: past it costs nothing more

    return read


def write_statements(n: int) -> Callable[[], Any]:
    return writes_in(1, n)


def write_calls(n: int) -> Callable[[], Any]:
    return writes_in(n, 2)


def read(scripts: list[str]) -> Callable[[], Any]:
    encoded = [script.encode() for script in scripts]
    return lambda: [launches_in(f"s{i}.sh", data, lambda entry, is_module: True) for i, data in enumerate(encoded)]


def scripts(n: int) -> Callable[[], Any]:
    return read(["DATA=/data\n" + LAUNCH] * n)


def overrides(n: int) -> Callable[[], Any]:
    return read(["python -m app.main " + " ".join(f"k{i}.v=${{V{i}:-{i}}}" for i in range(n)) + "\n"])


def nesting(n: int) -> Callable[[], Any]:
    return read([hostile.nested_ifs(n) * 20])


def branches(n: int) -> Callable[[], Any]:
    return read(["".join(f"v{i}=x\n" for i in range(n)) + "if false; then v0=y; fi\n" * n + LAUNCH])


def doubling(n: int) -> Callable[[], Any]:
    return read([hostile.doubling_script(n)])


def project(files: dict[str, str]) -> Callable[[], Any]:
    """Read `run.sh` of `files`, whose other files are what it sources."""
    encoded = {path: text.encode() for path, text in files.items()}
    return lambda: launches_in("run.sh", encoded["run.sh"], lambda entry, is_module: True, lambda path: encoded.get(path, "missing"))


def refused(n: int) -> Callable[[], Any]:
    return read([hostile.refused_sources(n)])


def sourced(n: int) -> Callable[[], Any]:
    return project(hostile.sourced_lines(n))


def sourcing(n: int) -> Callable[[], Any]:
    return project(hostile.assignments_and_sources(n))


def calls(n: int) -> Callable[[], Any]:
    return read([hostile.function_calls(n)])


def unfollowed(n: int) -> Callable[[], Any]:
    """n variables, each assigned then hidden by an `eval`, a `read` of it and a DEBUG trap set and reset (issue 41),
    then a launch that reads them all."""
    body = "".join(f"v{i}=x\neval x\nread -r v{i}\ntrap 'v{i}=1' DEBUG\ntrap - DEBUG\n" for i in range(n))
    return read([body + "python -m app.main " + " ".join(f"k{i}=$v{i}" for i in range(n)) + "\n"])


def presets(n: int) -> Callable[[], Any]:
    text = 'config_dir = "conf"\n[presets]\n' + "".join(f'p{i} = ["a.b={i}", "c@d=e"]\n' for i in range(n))
    return lambda: toml_document(text, "harness.toml")


def toml_depth(n: int) -> Callable[[], Any]:
    text = hostile.nested_toml_array(n) * 50

    def parse() -> None:
        try:
            toml_document(text, "harness.toml")
        except Exception:  # past the budget from 65 levels: refused, and the refusal is what is timed
            pass

    return parse


def timed(work: Callable[[], Any], runs: int) -> float:
    """The fastest of `runs` calls in CPU seconds, each started on a collected heap: what the cyclic garbage
    collector does with the previous run's leftovers is not charged to the next."""
    seconds = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        work()
        seconds.append(time.process_time() - start)
    return min(seconds)


INPUTS = {
    "python classes": (classes, 400),
    "inheritance depth": (inheritance, 24),
    "class lattice": (lattice, 12),  # two classes of the chain budget per level: 48 levels stay within it
    "class bases": (bases, 16),
    "__all__ sums chained": (all_chain, 24),  # 4n = 96 modules: within the chain budget of 100
    "config writes": (write_statements, 400),  # issue 43: writes to the config in one entry point
    "config write calls": (write_calls, 40),  # functions called by name, each in a circle: within 200 functions
    "scripts": (scripts, 200),
    "overrides": (overrides, 400),
    "script nesting": (nesting, 36),
    "variables x branches": (branches, 2000),
    "doubled variable": (doubling, 64),
    "refused sources": (refused, 8000),  # 32,000 lines of `. "$H"` at 4n: within the script budget
    "sourced file lines": (sourced, 2500),  # 10,000 assignments (about 100 KiB) at 4n: within the sourced budget
    "variables x sources": (sourcing, 1000),
    "function calls": (calls, 500),
    "unfollowed assignments": (unfollowed, 500),  # issue 41: eval, read, trap hiding what they may set
    "settings presets": (presets, 1000),
    "settings nesting": (toml_depth, 40),
    # Issue 53's probes, from the registry its test holds each to 3x with (tests/integration/test_reader_growth.py).
    **{f"issue 53: {name}": shape for name, shape in READERS.items()},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    return doublings(INPUTS, timed, args.runs, LIMIT, what=" of a reader's input")


if __name__ == "__main__":
    sys.exit(main())
