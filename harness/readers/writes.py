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

What is not followed: methods reached through an object (`runner.run.remote(config)`), a config kept on an object
(`self.config = config`) and written later, writes through a name bound to a copy. Each walk is bounded: a function
is read once per way the config reaches it, and at most `MAX_FUNCTIONS` functions and `MAX_CALL_DEPTH` calls deep
from one entry point.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.gates.budget import MAX_WRITE_STATEMENTS
from harness.gates.errors import BadInput
from harness.model.semantic_diff import value_text
from harness.readers.pysource import MAX_TEXT, SourceIndex, _Def, _dotted, _literal, _Module, _unparse

# Functions read from one entry point: verl's `main_ppo.main` reaches 4 by name; a pull request cannot make the
# walk read every function of the sources.
MAX_FUNCTIONS = 200
# Calls followed inside each other from one entry point: a real chain is 2 or 3 deep.
MAX_CALL_DEPTH = 8
# Files scanned for `@hydra.main` in the sources: verl has about 900 Python files.
MAX_ENTRY_FILES = 20_000

UNPLACED = "<a write the reader cannot place>"
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


def condition(test: ast.expr, names: Mapping[str, str]) -> tuple[Any, ...]:
    """A branch's test as data a case's tree decides (`holds`): ("key", path), ("literal", value), ("not", t),
    ("and"|"or", t, ...), ("compare", op, left, right); ("unknown",) for anything else (the environment, a call)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ("not", condition(test.operand, names))
    if isinstance(test, ast.BoolOp):
        return ("and" if isinstance(test.op, ast.And) else "or", *(condition(v, names) for v in test.values))
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = {ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "==", ast.IsNot: "!="}.get(type(test.ops[0]))
        if op is not None:
            return ("compare", op, condition(test.left, names), condition(test.comparators[0], names))
        return UNKNOWN_TEST
    key = _read_key(test, names) if isinstance(test, ast.Attribute | ast.Subscript) else None
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
            if not placed:
                return UNPLACED
            return ".".join(part for part in (prefix, *reversed(parts)) if part)
        else:
            return None


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
        if base is not None and isinstance(key, str) and base != UNPLACED:
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


class _Walk:
    """One entry point's (or class's) reach: the functions read, each once per binding, and the writes found."""

    def __init__(self, index: SourceIndex, budget: StatementBudget | None = None) -> None:
        self.index = index
        self.writes: list[Write] = []
        self.reads: list[Read] = []
        self.guards: list[str] = []  # keys tested for (or "" inside a `try`): reads below them may fail harmlessly
        self.when: list[tuple[Any, ...]] = []  # the tests of the branches the walk is inside
        self.soft: set[str] = set()  # names bound through `.get(...)`: what is read through them may be absent
        self.seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        self.functions = 0
        self.budget = budget if budget is not None else StatementBudget()

    def function(self, definition: _Def, names: Mapping[str, str], depth: int = 0) -> None:
        node = definition.node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        key = (f"{definition.qualname}:{node.lineno}", tuple(sorted(names.items())))
        if key in self.seen or self.functions >= MAX_FUNCTIONS or depth > MAX_CALL_DEPTH:
            return
        self.seen.add(key)
        self.functions += 1
        place = _Place(definition.module, module_file(definition.module))
        self.body(node.body, dict(names), place, depth, False)

    def body(self, statements: Sequence[ast.stmt], names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> None:
        depth_of_when = len(self.when)
        for statement in statements:
            self.statement(statement, names, place, depth, open_dict)
            if isinstance(statement, ast.If) and not statement.orelse and _leaves(statement.body):
                # `if not cfg.enable: return`: what follows runs only where the test does not hold.
                self.when.append(("not", condition(statement.test, names)))
        del self.when[depth_of_when:]

    def statement(self, statement: ast.stmt, names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> None:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return  # a nested definition runs only when called
        self.budget.left -= 1
        if self.budget.left < 0:
            raise OverBudget
        guards = _guards(list(_own_nodes(statement)), names)
        self.guards += guards
        self.read(statement, names, place)
        self.calls(statement, names, place, depth, open_dict)
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            value = statement.value
            for target in targets:
                self.assign(target, value, statement, names, place, open_dict)
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                key = _key_of(target, names)
                if key is not None and not isinstance(target, ast.Name):
                    self.record(key, "delete", None, statement, place, open_dict)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            opens = open_dict or any(_opens_dict(item.context_expr, names) for item in statement.items)
            self.body(statement.body, names, place, depth, opens)
        elif isinstance(statement, ast.If | ast.While):
            test = condition(statement.test, names)
            self.when.append(test)
            self.body(statement.body, names, place, depth, open_dict)
            self.when[-1] = ("not", test)
            self.body(statement.orelse, names, place, depth, open_dict)
            self.when.pop()
        elif isinstance(statement, ast.For | ast.AsyncFor):
            self.body(statement.body, names, place, depth, open_dict)
            self.body(statement.orelse, names, place, depth, open_dict)
        elif isinstance(statement, ast.Try | ast.TryStar):
            if statement.handlers:  # a read that fails there is caught
                self.guards.append("")
            self.body(statement.body, names, place, depth, open_dict)
            if statement.handlers:
                self.guards.pop()
            for block in (*(h.body for h in statement.handlers), statement.orelse, statement.finalbody):
                self.body(block, names, place, depth, open_dict)
        elif isinstance(statement, ast.Match):
            for case in statement.cases:
                self.body(case.body, names, place, depth, open_dict)
        del self.guards[len(self.guards) - len(guards) :]

    def read(self, statement: ast.stmt, names: Mapping[str, str], place: _Place) -> None:
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
            self.reads.append(Read(key, place.file, getattr(node, "lineno", statement.lineno), _text(node), tuple(self.when)))

    def written(self, key: str) -> bool:
        """True when the walk wrote the key, or a node above it (merged into), before reading it."""
        return any(w.placed and (key == w.key or key.startswith(w.key + ".") or w.key == "") for w in self.writes)

    def assign(
        self, target: ast.expr, value: ast.expr | None, statement: ast.stmt, names: dict[str, str], place: _Place, open_dict: bool
    ) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for item in target.elts:
                self.assign(item, None, statement, names, place, open_dict)
            return
        if isinstance(target, ast.Name):
            bound = _key_of(value, names) if value is not None else None
            if bound is None and value is not None and _merged(value, names) is not None:
                # `config = OmegaConf.merge(config, other)`: every key of the config may change here.
                if target.id in names:
                    self.record(names[target.id], "merge", value, statement, place, open_dict)
                return
            if bound is not None:
                names[target.id] = bound
                if value is not None and _read_key(value, names) is None:
                    self.soft.add(target.id)  # bound through `.get`: what is read through it may be absent
            else:
                names.pop(target.id, None)  # the name now holds something else
            return
        key = _key_of(target, names)
        if key is None:
            return
        action = "update" if isinstance(statement, ast.AugAssign) else "set"
        self.record(key, action, value, statement, place, open_dict)

    def record(self, key: str, action: str, value: ast.expr | None, statement: ast.stmt, place: _Place, open_dict: bool) -> None:
        """One write: the value when the source writes a literal, else only the statement's text."""
        default = _literal(value) if value is not None and action == "set" else None
        literal = default is not None and default.literal
        written = default.value if default is not None and literal else None
        self.writes.append(Write(key, action, written, literal, place.file, statement.lineno, _text(statement), open_dict))

    def calls(self, statement: ast.stmt, names: dict[str, str], place: _Place, depth: int, open_dict: bool) -> None:
        """The calls of one statement (not inside nested bodies, which are walked as statements): OmegaConf's
        writers, a node's own `.pop`/`.update`/`.merge_with`, and functions of the sources given the config."""
        for node in _own_nodes(statement):
            if not isinstance(node, ast.Call):
                continue
            function = _dotted(node.func) or ""
            last = function.rsplit(".", 1)[-1]
            if last in ("update", "set") and function.startswith(("OmegaConf.", "omegaconf.OmegaConf.")) and len(node.args) >= 2:
                base = _key_of(node.args[0], names)
                if base is not None:
                    written = node.args[1]
                    key = written.value if isinstance(written, ast.Constant) and isinstance(written.value, str) else UNPLACED
                    value = node.args[2] if len(node.args) > 2 else next((k.value for k in node.keywords if k.arg == "value"), None)
                    self.record(_join(base, key), "set", value, statement, place, open_dict)
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("pop", "update", "merge_with", "setdefault", "clear"):
                base = _key_of(node.func.value, names)
                if base is None:
                    continue
                first = node.args[0] if node.args else None
                named = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
                if node.func.attr == "pop":
                    self.record(_join(base, named) if named else UNPLACED, "delete", None, statement, place, open_dict)
                elif node.func.attr == "setdefault":
                    value = node.args[1] if len(node.args) > 1 else None
                    self.record(_join(base, named) if named else UNPLACED, "set", value, statement, place, open_dict)
                else:  # a node merged into: its keys below are not known, the node is ("" the whole config)
                    self.record(base, "merge", None, statement, place, open_dict)
                continue
            if function.endswith("__setattr__") and len(node.args) >= 3 and _dotted(node.args[0]) in names:
                base = names[_dotted(node.args[0]) or ""]
                written = node.args[1]
                key = written.value if isinstance(written, ast.Constant) and isinstance(written.value, str) else UNPLACED
                self.record(_join(base, key), "set", node.args[2], statement, place, open_dict)
                continue
            self.follow(node, names, place, depth)

    def follow(self, call: ast.Call, names: Mapping[str, str], place: _Place, depth: int) -> None:
        """A function of the sources called by name with the config (or a node of it) as an argument."""
        given = [(_key_of(argument, names), argument) for argument in call.args]
        keywords = {k.arg: _key_of(k.value, names) for k in call.keywords if k.arg}
        if not any(key is not None for key, _ in given) and not any(v is not None for v in keywords.values()):
            return
        function = _dotted(call.func)
        if function is None or function.split(".", 1)[0] in names:
            return
        found = self.index._expression(place.module, function, set())
        if isinstance(found, _Def) and isinstance(found.node, ast.ClassDef):
            init = next((s for s in found.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is None:
                return
            found, skip = _Def(found.module, init), 1
        elif isinstance(found, _Def):
            skip = 0
        else:
            return
        assert isinstance(found.node, ast.FunctionDef | ast.AsyncFunctionDef)
        arguments = found.node.args
        positional = [*arguments.posonlyargs, *arguments.args][skip:]
        bound: dict[str, str] = {}
        for parameter, (key, _) in zip(positional, given):
            if key is not None and key != UNPLACED:
                bound[parameter.arg] = key
        for parameter in [*positional, *arguments.kwonlyargs]:
            key = keywords.get(parameter.arg)
            if key is not None and key != UNPLACED:
                bound[parameter.arg] = key
        if bound:
            self.function(found, bound, depth=depth + 1)


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement outside the bodies of compound statements (those are walked one statement at a time)."""
    if isinstance(statement, ast.If | ast.While):
        yield from ast.walk(statement.test)
    elif isinstance(statement, ast.For | ast.AsyncFor):
        yield from ast.walk(statement.iter)
    elif isinstance(statement, ast.With | ast.AsyncWith):
        for item in statement.items:
            yield from ast.walk(item.context_expr)
    elif isinstance(statement, ast.Try | ast.TryStar | ast.Match | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    else:
        yield from ast.walk(statement)


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
    located = index.locate(entry.name)
    if not isinstance(located, _Def):
        return (), ()
    walk = _Walk(index, budget)
    walk.function(located, {entry.parameter: ""})
    return tuple(walk.writes), tuple(walk.reads)


def class_writes(index: SourceIndex, qualname: str) -> tuple[Write, ...]:
    """The writes a class makes to its own fields when built: its `__post_init__` (the first in its order, and those
    `super().__post_init__()` reaches) and its property setters; keys relative to the node."""
    located = index.locate(qualname)
    if not isinstance(located, _Def) or not isinstance(located.node, ast.ClassDef):
        return ()
    order, _ = index._mro(located)
    walk = _Walk(index)
    try:
        _class_walk(walk, order)
    except OverBudget:
        pass  # a class's own reach past the whole tree's budget: the writes found so far
    return tuple(walk.writes)


def _class_walk(walk: _Walk, order: Sequence[_Def]) -> None:
    for klass in order:
        assert isinstance(klass.node, ast.ClassDef)
        post_init = next((s for s in klass.node.body if isinstance(s, ast.FunctionDef) and s.name == "__post_init__"), None)
        for statement in klass.node.body:
            if isinstance(statement, ast.FunctionDef) and any(
                isinstance(d, ast.Attribute) and d.attr == "setter" for d in statement.decorator_list
            ):
                if statement.args.args:
                    walk.function(_Def(klass.module, statement), {statement.args.args[0].arg: ""})
        if post_init is None:
            continue
        if post_init.args.args:
            walk.function(_Def(klass.module, post_init), {post_init.args.args[0].arg: ""})
        if not _calls_super_post_init(post_init):
            break


def _calls_super_post_init(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__post_init__"
        and isinstance(node.func.value, ast.Call)
        and _dotted(node.func.value.func) == "super"
        for node in ast.walk(function)
    )


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
