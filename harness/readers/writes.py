"""Config writes in code, read with `ast` and never run: what the program does to the composed config after Hydra.

A `@hydra.main` function gets the composed config and may edit it before anything is built
(`config.a.b = 1`, `config["a"] = 1`, `OmegaConf.update(config, "a.b", 1)`, `with open_dict(config): ...`, `del`,
`.pop`), and a `_target_` class's `__post_init__` (or a property setter) may overwrite its own fields. A value the
job runs with then comes from that line, not from any YAML. This reader walks the code reachable from each entry
point (the `@hydra.main` function and the functions it calls by name, with the config passed on) and from each
class's `__post_init__` (and its `super().__post_init__()`), and names every write with its key where the source
spells it, and as "a write the reader cannot place" where it does not. The same walk of an entry point collects its
strict reads (`Read`: `config.a.b`, not `.get`, `in` or a key it wrote first), each with the tests of the branches
around it, which a case's tree decides (`holds`).

The reader never states a value the program does not write (tests/unit/readers/test_writes_semantics.py runs
generated programs against it): each write keeps the tests of the branches around it (`Write.when`; unknown in a
loop, a `try`, a `with` that may swallow an exception, after a block that may leave early, or on a key the code may
have changed), a name's binding follows the branches (bound differently on two paths it is AMBIGUOUS), and a write
through such a name, or below a field another field shares (`self.engine = self.fsdp_config`), is `Unresolved`: a
review names its line, never a key.

What is not followed: methods reached through an object (`runner.run.remote(config)`), a config kept on an object
(`self.config = config`) and written later, writes through a name bound to a copy. Each walk is bounded: a function
is read once per way the config reaches it (and branch context), and at most `MAX_FUNCTIONS` functions and
`MAX_CALL_DEPTH` calls deep from one entry point.

Over 800 lines because the walk is one evaluator, as the shell walk is (harness/readers/bash_walk.py): statements,
branches, loops, `try`, `with` and the calls it follows call each other recursively through one state (the names
bound to the config, the branch tests, the budget), and the entry-point and `__post_init__` walks both start it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from harness.gates.budget import MAX_WRITE_STATEMENTS
from harness.gates.errors import BadInput
from harness.model.semantic_diff import value_text
from harness.readers.pysource import MAX_TEXT, Outside, SourceIndex, _Def, _dotted, _literal, _Module, _unparse

# Functions read from one entry point: verl's `main_ppo.main` reaches 4 by name; a pull request cannot make the
# walk read every function of the sources.
MAX_FUNCTIONS = 200
# Calls followed inside each other from one entry point: a real chain is 2 or 3 deep.
MAX_CALL_DEPTH = 8
# Files scanned for `@hydra.main` in the sources: verl has about 900 Python files.
MAX_ENTRY_FILES = 20_000

UNPLACED = "<a write the reader cannot place>"
# What a name holds where the reader cannot tell which node (or whether a node at all): bound differently on two
# branches, by a loop over nodes, by `x if c else y`. A write through it is "not resolved", never given a key.
AMBIGUOUS = "<a node the reader cannot tell>"
# Context managers whose block runs to its end (or stops the program): any other may swallow an exception inside it.
PLAIN_CONTEXTS = frozenset({"open_dict", "read_write", "flag_override", "nullcontext"})
# Methods that change a config node (or list) in place.
MERGING_METHODS = frozenset({"update", "merge_with", "clear"})
LIST_METHODS = frozenset({"append", "extend", "insert", "remove", "sort", "reverse"})
HYDRA_MAIN = frozenset({"hydra.main", "main"})


@dataclass(frozen=True)
class Read:
    """One strict read of the config (`config.a.b`, `config["a"]`, `getattr(config, "a")`): a key the code expects,
    whose absence stops the program. Tolerant reads are not kept: `.get`, `getattr` with a default,
    `OmegaConf.select`, `"k" in config`, reads under a test for the key or inside a `try`, and keys written before."""

    key: str
    file: str  # as reports show it
    line: int
    code: str  # the reading expression's text, shortened
    # The tests of the `if`s (and `while`s) around it, as `condition` spells them: the read happens only where each holds.
    when: tuple[Any, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


UNKNOWN_TEST: tuple[str] = ("unknown",)


def condition(test: ast.expr, names: Mapping[str, str], changed: Callable[[str], bool] | None = None) -> tuple[Any, ...]:
    """A branch's test as data a case's tree decides (`holds`): ("key", path), ("literal", value), ("not", t),
    ("and"|"or", t, ...), ("compare", op, left, right); ("unknown",) for anything else (the environment, a call) and
    for a key the code may have `changed` before the test (the composed tree no longer says what it holds)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ("not", condition(test.operand, names, changed))
    if isinstance(test, ast.BoolOp):
        return ("and" if isinstance(test.op, ast.And) else "or", *(condition(v, names, changed) for v in test.values))
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = {ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in"}.get(type(test.ops[0]))
        right = test.comparators[0]
        if isinstance(test.ops[0], ast.Is | ast.IsNot) and isinstance(right, ast.Constant) and right.value is None:
            op = "==" if isinstance(test.ops[0], ast.Is) else "!="  # `is None` alone: `1 is True` is not `1 == True`
        if op is not None:
            return ("compare", op, condition(test.left, names, changed), condition(right, names, changed))
        return UNKNOWN_TEST
    key = _read_key(test, names) if isinstance(test, ast.Attribute | ast.Subscript) else None
    if key and changed is not None and changed(key):
        return UNKNOWN_TEST
    if key:
        return ("key", key)
    default = _literal(test)
    return ("literal", default.value) if default.literal else UNKNOWN_TEST


_NOT_KNOWN = object()


def _value(term: tuple[Any, ...], tree: Any) -> Any:
    if term[0] == "literal":
        return term[1]
    if term[0] == "key":
        node = tree
        for part in term[1].split("."):
            if not isinstance(node, dict) or part not in node:
                return _NOT_KNOWN
            node = node[part]
        if isinstance(node, str) and "${" in node:
            return _NOT_KNOWN  # an interpolation: its value is the program's to resolve
        return node
    truth = holds(term, tree)
    return _NOT_KNOWN if truth is None else truth


def holds(term: tuple[Any, ...], tree: Any) -> bool | None:
    """Whether a `condition` holds on a case's plain tree: True, False, or None when the tree does not decide it."""
    kind = term[0]
    if kind == "not":
        inner = holds(term[1], tree)
        return None if inner is None else not inner
    if kind in ("and", "or"):
        found = [holds(t, tree) for t in term[1:]]
        if kind == "and":
            return False if False in found else None if None in found else True
        return True if True in found else None if None in found else False
    if kind == "compare":
        left, right = _value(term[2], tree), _value(term[3], tree)
        if left is _NOT_KNOWN or right is _NOT_KNOWN:
            return None
        op: str = term[1]
        try:
            if op in ("in", "not in"):
                if not isinstance(right, list | dict | str):
                    return None
                found_in = bool(left in right)
                return found_in if op == "in" else not found_in
            same = bool(left == right)
            return same if op == "==" else not same
        except TypeError:
            return None
    if kind not in ("key", "literal"):
        return None  # ("unknown",): what the test depends on is not in the config
    value = _value(term, tree)
    return None if value is _NOT_KNOWN else bool(value)


@dataclass(frozen=True)
class Write:
    """One write to the config: its key below the object written (UNPLACED where the source does not spell it),
    what it does (`set`, `delete`, `update`, `merge`), the written value (a literal) or the code's text, and where."""

    key: str
    action: str
    value: Any
    literal: bool
    file: str  # as reports show it
    line: int
    code: str  # the statement's text, shortened
    open_dict: bool = False  # inside `with open_dict(...)`: may add a key the config does not have
    # The tests of the branches around it, as `condition` spells them: the write happens only where each holds.
    when: tuple[Any, ...] = ()

    @property
    def placed(self) -> bool:
        return self.key != UNPLACED

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def shown(self) -> Any:
        """The written value as a finding holds it: the literal, or the code that computes it."""
        if self.action == "delete":
            return "(deleted)"
        return self.value if self.literal else self.code

    def identity(self) -> tuple[Any, ...]:
        """What a review compares: the key, the action, the value (or the code) and the file, never the line (code
        above it may move)."""
        value = value_text(self.value) if self.literal else self.code
        return (self.key, self.action, value, self.open_dict)


def module_file(module: _Module) -> str:
    """A module's file as its dotted name spells it (`verl/trainer/main_ppo.py`): the same on both sides of a review,
    where the base's sources sit in a scratch folder, and never a host path."""
    path = module.name.replace(".", "/")
    return f"{path}/__init__.py" if module.is_package else f"{path}.py"


def _text(node: ast.AST) -> str:
    text = _unparse(node)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _key_of(node: ast.expr, names: Mapping[str, str], strict: bool = False) -> str | None:
    """The config key an expression denotes when it starts at a name bound to the config (or one of its nodes):
    `config.a.b`, `config["a"].b`, `cfg.get("a")`; UNPLACED for a subscript that is not a literal; None otherwise.
    `strict`: only what fails when the key is absent (no `.get`, no subscript but a literal text)."""
    parts: list[str] = []
    placed = True
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, str | int) and not isinstance(index.value, bool):
                if strict and not isinstance(index.value, str):
                    return None
                parts.append(str(index.value))
            else:
                placed = False
            node = node.value
        elif (
            not strict
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            parts.append(node.args[0].value)
            node = node.func.value
        elif isinstance(node, ast.Name):
            if node.id not in names:
                return None
            prefix = names[node.id]
            if prefix == AMBIGUOUS:
                return None if strict else AMBIGUOUS
            if not placed or prefix == UNPLACED:
                return UNPLACED
            return ".".join(part for part in (prefix, *reversed(parts)) if part)
        else:
            return None


def _tested_keys(term: tuple[Any, ...]) -> set[str]:
    """The config keys a `condition` reads."""
    if term[0] == "key":
        return {term[1]}
    return {key for part in term[1:] if isinstance(part, tuple) and part for key in _tested_keys(part)}


def _overlaps(one: str, other: str) -> bool:
    """Two keys one of which holds the other ("" is the whole config)."""
    return one == "" or other == "" or one == other or other.startswith(one + ".") or one.startswith(other + ".")


def _read_key(node: ast.expr, names: Mapping[str, str]) -> str | None:
    """The key a strict read denotes: only attributes and literal subscripts from a name bound to the config (a
    `.get` on the way, or a subscript that is not a literal, is not a read that fails)."""
    key = _key_of(node, names, strict=True)
    return None if key == UNPLACED else key


def _guards(nodes: Iterator[ast.AST] | Sequence[ast.AST], names: Mapping[str, str]) -> list[str]:
    """The keys a test (or any expression of a statement) checks for before reading them: `"k" in node`,
    `hasattr(node, "k")`, `node.get("k")`, `OmegaConf.select(node, "k")` (each, with its prefix, excuses reads below)."""
    found = []
    for node in nodes:
        base: str | None = None
        key: Any = None
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and any(isinstance(o, ast.In | ast.NotIn) for o in node.ops)
        ):
            base, key = _key_of(node.comparators[0], names), node.left.value
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and _tests_for(node):
            base, key = _key_of(node.args[0], names), node.args[1]
            key = key.value if isinstance(key, ast.Constant) else None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            first = node.args[0]
            base, key = _key_of(node.func.value, names), first.value if isinstance(first, ast.Constant) else None
        if base is not None and isinstance(key, str) and base not in (UNPLACED, AMBIGUOUS):
            found.append(_join(base, key))
    return found


def _tests_for(call: ast.Call) -> bool:
    """`hasattr(node, "k")`, `getattr(node, "k", default)`, `OmegaConf.select(node, "k")`: a call that asks for a key
    without failing when it is absent."""
    function = (_dotted(call.func) or "").rsplit(".", 1)[-1]
    return function in ("hasattr", "select") or (function == "getattr" and len(call.args) + len(call.keywords) >= 3)


def _covers(keys: Sequence[str], key: str) -> bool:
    return any(k == "" or key == k or key.startswith(k + ".") for k in keys)


def _join(prefix: str, key: str) -> str:
    if AMBIGUOUS in (prefix, key):
        return AMBIGUOUS
    if prefix == UNPLACED or key == UNPLACED:
        return UNPLACED
    return f"{prefix}.{key}" if prefix and key else prefix or key


@dataclass(frozen=True)
class _Place:
    """Where a function's code is: its module (for names it calls) and the file as reports show it."""

    module: _Module
    file: str


class StatementBudget:
    """Statements the walks of one tree may still read, shared by every entry point's walk (MAX_WRITE_STATEMENTS)."""

    def __init__(self, statements: int = MAX_WRITE_STATEMENTS) -> None:
        self.left = statements


class OverBudget(BadInput):
    """The walks of one tree read more statements than their budget: the rest is not read."""


@dataclass(frozen=True)
class Unresolved:
    """A write to the config the reader sees but cannot resolve (through a name it cannot tell, or a node another
    key shares): a review names its line as "write not resolved"."""

    file: str  # as reports show it
    line: int
    shape: str


@dataclass(frozen=True)
class Reach:
    """What one walk finds: the writes it resolved, the strict reads, and the writes it could not resolve."""

    writes: tuple[Write, ...] = ()
    reads: tuple[Read, ...] = ()
    unresolved: tuple[Unresolved, ...] = ()


# A statement's parts that run only under a test, by node id (`_conditional_parts`): (test, holds), or None: unknown.
Parts = dict[int, tuple[tuple[ast.expr, bool] | None, ...]]


@dataclass(frozen=True)
class _Mark:
    """How far a walk had got (`_Walk.mark`), to go back there."""

    writes: int
    reads: int
    unresolved: int
    shared: int
    seen: dict[tuple[Any, ...], tuple[int, frozenset[str]]]
    functions: int


# Pairs of keys a re-read of a function may compare (keys changed since it was read x keys its tests read): past it the
# function is simply read again (within the statement budget).
MAX_KEY_PAIRS = 10_000


class _Changed:
    """The keys the code may have changed so far, in the order met (each once), and every node above one: whether a
    key is changed (it, a node above it, or one below it) costs one look-up per level of the key."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.keys: set[str] = set()
        self.above: set[str] = set()  # every proper prefix of a changed key

    def add(self, *keys: str) -> None:
        for key in keys:
            if key in self.keys:
                continue
            self.keys.add(key)
            self.log.append(key)
            parts = key.split(".")
            self.above.update(".".join(parts[:end]) for end in range(1, len(parts)))

    def overlaps(self, key: str) -> bool:
        if "" in self.keys or key in self.keys or key in self.above:
            return True
        parts = key.split(".")
        return any(".".join(parts[:end]) in self.keys for end in range(1, len(parts)))

    def since(self, start: int, tested: frozenset[str]) -> bool:
        """Whether a key changed after the `start`th overlaps one of `tested` (True past MAX_KEY_PAIRS pairs)."""
        new = self.log[start:]
        if len(new) * len(tested) > MAX_KEY_PAIRS:
            return True
        return any(_overlaps(c, t) for c in new for t in tested)


class _Walk:
    """One entry point's (or class's) reach: the functions read, each once per binding and branch, and the writes
    found. A name's binding follows the code's branches: where two paths bind it differently it is AMBIGUOUS."""

    def __init__(self, index: SourceIndex, budget: StatementBudget | None = None) -> None:
        self.index = index
        self.writes: list[Write] = []
        self.reads: list[Read] = []
        self.unresolved: list[Unresolved] = []
        self.written_set: set[str] = set()  # the placed keys of `writes[:written_upto]` (`written`)
        self.written_upto = 0
        self.guards: list[str] = []  # keys tested for (or "" inside a `try`): reads below them may fail harmlessly
        self.when: list[tuple[Any, ...]] = []  # the tests of the branches the walk is inside
        self.soft: set[str] = set()  # names bound through `.get(...)`: what is read through them may be absent
        # Keys the code may have changed so far (written, merged into, given to code the walk does not follow): a test
        # on one of them is not decided by the composed tree.
        self.changed = _Changed()
        # Keys bound to a node another key also holds (`self.engine = self.fsdp_config`): a write below one changes both.
        self.shared: list[str] = []
        # Each function read: by its name, bindings and branches, the keys changed before it and the keys its tests read.
        self.seen: dict[tuple[Any, ...], tuple[int, frozenset[str]]] = {}
        self.tested: list[set[str]] = []  # the keys the tests of each function being walked read (the innermost last)
        self.functions = 0
        self.order: Sequence[_Def] = ()  # a class walk's classes, in method resolution order (`self.helper()`)
        self.classes: list[int] = []  # the place in `order` of each method being walked (`super()` looks after it)
        self.place: list[_Place] = []  # where each function being walked is (the innermost last)
        self.setting: list[str] = []  # the properties whose setters are being walked for an assignment (`through_setter`)
        self.budget = budget if budget is not None else StatementBudget()

    def function(self, definition: _Def, names: Mapping[str, str], depth: int = 0) -> None:
        node = definition.node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        # Read again where it is reached under other branches, or after the code changed a key one of its tests reads:
        # what it writes holds there.
        key = (f"{definition.qualname}:{node.lineno}", tuple(sorted(names.items())), repr(self.when))
        if key in self.seen:
            before, tested = self.seen[key]
            if not self.changed.since(before, tested):
                self.tested[-1:] = [self.tested[-1] | tested] if self.tested else []
                return
        if self.functions >= MAX_FUNCTIONS or depth > MAX_CALL_DEPTH:
            return
        self.functions += 1
        place = _Place(definition.module, module_file(definition.module))
        self.place.append(place)
        self.tested.append(set())
        self.body(node.body, dict(names), place, depth, False)
        found = self.tested.pop()
        self.place.pop()
        self.seen[key] = (len(self.changed.log), frozenset(found))
        if self.tested:  # a caller's tests include its callees'
            self.tested[-1] |= found

    def body(self, statements: Sequence[ast.stmt], names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> None:
        depth_of_when = len(self.when)
        for statement in statements:
            after = self.statement(statement, names, place, depth, open_dict)
            if after is not None:  # what follows runs only where `after` holds (`if not cfg.enable: return`)
                self.when.append(after)
        del self.when[depth_of_when:]

    def test(self, test: ast.expr, names: Mapping[str, str]) -> tuple[Any, ...]:
        found = condition(test, names, self.changed.overlaps)
        if self.tested:
            self.tested[-1] |= _tested_keys(found)
        return found

    def statement(self, statement: ast.stmt, names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> tuple[Any, ...] | None:
        """One statement; the condition under which the statements after it run, when it may leave the block.

        Over 60 lines: one branch per kind of statement that binds, writes or branches (loops and `try` have methods
        of their own), between the steps every statement takes (the budget, the guards it pushes, its reads and
        calls) and the guards popped after it; the guards must be popped by the frame that pushed them.
        """
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.pop(statement.name, None)
            return None  # a nested definition runs only when called
        self.budget.left -= 1
        if self.budget.left < 0:
            raise OverBudget
        parts = _conditional_parts(statement)
        guards = _guards(list(_own_nodes(statement)), names)
        self.guards += guards
        self.read(statement, names, place, parts)
        self.calls(statement, names, place, depth, open_dict, parts)
        after: tuple[Any, ...] | None = None
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            value = statement.value
            for target in targets:
                self.assign(target, value, statement, names, place, open_dict)
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    names.pop(target.id, None)
                    continue
                key = _key_of(target, names)
                if key is not None:
                    self.record(key, "delete", None, statement, place, open_dict)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            opens = open_dict or any(_opens_dict(item.context_expr, names) for item in statement.items)
            for item in statement.items:
                if item.optional_vars is not None:
                    # `with open_dict(cfg) as c:` gives the node itself; any other manager's value is not followed.
                    given = item.context_expr.args[0] if _opens_dict(item.context_expr, names) else item.context_expr  # type: ignore[attr-defined]
                    self.bind(item.optional_vars, given, names)
            plain = all(_context_name(item.context_expr) in PLAIN_CONTEXTS for item in statement.items)
            if not plain:  # a manager that may swallow an exception: the block may stop anywhere
                self.when.append(UNKNOWN_TEST)
            self.body(statement.body, names, place, depth, opens)
            if not plain:
                self.when.pop()
        elif isinstance(statement, ast.If):
            test = self.test(statement.test, names)
            branches = []
            for block, holds_here in ((statement.body, test), (statement.orelse, ("not", test))):
                inner = dict(names)
                self.when.append(holds_here)
                self.body(block, inner, place, depth, open_dict)
                self.when.pop()
                if not _leaves(block):
                    branches.append(inner)
            if branches:  # where both branches leave, nothing follows
                _set_names(names, _merge_names(branches))
            if _leaves(statement.body) and _leaves(statement.orelse):
                after = ("literal", False)
            elif _leaves(statement.body):
                after = ("not", test)
            elif _leaves(statement.orelse):
                after = test
        elif isinstance(statement, ast.While | ast.For | ast.AsyncFor):
            self.loop(statement, names, place, depth, open_dict)
        elif isinstance(statement, ast.Try | ast.TryStar):
            self.attempt(statement, names, place, depth, open_dict)
        elif isinstance(statement, ast.Match):
            branches = [dict(names)]
            for case in statement.cases:
                inner = dict(names)
                self.when.append(UNKNOWN_TEST)
                self.body(case.body, inner, place, depth, open_dict)
                self.when.pop()
                branches.append(inner)
            _set_names(names, _merge_names(branches))
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                names.pop((alias.asname or alias.name).split(".")[0], None)
        del self.guards[len(self.guards) - len(guards) :]
        if after is None and _may_leave(statement):
            after = UNKNOWN_TEST
        return after

    def loop(
        self, statement: ast.While | ast.For | ast.AsyncFor, names: dict[str, str], place: _Place, depth: int, open_dict: bool
    ) -> None:
        """A loop's body runs any number of times: a name it binds to what may be a node is AMBIGUOUS at its start,
        the keys it may change are changed before it, and its writes happen only where it runs (a `while` test decides)."""
        effects = _block_effects([*statement.body, *statement.orelse], names)
        self.changed.add(*effects.touched)
        if self.order:  # a later pass may write below a node an earlier one shared (a class's fields, not OmegaConf's)
            self.share(*effects.shared)
        start = dict(names)
        for name in effects.related:
            start[name] = AMBIGUOUS
        if isinstance(statement, ast.While):
            runs: tuple[Any, ...] = self.test(statement.test, start)
            ends: tuple[Any, ...] = ("not", runs)
        else:
            runs = ends = UNKNOWN_TEST
            self.bind(statement.target, statement.iter, start, each=True)
        inner = dict(start)
        self.when.append(runs)
        mark = self.mark()
        self.body(statement.body, inner, place, depth, open_dict)
        if len(self.shared) > mark.shared:
            # A function the body calls made two keys share a node: a later pass writes below it from the start.
            self.share(*self.rollback(mark))
            inner = dict(start)
            self.body(statement.body, inner, place, depth, open_dict)
        after = _merge_names([names, inner])
        if _breaks(statement.body):  # the loop may end anywhere in its body
            after.update({name: AMBIGUOUS for name in effects.related})
        self.when[-1] = ends
        otherwise = dict(after)
        self.body(statement.orelse, otherwise, place, depth, open_dict)
        self.when.pop()
        _set_names(names, _merge_names([after, otherwise]))

    def share(self, *keys: str) -> None:
        self.shared += [key for key in dict.fromkeys(keys) if key not in self.shared]

    def mark(self) -> _Mark:
        return _Mark(len(self.writes), len(self.reads), len(self.unresolved), len(self.shared), dict(self.seen), self.functions)

    def rollback(self, mark: _Mark) -> list[str]:
        """Forgets what the walk found since `mark` (to walk the same code again knowing more); the keys shared since."""
        shared = self.shared[mark.shared :]
        del self.writes[mark.writes :], self.reads[mark.reads :], self.unresolved[mark.unresolved :], self.shared[mark.shared :]
        self.seen, self.functions = mark.seen, mark.functions
        return shared

    def attempt(self, statement: ast.Try | ast.TryStar, names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> None:
        """A `try`: with handlers, its body may stop at any statement and a handler run instead, so what the body and
        the handlers write happens only where the walk cannot say; `finally` runs as the code around it."""
        caught = bool(statement.handlers)
        if caught:  # a read that fails there is caught, and no write of the body is sure to happen
            self.guards.append("")
            self.when.append(UNKNOWN_TEST)
        inner = dict(names)
        self.body(statement.body, inner, place, depth, open_dict)
        self.body(statement.orelse, inner, place, depth, open_dict)
        if caught:
            self.guards.pop()
        stopped = dict(names)  # where the body stopped, a name it binds may hold either
        for name in _block_effects(statement.body, names).related | {n for n in inner if inner.get(n) != names.get(n)}:
            stopped[name] = AMBIGUOUS
        branches = [inner]
        for handler in statement.handlers:
            here = dict(stopped)
            if handler.name:
                here.pop(handler.name, None)
            self.body(handler.body, here, place, depth, open_dict)
            branches.append(here)
        if caught:
            self.when.pop()
        merged = _merge_names(branches)
        final = dict(_merge_names([merged, stopped])) if caught else dict(merged)
        self.body(statement.finalbody, final, place, depth, open_dict)
        _set_names(names, merged if not statement.finalbody else _merge_names([merged, final]))

    def bind(self, target: ast.expr, value: ast.expr | None, names: dict[str, str], each: bool = False) -> None:
        """The names a target binds: a node's key where the value is one (`x = cfg.a`, pairwise for tuples), AMBIGUOUS
        where the value may hold a node the reader cannot name (`for v in (cfg.a, cfg.b)`, `cfg.a if c else cfg.b`),
        else unbound (the name holds something else)."""
        if isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) and not each else None
            if values is not None and len(values) == len(target.elts) and not any(isinstance(v, ast.Starred) for v in values):
                for item, given in zip(target.elts, values, strict=True):
                    self.bind(item, given, names)
                return
            for item in target.elts:
                self.bind(item.value if isinstance(item, ast.Starred) else item, value, names, each=True)
            return
        if not isinstance(target, ast.Name):
            return
        bound = _key_of(value, names) if value is not None and not each else None
        if isinstance(value, ast.IfExp) and not each:
            sides = {_key_of(value.body, names), _key_of(value.orelse, names)}
            bound = sides.pop() if len(sides) == 1 else None
        if bound is None and value is not None and _mentions(value, names) and self.may_hold_node(value, each):
            bound = AMBIGUOUS
        if bound is None:
            names.pop(target.id, None)  # the name now holds something else
            return
        names[target.id] = bound
        if value is not None and bound != AMBIGUOUS and _read_key(value, names) is None:
            self.soft.add(target.id)  # bound through `.get`: what is read through it may be absent

    def may_hold_node(self, value: ast.expr, each: bool) -> bool:
        """Whether a value that uses config names may be one of its nodes: an item of what it loops over, `cfg.a if c
        else cfg.b`, `cfg.a or {}`, or what a function of the sources returns when one of its `return`s gives back a
        parameter (or a name bound from one); never a copy, a text, a number or what code outside the sources builds."""
        if each or isinstance(value, ast.IfExp | ast.BoolOp | ast.Subscript | ast.NamedExpr | ast.Starred):
            return True
        if not isinstance(value, ast.Call) or not self.place:
            return False
        function = _dotted(value.func)
        found = self.index._expression(self.place[-1].module, function, set()) if function else None
        return isinstance(found, _Def) and isinstance(found.node, ast.FunctionDef | ast.AsyncFunctionDef) and returns_given(found.node)

    def read(self, statement: ast.stmt, names: Mapping[str, str], place: _Place, parts: Parts) -> None:
        """The strict reads of one statement (outside nested bodies): each longest attribute or subscript chain from a
        config name that is not a method called on a node (`config.a.items()` reads `a`), and `getattr(node, "k")`."""
        nodes = list(_own_nodes(statement))
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        inner = {
            id(n.value)
            for n in nodes
            if isinstance(n, ast.Attribute | ast.Subscript) and isinstance(n.ctx, ast.Load) and id(n) not in called
        }
        for node in nodes:
            key: str | None = None
            root = ""
            if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Load):
                if id(node) in inner or id(node) in called:
                    continue
                key, root = _read_key(node, names), _root(node)
            elif isinstance(node, ast.Call) and _dotted(node.func) == "getattr" and len(node.args) == 2 and not node.keywords:
                base, attribute = _read_key(node.args[0], names), node.args[1]
                if base is not None and isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
                    key, root = _join(base, attribute.value), _root(node.args[0])
            if not key or root in self.soft or _covers(self.guards, key) or self.written(key):
                continue
            when = (*self.when, *self.only_if(node, names, parts))
            self.reads.append(Read(key, place.file, getattr(node, "lineno", statement.lineno), _text(node), when))

    def only_if(self, node: ast.AST, names: Mapping[str, str], parts: Parts) -> tuple[tuple[Any, ...], ...]:
        """The tests under which a part of the current statement runs at all (`y` in `x if c else y`, the operands of
        `and`/`or` after the first, a comprehension's body): () for a part that always runs."""
        return tuple(
            UNKNOWN_TEST if guard is None else self.test(guard[0], names) if guard[1] else ("not", self.test(guard[0], names))
            for guard in parts.get(id(node), ())
        )

    def written(self, key: str) -> bool:
        """True when the walk wrote the key, or a node above it (merged into), before reading it (one look-up per level
        of the key)."""
        if self.written_upto > len(self.writes):  # writes forgotten by a rollback
            self.written_set, self.written_upto = set(), 0
        self.written_set.update(w.key for w in self.writes[self.written_upto :] if w.placed)
        self.written_upto = len(self.writes)
        parts = key.split(".")
        return "" in self.written_set or any(".".join(parts[:end]) in self.written_set for end in range(1, len(parts) + 1))

    def assign(
        self, target: ast.expr, value: ast.expr | None, statement: ast.stmt, names: dict[str, str], place: _Place, open_dict: bool
    ) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) else None
            pairs = values is not None and len(values) == len(target.elts) and not any(isinstance(v, ast.Starred) for v in values)
            for position, item in enumerate(target.elts):
                given = values[position] if pairs and values is not None else None
                if isinstance(item, ast.Name | ast.Tuple | ast.List | ast.Starred):
                    self.bind(item.value if isinstance(item, ast.Starred) else item, given if pairs else value, names, each=not pairs)
                else:
                    self.assign(item, given, statement, names, place, open_dict)
            return
        if isinstance(target, ast.Name):
            if isinstance(statement, ast.AugAssign):
                names.pop(target.id, None)
                return
            if value is not None and _key_of(value, names) is None and _merged(value, names) is not None:
                # `config = OmegaConf.merge(config, other)`: every key of the config may change here.
                if target.id in names:
                    self.record(names[target.id], "merge", value, statement, place, open_dict)
                return
            self.bind(target, value, names)
            return
        key = _key_of(target, names)
        if key is None:
            return
        action = "update" if isinstance(statement, ast.AugAssign) else "set"
        if self.order and isinstance(target, ast.Attribute) and self.through_setter(target, value, statement, names, place, open_dict):
            return
        self.record(key, action, value, statement, place, open_dict)
        held = _key_of(value, names) if value is not None and action == "set" and self.order else None
        if held is not None:
            # `self.engine = self.fsdp_config` in a class's own code: one object under two fields, so a write below
            # either changes both (an entry point's config is OmegaConf's, which copies a node assigned to a key).
            self.share(*_sharing(key, held))

    def through_setter(
        self, target: ast.Attribute, value: ast.expr | None, statement: ast.stmt, names: dict[str, str], place: _Place, open_dict: bool
    ) -> bool:
        """`self.scale = 2` in a class's own code where `scale` is a property with a setter: no field `scale` is
        written, the setter runs with the value. What it writes counts as this assignment's writes, at this line
        (a field the setter sets to its value parameter holds the assigned value); False when `scale` is no property."""
        if _key_of(target.value, names) != "" or target.attr in self.setting:
            return False  # (a setter that assigns its own property is read as a plain write: no loop)
        setter = _setter_of(self.order, target.attr)
        if setter is None or not isinstance(setter.node, ast.FunctionDef) or len(setter.node.args.args) < 2:
            return False
        parameter = setter.node.args.args[1].arg
        start = len(self.writes)
        self.setting.append(target.attr)
        try:
            self.body(setter.node.body, {setter.node.args.args[0].arg: ""}, _Place(setter.module, module_file(setter.module)), 0, open_dict)
        finally:
            self.setting.pop()
        text = f"{_text(statement)} (the {target.attr} setter: "
        for position in range(start, len(self.writes)):
            write = self.writes[position]
            given = write.code.rpartition("=")[2].strip() == parameter and write.action == "set"
            default = _literal(value) if given and value is not None and not isinstance(statement, ast.AugAssign) else None
            literal = default is not None and default.literal
            self.writes[position] = replace(
                write,
                value=default.value if default is not None and literal else None if given else write.value,
                literal=literal if given else write.literal,
                file=place.file,
                line=statement.lineno,
                code=f"{text}{write.code})",
            )
        return True

    def record(self, key: str, action: str, value: ast.expr | None, statement: ast.stmt, place: _Place, open_dict: bool) -> None:
        """One write: the value when the source writes a literal, else only the statement's text. A write through a
        name the reader cannot tell, or below a node another key shares, is not resolved: named, never keyed."""
        self.changed.add(key if key not in (UNPLACED, AMBIGUOUS) else "")
        if key == AMBIGUOUS or any(key.startswith(shared + ".") or shared == "" and key != "" for shared in self.shared):
            shape = "a write through a name bound to different nodes" if key == AMBIGUOUS else "a write below a node two keys share"
            self.unresolved.append(Unresolved(place.file, statement.lineno, shape))
            return
        default = _literal(value) if value is not None and action == "set" else None
        literal = default is not None and default.literal
        written = default.value if default is not None and literal else None
        self.writes.append(
            Write(key, action, written, literal, place.file, statement.lineno, _text(statement), open_dict, tuple(self.when))
        )

    def calls(self, statement: ast.stmt, names: dict[str, str], place: _Place, depth: int, open_dict: bool, parts: Parts) -> None:
        """The calls of one statement (not inside nested bodies, which are walked as statements): OmegaConf's
        writers, a node's own `.pop`/`.update`/`.merge_with`, `setattr`, and functions of the sources given the config."""
        for node in _own_nodes(statement):
            if isinstance(node, ast.NamedExpr):
                self.bind(node.target, node.value, names)
            if not isinstance(node, ast.Call):
                continue
            extra = self.only_if(node, names, parts)
            self.when += extra
            self.call(node, statement, names, place, depth, open_dict)
            del self.when[len(self.when) - len(extra) :]

    def call(self, node: ast.Call, statement: ast.stmt, names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> None:
        """One call of a statement (`calls`)."""
        function = _dotted(node.func) or ""
        last = function.rsplit(".", 1)[-1]
        if last in ("update", "set") and function.startswith(("OmegaConf.", "omegaconf.OmegaConf.")) and len(node.args) >= 2:
            base = _key_of(node.args[0], names)
            if base is not None:
                written = node.args[1]
                key = written.value if isinstance(written, ast.Constant) and isinstance(written.value, str) else UNPLACED
                value = node.args[2] if len(node.args) > 2 else next((k.value for k in node.keywords if k.arg == "value"), None)
                merge = next((k.value for k in node.keywords if k.arg == "merge"), None)
                merges = not (isinstance(merge, ast.Constant) and merge.value is False)
                # A mapping given with merge (the default) is merged into the node there, not set as its value.
                action = "merge" if merges and isinstance(value, ast.Dict) else "set"
                self.record(_join(base, key), action, value, statement, place, open_dict)
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("pop", "setdefault", *MERGING_METHODS, *LIST_METHODS):
            base = _key_of(node.func.value, names)
            if base is None:
                return
            first = node.args[0] if node.args else None
            named = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
            if node.func.attr == "pop":
                self.record(_join(base, named) if named else UNPLACED, "delete", None, statement, place, open_dict)
            elif node.func.attr == "setdefault":
                value = node.args[1] if len(node.args) > 1 else None
                self.record(_join(base, named) if named else UNPLACED, "set", value, statement, place, open_dict)
            elif node.func.attr in LIST_METHODS:  # a list changed in place
                self.record(base, "update", None, statement, place, open_dict)
            else:  # a node merged into: its keys below are not known, the node is ("" the whole config)
                self.record(base, "merge", None, statement, place, open_dict)
            return
        if (function.endswith("__setattr__") or function in ("setattr", "delattr")) and len(node.args) >= 2:
            base = _key_of(node.args[0], names)
            if base is None:
                self.follow(node, names, place, depth)
                return
            written = node.args[1]
            key = written.value if isinstance(written, ast.Constant) and isinstance(written.value, str) else UNPLACED
            if function == "delattr":
                self.record(_join(base, key), "delete", None, statement, place, open_dict)
            elif len(node.args) >= 3:
                self.record(_join(base, key), "set", node.args[2], statement, place, open_dict)
            return
        self.follow(node, names, place, depth)

    def follow(self, call: ast.Call, names: Mapping[str, str], place: _Place, depth: int) -> None:
        """A function of the sources called by name with the config (or a node of it) as an argument, or a method of a
        class walk's own class called on it (`self.helper()`). Given to code the walk does not follow, a node may be
        changed there: tests on it are not decided after."""
        given = [(_key_of(argument, names), argument) for argument in call.args]
        keywords = {k.arg: _key_of(k.value, names) for k in call.keywords if k.arg}
        if self.order and isinstance(call.func, ast.Attribute):
            # A class walk: `self.helper()` (the class's own method) and `super().method()` (the next class's).
            receiver = call.func.value
            above = isinstance(receiver, ast.Call) and _dotted(receiver.func) == "super"
            if above or _key_of(receiver, names) in ("", AMBIGUOUS):
                start = (self.classes[-1] + 1 if self.classes else 0) if above else 0
                found_method = _method_of(self.order, call.func.attr, start)
                if found_method is not None:
                    self.classes.append(found_method[0])
                    held = "" if above else _key_of(receiver, names)
                    self._enter(found_method[1], [(held, receiver), *given], keywords, 0, depth)
                    self.classes.pop()
                    return
        if not any(key is not None for key, _ in given) and not any(v is not None for v in keywords.values()):
            return
        function = _dotted(call.func)
        found = None
        if function is not None and function.split(".", 1)[0] not in names:
            found = self.index._expression(place.module, function, set())
        if isinstance(found, _Def) and isinstance(found.node, ast.ClassDef):
            init = next((s for s in found.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is None:
                return
            self._enter(_Def(found.module, init), given, keywords, 1, depth)
        elif isinstance(found, _Def):
            self._enter(found, given, keywords, 0, depth)
        elif not isinstance(found, Outside):
            # A method reached through an object (`runner.run.remote(config)`), or a name the sources do not define.
            self.changed.add(
                *(k if k not in (UNPLACED, AMBIGUOUS) else "" for k in (*(k for k, _ in given), *keywords.values()) if k is not None)
            )

    def _enter(
        self, found: _Def, given: Sequence[tuple[str | None, ast.expr]], keywords: Mapping[str, str | None], skip: int, depth: int
    ) -> None:
        """Walks a function with its parameters bound to the nodes the call gives (a node the reader cannot place or
        tell binds AMBIGUOUS: the writes through it are named, not lost)."""
        if not isinstance(found.node, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        arguments = found.node.args
        positional = [*arguments.posonlyargs, *arguments.args][skip:]
        bound: dict[str, str] = {}

        def held(key: str) -> str:
            return AMBIGUOUS if key in (UNPLACED, AMBIGUOUS) else key

        starred = any(isinstance(argument, ast.Starred) for _, argument in given)
        for parameter, (key, _) in zip(positional, given):
            if key is not None:
                bound[parameter.arg] = AMBIGUOUS if starred else held(key)
        for parameter in [*positional, *arguments.kwonlyargs]:
            key = keywords.get(parameter.arg)
            if key is not None:
                bound[parameter.arg] = held(key)
        if bound:
            self.function(found, bound, depth=depth + 1)


def _method_of(order: Sequence[_Def], name: str, start: int = 0) -> tuple[int, _Def] | None:
    """The method `name` of the first class of `order` (method resolution order) from `start` that defines it, with
    that class's place in the order (where `super()` inside it looks next)."""
    for position, klass in enumerate(order[start:], start):
        if isinstance(klass.node, ast.ClassDef):
            for statement in klass.node.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
                    return position, _Def(klass.module, statement)
    return None


def _setter_of(order: Sequence[_Def], name: str) -> _Def | None:
    """The setter of property `name` in the first class of `order` that defines `name` at all (a plain method or
    attribute there hides any property further up, as Python's lookup does); None when it is no property with one."""
    for klass in order:
        if not isinstance(klass.node, ast.ClassDef):
            continue
        defined = [s for s in klass.node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == name]
        assigned = any(
            isinstance(s, ast.AnnAssign | ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in _targets(s))
            for s in klass.node.body
        )
        if defined or assigned:
            setters = [s for s in defined if any(isinstance(d, ast.Attribute) and d.attr == "setter" for d in s.decorator_list)]
            return _Def(klass.module, setters[-1]) if setters and defined[-1] is setters[-1] else None
    return None


def _targets(statement: ast.AnnAssign | ast.Assign) -> list[ast.expr]:
    return [statement.target] if isinstance(statement, ast.AnnAssign) else list(statement.targets)


def _merge_names(branches: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """The bindings after paths that join: a name bound alike on every path keeps its key; bound differently (or not
    on every path) it is AMBIGUOUS."""
    merged: dict[str, str] = {}
    for name in {n for branch in branches for n in branch}:
        keys = {branch.get(name) for branch in branches}
        merged[name] = keys.pop() if len(keys) == 1 and None not in keys else AMBIGUOUS  # type: ignore[assignment]
    return merged


def _set_names(names: dict[str, str], merged: Mapping[str, str]) -> None:
    names.clear()
    names.update(merged)


def _mentions(value: ast.expr, names: Container[str]) -> bool:
    """The expression uses one of `names` (those bound to the config, or to a node of it)."""
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value))


def returns_given(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A function one of whose `return`s gives back a parameter, a node below one, or a name bound from one."""
    held = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
    returned: list[ast.expr] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id in held for n in ast.walk(node.value)):
            held |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Return) and node.value is not None:
            returned.append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    return any(_root(value) in held or isinstance(value, ast.IfExp | ast.BoolOp) and _mentions(value, held) for value in returned)


@dataclass(frozen=True)
class _Effects:
    """What a block may do, read from its text alone: the names it binds to what may be a node (`related`), and the
    keys it may change ("" where it changes what a rebound name holds)."""

    related: frozenset[str]
    touched: tuple[str, ...]
    shared: tuple[str, ...]  # keys bound to a node another key holds (`self.other = self.inner`), both


def _block_effects(statements: Sequence[ast.stmt], names: Mapping[str, str]) -> _Effects:
    """A block's effects (a loop's body, before it is walked): every store, `del` and call through a name bound to
    the config, and every name bound from an expression that uses one (or a name so bound, to a fixed point)."""
    assigned: set[str] = set()
    bindings: list[tuple[list[str], ast.AST]] = []  # the names a statement binds, and what it binds them from
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            if not isinstance(node, ast.Lambda):
                assigned.add(node.name)
            continue
        nodes.append(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            assigned.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            assigned.add(node.name)
        source: ast.AST | None = None
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            source, targets = node.value, list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value is not None:
            source, targets = node.value, [node.target]
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            source, targets = node.iter, [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            source, targets = node.context_expr, [node.optional_vars]
        if source is not None:
            bound = [n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
            bindings.append((bound, source))
        stack.extend(ast.iter_child_nodes(node))
    related: set[str] = set()
    grew = True
    while grew:
        grew = False
        for bound, source in bindings:
            if any(isinstance(n, ast.Name) and (n.id in names or n.id in related) for n in ast.walk(source)):
                fresh = set(bound) - related
                related |= fresh
                grew = grew or bool(fresh)
    related |= assigned & set(names)
    touched: list[str] = []
    shared: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Assign):
            held = _key_of(node.value, names)
            for target in node.targets if held is not None else ():
                key = _key_of(target, names) if isinstance(target, ast.Attribute | ast.Subscript) else None
                if key is not None and held is not None:
                    shared += _sharing(key, held)
        reached: list[ast.expr] = []
        if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            reached.append(node.value)
        elif isinstance(node, ast.Call):
            reached += [*node.args, *(k.value for k in node.keywords)]
            if isinstance(node.func, ast.Attribute):
                reached.append(node.func.value)
        for expression in reached:
            if _root(expression) in related:
                touched.append("")
                continue
            key = _key_of(expression, names)
            if key is not None:
                touched.append(key if key not in (UNPLACED, AMBIGUOUS) else "")
    return _Effects(frozenset(related), tuple(touched), tuple(shared))


def _sharing(key: str, held: str) -> list[str]:
    """The keys an assignment of one node to another key makes share an object ("" when either is not placed:
    any key may then be shared)."""
    return [key, held] if not {key, held} & {UNPLACED, AMBIGUOUS} else [""]


def _breaks(statements: Sequence[ast.stmt]) -> bool:
    """A loop body with a `break` of its own (not one of a loop inside it)."""
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if not isinstance(node, ast.For | ast.AsyncFor | ast.While | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _context_name(expression: ast.expr) -> str:
    called = expression.func if isinstance(expression, ast.Call) else expression
    return (_dotted(called) or "").rsplit(".", 1)[-1]


def _may_leave(statement: ast.stmt) -> bool:
    """A compound statement that may end its block early: a `return` or `raise` anywhere inside it (not in a nested
    definition), a `break` or `continue` outside a loop of its own."""
    if not isinstance(
        statement, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith | ast.Try | ast.TryStar | ast.Match
    ):
        return isinstance(statement, ast.Return | ast.Raise | ast.Break | ast.Continue)
    inside_loop = isinstance(statement, ast.For | ast.AsyncFor | ast.While)
    stack: list[tuple[ast.AST, bool]] = [(child, inside_loop) for child in ast.iter_child_nodes(statement)]
    while stack:
        node, in_loop = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Return | ast.Raise) or isinstance(node, ast.Break | ast.Continue) and not in_loop:
            return True
        looped = in_loop or isinstance(node, ast.For | ast.AsyncFor | ast.While)
        stack.extend((child, looped) for child in ast.iter_child_nodes(node))
    return False


def _conditional_parts(statement: ast.stmt) -> Parts:
    """The nodes of a statement's own expressions that run only under a test, by id, with those tests ((test, holds)
    for `x if test else y`; None for what may not run at all: the operands of `and`/`or` after the first, the body of a
    comprehension past its first iterable)."""
    parts: Parts = {}
    stack: list[tuple[ast.AST, tuple[tuple[ast.expr, bool] | None, ...]]] = [(root, ()) for root in _own_roots(statement)]
    while stack:
        node, guards = stack.pop()
        if guards:
            parts[id(node)] = guards
        children: list[tuple[ast.AST, tuple[tuple[ast.expr, bool] | None, ...]]]
        if isinstance(node, ast.IfExp):
            children = [(node.test, guards), (node.body, (*guards, (node.test, True))), (node.orelse, (*guards, (node.test, False)))]
        elif isinstance(node, ast.BoolOp):
            children = [(node.values[0], guards), *((v, (*guards, None)) for v in node.values[1:])]
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            first = node.generators[0].iter
            children = [(first, guards)] + [(c, (*guards, None)) for c in ast.iter_child_nodes(node) if c is not node.generators[0]]
            children += [(c, (*guards, None)) for c in ast.iter_child_nodes(node.generators[0]) if c is not first]
        else:
            children = [(c, guards) for c in ast.iter_child_nodes(node)]
        stack += [(child, g) for child, g in children if not isinstance(child, ast.Lambda)]
    return parts


def _own_roots(statement: ast.stmt) -> list[ast.AST]:
    """Where a statement's own expressions start: a compound statement's test, iterable or managers; none for a `try`,
    a `match` or a definition (their blocks are walked as statements)."""
    if isinstance(statement, ast.If | ast.While):
        return [statement.test]
    if isinstance(statement, ast.For | ast.AsyncFor):
        return [statement.iter]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, ast.Try | ast.TryStar | ast.Match | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return []
    return [statement]


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement outside the bodies of compound statements (those are walked one statement at a time)
    and outside lambdas (which run only when called)."""
    stack = list(reversed(_own_roots(statement)))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed([child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.Lambda)]))


def _leaves(statements: Sequence[ast.stmt]) -> bool:
    """True for a block that ends by leaving (`return`, `raise`, `continue`, `break`)."""
    return bool(statements) and isinstance(statements[-1], ast.Return | ast.Raise | ast.Continue | ast.Break)


def _root(node: ast.AST) -> str:
    """The name a chain of attributes, subscripts and calls starts from ("" for anything else)."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _opens_dict(expression: ast.expr, names: Mapping[str, str]) -> bool:
    """`open_dict(config)` (or `omegaconf.open_dict`, `read_write`): keys may be added inside the block."""
    if not isinstance(expression, ast.Call) or not expression.args:
        return False
    function = (_dotted(expression.func) or "").rsplit(".", 1)[-1]
    return function in ("open_dict", "read_write") and _key_of(expression.args[0], names) is not None


def _merged(value: ast.expr, names: Mapping[str, str]) -> str | None:
    """The node an `OmegaConf.merge(node, ...)` starts from, when it is the config."""
    if isinstance(value, ast.Call) and (_dotted(value.func) or "").endswith("OmegaConf.merge") and value.args:
        return _key_of(value.args[0], names)
    return None


@dataclass(frozen=True)
class EntryPoint:
    """A `@hydra.main` function of the sources: its module, its name and the parameter that receives the config."""

    module: str
    function: str
    parameter: str
    file: str
    line: int

    @property
    def name(self) -> str:
        return f"{self.module}.{self.function}"


def entry_points(index: SourceIndex) -> list[EntryPoint]:
    """Every `@hydra.main` function of the sources (files scanned as bytes first: only those naming it are parsed),
    sorted by module."""
    found: list[EntryPoint] = []
    for name in _modules_naming(index, b"hydra"):
        module = index.module(name)
        if module is None or module.tree is None:
            continue
        for statement in module.tree.body:
            if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) or not statement.args.args:
                continue
            for decorator in statement.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _dotted(called) in HYDRA_MAIN:
                    parameter = statement.args.args[0].arg
                    found.append(EntryPoint(name, statement.name, parameter, module_file(module), statement.lineno))
    return sorted(found, key=lambda e: (e.module, e.function))


def _modules_naming(index: SourceIndex, needle: bytes) -> Iterator[str]:
    """The module names of the sources' files whose bytes hold `needle` (read once per index, bounded)."""
    for name, _, data in index.files(MAX_ENTRY_FILES):
        if needle in data:
            yield name


def entry_writes(index: SourceIndex, entry: EntryPoint, budget: StatementBudget | None = None) -> tuple[Write, ...]:
    """The writes to the config the entry point's function makes, and the functions it calls by name make (OverBudget
    when the walk passes the `budget` it shares with the tree's other entry points)."""
    return entry_reach(index, entry, budget)[0]


def entry_reach(index: SourceIndex, entry: EntryPoint, budget: StatementBudget | None = None) -> tuple[tuple[Write, ...], tuple[Read, ...]]:
    """What one walk of the entry point finds: its writes (`entry_writes`) and its strict reads, in the order the
    code makes them."""
    found = entry_walk(index, entry, budget)
    return found.writes, found.reads


def entry_walk(index: SourceIndex, entry: EntryPoint, budget: StatementBudget | None = None) -> Reach:
    """Everything one walk of the entry point finds: writes, strict reads and the writes it cannot resolve."""
    located = index.locate(entry.name)
    if not isinstance(located, _Def):
        return Reach()
    walk = _Walk(index, budget)
    walk.function(located, {entry.parameter: ""})
    return _reach(walk)


def _reach(walk: _Walk) -> Reach:
    """A walk's findings, each once: a write (or read) the walk met under several branches or contexts (a function
    called from two places) holds where any of them does."""
    return Reach(tuple(_joined(walk.writes)), tuple(_joined(walk.reads)), tuple(dict.fromkeys(walk.unresolved)))


Found = TypeVar("Found", Write, Read)


def _joined(items: Sequence[Found]) -> list[Found]:
    grouped: dict[Any, list[Found]] = {}
    for item in items:
        grouped.setdefault(repr(replace(item, when=())), []).append(item)
    joined = []
    for group in grouped.values():
        whens: list[tuple[Any, ...]] = list({repr(item.when): item.when for item in group}.values())  # a test may hold a list
        when: tuple[Any, ...] = () if () in whens else whens[0] if len(whens) == 1 else (("or", *(("and", *w) for w in whens)),)
        joined.append(replace(group[0], when=when))
    return joined


def class_writes(index: SourceIndex, qualname: str) -> tuple[Write, ...]:
    """The writes a class makes to its own fields when built: its `__post_init__` (the first in its order, and those
    `super().__post_init__()` reaches) and its property setters; keys relative to the node."""
    return class_reach(index, qualname).writes


def class_reach(index: SourceIndex, qualname: str) -> Reach:
    """A class's walk (`class_writes`), with the writes it cannot resolve."""
    located = index.locate(qualname)
    if not isinstance(located, _Def) or not isinstance(located.node, ast.ClassDef):
        return Reach()
    order, _ = index._mro(located)
    walk = _Walk(index)
    walk.order = order
    try:
        _class_walk(walk, order)
    except OverBudget:
        pass  # a class's own reach past the whole tree's budget: the writes found so far
    return _reach(walk)


def _class_walk(walk: _Walk, order: Sequence[_Def]) -> None:
    """The first `__post_init__` in the class's order (what `super().__post_init__()` reaches is followed where it is
    called), and every property setter, which runs only where the program assigns it."""
    for klass in order:
        assert isinstance(klass.node, ast.ClassDef)
        for statement in klass.node.body:
            if isinstance(statement, ast.FunctionDef) and any(
                isinstance(d, ast.Attribute) and d.attr == "setter" for d in statement.decorator_list
            ):
                if statement.args.args:
                    walk.when.append(UNKNOWN_TEST)
                    walk.function(_Def(klass.module, statement), {statement.args.args[0].arg: ""})
                    walk.when.pop()
    first = _method_of(order, "__post_init__")
    if first is not None and isinstance(first[1].node, ast.FunctionDef | ast.AsyncFunctionDef) and first[1].node.args.args:
        walk.classes.append(first[0])
        walk.function(first[1], {first[1].node.args.args[0].arg: ""})


def describe(write: Write, owner: str) -> str:
    """One write as a report says it: `KEY = VALUE` (or `del KEY`) by OWNER at FILE:LINE."""
    key = write.key if write.placed else "a key the reader cannot place"
    if write.action == "delete":
        what = f"deletes {key}"
    elif write.action == "merge":
        what = f"merges into {key or 'the whole config'} ({write.code})"
    else:
        value = repr(write.value) if write.literal else write.code
        what = f"sets {key} = {value}" if write.literal else f"sets {key} ({value})"
    inside = " inside open_dict" if write.open_dict else ""
    return f"{owner} {what}{inside} at {write.where}"
