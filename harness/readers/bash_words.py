"""The words of a shell script as bash makes them, without running anything: a script's variables (with `local`,
`declare` attributes and the environment below them), expansions (`${VAR:-default}`, `"${ARR[@]}"`, `$((...))`),
quoting, IFS splitting and assignments. Every word is a tuple of `Piece`s; a piece whose value cannot be known keeps
the script's own text as a placeholder. Part of the bash reader (see `harness.readers.bash`); the walk over statements
is `bash_walk`'s."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from harness.gates import linear
from harness.gates.budget import (
    MAX_EXPANDED_WORDS,
    MAX_INDEX_DIGITS,
    MAX_WORD_BYTES,
    MAX_WORD_PIECES,
    MAX_WORDS,
)
from harness.readers import arithmetic

_ABSENT = object()  # what a mapping held for a key it did not have


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


# The variables a run's environment sets, for a reading of a script under them: (name, value) pairs sorted by name,
# a value of None for "set to a value no test of the script names" (`CUDA_VISIBLE_DEVICES is set`). A plain run
# sets none: (). A script is read once plainly, then once under each environment that takes a branch on them
# (`if [ -n "$CUDA_VISIBLE_DEVICES" ]`) the plain run does not, up to MAX_ENVIRONMENTS (see `launches_in`).
Environment = tuple[tuple[str, "str | None"], ...]


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


def _text(node: Any) -> str:
    text: bytes = node.text  # a tree-sitter node's source bytes
    return text.decode("utf-8", "replace")


def _unescape_word(text: str) -> str:
    # Outside quotes a backslash keeps the next character; before a newline it joins lines.
    return linear.compile(r"\\(\n|.)", linear.S).sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _unescape_double(text: str) -> str:
    return linear.compile(r"\\([\"$`\\\n])").sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def environment_value(name: str, value: str | None) -> list[Word]:
    """Variable `name` as an environment sets it: `value`, or (None) a value no test names, unknown."""
    return [(Piece("", 0, f"${name}", given=True, env=name) if value is None else Piece(value, 0, env=name),)]


class WordReader:
    """A script's variables and the words bash makes of its text: expansions, quoting, splitting, arithmetic and
    assignments (the walk over the statements is `Walker`'s, bash_walk.py)."""

    def __init__(self, script: str, source: bytes, environment: Environment = ()) -> None:
        self.script = script
        self.source = source  # the bytes parsed (see `parse_words`)
        self.layer: dict[str, list[Word] | None] = {name: environment_value(name, value) for name, value in environment}
        self.env = _Env(_Values(self.layer).new_child())
        # While a test is decided: the variables it reads that the script has not set or unset (the environment's),
        # and the texts it compares values with; None otherwise.
        self.reads: set[str] | None = None
        # While a part bash does not run is read (`aside`): the declarations it made, each with what was there before.
        self.undo: list[tuple[dict[str, Any], str, Any]] | None = None
        self.sourcing: tuple[str, ...] = ()  # the files being sourced, outermost first
        self.at: int | None = None  # inside a sourced file: the line of the script's `source` command
        self.here = ""  # the sourced file being read ("" for the script): every piece made is tagged with it
        self.expanded_words = 0  # words of every `"${A[@]}"` and `"$@"`, summed (MAX_EXPANDED_WORDS)
        # Per function running: its `local` names and the values they hide (the caller's, back when it returns).
        self.locals: list[dict[str, list[Word] | None]] = []
        # Names `declare -i`/`-l`/`-u` gave an attribute: what is assigned to them is changed by bash (arithmetic,
        # case), so it is unknown unless plain (an integer literal under `-i`); the declaration, for messages.
        self.attributes: dict[str, str] = {}
        # A `$((...))` bash refuses (`$((0+X))` with X='x y'): bash skips the rest of the script's command around
        # it (an `if`, a function's call), so what that command assigns is unknown once it is read.
        self.aborted = ""
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
            if len(node.children) <= 2:
                return name, None
            # An index that expands to no word, to several, or to a text not known here is the subscript as written:
            # not a number, so the element is not known (`${a[${a[1]}]}` with a[1] unset was an IndexError).
            words = self.pieces(node.children[2])
            known = len(words) == 1 and not any(p.unknown for p in words[0])
            return name, word_text(words[0]) if known else _text(node.children[2])
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

    def keep(self, mapping: dict[str, Any], key: str) -> None:
        """Before `mapping[key]` changes while a part is read aside: how to put it back."""
        if self.undo is not None:
            self.undo.append((mapping, key, mapping.get(key, _ABSENT)))

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


# What bash expands in an arithmetic expression before it evaluates it.
_EXPANDED = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion", "process_substitution", "string", "raw_string"}
)


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


# A name a script assigns somewhere: `NAME=`, `NAME+=`, `NAME[i]=`, `for NAME`, `read [-opts] NAME...`, `getopts S NAME`.
ASSIGNED = linear.compile(
    rb"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]\n]*\])?\+?=|\bfor\s+([A-Za-z_][A-Za-z0-9_]*)|\b(?:read|getopts\s+\S+)(?:\s+-\S+)*\s+([A-Za-z_][A-Za-z0-9_]*)"
)


# Variables bash or a login gives every run: never "unset" under `set -u`.
SHELL_PROVIDED = frozenset(
    "HOME PATH USER LOGNAME SHELL PWD OLDPWD HOSTNAME HOSTTYPE OSTYPE MACHTYPE LANG TERM IFS PS1 PS2 PS4 PPID UID EUID"
    " SHLVL RANDOM SECONDS LINENO BASH BASH_SOURCE BASH_VERSION BASH_VERSINFO BASH_LINENO BASHPID FUNCNAME GROUPS"
    " HISTFILE OPTIND OPTERR SRANDOM EPOCHSECONDS EPOCHREALTIME PIPESTATUS DIRSTACK".split()
)


OVER_BUDGET = "a value past the word budget"


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
