"""Find the Hydra launches in a shell script without running it: a small evaluator over tree-sitter-bash's syntax tree.

Nothing in a script runs: a command substitution or a `date` is never executed; what it would produce is
unknown, and an override whose value needs it keeps a placeholder (messages show the script's own text). A file
the script `source`s is read the same way, never run. The evaluator follows what real scripts do: assignments
with `${VAR:-default}`, `$((...))` arithmetic, arrays and `"${ARR[@]}"`, `+=`, line continuations, quoting,
`if` and `case` (the branch a run with nothing set takes: an unset variable is empty in a test, as in bash; a
launch on another branch says `only when ...`; with `readings`, the script is read again under each environment that
takes a branch on the environment another way, see `launches_in`), shell functions run where they are called with their arguments,
`set --`/`shift`, `set -u` and `exit` (where bash stops, the launches after it say so), `export`,
`cd`/`pushd`/`popd` (scripts start at the project's root; a subshell's folder ends with it), and launchers in
front of Python (`uv run`, `torchrun`, `accelerate launch`, `deepspeed`, `ray job submit --`). What cannot be
known without running code (a whole argument from an unset variable or a command, `eval`, a `cd` to an unknown
folder) makes the launch "not extracted", with why, instead of a guess. So does a value bash may have assigned in
a way not followed here (`eval`, `read`, `printf -v`, `declare -n`, a computed `declare`, a DEBUG `trap`, a
`source` not read): from that command on, what it may assign is unknown, never the value before it. The same for
what the reader does not run exactly: a loop it does not read pass by pass (a `for` over few known words it does,
each launch in it once per pass), arithmetic it cannot compute (`harness.readers.arithmetic` computes the rest with
bash's precedence), `declare -i`, splitting on a changed IFS, and a branch whose test reads such a value.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import posixpath
from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, TypeVar

from harness.gates import linear
from harness.gates.budget import (
    MAX_EXPANDED_WORDS,
    MAX_INDEX_DIGITS,
    MAX_SCRIPT_BYTES,
    MAX_SCRIPT_DEPTH,
    MAX_WORD_BYTES,
    MAX_WORD_PIECES,
    MAX_WORDS,
    BudgetExceeded,
    depth_budget,
    size_budget,
    syntax_depth,
)
from harness.readers import arithmetic

_T = TypeVar("_T")
_ABSENT = object()  # what a mapping held for a key it did not have

# Hydra's own command-line flags that take a value (`--config-name X` or `--config-name=X`).
HYDRA_VALUE_FLAGS = MappingProxyType(
    {
        "--config-path": "config_path",
        "-cp": "config_path",
        "--config-name": "config_name",
        "-cn": "config_name",
        "--config-dir": "config_dir",
        "-cd": "config_dir",
        "--cfg": "",
        "-c": "",
        "--package": "",
        "-p": "",
        "--info": "",
        "-i": "",
        "--experimental-rerun": "",
        "--shell-completion": "",
        "-sc": "",
    }
)
MULTIRUN_SWITCHES = frozenset({"--multirun", "-m"})
HYDRA_SWITCHES = frozenset({"--multirun", "-m", "--run", "-r", "--resolve", "--help", "-h", "--hydra-help", "--version"})
TORCHRUN_SWITCHES = frozenset(
    {
        "--standalone",
        "--no-python",
        "--no_python",
        "--run-path",
        "--run_path",
        "--multi_gpu",
        "--cpu",
        "--use_deepspeed",
        "--use_fsdp",
        "--use_megatron_lm",
        "--debug",
        "--autotune",
    }
)
PYTHON = linear.compile(r"python(\d+(\.\d+)*)?")
OVERRIDE_LIKE = linear.compile(r"[+~]{0,2}[A-Za-z_][\w.@/-]*=")
PLACEHOLDER_MARK = "__unset_"
# A login name as useradd and adduser accept one by default: what `~NAME` may expand to.
LOGIN_NAME = linear.compile(r"[a-z_][a-z0-9_-]*\$?")


@dataclass(frozen=True)
class Piece:
    """A run of text in an expanded word: where it was written, and whether it is a placeholder for an unknown value."""

    text: str
    line: int
    unknown: str = ""  # what the value would have come from (`$HOME`, `$(date ...)`); "" when known
    split: bool = False  # the result of an unquoted expansion: bash splits it on whitespace
    file: str = ""  # the file it was written in when a sourced file wrote it; "" for the script itself
    # The command (and line) that may have set this unknown value in a way the reader does not follow (`eval`, `read`).
    why: str = ""
    # A value the run's environment gives that no test of the script names (`CUDA_VISIBLE_DEVICES` set to some
    # devices): unknown, and not empty (see `Environment`).
    given: bool = False
    # The environment's variable this text stands for (its value, or the default written for it when it is unset:
    # `${N_GPUS:-8}`), when the script has not set that variable; "" otherwise. A test on it is a test on the
    # environment (see `launches_in`), wherever the value was copied to (`N=${N_GPUS:-8}`, then `[ "$N" = 8 ]`).
    env: str = ""


Word = tuple[Piece, ...]


def word_text(word: Word) -> str:
    """The word as Hydra would see it, unknown parts written as placeholders."""
    return "".join(placeholder(p) if p.unknown else p.text for p in word)


def placeholder(piece: Piece) -> str:
    """A value that stands for an unknown one: a plain Hydra string, so the key and the form are still checked."""
    name = linear.compile(r"\W+").sub("_", piece.unknown).strip("_")[:40] or "value"
    return f"{PLACEHOLDER_MARK}{name}__"


@dataclass(frozen=True)
class Override:
    """One Hydra override of a launch, as the script writes it after expansion."""

    text: str
    line: int  # where its key is written (an array element's own line, not the launch's)
    unknown: tuple[str, ...] = ()  # the unknown values it holds (placeholders in `text`)
    written: str = ""  # the script's own text of it (`training.seed=${seed}`); messages and fixes show this
    file: str = ""  # the sourced file that wrote its key; "" for the launch's own script

    @property
    def shown(self) -> str:
        """The override as a message shows it: the script's text where a value is unknown, never a placeholder."""
        return self.written if self.unknown and self.written else self.text


# The variables a run's environment sets, for a reading of a script under them: (name, value) pairs sorted by name,
# a value of None for "set to a value no test of the script names" (`CUDA_VISIBLE_DEVICES is set`). A plain run
# sets none: (). A script is read once plainly, then once under each environment that takes a branch on them
# (`if [ -n "$CUDA_VISIBLE_DEVICES" ]`) the plain run does not, up to MAX_ENVIRONMENTS (see `launches_in`).
Environment = tuple[tuple[str, "str | None"], ...]
MAX_ENVIRONMENTS = 16
# An environment's value the reader names in a launch's id and a report: plain characters, never `#`, `@`, quotes,
# spaces or a newline (a case id is `cmd/<script>#<n>`; `@` starts a root candidate).
NAMED_VALUE = linear.compile(r"[\w.:/%+,=-]{0,40}")


@dataclass(frozen=True)
class Launch:
    """One launch of a Python entry point with Hydra overrides, found in a script."""

    script: str  # the script's path, relative to the project
    index: int  # 1-based, in file order
    line: int
    entry: str = ""  # the module (`verl.trainer.main_ppo`) or script path it runs
    is_module: bool = True
    config_path: str | None = None  # --config-path as written (relative to the entry's file)
    config_name: str | None = None
    config_dirs: tuple[str, ...] = ()  # --config-dir
    overrides: tuple[Override, ...] = ()
    error: str = ""  # why it could not be extracted; "" when it was
    name_written: str = ""  # the script's text of --config-name when the reader does not know its value
    folder: str = ""  # a module's: the project's folder `python -m` finds it from ("" the root; after `cd`, or above the script)
    hydra_like: bool = True  # False: a program not in the project whose arguments hold no override and no Hydra flag
    # Where bash stops before running it, on a run with nothing set ("" when it runs): `set -u` and an unset
    # variable, or an `exit`, with the line (`run.sh:5: DEVICE: unbound variable`).
    stops: str = ""
    # The condition a run must meet to reach it, when a plain run takes another branch ("" when a plain run does):
    # `only when VERL_USE_UV=... (`[ "${VERL_USE_UV:-1}" != 0 ]` is false)`.
    only_when: str = ""
    multirun: bool = False  # run with `-m`/`--multirun`: a sweep, one run per point (harness/runner/launches.py)
    # The environment this reading of the launch runs under, when it differs from the plain run's reading of the same
    # launch (with the plain launch's `index`); () for the plain reading. `when` says it in words:
    # `only when CUDA_VISIBLE_DEVICES is set`, `only when VERL_USE_UV=0`, `only when DEVICE is set, not to gpu`.
    environment: Environment = ()
    when: str = ""

    @property
    def where(self) -> str:
        """`FILE:LINE` of the launch."""
        return f"{self.script}:{self.line}"

    @property
    def program(self) -> str:
        """The entry as the project finds it: a script's path, a module (`folder/module` when found below the root)."""
        return f"{self.folder}/{self.entry}" if self.folder and self.is_module else self.entry


class _Values(ChainMap[str, "list[Word] | None"]):
    """Variables in layers: a branch (or `VAR=x cmd`) writes a layer of its own over the variables around it, so
    reading it costs what it writes, not a copy of every variable (many variables and many `if`s stay linear).
    `unset` writes None, which hides the variable of the layers below.

    `floor`: why every variable not written since may hold anything ("" while none may): after `eval`, `declare -n`,
    a `trap` or a `source` the reader could not read, bash may have assigned any name in a way not followed here.
    The layers below are dropped then (a name not written since reads as unknown), so the layers never pile up."""

    floor = ""

    def new_child(self, m: Any = None) -> _Values:
        child = super().new_child(m)
        child.floor = self.floor
        return child

    def get(self, key: str, default: Any = None) -> Any:
        value = super().get(key)
        return default if value is None else value

    def pop(self, key: str, default: Any = None) -> Any:
        value = self.get(key, default)
        self.maps[0][key] = None
        return value


class _Env:
    """Variables while a script is read: each a list of words (a scalar is a one-word list)."""

    def __init__(self, values: _Values | None = None, arrays: set[str] | None = None) -> None:
        self.values = values if values is not None else _Values()
        self.arrays = arrays if arrays is not None else set()  # recorded, never read back
        # The folder commands run in, relative to the project's root (scripts run from there); None once a `cd`
        # goes somewhere the reader cannot know, with `lost` saying which and why.
        self.cwd: str | None = ""
        self.lost = ""
        self.stack: tuple[tuple[str | None, str], ...] = ()  # pushd's folders
        # The last `source` line whose file was not read (what its variables lack): one string, never a growing copy.
        self.unread = ""
        # Files the script writes (`cat > get_model.py << EOF`), not the project's: one set for every branch (a
        # file a branch writes is the script's own either way), so adding one never copies the others.
        self.written: set[str] = set()
        # The positional parameters: None for the script's own arguments (given by whoever runs it: not known), a
        # list once `set --` or a function call gives them.
        self.positional: list[Word] | None = None
        self.nounset = False  # `set -u`: an unset variable stops bash
        self.stopped = ""  # where bash stopped (`FILE:LINE: why`); "" while it runs
        self.only_when = ""  # the condition of the branch being read, when a plain run takes another
        self.aliased = ""  # the `alias` command read, when one was: it may rename any command after it
        # The `trap ... DEBUG` (or RETURN, ERR) in force: bash runs its command between the script's own, so no
        # variable is known while it is, not even one assigned after it.
        self.trapped = ""

    def child(self) -> _Env:
        """A layer over these variables (and this folder): what it writes is dropped with it; these must not change
        meanwhile. A subshell, a branch and `VAR=x cmd` read in one."""
        other = _Env(self.values.new_child(), self.arrays)
        other.cwd, other.lost, other.stack, other.unread, other.written = self.cwd, self.lost, self.stack, self.unread, self.written
        other.positional, other.nounset, other.stopped, other.only_when = self.positional, self.nounset, self.stopped, self.only_when
        other.aliased, other.trapped = self.aliased, self.trapped
        return other

    copy = child


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
    """A script's bytes as parsed, and where the reader inserted bytes into them: `text_of` gives a node's text as the
    script writes it."""

    data: bytes
    inserted: tuple[int, ...] = ()  # offsets in `data` of the bytes the reader inserted, ascending

    def original(self, offset: int) -> int:
        return offset - bisect.bisect_left(self.inserted, offset)

    def text_of(self, original: bytes, node: Any) -> str:
        if not self.inserted:
            return _text(node)
        return original[self.original(node.start_byte) : self.original(node.end_byte)].decode("utf-8", "replace")


def parse_words(source: bytes) -> tuple[Any, Source]:
    """The syntax tree of a script, with every word whole as bash forms it.

    tree-sitter-bash splits some words bash keeps whole: in `key=$A/$B/$C` the `$` of `$B` is left bare and `B/$C`
    becomes a second word (in an assignment, a command of its own). `${NAME}` means what `$NAME` means wherever bash
    expands it, and the grammar reads every chain of braced expansions whole; so where a bare `$` shows the split,
    each `$NAME` outside literal text is braced and the script parsed again (`text_of` still gives the script's own
    text). A script without such a split is parsed once, as written.
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


def _text(node: Any) -> str:
    text: bytes = node.text  # a tree-sitter node's source bytes
    return text.decode("utf-8", "replace")


def _unescape_word(text: str) -> str:
    # Outside quotes a backslash keeps the next character; before a newline it joins lines.
    return linear.compile(r"\\(\n|.)", linear.S).sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _unescape_double(text: str) -> str:
    return linear.compile(r"\\([\"$`\\\n])").sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


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


def environment_value(name: str, value: str | None) -> list[Word]:
    """Variable `name` as an environment sets it: `value`, or (None) a value no test names, unknown."""
    return [(Piece("", 0, f"${name}", given=True, env=name) if value is None else Piece(value, 0, env=name),)]


def said_value(name: str, value: str | None, others: Iterable[str]) -> str:
    """`CUDA_VISIBLE_DEVICES is set`, `DEVICE is set, not to gpu` (`others`: the texts the test compared it with),
    `VERL_USE_UV=0`, `MODE=''`: one variable of an environment in words."""
    if value is not None:
        return f"{name}={value or repr('')}"
    named = sorted({text for text in others if text and NAMED_VALUE.fullmatch(text)})
    return f"{name} is set" + (
        f", not to {', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else f", not to {named[0]}" if named else ""
    )


class _Reader:
    """Walks a script's syntax tree in order, keeping variables, and collects its launches."""

    def __init__(
        self,
        script: str,
        source: bytes,
        is_entry: Any,
        read: Any = None,
        environment: Environment = (),
        environments: _Environments | None = None,
    ) -> None:
        self.script = script
        self.source = source  # the bytes parsed (see `parse_words`)
        self.written_source = source  # the bytes the script holds: what messages show
        self.layout = Source(source)
        self.is_entry = is_entry  # (entry, is_module) -> True when it is a launch to report
        self.read = read  # project path -> the file's bytes, or a one-line reason it is not read (`source`)
        # The run's environment (see `Environment`): the bottom layer of the variables, below all the script writes.
        self.environment = dict(environment)
        self.reading = environment
        self.environments = environments if environments is not None else _Environments()
        self.layer: dict[str, list[Word] | None] = {name: environment_value(name, value) for name, value in environment}
        self.env = _Env(_Values(self.layer).new_child())
        # While a test is decided: the variables it reads that the script has not set or unset (the environment's),
        # and the texts it compares values with; None otherwise.
        self.reads: set[str] | None = None
        self.compared: list[tuple[str, str]] | None = None  # (a variable, a text it is compared with; "": any)
        self.tested: set[str] = set()  # the environment's variables the last test value read
        self.substitute: dict[str, str | None] = {}  # a trial's environment, for values copied from the environment
        # While a part bash does not run is read (`aside`): the declarations it made, each with what was there before.
        self.undo: list[tuple[dict[str, Any], str, Any]] | None = None
        self.launches: list[Launch] = []
        self.sourcing: tuple[str, ...] = ()  # the files being sourced, outermost first
        self.at: int | None = None  # inside a sourced file: the line of the script's `source` command
        self.sourced_bytes = 0  # every sourced file read, summed: a script sourcing one file 10,000 times stays bounded
        self.here = ""  # the sourced file being read ("" for the script): every piece made is tagged with it
        # Shell functions by name: (body, the bytes it was parsed from, their layout, the file). A function runs
        # where it is called, with its arguments; one never called is read once at the end, for its launches.
        self.functions: dict[str, tuple[Any, bytes, bytes, Source, str]] = {}
        self.called: set[str] = set()
        self.unreached: list[tuple[str, tuple[Any, bytes, bytes, Source, str]]] = []  # defined aside, never called there
        self.calling: list[str] = []  # the functions running, outermost first (a function calling itself stops there)
        self.called_bytes = 0  # function bodies run, summed: bounded like sourced text, so calls cost what they read
        self.expanded_words = 0  # words of every `"${A[@]}"` and `"$@"`, summed (MAX_EXPANDED_WORDS)
        self.single_bracket = False  # the test being decided is `[ ... ]`, not `[[ ... ]]`
        # Per function running: its `local` names and the values they hide (the caller's, back when it returns).
        self.locals: list[dict[str, list[Word] | None]] = []
        # Names `declare -i`/`-l`/`-u` gave an attribute: what is assigned to them is changed by bash (arithmetic,
        # case), so it is unknown unless plain (an integer literal under `-i`); the declaration, for messages.
        self.attributes: dict[str, str] = {}
        # A `$((...))` bash refuses (`$((0+X))` with X='x y'): bash skips the rest of the script's command around
        # it (an `if`, a function's call), so what that command assigns is unknown once it is read.
        self.aborted = ""
        self.passes = 0  # loop passes read one by one, summed (MAX_SCRIPT_PASSES)
        self.refused = ""  # the last arithmetic bash refuses: a test on it fails in a way not followed here
        self.sources_read: list[bytes] = []  # the script's bytes and every sourced file's, as read
        # The names those assign anywhere, and how many of them are counted in it: each text is scanned once, so a
        # `set -u` lookup costs the same after n sourced files as after one (a scan per file per lookup was n*n).
        self._assigned: set[str] = set()
        self._assigned_from = 0

    def piece(self, text: str, line: int, unknown: str = "", split: bool = False) -> Piece:
        """A piece of text written where the reader is now: tagged with its file when that is a sourced one, once, as
        it is made (a sourced file never walks the variables already held)."""
        return Piece(text, line, unknown, split, self.here)

    # ---- expansion ----

    def lookup(self, name: str, line: int = 0) -> list[Word] | None:
        if name.isdigit() and name != "0":
            positional = self.env.positional
            if positional is None or len(name) > MAX_INDEX_DIGITS:  # past bash's 64 bits: no such parameter is set
                return None
            position = int(name) - 1
            return positional[position : position + 1] or None
        values = self.env.values
        if self.env.trapped or (values.floor and name not in values):
            return [(replace(self.piece("", line, f"${name}"), why=self.env.trapped or values.floor),)]
        value: list[Word] | None = values.get(name)
        if self.reads is not None and self.from_environment(name):
            self.reads.add(name)  # a test reads the environment
        return value

    def unknowable(self, why: str, names: Iterable[str] = ()) -> None:
        """A command assigned variables in a way the reader does not follow: `names` hold unknown values from here on,
        or with no names every variable does (each named by `why`, the command and its line)."""
        names = list(names)
        if not names:
            values = _Values()
            values.floor = why
            self.env.values = values
            self.env.unread = self.env.unread or why  # `set -u` no longer trusts that a name is unassigned
            return
        for name in names:
            if name.isidentifier():
                self.env.values[name] = [(replace(self.piece("", self.at or 0, f"${name}"), why=why),)]

    def unset(self, name: str) -> bool:
        """True when bash, run with nothing set, has no value for `name`: a variable the script never set (not one the
        shell or the login provides), or a positional parameter past those a function call or `set --` gave."""
        if name.isdigit():
            return name != "0" and self.env.positional is not None
        return name not in SHELL_PROVIDED

    def never_assigned(self, name: str) -> bool:
        """True when no text read so far assigns `name` anywhere (nor may a `source` the reader could not read): only
        then is `set -u` trusted to stop bash. A variable assigned later, or in a word the grammar splits where bash
        does not (`X='a'\\` then `'b'` on the next line), is never called unbound on the reader's word alone."""
        if name.isdigit():
            return True
        if self.env.unread:
            return False
        # What the reader is reading now (the script, a sourced file, a function's) is always one of these.
        for data in self.sources_read[self._assigned_from :]:
            self._assigned.update(next(g for g in m.groups() if g).decode() for m in ASSIGNED.finditer(data))
        self._assigned_from = len(self.sources_read)
        return name not in self._assigned

    def stop(self, why: str, line: int) -> None:
        """Bash stops here: the rest of the script never runs (what comes after is read, each launch saying so)."""
        if not self.env.stopped:
            self.env.stopped = f"{self.sourcing[-1] if self.sourcing else self.script}:{line}: {why}"

    def expand_var(self, name: str, line: int, index: str | None = None) -> list[Word] | None:
        """A variable's words (all elements for `@`/`*`), None when it is unset."""
        value = self.lookup(name, line)
        if value is None:
            return None
        if index in ("@", "*"):
            return self.all_words(value, line)
        if index is None or index == "0":
            return value[:1]
        if index.isdigit():
            position = int(index) if len(index) <= MAX_INDEX_DIGITS else len(value)
            return value[position : position + 1]
        return [(self.piece("", line, f"${{{name}[{index}]}}"),)]

    def all_words(self, words: list[Word], line: int) -> list[Word]:
        """`words` as a whole-array expansion gives them, counted against the script's MAX_EXPANDED_WORDS (no copy)."""
        self.expanded_words += len(words)
        return words if self.expanded_words <= MAX_EXPANDED_WORDS else [_over_budget(line)]

    def pieces(self, node: Any, quoted: bool = False) -> list[Word]:
        """The words a node expands to (one word unless it holds `"${ARR[@]}"` or an unquoted expansion)."""
        kind = node.type
        line = node.start_point.row + 1
        if kind in ("word", "number", "variable_name", "extglob_pattern"):
            text = _text(node)
            if quoted:
                return [(self.piece(text, line),)]
            text = _unescape_word(text)
            if text.startswith("~") and kind == "word":
                user, slash, rest = text[1:].partition("/")
                # Bash replaces `~`, `~+`, `~-` and `~LOGIN` (a home or working folder: not known here) and leaves any
                # other tilde-prefix as written, as in a Hydra delete `~trainer.epochs`: no login name holds `.` or `=`.
                if user in ("", "+", "-") or LOGIN_NAME.fullmatch(user):
                    return [(self.piece("", line, f"~{user}"), self.piece(slash + rest, line))]
            return [(self.piece(text, line),)]
        if kind == "raw_string":
            return [(self.piece(_text(node)[1:-1], line),)]
        if kind == "ansi_c_string":
            body = _text(node)[2:-1]
            try:
                body = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
            except UnicodeDecodeError:
                pass
            return [(self.piece(body, line),)]
        if kind == "string":
            return self.string(node)
        if kind == "concatenation":
            if _braced(node):  # `model.{width,name}=5`: bash makes several words of it; not followed, so not known
                return [(self.piece("", line, _text(node)),)]
            return self.concatenate([self.pieces(child, quoted) for child in node.children], line)
        if kind in ("simple_expansion", "expansion"):
            return self.expansion(node, quoted)
        if kind == "arithmetic_expansion":
            return [(self.arithmetic(node),)]
        if kind in ("command_substitution", "process_substitution"):
            return [(self.piece("", line, _text(node)[:60]),)]
        if kind == "brace_expression":
            return [(self.piece("", line, _text(node)),)]
        return [(self.piece(_text(node), line),)]

    def string(self, node: Any) -> list[Word]:
        """A double-quoted string: one word, except where it holds `"${ARR[@]}"`."""
        parts: list[list[Word]] = []
        position = node.start_byte + 1
        end = node.end_byte - 1
        for child in node.children:
            if child.type == '"':
                continue
            if child.start_byte > position:  # text the grammar leaves between children
                gap = self.source[position : child.start_byte].decode("utf-8", "replace")
                parts.append([self.lines_of(gap, child.start_point.row + 1 - gap.count("\n"))])
            if child.type == "string_content":
                parts.append([self.lines_of(_text(child), child.start_point.row + 1)])
            else:
                text = _text(child)
                if text[:1].isspace():  # the grammar puts the space before a `${` into the expansion's first token
                    parts.append([(self.piece(text[: len(text) - len(text.lstrip())], child.start_point.row + 1),)])
                parts.append(self.pieces(child, quoted=True))
            position = child.end_byte
        if position < end:
            gap = self.source[position:end].decode("utf-8", "replace")
            parts.append([self.lines_of(gap, node.end_point.row + 1 - gap.count("\n"))])
        return self.concatenate(parts, node.start_point.row + 1) if parts else [(self.piece("", node.start_point.row + 1),)]

    def lines_of(self, text: str, line: int) -> Word:
        """Text of a double-quoted string written from `line` on, one piece per line it spans: an override inside a
        string of many lines keeps its own line once `\\`-newlines are joined (as bash joins them) and the value
        is split."""
        rows = linear.compile(r"[^\n]*\n|[^\n]+").findall(text) or [text]  # bash's newline only (not `splitlines`' others)
        return tuple(self.piece(_unescape_double(row), line + index) for index, row in enumerate(rows))

    @staticmethod
    def concatenate(parts: Iterable[list[Word]], line: int = 0) -> list[Word]:
        """Adjacent parts of one word: the last word of one joins the first of the next (as `"a${ARR[@]}b"`);
        past the word budget, one placeholder (checked as the word grows, so it never grows far past it)."""
        words: list[Word] = []
        size = 0  # bytes of the last word
        for part in parts:
            if not part:
                continue
            over = next((p for w in part for p in w if p.unknown == OVER_BUDGET), None)
            if over is not None:  # stays one placeholder, where the budget was first exceeded
                return [(over,)]
            if not words:
                words = list(part)
                size = _bytes(words[-1])
            else:
                size = size + _bytes(part[0]) if len(part) == 1 else _bytes(part[-1])
                words[-1] = words[-1] + part[0]
                words.extend(part[1:])
            if len(words) > MAX_WORDS or len(words[-1]) > MAX_WORD_PIECES or size > MAX_WORD_BYTES:
                return [_over_budget(line or words[-1][-1].line)]
        return words

    def expansion(self, node: Any, quoted: bool) -> list[Word]:
        line = node.start_point.row + 1
        children = [c for c in node.children if c.type not in ("$", "${", "}")]
        if not children:
            return [(self.piece("$", line),)]
        head = children[0]
        if head.type == "special_variable_name":
            name = _text(head)
            positional = self.env.positional
            if name in ("@", "*"):
                if not positional:
                    return []  # the script's own arguments: a plain run gives none
                if name == "*" and quoted:
                    return self.concatenate(
                        [[self.separator(line)] if i % 2 else [positional[i // 2]] for i in range(2 * len(positional) - 1)], line
                    )
                every = self.all_words(positional, line)
                return list(every) if quoted else [tuple(replace(p, split=True) for p in w) for w in every]
            if name == "#" and positional is not None:
                return [(self.piece(str(len(positional)), line),)]
            return [(self.piece("", line, f"${name}"),)]
        if head.type == "#" and len(children) > 1:  # ${#VAR} / ${#ARR[@]}
            name, index = self._name_index(children[1])
            value = self.expand_var(name, line, index)
            if value is None:
                return [(self.piece("0", line),)]
            count = len(value) if index in ("@", "*") else len(word_text(value[0])) if value else 0
            known = all(not p.unknown for w in value for p in w)
            return [(self.piece(str(count), line) if known else self.piece("", line, f"${{#{name}}}"),)]
        if head.type not in ("variable_name", "subscript"):
            return [(self.piece("", line, _text(node)),)]
        name, index = self._name_index(head)
        if not name.isidentifier() and not name.isdigit():
            return [(self.piece("", line, _text(node)),)]
        value = self.expand_var(name, line, index)
        operator = _text(children[1]) if len(children) > 1 else ""
        environment = operator in ("", ":-", "-", ":=", "=") and self.from_environment(name)
        words = self.expanded(node, name, index, value, operator, children[2:], quoted)
        if environment:  # the environment's value, or the default written for it (pieces made directly: `replace` costs more)
            return [tuple(Piece(p.text, p.line, p.unknown, p.split, p.file, p.why, p.given, name) for p in word) for word in words]
        return words

    def from_environment(self, name: str) -> bool:
        """True for a variable whose value is the environment's: the script has not set it, nor unset it (nor does the
        shell give it)."""
        if not name.isidentifier() or name in SHELL_PROVIDED:
            return False
        return not any(name in m for m in self.env.values.maps if m is not self.layer)

    def expanded(
        self, node: Any, name: str, index: str | None, value: list[Word] | None, operator: str, operand: list[Any], quoted: bool
    ) -> list[Word]:
        """The words of `${NAME[index]OPERATOR OPERAND}` (`node`) once NAME's value (None: unset) is known."""
        line = node.start_point.row + 1
        if operator in (":-", "-", ":=", "="):
            empty = value is None or (operator.startswith(":") and all(word_text(w) == "" for w in value))
            if empty:
                default: list[Word] = self.concatenate([self.pieces(c, quoted) for c in operand]) if operand else [(self.piece("", line),)]
                if operator.endswith("=") and name in self.attributes:
                    self.unknowable(f"{self.attributes[name]}, by which bash changes what is assigned", [name])
                elif operator.endswith("="):
                    self.env.values[name] = default
                value = default
        elif operator in (":+", "+"):
            present = value is not None and (operator == "+" or any(word_text(w) for w in value))
            value = self.concatenate([self.pieces(c, quoted) for c in operand]) if present and operand else [(self.piece("", line),)]
        elif operator:
            # Other operators (`${V#x}`, `${V,,}`, `${V/a/b}`) change the text in ways not followed here.
            known = value is not None and all(not p.unknown for w in value for p in w)
            return [(self.piece("", line, _text(node)) if not known or value is None else self.piece("", line, _text(node)),)]
        if value is None and self.unset(name) and operator not in (":+", "+"):
            if self.env.nounset and self.never_assigned(name):
                self.stop(f"{name}: unbound variable (`set -u`)", line)
            if name.isdigit():  # a function's or `set --`'s parameter it was not given: empty, as in bash
                return [(self.piece("", line),)] if quoted else []
        if value is None:  # unquoted, an unset variable may stand for any number of arguments
            return [(self.piece("", line, f"${name}", split=not quoted),)]
        if index == "*" or (quoted and index != "@" and len(value) > 1):
            value = self.concatenate(
                [[self.separator(line)] if position % 2 else [value[position // 2]] for position in range(2 * len(value) - 1)], line
            )
        if quoted:
            return value
        return [tuple(replace(p, split=True) for p in word) for word in value]

    def _name_index(self, node: Any) -> tuple[str, str | None]:
        if node.type == "subscript":
            name = _text(node.children[0])
            index = word_text(self.pieces(node.children[2])[0]) if len(node.children) > 2 else None
            return name, index
        return _text(node), None

    def arithmetic(self, node: Any) -> Piece:
        line = node.start_point.row + 1
        value = self.calculate(node, ("$((", "))", "$[", "]"))
        if value is None:
            return self.piece("", line, _text(node))
        return self.piece(str(value), line)

    def calculate(self, node: Any, delimiters: tuple[str, ...]) -> int | None:
        """The value of `$((...))` or `((...))`, assigning what it assigns; None when it is not known, and then what
        it may assign is unknown (never the value before it)."""
        line = node.start_point.row + 1
        text = self.arithmetic_text(node, delimiters)
        known = [text is not None]  # False once a value it reads is not known

        def read(name: str) -> str | None:
            words = self.lookup(name, line)
            if not words:
                return ""  # unset: 0, as a plain run reads it
            known[0] = known[0] and not any(p.unknown for p in words[0])
            return word_text(words[0]) if known[0] else None

        def write(name: str, value: int) -> None:
            self.env.values[name] = [(self.piece(str(value), line),)]

        value = None if text is None else arithmetic.evaluate(text, read, write)
        if value is None:
            names = arithmetic_assigned(_text(node))
            why = f"`{' '.join(_text(node).split())[:80]}` (line {self.at or line})"
            if names:
                self.unknowable(why, sorted(names))
            if known[0]:  # every value it reads is known: bash refuses it (or it is not followed here)
                self.refused = f"{why}, which bash refuses"
                if node.type == "arithmetic_expansion":  # bash then skips the rest of the command around it: `aborted`
                    self.aborted = self.aborted or f"{why}, which bash refuses (it skips the rest of the command around it)"
        return value

    def arithmetic_text(self, node: Any, delimiters: tuple[str, ...]) -> str | None:
        """An arithmetic expression's text with its expansions (`$X`, `${X:-1}`, `$(...)`) replaced by their values,
        as bash expands them before it evaluates; None when one is not known."""
        inner = [c for c in node.children if c.type not in delimiters]
        if not inner:
            return ""
        parts: list[str] = []
        position = inner[0].start_byte
        stack = list(reversed(inner))
        while stack:
            child = stack.pop()
            if child.type not in _EXPANDED:
                stack.extend(reversed(child.children))
                continue
            words = self.pieces(child, quoted=True)
            if len(words) != 1 or any(p.unknown for p in words[0]):
                return None
            parts += [self.source[position : child.start_byte].decode("utf-8", "replace"), word_text(words[0])]
            position = child.end_byte
        parts.append(self.source[position : inner[-1].end_byte].decode("utf-8", "replace"))
        return "".join(parts)

    def arithmetic_command(self, node: Any) -> None:
        """`((X=999))`: arithmetic for what it assigns."""
        self.calculate(node, ("((", "))"))

    def ifs(self) -> tuple[str | None, str, int]:
        """(IFS's value, "", the line that set it) when it is known (None when unset: bash splits as on the default);
        (None, why, line) when it is not known (a `read` or an `eval` may have set it)."""
        value = self.lookup("IFS")
        if value is None:
            return None, "", 0
        word = value[0] if value else ()
        line = next((p.line for p in word), 0)
        unknown = next((p for p in word if p.unknown), None)
        if unknown is not None:
            return None, unknown.why or f"IFS=... (line {line}), not known", line
        return word_text(word), "", line

    def separator(self, line: int) -> Word:
        """What `"$*"` and `"${A[*]}"` put between elements: IFS's first character (a space when it is unset)."""
        text, why, _ = self.ifs()
        if why:
            return (replace(self.piece("", line, "$IFS"), why=why),)
        return (self.piece(" " if text is None else text[:1], line),)

    def split(self, word: Word) -> list[Word]:
        """Bash's word splitting of `word`'s unquoted expansions on the default IFS. Under an IFS the script changed
        (`IFS=:`), an expansion that would split on either is not known (splitting on it is not followed here)."""
        text, why, set_at = self.ifs()
        if why or (text is not None and text != " \t\n"):
            marks = " \t\n" + (text or "")
            split = next((p for p in word if p.split and not p.unknown and any(c in marks for c in p.text)), None)
            if split is not None:
                why = why or f"`IFS={text!r}` (line {set_at}): splitting on it is not followed"
                return [(replace(self.piece("", split.line, "a value split on IFS"), why=why),)]
        return _split(word)

    def words(self, nodes: Iterable[Any]) -> list[Word]:
        """The words of a command's arguments after expansion and word splitting (past the budget, a placeholder)."""
        result: list[Word] = []
        for node in nodes:
            for word in self.pieces(node):
                result.extend(self.split(word))
            if len(result) > MAX_WORDS:
                return [_over_budget(node.start_point.row + 1)]
        return result

    # ---- statements ----

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

    def keep(self, mapping: dict[str, Any], key: str) -> None:
        """Before `mapping[key]` changes while a part is read aside: how to put it back."""
        if self.undo is not None:
            self.undo.append((mapping, key, mapping.get(key, _ABSENT)))

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

    def set_builtin(self, words: list[Word]) -> None:
        """`set -u`, `set -euo pipefail`, `set +u`, `set -o nounset`, `set -- a b`: the options the reader follows."""
        texts = [word_text(w) for w in words]
        position = 0
        while position < len(texts):
            text = texts[position]
            if text == "--" or (text == "-" and position == 0):
                self.env.positional = words[position + 1 :]
                return
            if not linear.compile(r"[-+][a-zA-Z]+").fullmatch(text):  # `set a b`: the positional parameters too
                self.env.positional = words[position:]
                return
            if "u" in text:
                self.env.nounset = text.startswith("-")
            if "o" in text:  # `-o NAME` (`set -euo pipefail`): the option's name is the next word
                position += 1
                if position < len(texts) and texts[position] == "nounset":
                    self.env.nounset = text.startswith("-")
            position += 1

    def assign(self, node: Any, extra: Iterable[Any] = ()) -> None:
        name_node = node.children[0]
        name, index = self._name_index(name_node)
        operator = _text(node.children[1]) if len(node.children) > 1 else "="
        value_node = node.children[2] if len(node.children) > 2 else None
        line = node.start_point.row + 1
        if value_node is None:
            value: list[Word] = [(self.piece("", line),)]
        elif value_node.type == "array":
            groups = self.joined([c for c in value_node.children if c.type not in ("(", ")", "comment")])
            value = [w for group in groups for w in self.word_group(group)]
            if len(value) > MAX_WORDS:
                value = [_over_budget(line)]
            self.env.arrays.add(name)
        else:
            expanded = self.concatenate([self.pieces(value_node), *(self.pieces(n) for n in extra)], line)
            joined: list[Piece] = []
            for position, word in enumerate(expanded):
                if position:
                    joined.append(self.piece(" ", line))
                # No word splitting in an assignment: the value is stored as one word.
                joined.extend(replace(p, split=False) for p in word)
                if len(joined) > MAX_WORD_PIECES:
                    break
            value = self.concatenate([[tuple(joined)]], line)
        if name in self.attributes:  # `declare -i N` then `N=5/5` is 1 to bash: kept only when plain
            plain = (
                len(value) == 1
                and not any(p.unknown for p in value[0])
                and linear.compile(r"-?(0|[1-9][0-9]*)").fullmatch(word_text(value[0]))
            )
            if operator != "=" or index is not None or not plain:
                self.unknowable(f"{self.attributes[name]}, by which bash changes what is assigned", [name])
                return
        if index is not None and index not in ("@", "*"):
            current = list(self.env.values.get(name, []))
            if index.isdigit():
                position = int(index) if len(index) <= MAX_INDEX_DIGITS else MAX_WORDS
                if position >= MAX_WORDS:
                    self.env.values[name] = [_over_budget(line)]
                    return
                current += [(self.piece("", line),)] * (position + 1 - len(current))
                current[position] = value[0]
                self.env.values[name] = current
            return
        if operator == "+=":
            current = self.lookup(name, line) or []
            if value_node is not None and value_node.type == "array":
                elements = list(current) + value
                self.env.values[name] = elements if len(elements) <= MAX_WORDS else [_over_budget(line)]
            else:
                first = current[0] if current else ()
                self.env.values[name] = [*self.concatenate([[first], [value[0]]], line), *current[1:]]
            return
        self.env.values[name] = value

    def condition(self, node: Any) -> bool | None:
        """What a plain run's `if` condition evaluates to, or None when it cannot be told without running code."""
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

    # ---- branches on the environment ----

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

    # ---- what a part of a script may assign, without running it ----

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

    def broken(self, node: Any) -> None:
        """Syntax tree-sitter-bash could not parse (bash may): what it assigns is not known, so nothing is after it."""
        self.unknowable(f"shell syntax the reader could not parse (line {self.at or node.start_point.row + 1})")
        text = _text(node)
        if linear.compile(r"\s-m\s+\w|torchrun|python").search(text):
            self.launches.append(
                Launch(self.script, len(self.launches) + 1, node.start_point.row + 1, error="the shell syntax here could not be parsed")
            )

    def joined(self, nodes: list[Any]) -> list[list[Any]]:
        """Nodes grouped into bash's words: tree-sitter-bash ends a word at a `\\`-newline inside it (`k='a'\\`, then
        `'b'` on the next line), where bash joins the two lines into one word; and after a continuation it may split
        one word into tokens with nothing between them (`${A}` then `==`), which bash reads as one word too."""
        groups: list[list[Any]] = []
        for node in nodes:
            if groups and self.source[groups[-1][-1].end_byte : node.start_byte] in (b"\\\n", b""):
                groups[-1].append(node)
            else:
                groups.append([node])
        return groups

    def word_group(self, group: list[Any]) -> list[Word]:
        """The words one of `joined`'s groups expands to."""
        if len(group) == 1:
            return self.words(group)
        return [w for word in self.concatenate([self.pieces(t) for t in group]) for w in self.split(word)]

    def command(self, node: Any) -> None:
        saved = None
        prefix = [c for c in node.children if c.type == "variable_assignment"]
        parts = [c for c in node.children if c.type not in ("variable_assignment", "file_redirect", "herestring_redirect", "comment")]
        targets = self.joined([target for part in parts for target in (part.children if part.type == "command_name" else [part])])
        if prefix and targets and self.source[prefix[-1].end_byte : targets[0][0].start_byte] == b"\\\n":
            # `X='a'\\` then `'b'`: one assignment of `ab` (a command of its own only if more follows)
            extra, targets = targets[0], targets[1:]
        else:
            extra = []
        words: list[Word] = []
        written: list[str] = []  # each word as the script writes it: the node's text when it makes one word
        for group in targets:
            expanded = self.word_group(group)
            words += expanded
            if len(expanded) == 1:
                span = self.written_source[self.layout.original(group[0].start_byte) : self.layout.original(group[-1].end_byte)]
                written.append(span.decode("utf-8", "replace").replace("\\\n", ""))
            else:
                written += [shown_text(w) for w in expanded]
        # `VAR=x cmd`: bash expands the command's words first, then sets VAR for the command only (a function sees it,
        # and the value before it comes back when the function returns); with no command, VAR is the script's.
        name = word_text(words[0]) if words else ""
        restore: dict[str, list[Word] | None] = {}
        if words and name not in self.functions:
            saved = self.env
            self.env = saved.child()
        for position, assignment in enumerate(prefix):
            if name in self.functions:
                variable = _text(assignment.children[0]).partition("[")[0]
                restore.setdefault(variable, self.lookup(variable, node.start_point.row + 1))
            self.assign(assignment, extra=extra if position == len(prefix) - 1 else ())
        if saved is not None:
            self.env = saved
        if not words:
            return
        line = self.at or node.start_point.row + 1
        if name in self.functions and self.calling and name == self.calling[-1] and not self.env.only_when:
            if _unconditional(node, self.functions[name][0]):  # `f() { f; }`: bash never comes back from it
                self.stop(f"`{name}` calls itself without end", line)
        if name in self.functions and self.call(name, words[1:], line, restore):
            return
        for variable, value in restore.items():  # a function not followed: its prefix ends here too
            self.env.values[variable] = value
        if name in ("cd", "pushd", "popd"):
            self.change_folder(name, words[1:], written[1:], line)
        elif name == "set":
            self.set_builtin(words[1:])
        elif name == "shift":
            count = word_text(words[1]) if len(words) > 1 else "1"
            if self.env.positional is not None and count.isdigit():
                self.env.positional = self.env.positional[int(count) if len(count) <= MAX_INDEX_DIGITS else len(self.env.positional) :]
        elif name == "exit":
            self.stop("`" + " ".join(written) + "`", line)
        elif name in ("source", "."):
            self.source_file(words[1:], written[1:], line)
        elif name == "eval":
            text = " ".join(shown_text(w) for w in words[1:])
            if LAUNCH_LIKE.search(text):
                self.launches.append(
                    Launch(self.script, len(self.launches) + 1, line, error=f"`eval` runs text the reader does not follow ({text[:80]})")
                )
            self.unknowable(f"`{' '.join(written)[:80]}` (line {line})")
        elif name in ASSIGNING:
            names = assigned_by(name, [word_text(w) for w in words[1:]])
            if name == "getopts":  # the script's own arguments, as `$1` is: unknown, and the launch still checked
                for assigned in names:
                    self.env.values[assigned] = [(self.piece("", line, f"${assigned}"),)]
            elif names:
                self.unknowable(f"`{' '.join(written)[:80]}` (line {line})", names)
        elif name == "trap" and _trap_runs_before_launches([word_text(w) for w in words[1:]]):
            # Until `trap - DEBUG` resets it (what it changed stays unknown then), nothing is known.
            reset = word_text(words[1]) == "-"
            if self.env.trapped or not reset:
                self.unknowable(self.env.trapped or f"`{' '.join(written)[:80]}` (line {line})")
            self.env.trapped = "" if reset else f"`{' '.join(written)[:80]}` (line {line})"
        elif name == "alias" and len(words) > 1:
            self.env.aliased = f"`{' '.join(written)[:80]}` (line {line})"
        else:
            launch = self.launch(words, line, written)
            if launch is not None:
                if self.env.aliased and not launch.error:
                    launch = replace(launch, error=f"an alias may change what it runs ({self.env.aliased})")
                self.launches.append(replace(launch, stops=self.env.stopped, only_when=self.env.only_when))

    def writes(self, redirect: Any) -> None:
        """`> FILE` / `>> FILE`: a file the script writes itself (a here-document's program) is not the project's."""
        if not redirect.children or _text(redirect.children[0]) not in (">", ">>", ">|", "&>"):
            return
        for word in self.words(redirect.children[1:2]):
            if not any(p.unknown for p in word) and self.env.cwd is not None:
                self.env.written.add(posixpath.normpath(posixpath.join(self.env.cwd, word_text(word))))

    def change_folder(self, name: str, words: list[Word], written: list[str], line: int) -> None:
        """`cd`/`pushd`/`popd`: the folder the rest of the script (or subshell) runs in, relative to the project's root."""
        env = self.env
        if name == "popd":
            if env.stack:
                (env.cwd, env.lost), env.stack = env.stack[-1], env.stack[:-1]
            else:
                env.cwd, env.lost = None, f"`popd` (line {line}) returns to a folder the reader has not seen"
            return
        if name == "pushd":
            env.stack += ((env.cwd, env.lost),)
        arguments = [(w, t) for w, t in zip(words, written, strict=False) if word_text(w) == "-" or not word_text(w).startswith("-")]
        command = " ".join([name, *written])
        if not arguments:
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes to the home folder, which is not known"
            return
        word, text = arguments[0]
        folder = word_text(word)
        if any(p.unknown for p in word):
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes to a folder the reader cannot know ({text})"
        elif folder == "-":
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes back to a folder the reader does not track"
        elif folder.startswith("/"):
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes to an absolute folder; scripts are read from the project's root"
        elif env.cwd is not None:
            path = posixpath.normpath(posixpath.join(env.cwd, folder))
            if path == ".." or path.startswith("../"):
                env.cwd, env.lost = None, f"`{command}` (line {line}) leaves the project"
            else:
                env.cwd, env.lost = ("" if path == "." else path), ""

    def source_file(self, words: list[Word], written: list[str], line: int) -> None:
        """`source FILE` / `. FILE`: a file of the project is read (never run) with the script's variables, and what
        it sets is the script's; a file that cannot be read is remembered, for the launches that would need it."""
        if not words:
            return
        word, text = words[0], written[0]
        name = word_text(word)
        command = f"`source {text}` (line {line})"
        path = posixpath.normpath(posixpath.join(self.env.cwd or "", name))
        if any(p.unknown for p in word):
            reason = f"{command}: its path is not known"
        elif self.env.cwd is None and not name.startswith("/"):
            reason = f"{command}: the folder it is read from is not known after {self.env.lost}"
        elif name.startswith("/") or path == ".." or path.startswith("../"):
            reason = f"{command}: it lies outside the project"
        elif path in self.sourcing or path == self.script or len(self.sourcing) >= MAX_SOURCE_DEPTH:
            return  # a file sourcing itself (or too deep a chain) adds nothing more
        else:
            data = self.read(path) if self.read is not None else "sourced files are not read here"
            if isinstance(data, bytes) and CARRIAGE_RETURN.encode() in data:  # read back, the stand-in would be a `\r`
                data = "it holds the control byte 0x02, which is not read"
            if isinstance(data, bytes) and self.sourced_bytes + len(data) > MAX_SOURCED_BYTES:
                data = f"more than {MAX_SOURCED_BYTES // 1024} KiB of sourced text in one script; the rest is not read"
            if isinstance(data, bytes):
                self.sourced_bytes += len(data)
                self._read_sourced(path, data, line)
                return
            reason = f"{command}: {data}"
        self.unknowable(reason)
        self.env.unread = reason

    def _read_sourced(self, path: str, data: bytes, line: int) -> None:
        saved = self.source, self.written_source, self.layout, self.at, self.here
        self.here = path
        self.written_source = as_parsed(data)
        self.sources_read.append(self.written_source)
        tree, self.layout = self.environments.parsed(self.written_source)
        self.source, self.at = self.layout.data, self.at or line
        self.sourcing += (path,)
        try:
            self.run(tree.root_node)
        finally:
            self.sourcing = self.sourcing[:-1]
            self.source, self.written_source, self.layout, self.at, self.here = saved

    def file_of(self, piece: Piece) -> str:
        """The file a piece was written in ("" for the script itself)."""
        return piece.file

    def launch(self, words: list[Word], line: int, written: list[str] | None = None) -> Launch | None:
        """The launch these command words make, if they run a Python entry point this project has; a command that
        runs a Python script the reader cannot place is a launch that was not extracted, with why."""
        texts = [word_text(w) for w in words]
        written = written if written is not None else [shown_text(w) for w in words]
        index = len(self.launches) + 1
        over = next((p for w in words for p in w if p.unknown == OVER_BUDGET), None)
        if over is not None and any(PYTHON.fullmatch(t.rsplit("/", 1)[-1]) or t.endswith("torchrun") for t in texts):
            return Launch(self.script, index, line, error=str(BudgetExceeded(WORD_BUDGET, f"{self.script}:{over.line}")))
        for position, text in enumerate(texts):
            base = text.rsplit("/", 1)[-1]
            style = _launcher(texts, position, base)
            if style is None:
                continue
            entry = _entry(texts, position, style)
            if entry is None:
                continue
            entry_name, is_module, at = entry
            if not is_module:
                problem, entry_name = self._script_path(words[at], written[at], entry_name)
                if not problem and entry_name in self.env.written:
                    return None  # a program the script wrote itself (a here-document): no launch of the project
                if problem:
                    return Launch(self.script, index, line, entry_name, False, error=problem)
            folder = self._module_folder(entry_name) if is_module else ""
            if folder is None:
                continue  # a module of another package (`python -m pip`): not this project's program
            if not is_module and not self.is_entry(entry_name, False):
                hydra_like = any(OVERRIDE_LIKE.match(t) or t.partition("=")[0] in HYDRA_VALUE_FLAGS for t in texts[at + 1 :])
                error = f"{entry_name} is not a file of the project"
                return Launch(self.script, index, line, entry_name, False, error=error, hydra_like=hydra_like)
            launch = Launch(self.script, index, line, entry_name, is_module, folder=folder)
            return self._hydra_arguments(launch, words[at + 1 :], written[at + 1 :])
        program = words[0]
        overrides = sum(bool(OVERRIDE_LIKE.match(t)) for t in texts[1:])
        if program and all(p.unknown for p in program) and overrides >= 3:
            unknown = program[0].unknown
            return Launch(self.script, index, line, error=f"the program is {unknown}, which the script never sets")
        return None

    def _module_folder(self, module: str) -> str | None:
        """The project's folder `python -m MODULE` finds the module from ("" the root), None when none has it: the
        folder the script went to (`cd`), else the root, else the nearest folder above the script (a sub-project's
        script documented as run from its own folder, as PRIME's `training/examples/*.sh` from `training/`)."""
        folders = [self.env.cwd] if self.env.cwd else []
        above = posixpath.dirname(self.script)
        ancestors = []
        while above:
            ancestors.append(above)
            above = posixpath.dirname(above)
        for folder in dict.fromkeys([*folders, "", *ancestors]):
            if self.is_entry(f"{folder}/{module}" if folder else module, True):
                return folder
        return None

    def _script_path(self, word: Word, written: str, name: str) -> tuple[str, str]:
        """(why the script a launch runs cannot be placed, or "", its path relative to the project's root)."""
        if any(p.unknown for p in word):
            # `$REPO_ROOT/examples/x.py`: scripts run from the project's root, so a known rest after an unknown
            # prefix is read from there, as --config-path's is.
            rest = "".join(p.text for p in word[1:]).lstrip("/") if not any(p.unknown for p in word[1:]) else ""
            if rest and self.is_entry(posixpath.normpath(rest), False):
                return "", posixpath.normpath(rest)
            return f"the script's path {written} is not known", name
        if name.startswith("/"):
            return f"{name} is an absolute path; scripts are placed from the project's root", name
        if self.env.cwd is None:
            return f"the folder it runs in is not known: {self.env.lost}", name
        path = posixpath.normpath(posixpath.join(self.env.cwd, name))
        if path == ".." or path.startswith("../"):
            return f"{path} lies outside the project", name
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(self.script), name))
        if self.env.cwd == "" and not self.is_entry(path, False) and self.is_entry(beside, False):
            return "", beside  # `python main_ppo_split.py` beside the script: it is run from its own folder
        return "", path

    def _hydra_arguments(self, launch: Launch, words: list[Word], written: list[str]) -> Launch:
        """The launch with Hydra's flags and the overrides read from the entry point's arguments."""
        values: dict[str, Any] = {"config_path": None, "config_name": None}
        config_dirs: list[str] = []
        overrides: list[Override] = []
        name_written = ""
        multirun = False
        index = 0
        while index < len(words):
            word = words[index]
            text = word_text(word)
            flag, has_value, inline = text.partition("=")
            if flag in HYDRA_VALUE_FLAGS:
                value_word = word if has_value else (words[index + 1] if index + 1 < len(words) else ())
                value = inline if has_value else word_text(value_word)
                if HYDRA_VALUE_FLAGS[flag] == "config_name" and any(p.unknown for p in value_word):
                    name_written = written[index].partition("=")[2] if has_value else written[index + 1]
                index += 1 if has_value else 2
                target = HYDRA_VALUE_FLAGS[flag]
                if target == "config_dir":
                    config_dirs.append(value)
                elif target:
                    values[target] = value
                continue
            index += 1
            multirun = multirun or text in MULTIRUN_SWITCHES
            if text in HYDRA_SWITCHES or text == "--" or not text:
                continue
            unknown = tuple(dict.fromkeys(p.unknown for p in word if p.unknown))
            problem = _unknowable(word, text)
            unfollowed = next((p for p in word if p.why), None)
            origin = self._origin(word) if problem else ""
            if unfollowed is not None:  # a value a command the reader does not follow may have set: not a guess
                origin = f" (it may be set by {unfollowed.why})"
                if not problem:
                    problem, origin = (
                        f"reads {unfollowed.unknown}, which may be set in a way the reader does not follow: {unfollowed.why}",
                        "",
                    )
            if problem:
                return replace(launch, error=f"`{written[index - 1]}` {problem}{origin}")
            overrides.append(Override(text, word[0].line, unknown, written[index - 1], self.file_of(word[0])))
        return replace(
            launch,
            config_path=values["config_path"],
            config_name=values["config_name"],
            config_dirs=tuple(config_dirs),
            overrides=tuple(overrides),
            name_written=name_written,
            multirun=multirun,
        )

    def _origin(self, word: Word) -> str:
        """Where an unknown argument's value comes from: the command written (with its line), or a sourced file
        the reader could not read, which may set it."""
        piece = next(p for p in word if p.unknown)
        if piece.unknown.startswith(("$(", "`", "<(")):
            where = self.file_of(piece) or self.script
            return f" (`{piece.unknown}`, {where}:{piece.line})"
        return f" (it may be set by {self.env.unread})" if self.env.unread else ""


# What bash expands in an arithmetic expression before it evaluates it.
_EXPANDED = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion", "process_substitution", "string", "raw_string"}
)
# A `for` over known words is read pass by pass up to this many passes; a longer one is a loop not followed. So is
# one past MAX_SCRIPT_PASSES passes in the script (nested loops of 16 would make 16**n launches).
MAX_PASSES = 16
MAX_SCRIPT_PASSES = 256
# What `may_assign` says besides variable names: a `cd` (the folder) and a `shift`/`set` (the positional parameters).
FOLDER_CHANGE = "cd:"
ARGUMENTS_CHANGE = "set:"
# A variable an arithmetic expression assigns: `X=1`, `X+=2`, `X<<=1`, `A[i]=3`, `X++`, `--X`.
_ARITHMETIC_ASSIGNMENT = linear.compile(
    r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:\*\*|<<|>>|[-+*/%&|^])?=|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)"
)


def arithmetic_assigned(text: str) -> set[str]:
    """The variables an arithmetic expression's text may assign (more than it does where a `<`, `>` or `!` precedes `=`)."""
    # `=(?!=)` without lookaround: each `=` followed by `=` is a stand-in no part of the pattern reads as `=`
    text = _EQUALS.sub(lambda m: "\0" * (len(m[0]) - 1) + "=", text)
    return {next(g for g in m.groups() if g) for m in _ARITHMETIC_ASSIGNMENT.finditer(text)}


_EQUALS = linear.compile("=+")


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


def _braced(node: Any) -> bool:
    """True when a word holds an unquoted brace expansion (`{a,b}`, `{1..3}`): tree-sitter-bash leaves its braces bare."""
    texts = [_text(c) if c.type == "word" else "\0" for c in node.children]
    for start, text in enumerate(texts):
        if text == "{" or text.startswith("{"):
            inner = "".join(texts[start:])
            body = inner[1 : inner.find("}")] if "}" in inner else ""
            if body and "\0" not in body and ("," in body or ".." in body):
                return True
    return False


LAUNCH_LIKE = linear.compile(r"(^|[\s/])(python[\d.]*|torchrun|deepspeed|accelerate)\s|\.py(\s|$)")
MAX_SOURCE_DEPTH = 8
# What a script sources, summed, is held to a script's own bound: sourcing is reading more of the script.
MAX_SOURCED_BYTES = MAX_SCRIPT_BYTES
# A name a script assigns somewhere: `NAME=`, `NAME+=`, `NAME[i]=`, `for NAME`, `read [-opts] NAME...`, `getopts S NAME`.
ASSIGNED = linear.compile(
    rb"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]\n]*\])?\+?=|\bfor\s+([A-Za-z_][A-Za-z0-9_]*)|\b(?:read|getopts\s+\S+)(?:\s+-\S+)*\s+([A-Za-z_][A-Za-z0-9_]*)"
)
UNSET_VARIABLE = linear.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")  # the placeholder of a variable the script never set
# Variables bash or a login gives every run: never "unset" under `set -u`.
SHELL_PROVIDED = frozenset(
    "HOME PATH USER LOGNAME SHELL PWD OLDPWD HOSTNAME HOSTTYPE OSTYPE MACHTYPE LANG TERM IFS PS1 PS2 PS4 PPID UID EUID"
    " SHLVL RANDOM SECONDS LINENO BASH BASH_SOURCE BASH_VERSION BASH_VERSINFO BASH_LINENO BASHPID FUNCNAME GROUPS"
    " HISTFILE OPTIND OPTERR SRANDOM EPOCHSECONDS EPOCHREALTIME PIPESTATUS DIRSTACK".split()
)
LAUNCHER_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch"})


def _only_when(conditions: list[Any], verdict: str) -> str:
    """`only when VAR=... (`CONDITION` holds)`: the variables a branch's condition reads, and the condition."""
    text = " ; ".join(" ".join(_text(c).split()) for c in conditions)
    names = list(dict.fromkeys(linear.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*|[0-9@#*])").findall(text)))
    said = " or ".join(f"{name}=..." for name in names) if names else "the run differs"
    return f"only when {said} (`{text[:120]}`{verdict})" if text else f"only when {said}"


def shown_text(word: Word) -> str:
    """A word as the script writes it: known text as is, an unknown part as the expression it came from."""
    return "".join(p.unknown or p.text for p in word)


def _unknowable(word: Word, text: str) -> str:
    """Why an argument cannot be known, or "" when it can be checked: a whole argument, or an override's key, that
    the reader does not know (an unknown value after a known `key=` is checked through its placeholder)."""
    if not any(p.unknown for p in word):
        return ""
    prefix = ""  # the known text before the first unknown part
    for piece in word:
        if piece.unknown:
            break
        prefix += piece.text
    if "=" in prefix:
        return ""
    first = next(p.unknown for p in word if p.unknown)
    if not all(p.unknown for p in word):  # `${K}=1` hides its key; `"$HOME/x"` is no override, Hydra judges it
        return f"has a key that is not known ({first})" if OVERRIDE_LIKE.match(text) else ""
    if first.startswith(("$(", "`", "<(")):
        return "is the output of a command, which is never run"
    if any(p.split for p in word):
        return f"is not known: {first} stands for whole arguments"
    return f"is not known ({first}): it may be an override"


OVER_BUDGET = "a value past the word budget"
WORD_BUDGET = f"the word budget ({MAX_WORD_PIECES:,} pieces, {MAX_WORD_BYTES // 1024} KiB, {MAX_WORDS:,} words)"


def _bytes(word: Word) -> int:
    return sum(len(piece.text) for piece in word)


def _over_budget(line: int) -> Word:
    """The placeholder for a value past the word budget (at `line`): unknown, so a launch using it is not extracted."""
    return (Piece("", line, OVER_BUDGET),)


def _split(word: Word) -> list[Word]:
    """Bash word splitting of the unquoted expansions in a word."""
    if not any(p.split for p in word):
        return [word]
    words: list[list[Piece]] = [[]]
    started = False
    for piece in word:
        if not piece.split or piece.unknown:
            words[-1].append(piece)
            started = True
            continue
        # Fields and the blanks between them: a newline among the blanks moves the next field to the next line.
        fields = linear.compile(r"([ \t\n]+)").split(piece.text)
        line = piece.line
        for position, text in enumerate(fields):
            if position % 2:
                line += text.count("\n")
                if started:
                    words.append([])
                started = False
            elif text:
                words[-1].append(Piece(text, line, file=piece.file))
                started = True
    return [tuple(w) for w in words if w]


def _launcher(texts: list[str], position: int, base: str) -> str | None:
    """How the program at `position` takes a Python entry point: "python", "torchrun" (its options, then a script
    or `-m`: torchrun, `deepspeed`, `accelerate launch`), or None when it runs none."""
    if PYTHON.fullmatch(base):
        return "python"
    if base in ("torchrun", "deepspeed"):
        return "torchrun"
    if base == "accelerate" and position + 1 < len(texts) and texts[position + 1] == "launch":
        return "accelerate"
    return None


def _entry(texts: list[str], position: int, style: str) -> tuple[str, bool, int] | None:
    """(entry, is_module, the entry's position) of a launcher's invocation; None for `python -c` and the like."""
    index = position + (2 if style == "accelerate" else 1)
    module = False
    while index < len(texts):
        text = texts[index]
        if style != "python":
            following = texts[index + 1] if index + 1 < len(texts) else ""
            if text in ("-m", "--module"):
                module = True
            elif text.startswith("-"):
                # An option's value is the next word, unless that is the script or another option (a switch).
                valued = text not in TORCHRUN_SWITCHES and "=" not in text
                if valued and not following.endswith(".py") and not following.startswith("-"):
                    index += 1
            else:
                return text, module, index
        else:
            if text == "-m":
                if index + 1 >= len(texts):
                    return None
                if texts[index + 1] in LAUNCHER_MODULES:  # `python -m torch.distributed.run ...` is torchrun
                    return _entry(texts, index + 1, "torchrun")
                return texts[index + 1], True, index + 1
            if text == "-c":
                return None
            if text in ("-X", "-W", "-Q"):
                index += 1
            elif not text.startswith("-"):
                # (`app.py\r` ending a CRLF line: the project's script, as bash names it, which then does not exist)
                return (text, False, index) if text.rstrip(CARRIAGE_RETURN).endswith(".py") else None
        index += 1
    return None


def launches_in(
    script: str, source: bytes, is_entry: Any, read: Any = None, environment: Environment | None = None, readings: bool = False
) -> list[Launch]:
    """Every launch in a script, in file order, as a run with nothing set reads it; `is_entry(name, is_module)` says
    which programs are Hydra entry points, `read(path)` gives a file the script sources (its bytes, or why it is not
    read). `readings`: then, for each environment that takes a branch on it another way (`if [ -n
    "$CUDA_VISIBLE_DEVICES" ]`), the launches that run otherwise there (`Launch.environment`, with the plain
    launch's index). `environment`: the reading under that one alone."""
    if environment is not None:
        return _read(script, source, is_entry, read, environment, _Environments())
    environments = _Environments()
    plain = _read(script, source, is_entry, read, (), environments)
    if not readings:
        return plain
    alternatives: list[Launch] = []
    position = 1
    while position < len(environments.found):  # a reading may find more environments (a test nested in a branch)
        under = environments.found[position]
        alternatives += alternatives_of(plain, _read(script, source, is_entry, read, under, environments), under, environments.when(under))
        position += 1
    return plain + alternatives


def _runs(launch: Launch) -> tuple[Any, ...]:
    """What a launch runs: its program and its arguments as Hydra gets them (or why they are not known)."""
    overrides = tuple(o.text for o in launch.overrides)
    return (
        launch.entry,
        launch.is_module,
        launch.folder,
        launch.config_path,
        launch.config_name,
        launch.config_dirs,
        overrides,
        launch.error,
    )


def alternatives_of(plain: list[Launch], read: list[Launch], environment: Environment, when: str, every: bool = False) -> list[Launch]:
    """The launches of a reading under `environment` (`when`: in words) that run otherwise than the plain reading's
    launch at the same place (its line, and which pass of it), each with that launch's index; one neither reading
    extracts is left to the plain one's reason, and one bash stops before is none. `every`: each launch of the
    reading, the same or not."""
    places: dict[tuple[int, int], Launch] = {}
    for launch in plain:
        places[launch.line, sum(key[0] == launch.line for key in places)] = launch
    found: list[Launch] = []
    passes: dict[int, int] = {}
    for launch in read:
        at = passes[launch.line] = passes.get(launch.line, -1) + 1
        same = places.get((launch.line, at))
        if not every and (launch.stops or (same is not None and (_runs(same) == _runs(launch) or (same.error and launch.error)))):
            continue  # (one bash never reaches there runs nothing under it: the script refuses that environment)
        index = same.index if same is not None else len(plain) + len(found) + 1
        found.append(replace(launch, index=index, environment=environment, when=when))
    return found


# What stands for a carriage return while a script is parsed: bash keeps `\r` in a word (a CRLF script's `LR=3\r\n`
# sets `3\r`; `\\\r\n` escapes the `\r` and continues nothing), where tree-sitter-bash takes it for a blank. A byte
# the grammar reads as a word's own, and never in a script's text otherwise (a control character).
CARRIAGE_RETURN = "\x02"


def as_parsed(source: bytes) -> bytes:
    """A script's bytes as the grammar is given them, each line where it was: `$(((a + b) * 2))` is arithmetic to bash
    but a subshell to the grammar (a space), and each `\r` a word's own character, as bash reads it."""
    return source.replace(b"$(((", b"$(( (").replace(b"\r", CARRIAGE_RETURN.encode())


def _with_carriage_returns(value: _T) -> _T:
    """A launch (or part of one) with each stand-in of a carriage return back as `\r`: what bash passes."""
    if isinstance(value, str):
        return value.replace(CARRIAGE_RETURN, "\r")  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_with_carriage_returns(item) for item in value)  # type: ignore[return-value]
    if isinstance(value, Launch | Override):
        return replace(value, **{f.name: _with_carriage_returns(getattr(value, f.name)) for f in fields(value)})
    return value


def _read(script: str, source: bytes, is_entry: Any, read: Any, environment: Environment, environments: _Environments) -> list[Launch]:
    """The launches of one reading of a script, under `environment` (what it finds besides goes to `environments`)."""
    # (a sourced file too may end its lines with CRLF: every reading is told the stand-in)
    reader = _Reader(script, source, functools.partial(_entry_with_carriage_return, is_entry), read, environment, environments)
    if CARRIAGE_RETURN.encode() in source:  # read back, the stand-in would be a `\r` the script does not hold
        line = source[: source.index(CARRIAGE_RETURN.encode())].count(b"\n") + 1
        return [Launch(script, 1, line, error=f"{script}:{line} holds the control byte 0x02, which is not read")]
    source = as_parsed(source)
    try:
        size_budget(source, MAX_SCRIPT_BYTES, script)
    except BudgetExceeded as error:
        return [Launch(script, 1, 1, error=str(error))]
    tree, reader.layout = environments.parsed(source)
    reader.source, reader.written_source = reader.layout.data, source
    reader.sources_read.append(source)
    deep = syntax_depth(tree.root_node)
    if deep is not None:  # every walk below is recursive: a script nested past the budget is not read
        budget = depth_budget(MAX_SCRIPT_DEPTH, "syntax levels")
        return [Launch(script, 1, deep, error=str(BudgetExceeded(budget, f"{script}:{deep}")))]
    reader.run(tree.root_node)
    reader.uncalled()
    return [_with_carriage_returns(launch) for launch in reader.launches]


def _entry_with_carriage_return(is_entry: Any, entry: str, is_module: bool) -> bool:
    """`is_entry` for a name bash ends with `\r` (a CRLF line's last word): a launch of the project's program whose
    name does not exist, so it is said (entry point not found), never left out as another program."""
    return bool(is_entry(entry.rstrip(CARRIAGE_RETURN), is_module))


def _attributed(node: Any) -> list[str]:
    """The names a `declare`/`typeset`/`local` in `node` (or below it) gives an attribute by which bash changes what
    is assigned to them (`-i`, `-l`, `-u`; never `export`). Iterative: a tree nested deep is walked without recursion."""
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type != "declaration_command":
            stack.extend(current.children)
            continue
        children = current.children[1:]
        command = _text(current.children[0]) if current.children else ""
        flags = "".join(_text(c)[1:] for c in children if c.type == "word" and _text(c).startswith("-"))
        if command == "export" or not set(flags) & set("ilu"):
            continue
        for child in children:
            if child.type in ("variable_assignment", "variable_name"):
                names.append(_text(child.children[0] if child.type == "variable_assignment" else child).partition("[")[0])
    return names


@dataclass
class Coverage:
    """How many launches were found and extracted in a set of scripts."""

    scripts: int = 0
    launches: list[Launch] = field(default_factory=list)

    @property
    def extracted(self) -> int:
        """Launches whose overrides were read."""
        return sum(not launch.error for launch in self.launches)


def iter_unknown(launch: Launch) -> Iterator[str]:
    """The unknown values a launch's overrides hold."""
    for override in launch.overrides:
        yield from override.unknown
