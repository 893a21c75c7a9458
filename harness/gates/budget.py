"""The budgets of every reader of pull-request bytes, in one place, each with the reason for its value.

A pull request controls every file the harness reads: configs, goldens, contracts, settings, launch scripts and
Python sources. Each parser of those bytes (YAML, TOML, Python's `ast`, tree-sitter and the shell evaluator) has
a bound on size, on nesting depth and on how far a value may grow, so that no input makes a run hang, exhaust
memory, or end in an internal error (exit 3). Past a budget the file (or the value) is not read, and the one
line that says so names the budget and the `FILE:LINE` where it was exceeded: exit 2 for settings and contracts,
a case or launch finding for configs, scripts and Python sources, and the rest of the run goes on.

The bounds sit far above anything a real tree holds (verl's numbers are given with each) and far below what
Python's recursion limit (1,000 frames) or a CI machine's memory allows. The guarded parsers are here too, so a
new caller cannot forget one: `toml_document`, `python_tree` and `syntax_depth` (tree-sitter).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import yaml

from harness.gates import linear
from harness.gates.errors import BadInput

# ---- size ----

# verl's largest golden is about 30 KiB; this is far above any real config and far below what exhausts a CI machine.
MAX_FILE_BYTES = 8 * 1024 * 1024
# A wheel (or a git archive of a config tree) holds many files; the whole of it is bounded too.
MAX_ARCHIVE_BYTES = 256 * 1024 * 1024

# ---- YAML (configs, goldens, contracts) ----

# verl's largest golden has about 2,000 values: an "alias bomb" is tiny on disk and expands far past these.
MAX_EXPANDED_NODES = 500_000  # YAML nodes after every alias is expanded
MAX_EXPANDED_CHARS = 32 * 1024 * 1024  # scalar text after every alias is expanded (one big string, many aliases)
# Mappings and lists inside each other: verl nests 8 levels; every walk of a value (the harness's, OmegaConf's,
# Hydra's merge) is then far from Python's recursion limit, however the composition stacks files. (libyaml's
# own parser stops at 1,000 levels before that, with "exceeded maximum nesting depth".)
MAX_DEPTH = 40

# ---- TOML (settings, at the working tree and at a ref) ----

# Arrays and inline tables inside each other: real settings nest 3 levels (`[[commands]]` with a `modules`
# table); tomllib takes two frames per level, so 64 levels stay far from the recursion limit.
MAX_TOML_DEPTH = 64

# ---- Python sources (`python_sources`, entry modules), read with `ast` ----

# One Python file: verl's largest is 104 KB. `ast` holds about 500 bytes of memory per byte of dense source (a
# 1 MB list literal took 485 MB), so the general 8 MiB bound would let one file take gigabytes.
MAX_PYTHON_BYTES = 512 * 1024
# Syntax nodes inside each other, from the module down: verl's deepest file nests 19 (measured over verl's whole
# repository, main of 2026-08-22); `ast.unparse` and `ast.literal_eval` take up to three frames per level, so 100 levels stay below the limit.
MAX_PYTHON_DEPTH = 100
# Steps a name takes to reach its class (`A = B`, `from .x import B`, a base class, a star import) and classes
# one class inherits through: a real chain is a handful of steps; each step of the walk takes about four frames.
MAX_PYTHON_CHAIN = 100
# Bases of one class: verl's widest class has 2; the C3 merge looks at every base for each class it places.
MAX_PYTHON_BASES = 64

# ---- goldens' provenance headers ----

# A golden's header writes each key once, nested under its parents; the leaf paths read back repeat every parent, so
# they come to about the header's size (verl's goldens: at most 0.65 characters of path per byte). A forged header
# (one long parent over 100,000 leaves) reached the square of its size: past this many characters of path per byte of
# golden the rest of the header records nothing (its provenance only names files in messages).
MAX_RECORDED_PATH_RATIO = 16

# ---- config writes in code (harness/readers/writes.py) ----

# Statements read for config writes from all the entry points of one tree, summed: each entry point's walk reads the
# functions it calls again, so n entry points calling one function of n writes read n*n statements (n = 400: 20.8 s
# and 160,000 warnings). verl 0.9.1's 7 entry points read 436 (23 writes). Past it the rest is not read, and the review
# (and `check`, against the record) says so in one error finding.
MAX_WRITE_STATEMENTS = 10_000

# ---- shell scripts (`[[commands]]`), read with tree-sitter and a small evaluator ----

# One script: verl's largest is 15 KB. tree-sitter and the evaluator hold about 650 bytes per byte of dense script
# (1 MB of words took 669 MB and 3 s), so the general 8 MiB bound would let one script take gigabytes.
MAX_SCRIPT_BYTES = 256 * 1024
# Syntax nodes inside each other (`if` in `if`, `${a:-${b:-...}}`): verl's deepest script nests 12 (measured over
# every script of its repository); the evaluator takes up to four frames per level.
MAX_SCRIPT_DEPTH = 150
# One word after expansion (an override, a variable's value): verl's longest override is 162 bytes (measured over
# every script of its repository). A variable that doubles itself (`a=$a$a`) reaches these in a dozen lines
# instead of exhausting memory; past them the value is one placeholder, and a launch using it is not extracted.
MAX_WORD_PIECES = 2_000
MAX_WORD_BYTES = 64 * 1024
# Words in one variable (an array) or one command: verl's longest launch has 142 overrides.
MAX_WORDS = 10_000
# Words every `"${A[@]}"` and `"$@"` of one script expands to, summed: an array of n words used on n lines is n*n
# words from 2n lines of script (3.48x per doubling); a real script's expansions come to a few hundred words (verl's
# longest launch has 142 overrides). Past it each such expansion is one placeholder (a launch using it is not
# extracted), so a script costs what it reads.
MAX_EXPANDED_WORDS = 50_000
# Digits of an array index or a `shift` count: bash's are 64-bit (19 digits). `x[100000000]=1` (14 bytes) made a list
# of 100 million slots, and `int()` of 5,000 digits raises; past MAX_WORDS an element is one placeholder.
MAX_INDEX_DIGITS = 19
# Bash arithmetic is 64-bit: a value wraps around rather than growing (`$((a*a))` squared 64 times).
ARITHMETIC_BITS = 64

# ---- the process: the last line under every reader (harness.composition.parallel.within_budget) ----

# A review reads the pull request in a forked process under the operating system's limits on its address space and its
# CPU time (each process it starts, a worker or git, has the same), so an input none of the budgets above foresaw ends
# as one "unreadable: over budget" finding that blocks, never a hang, an out-of-memory kill or exit 3. Measured peaks
# of one process, verl's review of PR #5848 on its whole repository, cold: 95 MiB of address space and 8.9 CPU-seconds
# in the reading process, 281 MiB and 1.5 CPU-seconds in a composing worker, 226 MiB and 4.6 in the worker reading the
# base's launches (docs/threat-model.md has the e2e tier's). The memory budget is 14x the largest of those, and at most
# the machine's memory shared by the processes a review runs at once (so they meet their limits before the system's
# out-of-memory killer meets them), never under PROCESS_MEMORY_FLOOR_MIB; the CPU budget is 100x verl's reading
# process and 8x a cold `check` of 10,000 cases on one core. The trusted environment may set others.
PROCESS_MEMORY_MIB = 4 * 1024
PROCESS_MEMORY_FLOOR_MIB = 1024
PROCESS_CPU_SECONDS = 900
PROCESS_MEMORY_ENV = "CONFIG_HARNESS_REVIEW_MEMORY_MB"
PROCESS_CPU_ENV = "CONFIG_HARNESS_REVIEW_CPU_SECONDS"
UNREADABLE = "unreadable: over budget:"  # how the finding starts


@dataclass(frozen=True)
class ProcessBudget:
    """The operating system's limits on one process of a review: its address space and its CPU time."""

    memory_mib: int = PROCESS_MEMORY_MIB
    cpu_seconds: int = PROCESS_CPU_SECONDS

    @classmethod
    def of(cls, environment: Mapping[str, str], machine_mib: int | None = None, processes: int = 1) -> ProcessBudget:
        """The budget the environment sets (a positive whole number each), else the defaults above, the memory's
        shared by `processes` on a machine of `machine_mib` (None: not known)."""

        def number(name: str, default: int) -> int:
            text = environment.get(name, "").strip()
            if not text:
                return default
            if not text.isdigit() or len(text) > 9 or int(text) < 1:
                raise BadInput(f"{name}={text[:40]!r}: expected a positive whole number")
            return int(text)

        memory = PROCESS_MEMORY_MIB
        if machine_mib is not None:
            memory = max(PROCESS_MEMORY_FLOOR_MIB, min(memory, machine_mib // max(processes, 1)))
        return cls(number(PROCESS_MEMORY_ENV, memory), number(PROCESS_CPU_ENV, PROCESS_CPU_SECONDS))


class ProcessBudgetExceeded(BadInput):
    """A process reading the pull request went past its ProcessBudget (or was stopped while reading it)."""


NOT_READ = "not read:"  # how every budget's message starts, so a caller can tell it from other problems


class InputLimitError(yaml.YAMLError, BadInput):
    """A file beyond the harness's bounds: too large on disk, or expanding too far through aliases."""


class BudgetExceeded(InputLimitError):
    """Input past one of the budgets above: the file (or value) is not read, and the message says where."""

    def __init__(self, budget: str, where: str) -> None:
        super().__init__(f"{NOT_READ} {budget} exceeded at {where}")
        self.budget = budget
        self.where = where


def depth_budget(limit: int, what: str = "levels") -> str:
    """The words for a depth budget in messages."""
    return f"the nesting budget of {limit} {what}"


# ---- TOML ----

# What can hold brackets that are not syntax: strings (basic, literal, and both multi-line forms) and comments.
_TOML_SKIPPED = linear.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*', linear.S)


def toml_nesting(text: str, limit: int = MAX_TOML_DEPTH) -> int | None:
    """The 1-based line where arrays and inline tables first nest deeper than `limit`, or None: one linear scan."""
    depth = 0
    line = 1
    position = 0
    for match in _TOML_SKIPPED.finditer(text + "\n"):
        for offset, char in _brackets(text, position, match.start()):
            depth += 1 if char in "[{" else -1
            if depth > limit:
                return line + text.count("\n", position, offset)
        line += text.count("\n", position, match.end())
        position = match.end()
    for offset, char in _brackets(text, position, len(text)):
        depth += 1 if char in "[{" else -1
        if depth > limit:
            return line + text.count("\n", position, offset)
    return None


def _brackets(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    for match in linear.compile(r"[\[\]{}]").finditer(text[start:end]):
        yield start + match.start(), match.group()


def toml_document(text: str, where: str) -> dict[str, Any]:
    """`tomllib.loads(text)` within the TOML budget: BudgetExceeded (naming `where` and the line) past it;
    tomllib.TOMLDecodeError for text that is not TOML, as tomllib says."""
    line = toml_nesting(text)
    if line is not None:
        raise BudgetExceeded(depth_budget(MAX_TOML_DEPTH, "levels of arrays and inline tables"), f"{where}:{line}")
    return _guarded(lambda: _toml_loads(text), where)


def _toml_loads(text: str) -> dict[str, Any]:
    # tomllib turns an integer of more than 4,300 digits into a plain ValueError; every caller handles invalid TOML.
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as error:
        raise tomllib.TOMLDecodeError(f"a number too long to read ({str(error).partition(':')[0]})") from None


# ---- Python ----


def size_budget(data: str | bytes, limit: int, where: str) -> None:
    """BudgetExceeded, at the line where the budget runs out, for `data` longer than `limit` (bytes or characters)."""
    if len(data) > limit:
        newline: Any = b"\n" if isinstance(data, bytes) else "\n"
        raise BudgetExceeded(f"the size budget of {limit // 1024} KiB", f"{where}:{data.count(newline, 0, limit) + 1}")


def python_tree(source: str | bytes, where: str) -> ast.Module:
    """`ast.parse(source)` within the Python budget, so every later walk of the tree (recursive or not, the
    harness's or `ast.unparse`'s) is bounded: BudgetExceeded past it; SyntaxError and ValueError as ast says."""
    size_budget(source, MAX_PYTHON_BYTES, where)
    tree = _guarded(lambda: ast.parse(source, filename=where), where)
    line = python_nesting(tree)
    if line is not None:
        raise BudgetExceeded(depth_budget(MAX_PYTHON_DEPTH, "syntax levels"), f"{where}:{line}")
    return tree


def python_nesting(tree: ast.AST, limit: int = MAX_PYTHON_DEPTH) -> int | None:
    """The line of the first node nested deeper than `limit` in a syntax tree, or None; iterative, and written out
    (not `ast.iter_child_nodes`) because it runs on every parsed file: about 15% of the parse's own time."""
    pending: list[tuple[ast.AST, int, int]] = [(tree, 0, 1)]
    pop, push, node_type = pending.pop, pending.append, ast.AST
    while pending:
        node, depth, line = pop()
        line = getattr(node, "lineno", line)
        if depth > limit:
            return line
        depth += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        push((item, depth, line))
            elif isinstance(value, node_type):
                push((value, depth, line))
    return None


# ---- tree-sitter ----


def syntax_depth(root: Any, limit: int = MAX_SCRIPT_DEPTH) -> int | None:
    """The 1-based line of the first tree-sitter node nested deeper than `limit`, or None; walked with a cursor
    (iterative: tree-sitter itself parses without recursion)."""
    cursor = root.walk()
    depth = 0
    while True:
        if depth > limit:
            return int(cursor.node.start_point[0]) + 1
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
            depth -= 1


# ---- the net under every parser ----


_Parsed = TypeVar("_Parsed")


def _guarded(parse: Callable[[], _Parsed], where: str) -> _Parsed:
    """`parse()`, with the recursion and memory errors a parser's own stack or buffers raise on hostile structure
    turned into BudgetExceeded naming `where` (the parser does not say the line; the checks above usually do first)."""
    try:
        return parse()
    except RecursionError:
        raise BudgetExceeded("the parser's nesting budget (Python's recursion limit)", where) from None
    except MemoryError:
        raise BudgetExceeded("the parser's memory budget", where) from None


def wrap_int(value: int, bits: int = ARITHMETIC_BITS) -> int:
    """An integer as bash's 64-bit signed arithmetic holds it."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value
