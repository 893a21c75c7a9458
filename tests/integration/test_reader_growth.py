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
from harness.readers.writes import entry_points, entry_walk
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


def config_branches(n: int) -> Callable[[], Any]:
    """An entry point of n blocks, each a test on a key, a name bound to a node on one branch and another on the other,
    a loop writing through it, a write to the tested key and a call of a helper that tests every key: each block
    makes the helper's tests undecided again (the walk reads it again), joins the names of two branches and reads a
    loop's effects."""
    scratch = tempfile.TemporaryDirectory(prefix="growth-")  # removed once the measurement lets go of it
    folder = Path(scratch.name) / "app"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    block = "    if cfg.k{i}:\n        v = cfg.a\n    else:\n        v = cfg.b\n    for x in range(2):\n        v.w = x\n    cfg.k{i} = 1\n    tune(cfg)\n"
    helper = "def tune(cfg):\n    if cfg.t:\n        cfg.u = 1\n"
    main = "@hydra.main(config_path='c', config_name='x')\ndef main(cfg):\n" + "".join(block.format(i=i) for i in range(n))
    (folder / "main.py").write_text("import hydra\n" + helper + main)
    return lambda: (scratch, entry_walk(SourceIndex([folder]), entry_points(SourceIndex([folder]))[0]))


def array_calls(n: int) -> Callable[[], Any]:
    """`"${A[@]}"` of n words passed to a function on n lines: n*n words from 2n lines."""
    script = ("A=(" + " ".join(f"x{i}" for i in range(n)) + ")\nf() { :; }\n" + 'f "${A[@]}"\n' * n + "python -m app.main a=1\n").encode()
    return lambda: launches_in("run.sh", script, lambda entry, is_module: entry.startswith("app."), lambda path: "missing")


def set_u_sources(n: int) -> Callable[[], Any]:
    """Under `set -u`, n sourced files each reading a variable nothing assigns: every lookup scanned every file read."""
    files = {f"lib/f{i}.sh": f'V{i}=1\necho "$U{i}"\n'.encode() for i in range(n)}
    script = ("set -u\n" + "".join(f"source lib/f{i}.sh\n" for i in range(n)) + "python -m app.main a=1\n").encode()
    return lambda: launches_in("run.sh", script, lambda entry, is_module: entry.startswith("app."), lambda path: files[path])


def environment_tests(n: int) -> Callable[[], Any]:
    """n tests on n variables of the environment, each setting a value the launch passes: one reading per test up to
    the bound of environments (issue 51), the rest made unknown; never their product."""
    script = "".join(f'if [ -n "$E{i}" ]; then A{i}=1; else A{i}=0; fi\n' for i in range(n))
    script += "python -m app.main " + " ".join(f"a.k{i}=$A{i}" for i in range(n)) + "\n"
    entry = lambda entry, is_module: entry.startswith("app.")  # noqa: E731
    return lambda: launches_in("run.sh", script.encode(), entry, lambda path: "missing", readings=True)


# name -> (the generator of the worst input of size n, the first n)
READERS: dict[str, tuple[Callable[[int], Callable[[], Any]], int]] = {
    "config-name": (config_name, 50_000),
    "gitmodules": (gitmodules, 40_000),
    "builder-calls": (builder_calls, 500),
    "defaults-line": (defaults_line, 20_000),
    "golden-header": (golden_header, 2_000),
    "array-calls": (array_calls, 400),
    "config-writes": (config_writes, 200),
    "environment-tests": (environment_tests, 100),
    "config-writes-branches": (config_branches, 100),
    "set-u-sources": (set_u_sources, 1_000),
}


# name -> the readers of pull-request bytes its generator drives to their worst ("module.function" or "module.Class").
MEASURES: dict[str, tuple[str, ...]] = {
    "config-name": ("harness.runner.launches.name_fits",),
    "gitmodules": ("harness.runner.launches.submodule_paths",),
    "builder-calls": ("harness.readers.builders.build_sites", "harness.readers.builders.only_how_keywords"),
    "defaults-line": ("harness.composition.compose.names_entry",),
    "golden-header": ("harness.composition.provenance.recorded_in",),
    "array-calls": ("harness.readers.bash.launches_in", "harness.readers.bash_walk.Walker", "harness.readers.bash_words.WordReader"),
    "config-writes": ("harness.runner.config_writes.program_writes", "harness.readers.writes.entry_writes"),
    "config-writes-branches": ("harness.readers.writes.entry_walk",),
    "set-u-sources": ("harness.readers.bash.launches_in", "harness.readers.bash_walk.Walker", "harness.readers.bash_words.WordReader"),
    "environment-tests": ("harness.readers.bash.launches_in", "harness.readers.bash_walk.Walker", "harness.readers.bash_words.WordReader"),
}

# The public functions and classes of harness/readers/ (the package of readers of pull-request bytes) that no row above
# measures, each with why: a value, a helper whose work is one of its caller's rows, or where its growth is measured.
_BENCH = "its doubling is measured by `make bench` (benchmarks/bench_budgets.py, 2.2x), not by this registry: "
EXEMPT: dict[str, str] = {
    "harness.readers.bash.as_parsed": "two `bytes.replace` passes over one script, linear; the reading is launches_in's",
    "harness.readers.pysource.literal": "`ast.literal_eval` of one expression whose depth the tree's budget bounds "
    "(python_tree); its callers' rows measure the sources",
    "harness.readers.bash.alternatives_of": "pairs the launches of two readings of one script, linear in them; the "
    "readings themselves are launches_in's (the environment-tests row)",
    "harness.readers.bash_words.environment_value": "one variable's value as an environment sets it",
    "harness.readers.bash_walk.said_value": "one variable of an environment in words, linear in the texts a test compared",
    "harness.readers.bash_walk.given_text": "the placeholder text of one variable no test names",
    "harness.readers.entries.install_roots": "the folders right below the root that hold a project file: one listing",
    "harness.readers.entries.is_package_of": "a few stat calls along one module path",
    "harness.readers.entries.module_file": "a few stat calls along one module path per install root",
    "harness.readers.arithmetic.evaluate": "one `$((...))` expression of a script, reached only through launches_in; "
    "64-bit wrap-around and the word budget bound it",
    "harness.readers.bash_words.Piece": "a value",
    "harness.readers.bash.Override": "a value",
    "harness.readers.bash.Launch": "a value",
    "harness.readers.bash_walk.Source": "a value (a script's bytes and where its lines start)",
    "harness.readers.bash.Coverage": "a value",
    "harness.readers.bash_words.word_text": "one word's text, linear in it",
    "harness.readers.bash_words.placeholder": "one placeholder piece",
    "harness.readers.bash.shown_text": "one word's text as written, linear in it",
    "harness.readers.bash.iter_unknown": "a launch's overrides, once each",
    "harness.readers.bash_walk.parse": "tree-sitter's parser (linear, in C) on bytes launches_in has bounded to MAX_SCRIPT_BYTES",
    "harness.readers.bash_walk.parse_words": "one pass over a script's bytes before launches_in reads it",
    "harness.readers.bash_words.arithmetic_assigned": "one scan of one arithmetic text",
    "harness.readers.bash_walk.assigned_by": "one builtin's words, once each",
    "harness.readers.builders.BuildSites": "a value",
    "harness.readers.entries.NotStatic": "a value",
    "harness.readers.entries.EntryConfig": "a value",
    "harness.readers.entries.as_shown": "one argument's text, at most 80 characters shown",
    "harness.readers.entries.module_constants": "one pass over a module's statements (python_tree bounds its size and depth)",
    "harness.readers.entries.static_value": "one expression; at most MAX_NAME_STEPS names followed per value",
    "harness.readers.entries.dotted_name": "one attribute chain, bounded by the syntax depth budget",
    "harness.readers.entries.is_hydra_main": "one decorator",
    "harness.readers.entries.main_arguments": "one decorator's arguments",
    "harness.readers.entries.hydra_main": "one pass over a module's functions",
    "harness.readers.entries.package_folder": "one path's folders",
    "harness.readers.entries.config_folder": "one entry's config path",
    "harness.readers.entries.entry_configs": "one pass over an entry module's syntax tree (python_tree bounds it)",
    "harness.readers.pysource.Default": "a value",
    "harness.readers.pysource.Param": "a value",
    "harness.readers.pysource.Signature": "a value",
    "harness.readers.pysource.Missing": "a value",
    "harness.readers.pysource.Outside": "a value",
    "harness.readers.pysource.SourceIndex": _BENCH + "python classes, inheritance depth, class lattice, class bases, __all__ sums chained",
    "harness.readers.writes.Read": "a value",
    "harness.readers.writes.Write": "a value",
    "harness.readers.writes.EntryPoint": "a value",
    "harness.readers.writes.StatementBudget": "a value (the statements the walks may still read)",
    "harness.readers.writes.OverBudget": "an error",
    "harness.readers.writes.condition": "one `if` test, once per node",
    "harness.readers.writes.holds": "one condition against one composed config",
    "harness.readers.writes.module_file": "one module's file name",
    "harness.readers.writes.entry_points": "one pass over the modules naming hydra (the config-writes row reads them)",
    "harness.readers.writes.entry_reach": "entry_writes's walk, under the same shared statement budget",
    "harness.readers.writes.class_writes": _BENCH + "config writes, config write calls",
    "harness.readers.writes.describe": "one write's text",
    "harness.readers.writes.Unresolved": "a value",
    "harness.readers.writes.Reach": "a value",
    "harness.readers.writes.class_reach": "class_writes's walk (its growth: class_writes's)",
    "harness.readers.writes.returns_given": "one pass over one function's statements",
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_doubling_the_worst_input_at_most_doubles_the_work(reader):
    build, start = READERS[reader]
    assert worst_doubling(build, start) < LIMIT


def public_readers() -> set[str]:
    """Every public module-level function and class of harness/readers/, as "module.name"."""
    import ast

    from tests.conftest import ROOT

    names = set()
    for path in sorted((ROOT / "harness" / "readers").glob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for statement in ast.parse(path.read_text()).body:
            if isinstance(statement, ast.FunctionDef | ast.ClassDef) and not statement.name.startswith("_"):
                names.add(f"{module}.{statement.name}")
    return names


def test_every_reader_has_a_generator_of_its_worst_input_or_says_why_not():
    """A new reader of pull-request bytes in harness/readers/ gets a row above (a generator of its worst input), or an
    entry in EXEMPT saying why it needs none: otherwise this fails (issue 53 item 2)."""
    import importlib

    measured = {name for names in MEASURES.values() for name in names}
    assert set(MEASURES) == set(READERS), "every row says which readers it measures"
    for name in measured | set(EXEMPT):  # each names something that exists
        module, _, attribute = name.rpartition(".")
        assert hasattr(importlib.import_module(module), attribute), name
    unregistered = public_readers() - measured - set(EXEMPT)
    assert unregistered == set(), "give each a generator of its worst input in READERS, or say in EXEMPT why it needs none"
    assert set(EXEMPT) <= public_readers() and not set(EXEMPT) & measured, "EXEMPT names what is gone or measured"


def test_entry_points_past_the_writes_budget_are_one_blocking_finding(tmp_path):
    # The probe at n = 400 read 160,000 statements (20.8 s) and reported each write as a warning, exit 0.
    view = ProgramView(SourceIndex([_entry_points_sharing_writes(tmp_path, 400)]))
    (unread,) = unread_findings(view)
    assert unread.severity == ERROR and unread.message.startswith(f"config writes: {NOT_READ} the budget of 10,000 statements")
    assert len(program_writes(view)) <= MAX_WRITE_STATEMENTS


# The regular expressions of harness/ all run on RE2 (linear whatever the pattern): tests/unit/gates/test_linear.py
# walks harness/ and fails on a call of Python's backtracking engine (`re`, `fnmatch`) outside its allow-list.
