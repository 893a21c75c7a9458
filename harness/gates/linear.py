"""The one regular-expression engine for bytes a pull request controls: RE2 (through `google-re2`), linear in its input
whatever the pattern (issue 53: `a.+a.+...b` and the builders' keywords backtracked exponentially under `re`).

A pattern is written as for Python's `re` and keeps its meaning there: RE2's `\\w`, `\\s` and `\\d` are ASCII only, so
a text pattern's are spelled out as Python's Unicode classes (harness/gates/unicode_classes.py), a bytes pattern's
`\\s` gains `\\v` as Python's has it, `\\uXXXX` becomes RE2's `\\x{XXXX}`, and bytes are read as Latin-1 (one byte, one
character, as `re` reads them). What RE2 cannot do (backreferences, lookaround, `\\b` on text) is refused when the
pattern is compiled: such a pattern is rewritten at its call site. `$` without `re.M` is the end of the text (Python's
also stands before a final newline): the patterns using it read text of one line, take the newline first (`\\s|$`),
or write `\\n?$`.

A text holding lone surrogates (file names decoded with `surrogateescape`) is matched with each read as a code point of
plane 15's private use area (U+F0000 + its offset), which a pattern's `\\udXXX` names too; every group is cut from
the text itself. `tests/unit/gates/test_linear.py` fails on a call of Python's engine anywhere else in harness/.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, AnyStr, Generic, TypeAlias

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information; this module is its one user

from harness.gates import unicode_classes

M = re.M  # the flags a pattern may take, as `re` spells them
S = re.S
I = re.I  # noqa: E741 (re's own name)
_FLAGS = ((re.M, "m"), (re.S, "s"), (re.I, "i"))

MaybeNone: TypeAlias = Any  # as typeshed types `re.Match.group`: a group that did not take part is None


def _ranges(spec: str) -> str:
    """`30-39 5f` as the inside of an RE2 class: `\\x{30}-\\x{39}\\x{5f}`."""
    return "".join("-".join(f"\\x{{{bound}}}" for bound in part.split("-")) for part in spec.split())


_TEXT_CLASSES = MappingProxyType(
    {"w": _ranges(unicode_classes.WORD), "s": _ranges(unicode_classes.SPACE), "d": _ranges(unicode_classes.DIGIT)}
)
_BYTES_CLASSES = MappingProxyType({"w": "0-9A-Za-z_", "s": "\\t\\n\\x0b\\f\\r ", "d": "0-9"})


def translated(pattern: str, text: bool) -> str:
    """`pattern` in RE2's syntax with the meaning Python's `re` gives it (on text, or on bytes read as Latin-1)."""
    classes = _TEXT_CLASSES if text else _BYTES_CLASSES
    out, index, in_class = [], 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escape = pattern[index + 1]
            index += 2
            if escape.lower() in classes:
                inner = classes[escape.lower()]
                if escape.islower():
                    out.append(inner if in_class else f"[{inner}]")
                elif in_class:
                    raise ValueError(f"`\\{escape}` inside a class: write the class out ({pattern!r})")
                else:
                    out.append(f"[^{inner}]")
            elif escape in "uU":
                width = 4 if escape == "u" else 8
                out.append(f"\\x{{{_stand_in(int(pattern[index : index + width], 16)):x}}}")
                index += width
            elif escape == "Z":
                out.append("\\z")
            elif escape in "bB" and text:
                raise ValueError(f"`\\{escape}` on text is ASCII in RE2: write the boundary out ({pattern!r})")
            else:
                out.append("\\" + escape)
            continue
        if in_class and char == "]" and not (out and out[-1] in ("[", "[^")):
            in_class = False
        elif not in_class and char == "[":
            in_class = True
            if pattern.startswith("[^", index):
                out.append("[^")
                index += 2
                continue
        out.append(char)
        index += 1
    return "".join(out)


# RE2 reads UTF-8, which has no lone surrogates (file names decoded with `surrogateescape` hold them): each is read as
# one code point of plane 15's private use area, and a pattern's `\\udXXX` names that code point.
_SURROGATES = range(0xD800, 0xE000)
_STAND_IN = 0xF0000 - 0xD800


def _stand_in(code: int) -> int:
    return code + _STAND_IN if code in _SURROGATES else code


_ANCHORS = MappingProxyType(
    {
        "search": re2._Anchor.UNANCHORED,
        "finditer": re2._Anchor.UNANCHORED,
        "match": re2._Anchor.ANCHOR_START,
        "fullmatch": re2._Anchor.ANCHOR_BOTH,
    }
)
_NO_SPAN = (-1, -1)


def _options(text: bool) -> Any:
    options = re2.Options()
    options.log_errors = False  # an error is raised, never printed
    if not text:
        options.encoding = re2.Options.Encoding.LATIN1
    return options


class Match(Generic[AnyStr]):
    """One match, as `re.Match` offers it (the groups are cut from the text matched, never from a stand-in)."""

    __slots__ = ("_names", "_spans", "_text")

    def __init__(self, text: AnyStr, spans: tuple[tuple[int, int], ...], names: dict[str, int]) -> None:
        self._text: AnyStr = text
        self._spans = spans
        self._names = names

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._spans[self._names[group] if isinstance(group, str) else group]

    def start(self, group: int | str = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self.span(group)[1]

    def group(self, group: int | str = 0) -> AnyStr | MaybeNone:
        start, end = self.span(group)
        return None if start < 0 else self._text[start:end]

    __getitem__ = group

    def groups(self, default: Any = None) -> tuple[AnyStr | MaybeNone, ...]:
        found = (self.group(index) for index in range(1, len(self._spans)))
        return tuple(default if value is None else value for value in found)


@dataclass(frozen=True)
class Pattern(Generic[AnyStr]):
    """A pattern compiled by RE2: `search`, `match`, `fullmatch`, `finditer`, `findall`, `sub` and `split` as `re`'s,
    in time linear in the text (a `sub` replacement is literal text or a function of the match)."""

    pattern: AnyStr
    flags: int
    compiled: Any  # re2's pattern object
    names: dict[str, int]  # its named groups (re2 builds the dict again on each look)
    groups: int

    def _matches(self, find: str, text: AnyStr) -> Iterator[Match[AnyStr]]:
        names = self.names
        if isinstance(text, bytes) or text.isascii():  # one byte, one character: RE2's offsets are the text's
            yield from self._ascii_matches(find, text, names)
            return
        seen = text
        try:
            text.encode()
        except UnicodeEncodeError:
            seen = "".join(chr(_stand_in(ord(char))) for char in text)
        groups = self.groups
        found = getattr(self.compiled, find)(seen)  # re2's own walk maps its UTF-8 offsets back, in one pass
        for match in [found] if find != "finditer" else found:
            if match is None:
                return
            yield Match(text, tuple(match.span(index) for index in range(groups + 1)), names)

    def _ascii_matches(self, find: str, text: AnyStr, names: dict[str, int]) -> Iterator[Match[AnyStr]]:
        """RE2's matcher called directly (re2's own wrapper costs five times as much on a short text): each match is
        sought from where the last ended, one character on after an empty one, as `re.finditer` goes on."""
        data = text if isinstance(text, bytes) else text.encode()
        anchor = _ANCHORS[find]
        position, end = 0, len(data)
        while True:
            spans = self.compiled._regexp.Match(anchor, data, position, end)
            if spans[0] == _NO_SPAN:
                return
            yield Match(text, tuple(spans), names)
            if find != "finditer" or position == end:
                return
            position = position + 1 if spans[0][1] == position else spans[0][1]

    def _first(self, find: str, text: AnyStr) -> Match[AnyStr] | None:
        if isinstance(text, bytes) or text.isascii():  # the common case, without a generator around it
            data = text if isinstance(text, bytes) else text.encode()
            spans = self.compiled._regexp.Match(_ANCHORS[find], data, 0, len(data))
            return None if spans[0] == _NO_SPAN else Match(text, tuple(spans), self.names)
        return next(self._matches(find, text), None)

    def search(self, text: AnyStr) -> Match[AnyStr] | None:
        return self._first("search", text)

    def match(self, text: AnyStr) -> Match[AnyStr] | None:
        return self._first("match", text)

    def fullmatch(self, text: AnyStr) -> Match[AnyStr] | None:
        return self._first("fullmatch", text)

    def finditer(self, text: AnyStr) -> Iterator[Match[AnyStr]]:
        return self._matches("finditer", text)

    def findall(self, text: AnyStr) -> list[Any]:
        """As `re.findall`: the whole match, the one group, or a tuple of the groups (a group not taking part: empty)."""
        empty = text[:0]
        groups = self.groups
        return [
            match.group() if groups == 0 else match.groups(empty)[0] if groups == 1 else match.groups(empty)
            for match in self.finditer(text)
        ]

    def sub(self, replace: AnyStr | Callable[[Match[AnyStr]], AnyStr], text: AnyStr, count: int = 0) -> AnyStr:
        pieces: list[Any] = []
        end = 0
        for number, found in enumerate(self.finditer(text), 1):
            pieces += [text[end : found.start()], replace(found) if callable(replace) else replace]
            end = found.end()
            if number == count:
                break
        joined: AnyStr = text[:0].join([*pieces, text[end:]])
        return joined

    def split(self, text: AnyStr) -> list[AnyStr | MaybeNone]:
        """As `re.split`: the pieces between matches, each followed by the match's groups."""
        pieces: list[Any] = []
        end = 0
        found: Match[AnyStr]
        for found in self.finditer(text):
            pieces += [text[end : found.start()], *found.groups()]
            end = found.end()
        return [*pieces, text[end:]]


def compile(pattern: AnyStr, flags: int = 0) -> Pattern[AnyStr]:  # noqa: A001 (re's own name)
    """`pattern` (Python's syntax, `re.M`, `re.S` and `re.I` only) compiled by RE2, once per pattern and flags."""
    compiled: Pattern[AnyStr] = _compiled(pattern, flags)
    return compiled


@functools.lru_cache(maxsize=512)  # a pattern written at a call site is compiled once
def _compiled(pattern: AnyStr, flags: int) -> Pattern[AnyStr]:
    """`pattern` (Python's syntax, `re.M`, `re.S` and `re.I` only) compiled by RE2; a pattern RE2 cannot run is a
    ValueError when the module holding it is imported, so no such pattern reaches a release."""
    text = isinstance(pattern, str)
    source = pattern if isinstance(pattern, str) else pattern.decode("latin-1")
    prefix = "".join(letter for flag, letter in _FLAGS if flags & flag)
    if flags & ~(re.M | re.S | re.I):
        raise ValueError(f"flags RE2 is not given: {flags!r}")
    spelled = (f"(?{prefix})" if prefix else "") + translated(source, text)
    try:
        compiled = re2.compile(spelled if text else spelled.encode("latin-1"), _options(text))
    except re2.error as error:
        raise ValueError(f"RE2 cannot run {pattern!r}: {error}") from None
    return Pattern(pattern, flags, compiled, compiled.groupindex, compiled.groups)


def glob(pattern: str) -> Pattern[str]:
    """A shell pattern as `fnmatch.fnmatchcase` reads it, for `fullmatch`: fnmatch's own translation, whose atomic
    groups (`(?>.*?x)`, which RE2 lacks) only ever matched what the plain group matches, and whose `(?!)` (an empty
    range: nothing matches) is a class of no character."""
    return compile(fnmatch.translate(pattern).replace("(?>", "(?:").replace("(?!)", "[^\\x00-\\x{10ffff}]"))


def escape(text: AnyStr) -> AnyStr:
    """`text` as a pattern matching itself (`re.escape`'s output is plain RE2 syntax too)."""
    return re.escape(text)


def fnmatchcase(name: str, pattern: str) -> bool:
    """`fnmatch.fnmatchcase` on RE2."""
    return glob(pattern).fullmatch(name) is not None
