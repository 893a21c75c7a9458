"""The walk over a shell script's syntax tree (tree-sitter-bash), in the order bash runs it: statements, subshells and
pipelines, `if`/`case`/`&&`/`||` (the branch a run with nothing set takes, the others `only when`), loops read pass by
pass, shell functions run where they are called, and the other environments a branch on the environment asks to read
(`readings`). What the walk cannot follow makes what it may assign unknown (`taint`). Each simple command is the launch
extraction's (`harness.readers.bash`); the words are `bash_words`'s.

Over 800 lines because the walk is one evaluator: its parts (branches, loops, trials of environments, what a command
may assign) call each other recursively through the same state, and a split would pass that state between modules."""

from __future__ import annotations

import abc
import bisect
import contextlib
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from harness.gates import linear
from harness.gates.budget import (
    MAX_SCRIPT_BYTES,
)
from harness.readers.bash_words import (
    _ABSENT,
    PLACEHOLDER_MARK,
    Environment,
    Word,
    WordReader,
    _attributed,
    _text,
    arithmetic_assigned,
    environment_value,
    word_text,
)

_T = TypeVar("_T")


MAX_ENVIRONMENTS = 16


# An environment's value the reader names in a launch's id and a report: plain characters, never `#`, `@`, quotes,
# spaces or a newline (a case id is `cmd/<script>#<n>`; `@` starts a root candidate).
NAMED_VALUE = linear.compile(r"[\w.:/%+,=-]{0,40}")


def parse(source: bytes) -> Any:
    """The script's tree-sitter syntax tree (a parser costs well under a millisecond, so each script gets its own)."""
    import tree_sitter

    return tree_sitter.Parser(_grammar()[0]).parse(source)


@functools.cache
def _grammar() -> tuple[Any, Any]:
    """tree-sitter-bash's language and the query for literal text, built once: compiling the query costs more than
    parsing a small script."""
    import tree_sitter
    import tree_sitter_bash

    language = tree_sitter.Language(tree_sitter_bash.language())
    return language, tree_sitter.Query(language, _LITERAL_QUERY)


def _captures(tree_sitter: Any, query: Any, node: Any) -> dict[str, list[Any]]:
    """A query's captures by name: through a `QueryCursor` (tree-sitter 0.25 and later), or the query itself (0.23 and
    0.24, the floor, which have no cursor type)."""
    cursor = getattr(tree_sitter, "QueryCursor", None)
    found: dict[str, list[Any]] = (cursor(query) if cursor is not None else query).captures(node)
    return found


# Where `$NAME` is literal text, never an expansion: single quotes, `$'...'`, comments and here-documents (a quoted
# one is literal; an unquoted one is never read for launches). Every bare `$` token outside an expansion, too.
_LITERAL_QUERY = '(raw_string) @literal (ansi_c_string) @literal (comment) @literal (heredoc_body) @literal ["$"] @dollar'


# `$A\\` at a line's end: the grammar takes the backslash and newline into the name (`A\\\n`).
_NAME_BEFORE_CONTINUATION = linear.compile(rb"\$[A-Za-z_0-9]+\\\n")


_SIMPLE_NAME = linear.compile(rb"\\.|\$\$|\$([A-Za-z_][A-Za-z0-9_]*|[0-9])", linear.S)


@dataclass(frozen=True)
class Source:
    """A script's bytes as parsed, and where the reader inserted bytes into them: `original` maps an offset of the
    parsed bytes back to the script's own."""

    data: bytes
    inserted: tuple[int, ...] = ()  # offsets in `data` of the bytes the reader inserted, ascending

    def original(self, offset: int) -> int:
        return offset - bisect.bisect_left(self.inserted, offset)


def parse_words(source: bytes) -> tuple[Any, Source]:
    """The syntax tree of a script, with every word whole as bash forms it.

    tree-sitter-bash splits some words bash keeps whole: in `key=$A/$B/$C` the `$` of `$B` is left bare and `B/$C`
    becomes a second word (in an assignment, a command of its own). `${NAME}` means what `$NAME` means wherever bash
    expands it, and the grammar reads every chain of braced expansions whole; so where a bare `$` shows the split,
    each `$NAME` outside literal text is braced and the script parsed again (`Source.original` maps offsets back to
    the script's own text). A script without such a split is parsed once, as written.
    """
    import tree_sitter

    tree = parse(source)
    captures = _captures(tree_sitter, _grammar()[1], tree.root_node)
    bare = [n for n in captures.get("dollar", []) if n.parent is not None and n.parent.type not in ("simple_expansion", "expansion")]
    if not bare and not _NAME_BEFORE_CONTINUATION.search(source):
        return tree, Source(source)
    literal = sorted((n.start_byte, n.end_byte) for n in captures.get("literal", []))
    pieces: list[bytes] = []
    inserted: list[int] = []
    size = 0  # bytes of `pieces`

    def add(chunk: bytes) -> None:
        nonlocal size
        pieces.append(chunk)
        size += len(chunk)

    def brace(segment: bytes) -> None:
        position = 0
        for match in _SIMPLE_NAME.finditer(segment):
            if match.group(1) is None:
                continue
            add(segment[position : match.start() + 1])
            inserted.append(size)
            add(b"{" + match.group(1))
            inserted.append(size)
            add(b"}")
            position = match.end()
        add(segment[position:])

    position = 0
    for start, end in literal:
        if start < position:  # nested in a literal already kept (a comment inside a here-document)
            continue
        brace(source[position:start])
        add(source[start:end])
        position = end
    brace(source[position:])
    data = b"".join(pieces)
    return parse(data), Source(data, tuple(inserted))


class _Environments:
    """The environments a script is read under: the plain run's first, then each one a reading finds that takes a
    branch on the environment another way, in the order found, up to MAX_ENVIRONMENTS besides the plain run."""

    def __init__(self) -> None:
        self.found: list[Environment] = [()]
        self.said: dict[Environment, dict[str, str]] = {(): {}}  # each variable of each, in words
        # The tests on the environment already tried, by file and place: each is tried in the first reading that meets
        # it, so independent tests add one environment per way each takes, never their product; a test met only
        # under an environment (nested in its branch) adds to that environment.
        self.tried: set[tuple[str, int]] = set()
        self._parsed: dict[bytes, tuple[Any, Source]] = {}

    def parsed(self, source: bytes) -> tuple[Any, Source]:
        """`parse_words(source)`, once for every reading of the script (its syntax is the same under any environment)."""
        found = self._parsed.get(source)
        if found is None:
            found = self._parsed[source] = parse_words(source)
        return found

    def add(self, environment: Environment, said: dict[str, str]) -> bool:
        """True when the script is read under `environment` (added now or before); False past the bound. `said`:
        its variables in words, each unless an environment found before says it."""
        if environment in self.said:
            return True
        if len(self.found) > MAX_ENVIRONMENTS:
            return False
        self.found.append(environment)
        self.said[environment] = {name: said[name] for name, _ in environment}
        return True

    def when(self, environment: Environment) -> str:
        """`only when CUDA_VISIBLE_DEVICES is set and VERL_USE_UV=0`."""
        return "only when " + " and ".join(self.said[environment].values())


# What a test reads of a variable the environment sets to a value no test of the script names: a text no literal
# equals (the differential tests give bash this very value).
GIVEN_MARK = "\x01"


# Values tried for the variables a test on the environment reads, besides "set" and the texts it compares them with.
MAX_TRIALS = 64


UNSET = "\x00"  # a trial's value for a variable the environment does not set (no value of an environment holds NUL)


def given_text(name: str) -> str:
    """The value `Environment`'s None stands for, for variable `name`, as a test reads it."""
    return f"{GIVEN_MARK}{name}"


def said_value(name: str, value: str | None, others: Iterable[str]) -> str:
    """`CUDA_VISIBLE_DEVICES is set`, `DEVICE is set, not to gpu` (`others`: the texts the test compared it with),
    `VERL_USE_UV=0`, `MODE=''`: one variable of an environment in words."""
    if value is not None:
        return f"{name}={value or repr('')}"
    named = sorted({text for text in others if text and NAMED_VALUE.fullmatch(text)})
    return f"{name} is set" + (
        f", not to {', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else f", not to {named[0]}" if named else ""
    )


class Walker(WordReader, abc.ABC):
    """Walks a script's syntax tree in order: statements, branches, loops, functions and the environments a branch
    depends on; each simple command is the launch extraction's (`_Reader`, bash.py)."""

    def __init__(self, script: str, source: bytes, environment: Environment = (), environments: _Environments | None = None) -> None:
        super().__init__(script, source, environment)
        self.written_source = source  # the bytes the script holds: what messages show
        self.layout = Source(source)
        # The run's environment (see `Environment`): the bottom layer of the variables, below all the script writes.
        self.environment = dict(environment)
        self.reading = environment
        self.environments = environments if environments is not None else _Environments()
        self.compared: list[tuple[str, str]] | None = None  # (a variable, a text it is compared with; "": any)
        self.tested: set[str] = set()  # the environment's variables the last test value read
        self.substitute: dict[str, str | None] = {}  # a trial's environment, for values copied from the environment
        # Shell functions by name: (body, the bytes it was parsed from, their layout, the file). A function runs
        # where it is called, with its arguments; one never called is read once at the end, for its launches.
        self.functions: dict[str, tuple[Any, bytes, bytes, Source, str]] = {}
        self.called: set[str] = set()
        self.unreached: list[tuple[str, tuple[Any, bytes, bytes, Source, str]]] = []  # defined aside, never called there
        self.calling: list[str] = []  # the functions running, outermost first (a function calling itself stops there)
        self.called_bytes = 0  # function bodies run, summed: bounded like sourced text, so calls cost what they read
        self.single_bracket = False  # the test being decided is `[ ... ]`, not `[[ ... ]]`
        self.passes = 0  # loop passes read one by one, summed (MAX_SCRIPT_PASSES)

    def declaration(self, node: Any) -> None:
        """`declare`/`local`/`export`/`typeset`/`readonly`: their assignments; in a function `local` (and `declare`
        without `-g`) makes a name the function's own, restored when it returns; `-i`, `-l`, `-u` make bash change
        what is assigned to the name from then on (see `assign`)."""
        command = _text(node.children[0]) if node.children else ""
        children = node.children[1:]
        flags = "".join(_text(c)[1:] for c in children if c.type == "word" and _text(c).startswith("-"))
        local = bool(self.locals) and (command == "local" or (command in ("declare", "typeset") and "g" not in flags))
        line = self.at or node.start_point.row + 1
        given = _attributed(node)
        for child in children:
            if child.type not in ("variable_assignment", "variable_name"):
                continue
            name = _text(child.children[0] if child.type == "variable_assignment" else child).partition("[")[0]
            # `local X` unsets X, unless it is this function's already (a `local` before, or the call's `X=1 f`).
            fresh = local and name not in self.locals[-1]
            if fresh:
                self.keep(self.locals[-1], name)
                self.locals[-1][name] = self.lookup(name, line)
            if name in given:
                self.keep(self.attributes, name)
                self.attributes[name] = f"`{' '.join(_text(node).split())[:80]}` (line {line})"
            if child.type == "variable_assignment":
                self.assign(child)
            elif fresh:
                self.env.values[name] = None
        self.computed_declaration(node)

    def computed_declaration(self, node: Any) -> None:
        """`declare -n R=W` (then `R=9` assigns W) and `declare "$N=9"` (the name is a value): what they assign is
        not followed, so every variable may hold anything after them."""
        children = node.children[1:]
        nameref = _text(node.children[0]) in ("declare", "typeset", "local") and any(
            c.type == "word" and linear.compile(r"-[a-zA-Z]*n[a-zA-Z]*").fullmatch(_text(c)) for c in children
        )
        computed = any(c.type not in ("variable_assignment", "variable_name", "word", "comment") for c in children)
        if nameref or computed:
            self.unknowable(f"`{' '.join(_text(node).split())[:80]}` (line {self.at or node.start_point.row + 1})")

    def run(self, node: Any) -> None:
        for child in node.children:
            self.statement(child)
            if self.aborted:  # bash skipped the rest of this command: what it assigns after the failure is unknown
                why, self.aborted = self.aborted, ""
                self.taint([child], why)

    def statement(self, node: Any) -> None:
        kind = node.type
        if kind == "variable_assignment":
            self.assign(node)
        elif kind == "variable_assignments":
            for child in node.children:
                self.statement(child)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "unset_command":
            for child in node.children[1:]:
                self.env.values.pop(_text(child), None)
        elif kind == "command":
            self.command(node)
        elif kind == "subshell":  # `( cd x; ... )`: its folder and variables end with it
            saved = self.env
            self.env = saved.copy()
            for child in node.children:
                self.statement(child)
            self.env = saved
        elif kind == "compound_statement" and node.children and node.children[0].type == "((":
            self.arithmetic_command(node)
        elif kind == "list" and len(node.children) == 3 and _text(node.children[1]) in ("&&", "||"):
            self.and_or(node)
        elif kind == "pipeline":  # each command of a pipeline runs in a subshell: what it assigns ends with it
            saved = self.env
            for child in node.children:
                self.env = saved.copy()
                self.statement(child)
            self.env = saved
        elif kind in ("redirected_statement", "negated_command", "compound_statement", "do_group", "list"):
            for child in node.children:
                if child.type == "file_redirect":
                    self.writes(child)
                self.statement(child)
        elif kind == "if_statement":
            self.if_statement(node)
        elif kind == "case_statement":
            self.case_statement(node)
        elif kind in ("for_statement", "c_style_for_statement"):
            self.for_statement(node)
        elif kind == "function_definition":
            self.define(node)
        elif kind == "while_statement":
            self.loop(node)
        elif kind == "ERROR":
            self.broken(node)

    @contextlib.contextmanager
    def aside(self, only_when: str) -> Iterator[None]:
        """Read a part bash does not run here (a branch not taken), for its launches only: in a layer of the variables
        that ends with it, saying `only_when` (unless the part around says more), and with what it declares (a
        function, a `local`, `declare -i`) put back as it was, since bash never declared it."""
        saved, undo = self.env, self.undo
        self.env = saved.child()
        self.env.only_when = saved.only_when or only_when
        self.undo = []
        try:
            yield
        finally:
            for mapping, key, old in reversed(self.undo):
                if mapping is self.functions and key not in self.called:  # bash never defines it; its launches are read
                    self.unreached.append((key, mapping[key]))
                if old is _ABSENT:
                    mapping.pop(key, None)
                else:
                    mapping[key] = old
            self.env, self.undo = saved, undo

    def define(self, node: Any) -> None:
        """`f() { ...; }`: remembered with the bytes it was parsed from; it runs where it is called."""
        name = next((c for c in node.children if c.type == "word"), None)
        body = next((c for c in node.children if c.type in ("compound_statement", "subshell", "if_statement", "test_command")), None)
        if name is not None and body is not None:
            self.keep(self.functions, _text(name))
            self.functions[_text(name)] = (body, self.source, self.written_source, self.layout, self.here)

    def call(self, name: str, arguments: list[Word], line: int, prefix: dict[str, list[Word] | None] | None = None) -> bool:
        """Run function `name` with `arguments` as bash does: its body with these positional parameters, in the
        caller's variables and folder (`prefix`: the values before its `VAR=x` prefix, which come back after it,
        as a `local`'s do). False when it is not followed (it calls itself, or the bodies run so far
        passed the script bound): then it is read once at the end, like a function never called."""
        body, source, written_source, layout, here = self.functions[name]
        size = body.end_byte - body.start_byte
        if name in self.calling or len(self.calling) >= MAX_SOURCE_DEPTH or self.called_bytes + size > MAX_SCRIPT_BYTES:
            return False
        self.called_bytes += size
        self.called.add(name)
        saved = self.source, self.written_source, self.layout, self.here, self.env.positional, self.at
        self.source, self.written_source, self.layout, self.here = source, written_source, layout, here
        self.env.positional = list(arguments)
        self.at = None if not self.sourcing else self.at
        self.calling.append(name)
        self.locals.append(dict(prefix or {}))
        try:
            self.statement(body)
        finally:
            self.calling.pop()
            for local, value in self.locals.pop().items():  # the caller's values come back when it returns
                self.env.values[local] = value
            self.source, self.written_source, self.layout, self.here, self.env.positional, self.at = saved
        return True

    def uncalled(self) -> None:
        """Functions never called: each read once, for its launches, where the script ends (its arguments unknown)."""
        for name, definition in [*self.functions.items(), *self.unreached]:
            if name in self.called and definition is self.functions.get(name):
                continue
            self.called.add(name)
            body, source, written_source, layout, here = definition
            saved = self.source, self.written_source, self.layout, self.here, self.env
            self.source, self.written_source, self.layout, self.here = source, written_source, layout, here
            self.env = self.env.child()
            self.env.positional, self.env.stopped, self.env.only_when = None, "", f"only when {name} is called"
            try:
                self.statement(body)
            finally:
                self.source, self.written_source, self.layout, self.here, self.env = saved

    def condition(self, node: Any) -> bool | None:
        """What a plain run's `if` condition evaluates to, or None when it cannot be told without running code.

        Over 60 lines: one branch per test form bash has (`&&`/`||` lists, `!`, `[`/`[[`/`test` with their unary and
        binary operators, `((...))`, a command's status), each a few lines; a table would hide the fall-through order."""
        kind = node.type
        if kind == "list" and len(node.children) == 3:
            left, operator, right = node.children
            a, b = self.condition(left), self.condition(right)
            if _text(operator) == "&&":
                return False if a is False or b is False else (None if a is None or b is None else True)
            if _text(operator) == "||":
                return True if a is True or b is True else (None if a is None or b is None else False)
        if kind == "variable_assignment" and not linear.compile(r"\$\(|`").search(_text(node)):
            return True  # an assignment's status is 0 (a command substitution's would be its own)
        if kind == "compound_statement" and node.children and node.children[0].type == "((":
            if self.compared is not None:
                self.compared += [("", number) for number in linear.compile(r"\d+").findall(_text(node))]
            number = self.calculate(node, ("((", "))"))
            return None if number is None else number != 0
        if kind == "negated_command":
            inner = self.condition(node.children[-1])
            return None if inner is None else not inner
        if kind == "subshell" or (kind == "compound_statement" and node.children and node.children[0].type == "{"):
            # `{ [ A ] || [ B ]; }`, `( ... )`: one command's status (several would run the ones before it)
            grouped = [c for c in node.children if c.type not in ("{", "}", "(", ")", ";", "comment")]
            return self.condition(grouped[0]) if len(grouped) == 1 else None
        if kind in ("test_command", "parenthesized_expression"):
            parts = [c for c in node.children if c.type not in ("[", "]", "[[", "]]", "(", ")")]
            if kind == "test_command":
                # `[ a -eq 0 ]` fails (not an integer: status 2); `[[ a -eq 0 ]]` reads `a` as arithmetic instead.
                self.single_bracket = bool(node.children) and node.children[0].type == "["
            return self.condition(parts[0]) if len(parts) == 1 else None
        if kind == "binary_expression" and len(node.children) == 3:
            operator = _text(node.children[1])
            if operator in ("&&", "||", "-a", "-o"):
                a, b = self.condition(node.children[0]), self.condition(node.children[2])
                if operator in ("&&", "-a"):
                    return False if a is False or b is False else (None if a is None or b is None else True)
                return True if a is True or b is True else (None if a is None or b is None else False)
            left = self._test_value(node.children[0])
            read = self.tested
            right = self._test_value(node.children[2])
            if self.compared is not None:  # each side's variables, with the other side's text
                self.compared += [
                    (name, text) for names, text in ((read, right), (self.tested, left)) if text is not None for name in names
                ]
            if left is None or right is None:
                return None
            if operator in ("=", "=="):
                return left == right
            if operator == "!=":
                return left != right
            numeric = {"-eq": 0, "-ne": 1, "-lt": 2, "-le": 3, "-gt": 4, "-ge": 5}
            if (
                operator in numeric
                and linear.compile(r"\s*[-+]?\d{1,19}\s*").fullmatch(left)  # 19: bash's 64-bit (MAX_INDEX_DIGITS)
                and linear.compile(r"\s*[-+]?\d{1,19}\s*").fullmatch(right)
            ):
                a_, b_ = int(left), int(right)
                return [a_ == b_, a_ != b_, a_ < b_, a_ <= b_, a_ > b_, a_ >= b_][numeric[operator]]
            if operator in numeric and self.single_bracket:
                return False
            return None
        if kind == "unary_expression" and len(node.children) == 2:
            operator, value = _text(node.children[0]), self._test_value(node.children[1])
            if operator in ("-z", "-n") and value is not None:
                return (value == "") == (operator == "-z")
            return None  # file tests and the like need the machine
        if kind == "command":
            name = _text(node.children[0]) if node.children else ""
            return {"true": True, "false": False, ":": True}.get(name)
        return None

    def _test_value(self, node: Any) -> str | None:
        self.tested = set()
        words = self.pieces(node, quoted=True)
        if len(words) != 1:
            return None
        (word,) = words
        self.tested = {p.env for p in word if p.env}
        if any(p.unknown and (p.why or not UNSET_VARIABLE.fullmatch(p.unknown)) for p in word):
            return None  # a command substitution (`$(probe)`) or an operator on a value: what it gives is not known
        if self.reads is not None:
            self.reads |= self.tested
        # An unset variable is empty in a test, as bash reads it; a plain run sets none of the script's knobs. One the
        # environment sets to a value no test names is that value (GIVEN_MARK: no literal equals it).
        texts = [given_text(p.unknown[1:]) if p.given else "" if p.unknown else p.text for p in word]
        if self.substitute:  # a trial: what the environment's variables stand for, as the trial sets them
            for position, piece in enumerate(word):
                value = self.substitute.get(piece.env, UNSET)
                if value != UNSET:
                    first = position == 0 or word[position - 1].env != piece.env
                    texts[position] = "" if not first else given_text(piece.env) if value is None else value
        return "".join(texts)

    def if_statement(self, node: Any) -> None:
        """`if`/`elif`/`else`: the branch a plain run takes is read, the others aside (`only when ...`), and each
        environment that decides the tests another way is read again. Over 60 lines: the branches are gathered,
        decided and read in one pass, in bash's order, through state (a condition's statements) the steps share."""
        branches: list[tuple[Any, list[Any]]] = []  # (condition or None for else, body statements)
        # The statements of a condition before its last (`if D=${DEVICE:-gpu}; [ "$D" != gpu ]`): the first branch's
        # always run; an `elif`'s only when the conditions before it fail.
        first: list[Any] = []
        later: list[Any] = []
        condition: Any = None
        body: list[Any] = []
        state = "start"
        for child in node.children:
            kind = child.type
            if kind == "if" or kind == "fi" or (kind == "comment" and state == "start"):
                continue
            if kind == "then":
                state = "body"
            elif kind in ("elif_clause", "else_clause"):
                branches.append((condition, body))
                sub_condition, sub_body, sub_state = None, [], "start" if kind == "elif_clause" else "body"
                for grandchild in child.children:
                    if grandchild.type in ("elif", "else", ";") or (grandchild.type == "comment" and sub_state == "start"):
                        continue
                    if grandchild.type == "then":
                        sub_state = "body"
                    elif sub_state == "start":
                        later += [sub_condition] if sub_condition is not None else []
                        sub_condition = grandchild
                    else:
                        sub_body.append(grandchild)
                condition, body = sub_condition, sub_body
                if kind == "else_clause":
                    condition = True
            elif state == "start":
                if kind != ";":
                    first += [condition] if condition is not None else []
                    condition = child
            elif kind != ";":
                body.append(child)
        branches.append((condition, body))
        for statement in first:
            self.statement(statement)
        conditions = [c for c, _ in branches if c is not None and c is not True]
        notes = []
        for position, (c, _) in enumerate(branches):
            if c is True:  # else: every condition before it fails
                notes.append(_only_when(conditions, " fails"))
            else:
                notes.append(_only_when([c] if c is not None else [], " holds" if position == 0 else " holds (and those before it fail)"))
        self.refused = ""

        def decide() -> list[bool | None]:
            return [True if c is True else None if c is None else self.condition(c) for c, _ in branches]

        verdicts, names, compared = self.decided(decide)
        line = self.at or node.start_point.row + 1
        test = f"`if {' '.join(_text(conditions[0]).split())[:80] if conditions else ''}` (line {line})"
        why = f"{test}, whose branch is not known"
        unfollowed = self.unfollowed(conditions) or self.refused or self.given_read(names, None in verdicts)
        if later and verdicts[0] is not True:  # an `elif` reached runs statements before its test: what they assign
            unfollowed = unfollowed or why  # and the tests after them are not followed (read for launches, then unknown)
            verdicts = [
                v if position == 0 or c is True else None for position, (v, (c, _)) in enumerate(zip(verdicts, branches, strict=True))
            ]
            with self.aside(_only_when(conditions[:1], " fails")):
                for statement in later:
                    self.statement(statement)
            self.taint(later, why)
        if None in verdicts:  # a condition that runs a command (`read X`, `((X=2))`) may assign, before any branch
            self.taint(conditions, why)
        others = self.other_environments(
            conditions, lambda: _first_holding(decide()), _first_holding(verdicts), names, compared, [b for _, b in branches], test
        )
        self.choose([(v, b) for v, (_, b) in zip(verdicts, branches, strict=True)], notes, why=why if unfollowed else "")
        self.taint(*others)

    def choose(
        self, branches: list[tuple[bool | None, list[Any]]], notes: list[str] | None = None, taken: list[int] | None = None, why: str = ""
    ) -> None:
        """Run the branches a plain run takes (`taken`, else the first that holds); read the others for their
        launches with the variables left as they were.

        A branch's verdict is None when it cannot be told without running code: the first such branch is taken
        unless it only stops the script. When the test reads a value assigned in a way the reader does not follow
        (`why` names the statement then; "" otherwise), what any branch may assign is unknown after it, never the
        value of the branch guessed: a `read` or an `eval` is not laundered into a known value by a test on it.
        """
        guessed = False
        if taken is None:
            chosen = None
            for position, (verdict, body) in enumerate(branches):
                if verdict is None:
                    guessed = True
                    verdict = not any(_text(s).startswith("exit") for s in body)
                if verdict:
                    chosen = position
                    break
            taken = [] if chosen is None else [chosen]
        for position, (_, body) in enumerate(branches):
            if position in taken:
                continue
            with self.aside(notes[position] if notes else ""):
                for statement in body:
                    self.statement(statement)
        for position in taken:
            for statement in branches[position][1]:
                self.statement(statement)
        if guessed and why:
            self.taint([s for _, body in branches for s in body], why)

    def and_or(self, node: Any) -> None:
        """`A && B`, `A || B`: B runs when A's status says so; when that is not known B is read as run (an `exit`
        there is taken not to run: `cd x || exit 1`), and what it may assign is unknown after it when A reads or
        assigns a value in a way the reader does not follow (`read X && ...`)."""
        left, operator, right = node.children
        self.refused = ""
        unfollowed = self.unfollowed([left])
        verdict, names, compared = self.decided(lambda: self.condition(left))
        unfollowed = unfollowed or self.refused or self.given_read(names, verdict is None)
        both = _text(operator) == "&&"
        test = f"`{' '.join(_text(left).split())[:80]}` (line {self.at or node.start_point.row + 1})"

        def runs(verdict: bool | None) -> tuple[int, ...] | None:
            return None if verdict is None else (0,) if verdict == both else ()

        others = self.other_environments([left], lambda: runs(self.condition(left)), runs(verdict), names, compared, [[right]], test)
        self.statement(left)
        self.and_or_right(node, verdict, unfollowed)
        self.taint(*others)

    def and_or_right(self, node: Any, verdict: bool | None, unfollowed: str) -> None:
        """The right side of `A && B` or `A || B`, once A's status is decided (`verdict`; None: not known)."""
        left, operator, right = node.children
        both = _text(operator) == "&&"
        if verdict is not None and verdict != both:  # B does not run: read for its launches, as a branch not taken
            with self.aside(_only_when([left], " fails" if both else " holds")):
                self.statement(right)
            return
        if verdict is None and _text(right).startswith(("exit", "return")):
            return
        self.statement(right)
        if verdict is None and unfollowed:
            why = f"`{' '.join(_text(node).split())[:80]}` (line {self.at or node.start_point.row + 1}), whose status is not known"
            self.taint([right], why)

    def case_statement(self, node: Any) -> None:
        subject_node = next((c for c in node.children[1:] if c.type not in ("in",)), None)
        items: list[tuple[list[Any], list[Any]]] = []  # (patterns, body)
        notes: list[str] = []
        ends: list[str] = []  # how each item ends: `;;`, `;&` (the next body runs too), `;;&` (the next patterns are tested)
        for item in (c for c in node.children if c.type == "case_item"):
            patterns, body, in_body = [], [], False
            for child in item.children:
                if child.type == ")":
                    in_body = True
                elif child.type in (";;", ";&", ";;&", "|"):
                    continue
                elif in_body:
                    body.append(child)
                else:
                    patterns.append(child)
            items.append((patterns, body))
            ends.append(next((c.type for c in item.children if c.type in (";;", ";&", ";;&")), ";;"))
            shown = " | ".join(_text(p) for p in patterns)
            notes.append(_only_when([subject_node] if subject_node is not None else [], f" matches {shown}"))

        def decide() -> list[bool | None]:
            """Whether each item's patterns match the subject (None: not known)."""
            subject = self._test_value(subject_node) if subject_node is not None else None
            tested = self.tested
            matches: list[bool | None] = []
            for patterns, _ in items:
                # A quoted or escaped `*`, `?` or `[` is literal to bash, not to fnmatch: such a pattern is not decided.
                if subject is None or any(linear.compile(r"[\"'\\].*[*?\[]|[*?\[].*[\"'\\]").search(_text(p)) for p in patterns):
                    matches.append(None)
                    continue
                texts = [word_text(w) for p in patterns for w in self.pieces(p, quoted=True)]
                if self.compared is not None:
                    self.compared += [(name, text) for name in tested for text in texts]
                matches.append(any(linear.glob(t).fullmatch(subject) for t in texts))
            return matches

        def taken(matches: list[bool | None]) -> tuple[int, ...] | None:
            found = _case_taken(matches, ends)
            return None if found is None else tuple(found)

        matches, names, compared = self.decided(decide)
        line = self.at or node.start_point.row + 1
        test = f"`case {_text(subject_node) if subject_node is not None else ''}` (line {line})"
        why = f"{test}, whose branch is not known"
        tests = [subject_node] if subject_node is not None else []
        unfollowed = subject_node is not None and (self.unfollowed(tests) or self.given_read(names, taken(matches) is None))
        others = self.other_environments(tests, lambda: taken(decide()), taken(matches), names, compared, [b for _, b in items], test)
        branches = [(match, body) for match, (_, body) in zip(matches, items, strict=True)]
        self.choose(branches, notes, _case_taken(matches, ends), why if unfollowed else "")
        self.taint(*others)

    def for_statement(self, node: Any) -> None:
        """`for NAME in WORDS`: each pass read in turn (a launch in it is one launch per pass) when the words are
        known and few (MAX_PASSES) and nothing in it breaks out early; any other loop is read by `loop`."""
        variable = next((c for c in node.children if c.type == "variable_name"), None)
        body = next((c for c in node.children if c.type == "do_group"), None)
        if node.type != "for_statement" or variable is None or body is None or any(c.type == "ERROR" for c in node.children):
            return self.loop(node)  # (`for X in ; do` is an ERROR to the grammar around its `in`)
        if any(c.type == "in" for c in node.children):
            items: list[Word] | None = self.words(
                c for c in node.children if c.type not in ("for", "in", ";", "do_group", "variable_name", "comment")
            )
        else:  # `for NAME; do`: the positional parameters
            items = None if self.env.positional is None else list(self.env.positional)
        size = (body.end_byte - body.start_byte) * len(items or ())
        if (
            items is None
            or len(items) > MAX_PASSES
            or any(p.unknown for w in items for p in w)
            or self.called_bytes + size > MAX_SCRIPT_BYTES
            or self.passes + len(items) > MAX_SCRIPT_PASSES
            or _leaves_early(body)
            or _text(variable) in self.attributes
        ):
            return self.loop(node)
        self.called_bytes += size
        self.passes += len(items)
        if not items:  # no pass: its launches are read once, as a branch not taken
            with self.aside(f"only when {_header(node)} (line {node.start_point.row + 1}) runs a pass"):
                self.statement(body)
            return None
        name = _text(variable)
        for item in items:
            if name in self.attributes:  # a `declare -i` in an earlier pass: bash changes what it assigns
                self.unknowable(f"{self.attributes[name]}, by which bash changes what is assigned", [name])
            else:
                self.env.values[name] = [item]
            self.statement(body)
        return None

    def loop(self, node: Any) -> None:
        """A loop the reader does not run pass by pass (`while`, `until`, `for ((...))`, or a `for` over words not
        known or too many): what it may assign is unknown before its body (a later pass sees an earlier one's
        values) and after it, and its body is read once, for its launches."""
        why = f"`{_header(node)}` (line {self.at or node.start_point.row + 1}), a loop not followed pass by pass"
        self.taint([node], why)
        for child in node.children:
            if child.type == "do_group":  # what the condition may assign (a `read`) is unknown already
                self.statement(child)
        self.taint([node], why)

    def decided(self, decide: Callable[[], _T]) -> tuple[_T, set[str], list[tuple[str, str]]]:
        """What `decide` (a test) gives, the environment's variables it reads (those the script has not set) and the
        texts it compares values with."""
        saved = self.reads, self.compared
        self.reads, self.compared = set(), []
        try:
            return decide(), self.reads, self.compared
        finally:
            self.reads, self.compared = saved

    def given_read(self, names: set[str], undecided: bool) -> str:
        """Why a test this reading cannot decide depends on the environment it is read under ("" when it does not): it
        reads a variable the environment sets to a value no test names (whose text decides `-eq`, a pattern...), so
        what any branch may assign is unknown after it, never a guess."""
        given = sorted(name for name in names if name in self.environment and self.environment[name] is None)
        return f"a test on {', '.join(given)} as the environment sets it" if undecided and given else ""

    def other_environments(
        self,
        tests: list[Any],
        decide: Callable[[], tuple[int, ...] | None],
        now: tuple[int, ...] | None,
        names: set[str],
        compared: list[tuple[str, str]],
        bodies: list[list[Any]],
        test: str,
    ) -> tuple[list[Any], str]:
        """A test on the environment (`names`: the variables it reads that the script has not set, or values copied
        from them) ran the bodies `now` (their positions): each other way an environment makes it take (`decide` under
        that environment, the fewest variables first) adds that environment to the script's readings, so a value set
        only there is read and compared too. Past MAX_ENVIRONMENTS, what any of the bodies may assign is unknown from
        here on, whichever the run takes (never a value dropped): returned as `taint`'s arguments, for the caller to
        taint once the branch taken has run."""
        place = (self.here, tests[0].start_byte) if tests else ("", -1)
        if not names or now is None or self.env.only_when or place in self.environments.tried:
            return [], ""  # (a branch read only for its launches runs under another environment: not tried there)
        if any(self.may_assign(t) != set() for t in tests):
            return [], ""
        self.environments.tried.add(place)
        outcomes = {now}
        for change in self.changes(sorted(names), compared):
            outcome = self.trial(change, decide)
            if outcome is None or outcome in outcomes:
                continue
            under = {name: value for name, value in {**self.environment, **change}.items() if value != UNSET}
            # In words: this reading's variables as its environment says them, each one the trial sets as it says it.
            said = {name: said_value(name, value, ()) for name, value in self.reading} | self.environments.said.get(self.reading, {})
            said |= {
                name: said_value(name, value, [text for named, text in compared if named in (name, "")]) for name, value in change.items()
            }
            if not self.environments.add(tuple(sorted(under.items())), said):
                read = ", ".join(sorted(names))
                return [s for body in bodies for s in body], f"{test}, a test on {read}: more than {MAX_ENVIRONMENTS} environments to read"
            outcomes.add(outcome)
        return [], ""

    def changes(self, names: list[str], compared: list[tuple[str, str]]) -> Iterator[dict[str, str | None]]:
        """The environments tried for a test that reads `names`: each set to a text the test compares it with (an
        integer's neighbours too), to a value no test names (None) or, when this reading's environment sets it, unset
        (UNSET), in that order; one variable at a time, then two (MAX_TRIALS)."""
        tried: dict[str, list[str | None]] = {}
        for name in names:
            values: list[str | None] = []  # what the script names first: `DEVICE=npu` says more than `DEVICE is set`
            for named, text in compared:
                if named in (name, "") and not text.startswith(GIVEN_MARK) and NAMED_VALUE.fullmatch(text):
                    values.append(text)
                    if linear.compile(r"-?\d+").fullmatch(text):
                        values += [str(int(text) - 1), str(int(text) + 1)]
            values += [None, UNSET]
            tried[name] = [value for value in dict.fromkeys(values) if self.environment.get(name, UNSET) != value]
        singles = ({name: value} for name in names for value in tried[name])
        pairs = ({a: first, b: second} for a, b in itertools.combinations(names[:4], 2) for first in tried[a] for second in tried[b])
        return itertools.islice(itertools.chain(singles, pairs), MAX_TRIALS)

    def trial(self, change: dict[str, str | None], decide: Callable[[], _T]) -> _T:
        """What `decide` gives when the environment also sets `change`, the reading left exactly as it was."""
        env = self.env
        saved = env.values, env.stopped, self.refused, self.aborted, self.single_bracket, self.expanded_words, self.reads, self.compared
        env.values = env.values.new_child(
            {name: None if value == UNSET else environment_value(name, value) for name, value in change.items()}
        )
        self.reads = self.compared = None
        self.substitute = change
        try:
            return decide()
        finally:
            env.values, env.stopped, self.refused, self.aborted, self.single_bracket, self.expanded_words, self.reads, self.compared = saved
            self.substitute = {}

    def taint(self, nodes: Iterable[Any], why: str) -> None:
        """What `nodes` may assign holds unknown values from here on, each naming `why`: a loop not followed pass by
        pass, a branch not known to be taken."""
        names: set[str] | None = set()
        for part in nodes:
            found = self.may_assign(part)
            names = None if found is None or names is None else names | found
        if names is None:
            self.unknowable(why)
            return
        variables = sorted(n for n in names if n.isidentifier())
        if variables:  # (none named would mean every variable to `unknowable`)
            self.unknowable(why, variables)
        # A `declare -i` (`-l`, `-u`) among them may have run: what is assigned to its name later may be changed by
        # bash, so it is unknown unless plain, as after a declaration known to run (`assign`).
        for part in nodes:
            for name in _attributed(part):
                self.keep(self.attributes, name)
                self.attributes.setdefault(name, f"{why}, which may run `declare` giving {name} an attribute")
        if FOLDER_CHANGE in names:
            self.env.cwd, self.env.lost = None, f"{why} may change the folder"
        if ARGUMENTS_CHANGE in names:
            self.env.positional = None

    def unfollowed(self, nodes: Iterable[Any]) -> str:
        """Why the test `nodes` make depends on what the reader does not follow ("" when it does not): it reads a
        variable assigned so (`read`, `eval`, a loop), or runs a command that assigns (`read X`, `((X=2))`)."""
        for node in nodes:
            stack = [node]
            while stack:
                current = stack.pop()
                if current.type == "command" or _is_arithmetic(current):
                    names = (
                        self._command_assigns(current, frozenset()) if current.type == "command" else arithmetic_assigned(_text(current))
                    )
                    if names is None or any(n.isidentifier() for n in names):
                        return f"`{' '.join(_text(current).split())[:80]}` (line {self.at or current.start_point.row + 1})"
                if current.type != "variable_name":
                    stack.extend(current.children)
                    continue
                why = next((p.why for w in self.lookup(_text(current)) or [] for p in w if p.why), "")
                if why:
                    return why
        return ""

    def may_assign(self, node: Any, seen: frozenset[str] = frozenset()) -> set[str] | None:
        """The variables `node` may assign when it runs, read from its syntax (None: any variable, after `eval`, a
        `source`, `declare -n` or a syntax error): assignments, loop variables, arithmetic assignments, the names
        `read`/`let`/... take, `unset`, declarations, `${V:=x}`, and the bodies of the functions it calls or defines. Also
        FOLDER_CHANGE for a `cd` and ARGUMENTS_CHANGE for a `shift` or `set`."""
        names: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.type
            # A function defined here may run here too (`while ...; do f() { X=...; }; f; done`): its body counts.
            if kind == "ERROR":
                return None
            if kind == "variable_assignment" and current.children:
                names.add(_text(current.children[0]).partition("[")[0])
            elif kind == "for_statement":
                names.update(_text(c) for c in current.children if c.type == "variable_name")
            elif _is_arithmetic(current):
                names.update(arithmetic_assigned(_text(current)))
            elif kind == "expansion" and (default := linear.compile(r"\$\{([A-Za-z_]\w*):?=").match(_text(current))):
                names.add(default.group(1))
            elif kind in ("unset_command", "declaration_command"):
                texts = [_text(c) for c in current.children[1:]]
                if kind == "declaration_command" and (
                    any(linear.compile(r"-[a-zA-Z]*n[a-zA-Z]*").fullmatch(t) for t in texts)
                    or any(c.type not in ("variable_assignment", "variable_name", "word", "comment") for c in current.children[1:])
                ):
                    return None
                names.update(t.partition("=")[0] for t in texts if not t.startswith(("-", "+")))
            elif kind == "command":
                found = self._command_assigns(current, seen)
                if found is None:
                    return None
                names |= found
            stack.extend(current.children)
        return names

    def _command_assigns(self, node: Any, seen: frozenset[str]) -> set[str] | None:
        """What one simple command may assign (see `may_assign`), by its literal name and arguments."""
        parts = [c for c in node.children if c.type not in ("variable_assignment", "file_redirect", "herestring_redirect", "comment")]
        texts = [_text(t) for part in parts for t in (part.children if part.type == "command_name" else [part])]
        if not texts:
            return set()
        name = texts[0]
        if name in ("eval", "source", ".", "trap", "alias"):
            return None  # runs text the reader does not know
        if name in ASSIGNING:
            return {*assigned_by(name, texts[1:]), "REPLY", "MAPFILE", "OPTARG", "OPTIND"}
        if name in ("cd", "pushd", "popd"):
            return {FOLDER_CHANGE}
        if name in ("shift", "set"):
            return {ARGUMENTS_CHANGE}
        if name in self.functions and name not in seen:
            return self.may_assign(self.functions[name][0], seen | {name})
        return set()

    @abc.abstractmethod
    def command(self, node: Any) -> None:
        """A simple command: its assignments, builtins, calls and launches (the launch extraction, bash.py)."""

    @abc.abstractmethod
    def writes(self, redirect: Any) -> None:
        """A redirect to a file: what the command writes there (the launch extraction, bash.py)."""

    @abc.abstractmethod
    def broken(self, node: Any) -> None:
        """Syntax tree-sitter-bash could not parse (the launch extraction, bash.py)."""


# A `for` over known words is read pass by pass up to this many passes; a longer one is a loop not followed. So is
# one past MAX_SCRIPT_PASSES passes in the script (nested loops of 16 would make 16**n launches).
MAX_PASSES = 16


MAX_SCRIPT_PASSES = 256


# What `may_assign` says besides variable names: a `cd` (the folder) and a `shift`/`set` (the positional parameters).
FOLDER_CHANGE = "cd:"


ARGUMENTS_CHANGE = "set:"


def _first_holding(verdicts: list[bool | None]) -> tuple[int, ...] | None:
    """The branch of an `if` chain that runs (its position, or none), from its conditions' verdicts; None when a
    verdict it needs is not known."""
    for position, verdict in enumerate(verdicts):
        if verdict is None:
            return None
        if verdict:
            return (position,)
    return ()


def _case_taken(matches: list[bool | None], ends: list[str]) -> list[int] | None:
    """The items of a `case` bash runs, in order, following `;&` and `;;&`; None when a test it needs is not known."""
    taken: list[int] = []
    testing = True
    for position, (match, end) in enumerate(zip(matches, ends, strict=True)):
        if testing:
            if match is None:
                return None
            if not match:
                continue
        taken.append(position)
        if end == ";;":
            break
        testing = end == ";;&"
    return taken


def _is_arithmetic(node: Any) -> bool:
    """`$((...))`, `((...))` or `for ((...))`: arithmetic that may assign."""
    kind = node.type
    return kind in ("arithmetic_expansion", "c_style_for_statement") or (
        kind == "compound_statement" and bool(node.children) and node.children[0].type == "(("
    )


def _header(node: Any) -> str:
    """A loop's text before its body (`for lr in 1 2 3`), on one line and short."""
    body = next((c for c in node.children if c.type == "do_group"), None)
    text = node.text[: (body.start_byte if body is not None else node.end_byte) - node.start_byte].decode("utf-8", "replace")
    return " ".join(text.split()).rstrip(" ;")[:80]


def _leaves_early(body: Any) -> bool:
    """True when a loop's body holds a `break` or `continue` (a pass may end early, or the loop)."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "command_name" and _text(node) in ("break", "continue"):
            return True
        stack.extend(node.children)
    return False


# Builtins that assign the variables they name, from input the reader never has (and `let`, whose arithmetic is not followed).
ASSIGNING = frozenset({"read", "printf", "mapfile", "readarray", "getopts", "let"})


# Their options that take a value (the next word), which is no variable name.
_VALUED_OPTIONS = MappingProxyType({"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"})


def assigned_by(command: str, texts: list[str]) -> list[str]:
    """The names a builtin of ASSIGNING assigns (bash's default name when it names none; [] when it assigns none)."""
    if command == "printf":
        return [texts[1]] if len(texts) > 1 and texts[0] == "-v" else []
    if command == "getopts":
        return [*texts[1:2], "OPTARG", "OPTIND"]
    if command == "let":  # every name its expressions may assign (`let X=1 Y++`)
        return sorted({name for t in texts for name in arithmetic_assigned(t)})
    if command not in _VALUED_OPTIONS:
        return []
    names, position = [], 0
    while position < len(texts):
        text = texts[position]
        if text.startswith("-") and len(text) > 1:
            if "a" in text and command == "read" and position + 1 < len(texts):
                names.append(texts[position + 1])  # `read -a ARR`: an array
            if text[-1] in _VALUED_OPTIONS[command]:
                position += 1
        else:
            names.append(text)
        position += 1
    return names or ["REPLY" if command == "read" else "MAPFILE"]


MAX_SOURCE_DEPTH = 8


UNSET_VARIABLE = linear.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")  # the placeholder of a variable the script never set


def _only_when(conditions: list[Any], verdict: str) -> str:
    """`only when VAR=... (`CONDITION` holds)`: the variables a branch's condition reads, and the condition."""
    text = " ; ".join(" ".join(_text(c).split()) for c in conditions)
    names = list(dict.fromkeys(linear.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*|[0-9@#*])").findall(text)))
    said = " or ".join(f"{name}=..." for name in names) if names else "the run differs"
    return f"only when {said} (`{text[:120]}`{verdict})" if text else f"only when {said}"


# The traps bash runs by itself during a plain run: before each command, when a function returns, when one fails.
# A signal's (INT, TERM) runs only when one arrives, and EXIT's once the script has ended, after every launch.
RUN_TRAPS = frozenset({"DEBUG", "RETURN", "ERR"})


def _trap_runs_before_launches(texts: list[str]) -> bool:
    """True for a `trap` whose command bash may run before a later launch (see RUN_TRAPS, or a signal the reader
    does not know), or that resets one (`trap - DEBUG`); `trap -p`/`-l` print."""
    if not texts or (texts[0].startswith("-") and texts[0] != "-"):
        return False
    return any(signal.upper() in RUN_TRAPS or PLACEHOLDER_MARK in signal for signal in texts[1:])


# What a function's call may sit in and still not run on every call: a branch, a loop, `&&`/`||`, a pipe, a subshell.
_CONDITIONAL = frozenset(
    {"if_statement", "case_statement", "while_statement", "for_statement", "c_style_for_statement", "list", "pipeline", "subshell"}
)


def _unconditional(call: Any, body: Any) -> bool:
    """True when `call` runs each time `body` does: no branch, loop, `&&`/`||` or pipe around it, and no `return` or
    `exit` written before it in the body."""
    node = call.parent
    while node is not None and node != body:
        if node.type in _CONDITIONAL:
            return False
        node = node.parent
    if node is None:
        return False
    before = body.text[: call.start_byte - body.start_byte]
    return not linear.compile(rb"\b(return|exit)\b").search(before)
