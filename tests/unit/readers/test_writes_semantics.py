"""The config-writes reader against Python itself (issue 51 item 2): small programs hypothesis writes are run on a real
OmegaConf config (an `@hydra.main` function given the config, as Hydra's `cfg_passthrough` does) or built as a real
dataclass (its `__post_init__`), traced line by line, and every write that really happens is compared with what the
reader (harness/readers/writes.py) claims and what the review names as not verified (harness/runner/unverified.py).

What must hold, for every program:
- a literal value the reader claims a line writes is the value that key holds after the line ran;
- a key the reader claims a line writes is one that line changed (or the line changed nothing);
- a write the reader claims unconditionally happens (unless the program stopped first), and one it claims under a
  condition the config decides happens exactly when that condition holds;
- every key a line really changed is claimed at that line (its key, a node above it, or "a key the reader cannot
  place") or the line is named "write not resolved at FILE:LINE".

Only programs these tests write are run (compiled from text, in a fresh namespace): never a pull request's code.
The quick tier draws few examples (tests/conftest.py); `make test-e2e` runs this file with the thorough profile.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import dis
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf

from harness.composition.resolve import MISSING, lookup
from harness.readers.pysource import SourceIndex
from harness.readers.writes import Write, class_writes, entry_points, entry_reach, holds
from harness.runner.config_writes import _absent
from harness.runner.targets import ProgramView
from harness.runner.unverified import not_resolved

CONFIG: dict[str, Any] = {
    "a": {"x": 1, "y": "s", "b": {"z": 2, "w": [1, 2]}},
    "c": {"x": 3, "flag": True},
    "n": 5,
    "mode": "m1",
    "flag": False,
}


@dataclasses.dataclass(frozen=True)
class Shape:
    """What a program writes: the nodes (mappings, or a dataclass's nested instances) and the leaves of each, the
    numeric leaves, and the tests its branches take."""

    nodes: dict[str, tuple[str, ...]]
    numeric: dict[str, tuple[str, ...]]
    conditions: tuple[str, ...]
    dataclass: bool


CONFIG_SHAPE = Shape(
    {"": ("n", "mode", "flag"), "a": ("x", "y"), "a.b": ("z", "w"), "c": ("x", "flag")},
    {"": ("n",), "a": ("x",), "a.b": ("z",), "c": ("x",)},
    ("cfg.flag", "not cfg.flag", "cfg.mode == 'm1'", "cfg.mode != 'm1'", "cfg.c.flag", "cfg.n > 3", "len('ab') == 2", "False"),
    False,
)
# `Node` below: `inner` and `other` are instances of `Inner`; `other` may be made the same object as `inner`.
CLASS_SHAPE = Shape(
    {"": ("x", "y", "flag"), "inner": ("x", "y", "z", "n", "mode", "flag"), "other": ("x", "z", "flag")},
    {"": ("x",), "inner": ("x", "z", "n"), "other": ("x", "z")},
    ("self.flag", "not self.flag", "self.x == 1", "self.y == 'q'", "self.inner.flag", "len('ab') == 2", "False"),
    True,
)
LITERALS = st.sampled_from(["7", "'t'", "True", "None", "[3]", "{'k': 1}", "0.5", "-2"])
PROGRAM = "app/main.py"


@dataclasses.dataclass
class Lines:
    """A program's text as it is drawn: lines at an indent, and the helpers it defines."""

    lines: list[str] = dataclasses.field(default_factory=list)
    helpers: list[str] = dataclasses.field(default_factory=list)
    counter: int = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"


def node_expression(draw: st.DrawFn, name: str, steps: list[str], shape: Shape) -> str:
    """A name followed by the steps to a node, each step spelled as an attribute, a subscript or a `.get` (a
    dataclass's nodes by attribute only)."""
    text = name
    spellings = (lambda s: [f".{s}"]) if shape.dataclass else (lambda s: [f".{s}", f"[{s!r}]", f".{s}", f".get({s!r})"])
    for step in steps:
        text += draw(st.sampled_from(spellings(step)))
    return text


def below(path: str, node: str) -> list[str]:
    """The steps from `path` down to `node` (a node under it)."""
    rest = node[len(path) :].lstrip(".") if path else node
    return rest.split(".") if rest else []


@st.composite
def target(draw: st.DrawFn, bound: dict[str, str], shape: Shape) -> tuple[str, str, str]:
    """A node reachable from a bound name: (its expression, its path, a leaf of it)."""
    name = draw(st.sampled_from(sorted(bound)))
    path = bound[name]
    nodes = [n for n in shape.nodes if n == path or (n.startswith(path + ".") if path else True)]
    node = draw(st.sampled_from(nodes))
    return node_expression(draw, name, below(path, node), shape), node, draw(st.sampled_from(shape.nodes[node]))


def value(draw: st.DrawFn, bound: dict[str, str], shape: Shape) -> str:
    if draw(st.integers(0, 3)) == 0:
        expression, _, leaf = draw(target(bound, shape))
        return draw(st.sampled_from([f"{expression}.{leaf}", f"str({expression}.{leaf}) + '!'", "len('abc')"]))
    return draw(LITERALS)


@dataclasses.dataclass
class Context:
    """Where statements are drawn: the program's text so far, its shape, the indent, how deep in blocks, and whether
    a `return` may end the function here."""

    out: Lines
    shape: Shape
    indent: str
    depth: int

    def inside(self) -> Context:
        return Context(self.out, self.shape, self.indent + "    ", self.depth + 1)

    def emit(self, line: str) -> None:
        self.out.lines.append(self.indent + line)


def statements(draw: st.DrawFn, here: Context, bound: dict[str, str]) -> None:
    """One to four statements over the names bound to config nodes."""
    for _ in range(draw(st.integers(1, 4))):
        statement(draw, here, bound)


def statement(draw: st.DrawFn, here: Context, bound: dict[str, str]) -> None:
    shape, emit, out = here.shape, here.emit, here.out
    kinds = ["set", "set", "aug", "setattr", "object_setattr", "alias", "alias_if", "read", "del", "chain", "other", "return"]
    kinds += ["field_alias"] if shape.dataclass else ["update", "open_dict", "merge_with", "method", "list", "returned"]
    if here.depth < 2:
        kinds += ["if", "if", "for", "for_nodes", "while", "try", "with", "alias_branch", "call"]
    kind = draw(st.sampled_from(kinds))
    expression, node, leaf = draw(target(bound, shape))
    condition = draw(st.sampled_from(shape.conditions))
    if kind == "set":
        spelled = draw(
            st.sampled_from([f"{expression}.{leaf}"] if shape.dataclass else [f"{expression}.{leaf}", f"{expression}[{leaf!r}]"])
        )
        emit(f"{spelled} = {value(draw, bound, shape)}")
    elif kind == "aug":
        emit(f"{expression}.{draw(st.sampled_from(shape.numeric[node]))} += {draw(st.sampled_from(['1', '2']))}")
    elif kind == "setattr":
        if draw(st.booleans()):
            emit(f"setattr({expression}, {leaf!r}, {value(draw, bound, shape)})")
        else:
            key = out.fresh("k")
            emit(f"{key} = {leaf!r}")
            emit(f"setattr({expression}, {key}, {value(draw, bound, shape)})")
    elif kind == "object_setattr":
        # On an OmegaConf node `object.__setattr__` sets a Python attribute, not a key: drawn for dataclasses only.
        if shape.dataclass:
            emit(f"object.__setattr__({expression}, {leaf!r}, {value(draw, bound, shape)})")
        else:
            emit(f"{expression}.{leaf} = {draw(LITERALS)}")
    elif kind == "update":
        key = draw(st.sampled_from([leaf, f"{leaf}.q", "b.z" if node == "a" else leaf]))
        flags = draw(st.sampled_from(["", ", merge=False", ", force_add=True"]))
        emit(f"OmegaConf.update({expression}, {key!r}, {value(draw, bound, shape)}{flags})")
    elif kind == "merge_with":
        emit(f"{expression}.merge_with({{{leaf!r}: {draw(LITERALS)}}})")
    elif kind == "open_dict":
        if draw(st.booleans()):
            emit(f"with open_dict({expression}):")
            here.inside().emit(f"{expression}.{draw(st.sampled_from(['new', leaf]))} = {draw(LITERALS)}")
        else:
            name = out.fresh("d")
            emit(f"with open_dict({expression}) as {name}:")
            here.inside().emit(f"{name}.{draw(st.sampled_from(['new', leaf]))} = {draw(LITERALS)}")
        statements(draw, here.inside(), bound)
    elif kind == "alias":
        name = out.fresh("v")
        if draw(st.booleans()):
            emit(f"{name} = {expression}")
        else:
            second, second_node, _ = draw(target(bound, shape))
            emit(f"{name}, {out.fresh('w')} = {expression}, {second}")
            del second_node
        bound[name] = node
    elif kind == "alias_if":
        name = out.fresh("v")
        second, _, _ = draw(target(bound, shape))
        emit(f"{name} = {expression} if {condition} else {second}")
        bound[name] = node
    elif kind == "alias_branch":
        name = draw(st.sampled_from(sorted(bound)))
        other, _, _ = draw(target(bound, shape))
        emit(f"if {condition}:")
        here.inside().emit(f"{name} = {other}")
        if draw(st.booleans()):
            emit("else:")
            here.inside().emit(f"{name} = {expression}")
        # The drawing keeps the first binding: what the name holds is the reader's to tell.
    elif kind == "returned":
        # A name bound to what a helper returns: the node it was given (or one below), or a copy of it.
        function, name = out.fresh("pick"), out.fresh("v")
        steps = node_expression(draw, "node", below(node, draw(st.sampled_from([n for n in shape.nodes if n.startswith(node)]))), shape)
        given = draw(st.sampled_from([steps, "OmegaConf.to_container(node)", "{'x': node.x if 'x' in node else 0}"]))
        out.helpers.append(f"def {function}(node):\n    return {given}")
        emit(f"{name} = {function}({expression})")
        emit(f"{name}[{leaf!r}] = {draw(LITERALS)}")
    elif kind == "field_alias":
        emit("self.other = self.inner")  # one object under two fields (verl's `self.engine = self.fsdp_config`)
    elif kind == "read":
        tolerant = [f"{expression}.get({leaf!r}, 0)", f"{leaf!r} in {expression}", f"getattr({expression}, {leaf!r}, None)"]
        tolerant += [] if shape.dataclass else [f"OmegaConf.select({expression}, {leaf!r}, default=1)"]
        emit("_ = " + draw(st.sampled_from([f"{expression}.{leaf}", f"{expression}[{leaf!r}]", *tolerant])))
        if draw(st.booleans()):
            emit(f"if {leaf!r} in {expression}:")
            here.inside().emit(f"_ = {expression}.{leaf}")
    elif kind == "del":
        choices = [f"del {expression}.{leaf}", f"delattr({expression}, {leaf!r})"]
        choices += [] if shape.dataclass else [f"{expression}.pop({leaf!r})", f"{expression}.pop('new', None)"]
        emit(draw(st.sampled_from(choices)))
    elif kind == "list":
        name = draw(st.sampled_from(sorted(bound)))
        if bound[name] in ("", "a", "a.b"):
            reach = node_expression(draw, name, below(bound[name], "a.b"), shape)
            emit(draw(st.sampled_from([f"{reach}.w.append(3)", f"{reach}.w[0] = 9", f"{reach}.w.extend([4])"])))
        else:
            emit(f"{expression}.{leaf} = {draw(LITERALS)}")
    elif kind == "chain":
        second, _, second_leaf = draw(target(bound, shape))
        if draw(st.booleans()):
            emit(f"{expression}.{leaf} = {second}.{second_leaf} = {draw(LITERALS)}")
        else:
            emit(f"{expression}.{leaf}, {second}.{second_leaf} = {draw(LITERALS)}, {draw(LITERALS)}")
    elif kind == "other":
        name = out.fresh("o")
        emit(f"{name} = types.SimpleNamespace({leaf}=0)")
        emit(f"{name}.{leaf} = {draw(LITERALS)}")
    elif kind == "return":
        emit(f"if {condition}:")
        here.inside().emit("return")
    elif kind == "if":
        emit(f"if {condition}:")
        statements(draw, here.inside(), dict(bound))
        if draw(st.booleans()):
            emit("else:")
            statements(draw, here.inside(), dict(bound))
    elif kind == "for":
        emit(f"for {out.fresh('i')} in range({draw(st.integers(0, 2))}):")
        statements(draw, here.inside(), dict(bound))
        if draw(st.integers(0, 3)) == 0:
            here.inside().emit(f"if {condition}:")
            here.inside().inside().emit(draw(st.sampled_from(["break", "continue"])))
            statements(draw, here.inside(), dict(bound))
    elif kind == "for_nodes":
        name = out.fresh("v")
        second, _, _ = draw(target(bound, shape))
        emit(f"for {name} in ({expression}, {second}):")
        statements(draw, here.inside(), {**bound, name: node})
    elif kind == "while":
        counter = out.fresh("i")
        emit(f"{counter} = 0")
        emit(f"while {counter} < {draw(st.integers(0, 2))}:")
        here.inside().emit(f"{counter} += 1")
        statements(draw, here.inside(), dict(bound))
    elif kind == "try":
        emit("try:")
        statements(draw, here.inside(), dict(bound))
        if draw(st.booleans()):
            here.inside().emit("raise ValueError('drawn')")
        emit("except Exception:")
        statements(draw, here.inside(), dict(bound))
        if draw(st.booleans()):
            emit("finally:")
            statements(draw, here.inside(), dict(bound))
    elif kind == "with":
        emit(draw(st.sampled_from(["with contextlib.nullcontext():", "with contextlib.suppress(Exception):"])))
        statements(draw, here.inside(), dict(bound))
    elif kind == "call":
        helper(draw, here, expression, node)
    elif kind == "method":
        method(draw, here, expression, node)


def helper(draw: st.DrawFn, here: Context, expression: str, node: str) -> None:
    """A function of the module called by name with a node (or, in a class, a method `__post_init__` calls)."""
    out = here.out
    name = out.fresh("helper")
    inner = Lines(counter=out.counter * 100)
    if here.shape.dataclass:
        inner.lines.append(f"    def {name}(self):")
        statements(draw, Context(inner, here.shape, " " * 8, 1), {"self": ""})
        here.emit(f"self.{name}()")
    else:
        parameter = draw(st.sampled_from(["node", "cfg", "section"]))
        inner.lines.append(f"def {name}({parameter}):")
        statements(draw, Context(inner, here.shape, "    ", 1), {parameter: node})
        keyword = draw(st.booleans())
        here.emit(f"{name}({parameter + '=' if keyword else ''}{expression})")
    out.helpers += [*inner.helpers, "\n".join(inner.lines)]


def method(draw: st.DrawFn, here: Context, expression: str, node: str) -> None:
    """A method reached through an object (`Runner().run(config)`): the shape of verl's `TaskRunner.run`."""
    out = here.out
    name = out.fresh("Runner")
    parameter = draw(st.sampled_from(["config", "node"]))
    inner = Lines(counter=out.counter * 100)
    inner.lines += [f"class {name}:", f"    def run(self, {parameter}):"]
    statements(draw, Context(inner, here.shape, " " * 8, 1), {parameter: node})
    out.helpers += [*inner.helpers, "\n".join(inner.lines)]
    if draw(st.booleans()):
        here.emit(f"{name}().run({expression})")
    else:
        runner = out.fresh("runner")
        here.emit(f"{runner} = {name}()")
        here.emit(f"{runner}.run({expression})")


HEADER = "import contextlib\nimport dataclasses\nimport types\n\nimport hydra\nfrom omegaconf import OmegaConf, open_dict\n"
INNER = (
    "@dataclasses.dataclass\nclass Inner:\n    x: int = 1\n    y: str = 's'\n    z: int = 2\n    flag: bool = False\n"
    "    n: int = 0\n    mode: str = 'm'\n"
)
FIELDS = (
    "    x: int = 1\n    y: str = 's'\n    flag: bool = True\n    inner: Inner = dataclasses.field(default_factory=Inner)\n"
    "    other: Inner = dataclasses.field(default_factory=Inner)\n"
)


@st.composite
def entry_programs(draw: st.DrawFn) -> str:
    """A module with an `@hydra.main` function `main(cfg)` and the helpers and classes it calls."""
    out = Lines()
    statements(draw, Context(out, CONFIG_SHAPE, "    ", 0), {"cfg": ""})
    main = '@hydra.main(config_path=None, config_name="train", version_base=None)\ndef main(cfg):\n' + "\n".join(out.lines)
    return "\n\n\n".join([HEADER, *out.helpers, main]) + "\n"


@st.composite
def class_programs(draw: st.DrawFn) -> str:
    """A module with a dataclass `Node` whose `__post_init__` writes its own fields (and helper methods it calls)."""
    out = Lines()
    statements(draw, Context(out, CLASS_SHAPE, " " * 8, 0), {"self": ""})
    methods = "\n\n".join(out.helpers)
    node = f"@dataclasses.dataclass\nclass Node:\n{FIELDS}\n    def __post_init__(self):\n" + "\n".join(out.lines) + "\n"
    return "\n\n\n".join([HEADER, INNER, node + (f"\n{methods}\n" if methods else "")])


# ------------------------------------------------------------------------------------------------------- running


def plain(value: Any) -> Any:
    """A config or dataclass as plain data (what the reader's literal values are compared with)."""
    if OmegaConf.is_config(value):
        return OmegaConf.to_container(value, resolve=False)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: plain(v) for k, v in vars(value).items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def same(one: Any, other: Any) -> bool:
    """Equal values of the same types (`1 == True` in Python, not in a config)."""
    return repr(one) == repr(other)


def changed(before: Any, after: Any, path: str = "") -> Iterator[str]:
    """The highest paths where two trees differ."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in [*before, *(k for k in after if k not in before)]:
            yield from changed(before.get(key, MISSING), after.get(key, MISSING), f"{path}.{key}" if path else str(key))
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from changed(old, new, f"{path}.{index}" if path else str(index))
    elif not same(before, after):
        yield path


@dataclasses.dataclass
class Run:
    """One program run, traced: each execution of a line (its tree before and after, whether it raised), the paths
    each line changed, and whether the program stopped on an exception it did not catch."""

    executions: list[tuple[int, Any, Any, bool]] = dataclasses.field(default_factory=list)
    changes: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    stopped: bool = False


# Instructions CPython runs at a line it did not reach: after `if x:` fails in a `finally` run on an exception, the
# re-raise is reported at the block's last line.
PASSING = frozenset({"RERAISE", "NOP", "POP_EXCEPT", "COPY", "SWAP", "PUSH_EXC_INFO", "RESUME", "CACHE", "POP_TOP"})


def traced(file: str, start: Callable[[], Any], watched: Callable[[FrameType], Any]) -> Run:
    """Runs `start` under a tracer of `file`'s lines. `watched(frame)` gives the object whose writes count once the
    program's first frame is entered (the config, or the dataclass being built)."""
    run = Run()
    state: dict[str, Any] = {"root": None, "last": None, "running": None}
    open_lines: dict[int, list[Any]] = {}  # frame id -> [line, tree before, raised, ran an instruction of its own]

    def settle() -> Any:
        now = plain(state["root"])
        if not same(now, state["last"]):
            frame = state["running"]
            line = open_lines.get(id(frame), [None])[0] if frame is not None else None
            if line is not None:
                run.changes += [(line, path) for path in changed(state["last"], now)]
            state["last"] = now
        return now

    def local(frame: FrameType, event: str, _: Any) -> Any:
        opened = open_lines.get(id(frame))
        if event == "opcode":
            if opened is not None and dis.opname[frame.f_code.co_code[frame.f_lasti]] not in PASSING:
                opened[3] = True
            return local
        now = settle()
        if event in ("line", "return") and opened is not None:
            if opened[3] or opened[2]:  # a line event on a `finally`'s re-raise alone is no execution of that line
                run.executions.append((opened[0], opened[1], now, opened[2]))
            del open_lines[id(frame)]
        if event == "line":
            open_lines[id(frame)] = [frame.f_lineno, now, False, False]
            state["running"] = frame
        elif event == "exception" and opened is not None:
            opened[2] = True
            open_lines[id(frame)] = opened
        elif event == "return":
            caller = frame.f_back
            state["running"] = caller if caller is not None and caller.f_code.co_filename == file else None
        return local

    def tracer(frame: FrameType, event: str, _: Any) -> Any:
        if frame.f_code.co_filename != file:
            return None
        if state["root"] is None:
            state["root"] = watched(frame)
            state["last"] = plain(state["root"])
        settle()
        state["running"] = frame
        frame.f_trace_opcodes = True
        return local

    # The tracer that was there before comes back after (coverage's, under `make coverage`): clearing it would stop
    # coverage measuring every test after this one.
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        start()
    except Exception:  # the program stopped; what it wrote before stays
        run.stopped = True
    finally:
        sys.settrace(previous)
    return run


def run_entry(source: str, file: str, tree: dict[str, Any] = CONFIG) -> Run:
    config = OmegaConf.create(tree)
    OmegaConf.set_struct(config, True)  # as Hydra composes it
    namespace: dict[str, Any] = {"__name__": "app.main"}
    exec(compile(source, file, "exec", dont_inherit=True), namespace)  # noqa: S102 - a program this test wrote
    return traced(file, lambda: namespace["main"](config), lambda frame: config)


def run_class(source: str, file: str) -> Run:
    namespace: dict[str, Any] = {"__name__": "app.main"}
    exec(compile(source, file, "exec", dont_inherit=True), namespace)  # noqa: S102 - a program this test wrote
    # The instance is watched from `__post_init__`'s first frame (what the generated `__init__` set is its start).
    return traced(file, namespace["Node"], lambda frame: frame.f_locals["self"])


# ------------------------------------------------------------------------------------------------------- checking


def claims_of(folder: Path, dataclass: bool) -> tuple[list[Write], set[int]]:
    """What the reader claims the program writes, and the lines the review names as "write not resolved"."""
    index = SourceIndex([folder / "app"])
    if dataclass:
        writes = list(class_writes(index, "app.main.Node"))
    else:
        (entry,) = entry_points(index)
        writes = list(entry_reach(index, entry)[0])
    source = (folder / PROGRAM).read_text()
    named = {line for line, _ in not_resolved(ProgramView(index), PROGRAM, ast.parse(source))}
    return writes, named


def covers(claim: str, path: str) -> bool:
    return claim == "" or claim == path or path.startswith(claim + ".") or claim.startswith(path + ".")


def decided(write: Write, tree: Any) -> bool | None:
    """Whether the reader says the write happens on this tree: True, False, or None (it does not say)."""
    found = [holds(test, tree) for test in write.when]
    return False if False in found else None if None in found else True


def check(source: str, dataclass: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "app").mkdir()
        (folder / "app/__init__.py").write_text("")
        (folder / PROGRAM).write_text(source)
        file = str(folder / PROGRAM)
        run = run_class(source, file) if dataclass else run_entry(source, file)
        writes, named = claims_of(folder, dataclass)
    start = plain(_fresh_node(source)) if dataclass else CONFIG
    numbered = "\n".join(f"{n:3} {line}" for n, line in enumerate(source.splitlines(), 1))
    ran = {line for line, _, _, raised in run.executions if not raised}
    for position, write in enumerate(writes):
        said = f"{write.key!r} {write.action} {write.shown!r} at line {write.line} (when {write.when})\n{numbered}"
        if not write.placed:
            continue
        outcomes = [(b, a) for line, b, a, raised in run.executions if line == write.line and not raised]
        same_line = [w for w in writes if w.line == write.line]
        # A later write of the same line to the same key (`cfg.n, cfg.n = 7, 't'`), or one the line holds that is named
        # as not resolved (`cfg.a.x, v.x = 7, 't'` where `v` may be `cfg.a`), leaves its own value.
        later = any(w.line == write.line and w.placed and covers(w.key, write.key) for w in writes[position + 1 :])
        last = not later and not (write.line in named and len(_targets_at(source, write.line)) > 1)
        at_line = [p for line, p in run.changes if line == write.line]
        if write.action == "set" and write.literal and outcomes and last:
            assert any(
                same(lookup(a, write.key), write.value)
                and (any(covers(write.key, p) for p in at_line) or same(lookup(b, write.key), write.value))
                for b, a in outcomes
            ), f"claimed value not written: {said}"
        if write.action == "delete" and outcomes:
            assert any(lookup(a, write.key) is MISSING for _, a in outcomes), f"claimed delete did not happen: {said}"
        if at_line and len(same_line) == 1 and write.line not in named:  # the line's only claim: what it changed is its key
            assert any(covers(write.key, p) for p in at_line), f"claimed key not the one written ({at_line}): {said}"
        happens = decided(write, start)
        if happens is True and not run.stopped:
            assert write.line in ran, f"claimed unconditionally but never ran: {said}"
        if happens is False:
            assert write.line not in ran, f"claimed not to happen on this config but ran: {said}"
    for line, path in run.changes:
        claimed = [w for w in writes if w.line == line and (not w.placed or covers(w.key, path))]
        assert claimed or line in named, f"line {line} changed {path!r}: neither claimed nor named\n{numbered}"


def check_reads(source: str, lost: str) -> None:
    """Run on the config without `lost`: a read the reader says fails there (strict, in a branch the tree takes, of a
    key the tree lacks: what `config_read` reports) stops the program."""
    tree = copy.deepcopy(CONFIG)
    parent, _, leaf = lost.rpartition(".")
    del (lookup(tree, parent) if parent else tree)[leaf]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "app").mkdir()
        (folder / "app/__init__.py").write_text("")
        (folder / PROGRAM).write_text(source)
        run = run_entry(source, str(folder / PROGRAM), tree)
        index = SourceIndex([folder / "app"])
        (entry,) = entry_points(index)
        reads = entry_reach(index, entry)[1]
    failing = [r for r in reads if all(holds(t, tree) for t in r.when) and _absent(tree, r.key) is not None]
    numbered = "\n".join(f"{n:3} {line}" for n, line in enumerate(source.splitlines(), 1))
    said = ", ".join(f"{r.key} at line {r.line} (when {r.when})" for r in failing)
    assert not failing or run.stopped, f"without {lost}, the reads said to fail did not stop the program: {said}\n{numbered}"


def _targets_at(source: str, line: int) -> list[ast.expr]:
    """The places the statement at `line` assigns (a tuple's items each)."""
    found: list[ast.expr] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and node.lineno == line:
            for target in node.targets:
                found += target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
    return found


def _fresh_node(source: str) -> Any:
    """The dataclass's instance before `__post_init__` (the generated `__init__` alone)."""
    namespace: dict[str, Any] = {"__name__": "app.main"}
    exec(compile(source, "<start>", "exec", dont_inherit=True), namespace)  # noqa: S102 - a program this test wrote
    node = namespace["Node"]
    instance = object.__new__(node)
    for field in dataclasses.fields(node):
        default = field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
        object.__setattr__(instance, field.name, default)
    return instance


# Each example runs a program and walks it: the quick tier (tests/conftest.py's profile of 40) draws a tenth of them
# beside the kept ones below, `make test-e2e` (the thorough profile, 400) all of them.
THOROUGH = settings.default.max_examples >= 400
PROPERTY = settings(
    max_examples=settings.default.max_examples if THOROUGH else max(settings.default.max_examples // 10, 1),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def entry(body: str, *helpers: str) -> str:
    """An entry program as `entry_programs` draws it, from its `main` body (and helpers) written out."""
    main = '@hydra.main(config_path=None, config_name="train", version_base=None)\ndef main(cfg):\n'
    return (
        "\n\n\n".join(
            [HEADER, *(textwrap.dedent(h).strip() for h in helpers), main + textwrap.indent(textwrap.dedent(body).strip(), "    ")]
        )
        + "\n"
    )


def built(body: str, methods: str = "") -> str:
    """A class program as `class_programs` draws it, from its `__post_init__` body (and methods) written out."""
    post_init = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    more = f"\n\n{textwrap.indent(textwrap.dedent(methods).strip(), '    ')}\n" if methods else ""
    node = f"@dataclasses.dataclass\nclass Node:\n{FIELDS}\n    def __post_init__(self):\n{post_init}\n{more}"
    return "\n\n\n".join([HEADER, INNER, node])


# What the property found in the reader as it was (each claimed a wrong key or value, a write that did not happen, or
# said nothing of a write that did), kept as examples.
@PROPERTY
@given(entry_programs())
@example(entry("cfg.a.b.w.append(3)"))  # a list changed in place: silent
@example(entry("Runner().run(cfg)", "class Runner:\n    def run(self, node):\n        node.merge_with({'n': 7})"))  # silent
@example(entry("if not cfg.flag:\n    return\ncfg.n = 7"))  # claimed unconditionally after an early return
@example(entry("for i in range(0):\n    cfg.n = 7"))  # claimed unconditionally in a loop that never runs
@example(entry("try:\n    cfg.new = 1\n    cfg.n = 7\nexcept Exception:\n    pass"))  # after a write that raises
@example(entry("with contextlib.suppress(Exception):\n    cfg.new = 1\n    cfg.n = 7"))  # a manager that swallows it
@example(entry("v = cfg.a\nif cfg.flag:\n    v = cfg.c\nv.x = 7"))  # claimed c.x: the branch is not taken
@example(entry("OmegaConf.update(cfg, 'a.b', {'z': 5})"))  # claimed a.b = {'z': 5}: update merges a mapping
@example(entry("for v in (cfg.a, cfg.c):\n    v.x = 7"))  # a loop over nodes: silent
@example(entry("v, w = cfg.a, cfg.c\nw.x = 7"))  # a tuple of aliases: silent
@example(entry("v = pick(cfg)\nv.x = 7", "def pick(node):\n    return node.a"))  # a node a helper returns: silent
def test_every_write_an_entry_point_makes_is_claimed_as_it_happens_or_named(program):
    check(program, dataclass=False)


@PROPERTY
@given(class_programs())
@example(built("self.other = self.inner\nself.other.x = 7"))  # claimed other.x alone: inner.x is the same field
@example(built("for i in range(2):\n    self.other.x = 7\n    self.other = self.inner"))  # the second pass writes inner
@example(built("self.helper()", "def helper(self):\n    setattr(self, 'x', 7)"))  # a helper __post_init__ calls: silent
@example(built("delattr(self, 'y')"))  # silent
def test_every_write_a_post_init_makes_is_claimed_as_it_happens_or_named(program):
    check(program, dataclass=True)


@PROPERTY
@given(entry_programs(), st.sampled_from(["n", "mode", "flag", "a", "a.x", "a.y", "a.b", "a.b.z", "c", "c.x", "c.flag"]))
@example(entry("v = cfg.a\nif cfg.flag:\n    v = cfg.c\n_ = v.x"), "c.x")  # read c.x: the branch is not taken
@example(entry("cfg.flag = True\nif not cfg.flag:\n    _ = cfg.a.x"), "a.x")  # the test's key was written first
@example(entry("if cfg.a.x is True:\n    _ = cfg.c.x"), "c.x")  # `1 is True` is False (`1 == True` is not)
@example(entry("v = cfg.a if cfg.flag else cfg"), "a")  # read `a` on the branch of `x if c else y` not taken
def test_a_read_said_to_fail_on_a_lost_key_stops_the_program(program, lost):
    check_reads(program, lost)


def test_the_tracer_sees_each_line_write_and_the_value_after(tmp_path):
    source = HEADER + textwrap.dedent("""

        def helper(node):
            node.x = 9


        @hydra.main(config_path=None, config_name="train", version_base=None)
        def main(cfg):
            cfg.a.y = 't'
            helper(cfg.c)
            OmegaConf.update(cfg, "a.b.z", 4)
        """)
    (tmp_path / "main.py").write_text(source)
    run = run_entry(source, str(tmp_path / "main.py"))
    assert run.changes == [(15, "a.y"), (10, "c.x"), (17, "a.b.z")]
    assert not run.stopped
