"""The readers of pull-request bytes, each with a generator of its worst input shape (issue 53: each probe that grew
faster than its input), held to linear work per doubling: CPU time at n, 2n and 4n (tests/growth.py), never a
wall-clock bound. One registry: a reader fixed for growth gets a row here. The correctness of each linear reader
against what it replaced: tests/unit/gates/test_budget_linear.py. (In the e2e tier: the Makefile's SLOW_TESTS.)"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.composition.compose import names_entry
from harness.composition.provenance import SET_MARK, recorded_in
from harness.gates.budget import MAX_WRITE_STATEMENTS, NOT_READ
from harness.model.findings import ERROR
from harness.readers.bash import launches_in
from harness.readers.builders import build_sites
from harness.readers.pysource import SourceIndex
from harness.runner.config_writes import program_writes, unread_findings
from harness.runner.launches import name_fits, submodule_paths
from harness.runner.targets import ProgramView
from tests.growth import LIMIT, worst_doubling


def config_name(n: int) -> Callable[[], Any]:
    """`--config-name c${1}a${2}...a${12}b` against a name of n `c` and n `a` (a.+a.+...b backtracked through every split)."""
    name, parts = "c" * n + "a" * n, ["c"] + ["a"] * 12 + ["b"]
    return lambda: [name_fits(name, parts) for _ in range(2000)]


def gitmodules(n: int) -> Callable[[], Any]:
    """`.gitmodules` of n blank lines: `^\\s*path` ran its whitespace to the end from every line start."""
    scratch = tempfile.TemporaryDirectory(prefix="growth-")  # removed once the measurement lets go of it
    folder = Path(scratch.name)
    (folder / ".gitmodules").write_bytes(b"\n" * n + b"[x]\n")
    return lambda: (scratch, submodule_paths(folder))


def builder_calls(n: int) -> Callable[[], Any]:
    """n calls `instantiate(cfg.x.y, _partial_=` x 19 `,1)`: 2^19 splits each, and each line counted from the start."""
    data = (b"    instantiate(cfg.x.y, " + b"_partial_=" * 19 + b",1)\n") * n
    return lambda: build_sites([("app.m", Path("app/m.py"), data)])


def defaults_line(n: int) -> Callable[[], Any]:
    """One defaults line `- backend@` and n spaces, no `:`: the expression retried `\\s*:` from every split."""
    text = "- backend@" + " " * n
    return lambda: [names_entry(text, "backend", "gpu") for _ in range(50)]


def golden_header(n: int) -> Callable[[], Any]:
    """A golden header recording n keys, and n removed paths it does not hold (each a scan of every key)."""
    text = SET_MARK + json.dumps({"file": "conf/a.yaml", "at": "", "keys": {f"k{i}": i for i in range(n)}}) + "\n"
    paths = [f"x{i}" for i in range(n)] + [f"k{i}" for i in range(0, n, 7)]

    def work() -> list[Any]:
        recorded = recorded_in(text)
        return [recorded.source_of(path) for path in paths]

    return work


def _entry_points_sharing_writes(folder: Path, n: int) -> Path:
    """n `@hydra.main` functions each calling one function of n writes: every walk read it again."""
    (folder / "app").mkdir()
    (folder / "app" / "__init__.py").write_text("")
    helper = "def helper(cfg):\n" + "".join(f"    cfg.k{i} = 1\n" for i in range(n))
    mains = "".join(f"@hydra.main(config_path='c', config_name='x')\ndef m{i}(cfg):\n    helper(cfg)\n" for i in range(n))
    (folder / "app" / "main.py").write_text("import hydra\n" + helper + mains)
    return folder / "app"


def config_writes(n: int) -> Callable[[], Any]:
    scratch = tempfile.TemporaryDirectory(prefix="growth-")  # removed once the measurement lets go of it
    folder = _entry_points_sharing_writes(Path(scratch.name), n)
    return lambda: (scratch, program_writes(ProgramView(SourceIndex([folder]))))


def array_calls(n: int) -> Callable[[], Any]:
    """`"${A[@]}"` of n words passed to a function on n lines: n*n words from 2n lines."""
    script = ("A=(" + " ".join(f"x{i}" for i in range(n)) + ")\nf() { :; }\n" + 'f "${A[@]}"\n' * n + "python -m app.main a=1\n").encode()
    return lambda: launches_in("run.sh", script, lambda entry, is_module: entry.startswith("app."), lambda path: "missing")


# name -> (the generator of the worst input of size n, the first n)
READERS: dict[str, tuple[Callable[[int], Callable[[], Any]], int]] = {
    "config-name": (config_name, 50_000),
    "gitmodules": (gitmodules, 40_000),
    "builder-calls": (builder_calls, 500),
    "defaults-line": (defaults_line, 20_000),
    "golden-header": (golden_header, 2_000),
    "array-calls": (array_calls, 400),
    "config-writes": (config_writes, 200),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_doubling_the_worst_input_at_most_doubles_the_work(reader):
    build, start = READERS[reader]
    assert worst_doubling(build, start) < LIMIT


def test_entry_points_past_the_writes_budget_are_one_blocking_finding(tmp_path):
    # The probe at n = 400 read 160,000 statements (20.8 s) and reported each write as a warning, exit 0.
    view = ProgramView(SourceIndex([_entry_points_sharing_writes(tmp_path, 400)]))
    (unread,) = unread_findings(view)
    assert unread.severity == ERROR and unread.message.startswith(f"config writes: {NOT_READ} the budget of 10,000 statements")
    assert len(program_writes(view)) <= MAX_WRITE_STATEMENTS
