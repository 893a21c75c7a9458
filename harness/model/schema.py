"""The shapes of the files a pull request can change (settings, contracts, the known file), declared once as data.

One validator walks a parsed document against its shape and names the first problem by its key path
(`routes[0].name: expected str, got int 5`), so no field is checked by hand and no shape of input reaches the
code that reads it (a `waivers: 5` once ended in a TypeError, exit 3). Meaning (a safe name, a path inside the
project, a date) is checked after, by the code that reads the field.

A library was measured first: jsonschema adds 170 to 370 ms of import to every run (about a tenth of a warm
`check`), and msgspec's error paths drop mapping keys (`presets[...][0]`), where the one line must name the key.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias

from harness.model.hints import did_you_mean

__all__ = ["ANY", "Problem", "Shape", "Table", "ListOf", "MapOf", "OneOf", "first_problem", "shape_name", "type_name"]


@dataclass(frozen=True)
class Table:
    """A mapping with named fields; `closed` refuses any other key (the settings and contracts are strict)."""

    fields: Mapping[str, Shape]
    required: frozenset[str] = frozenset()
    closed: bool = True
    what: str = "a table"

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))  # a shape is a constant: read-only


@dataclass(frozen=True)
class ListOf:
    """A list whose every item has `item`'s shape."""

    item: Shape


@dataclass(frozen=True)
class MapOf:
    """A mapping from string keys to values of `value`'s shape (a settings table of names, `equal:` terms)."""

    value: Shape


@dataclass(frozen=True)
class OneOf:
    """Any of several shapes (a date written as YAML's date or as its ISO text)."""

    options: tuple[Shape, ...]


class _Any:
    """Any value at all (an `old`/`new` of a change record, a value an `equal:` term expects)."""


ANY = _Any()
Shape: TypeAlias = "type | tuple[type, ...] | Table | ListOf | MapOf | OneOf | _Any"
Path_: TypeAlias = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """The first place a document leaves its shape: the key path, the words, and the mapping that holds the key
    (a parser that remembers lines turns it into FILE:LINE)."""

    path: Path_
    message: str
    holder: Any = field(default=None, compare=False)
    key: str = ""

    def at(self) -> str:
        """The key path as the files write it: `routes[0].name`, `presets.grpo[1]`, `modules."pkg.main"` (a key that
        is not a bare word is quoted, as TOML quotes it)."""
        text = ""
        for part in self.path:
            if isinstance(part, int):
                text += f"[{part}]"
                continue
            word = part if part.replace("_", "a").replace("-", "a").isalnum() else json.dumps(part)
            text += f".{word}" if text else word
        return text


def type_name(value: Any) -> str:
    """A value's type in the words a TOML or YAML author knows."""
    names = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict", datetime.date: "date"}
    return next((name for kind, name in names.items() if type(value) is kind or isinstance(value, kind)), type(value).__name__)


def shape_name(shape: Shape) -> str:
    """A shape in the words of TOML's docs: `string`, `array of string`, `table of array of string`, `table`."""
    if isinstance(shape, ListOf):
        return f"array of {shape_name(shape.item)}"
    if isinstance(shape, MapOf):
        return f"table of {shape_name(shape.value)}"
    if isinstance(shape, Table):
        return "table" if shape.what == "a table" else shape.what
    if isinstance(shape, OneOf):
        return " or ".join(shape_name(option) for option in shape.options)
    names = {str: "string", int: "integer", bool: "boolean", float: "float", datetime.date: "date", type(None): "empty"}
    return names.get(shape, "any") if isinstance(shape, type) else "any"


def _shown(value: Any) -> str:
    # Scalars are shown (a 5,000-digit integer only by its size: repr would raise, and it would fill the line).
    if isinstance(value, bool | float | str | datetime.date):
        text = repr(value)
        return f" {text}" if len(text) <= 60 else f" {text[:57]}..."
    if isinstance(value, int):
        return f" of {value.bit_length()} bits" if value.bit_length() > 64 else f" {value}"
    return ""


def _expected(shape: Shape) -> str:
    if isinstance(shape, Table):
        return shape.what
    if isinstance(shape, ListOf):
        return "list"
    if isinstance(shape, MapOf):
        return "dict"
    if isinstance(shape, OneOf):
        return " or ".join(_expected(option) for option in shape.options)
    if isinstance(shape, tuple):
        return " or ".join(kind.__name__ for kind in shape)
    if shape is type(None):
        return "empty"
    return shape.__name__ if isinstance(shape, type) else "a value"


def _fits(value: Any, kind: type | tuple[type, ...]) -> bool:
    # YAML and TOML booleans are ints to Python; a flag is never a number and a count never a flag.
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds)


def _problems(value: Any, shape: Shape, path: Path_, holder: Any, key: str) -> Iterator[Problem]:
    if isinstance(shape, _Any):
        return
    if isinstance(shape, OneOf):
        if not any(next(_problems(value, option, path, holder, key), None) is None for option in shape.options):
            yield Problem(path, f"expected {_expected(shape)}, got {type_name(value)}{_shown(value)}", holder, key)
        return
    if isinstance(shape, Table | MapOf):
        if not isinstance(value, dict):
            yield Problem(path, f"expected {_expected(shape)}, got {type_name(value)}{_shown(value)}", holder, key)
            return
        for name, item in value.items():
            if not isinstance(name, str):
                yield Problem(path, f"a key must be text, got {type_name(name)}{_shown(name)}", value, "")
                return
            if isinstance(shape, MapOf):
                yield from _problems(item, shape.value, (*path, name), value, name)
            elif name in shape.fields:
                yield from _problems(item, shape.fields[name], (*path, name), value, name)
            elif shape.closed:
                allowed = ", ".join(sorted(shape.fields))
                yield Problem(path, f"unknown key {name!r}{did_you_mean(name, shape.fields)} (allowed: {allowed})", value, name)
        if isinstance(shape, Table):
            for name in sorted(shape.required - set(value)):
                yield Problem(path, f"missing required key {name!r}", value, "")
        return
    if isinstance(shape, ListOf):
        if not isinstance(value, list):
            yield Problem(path, f"expected list, got {type_name(value)}{_shown(value)}", holder, key)
            return
        for index, item in enumerate(value):
            yield from _problems(item, shape.item, (*path, index), value, key)
        return
    if not _fits(value, shape):
        yield Problem(path, f"expected {_expected(shape)}, got {type_name(value)}{_shown(value)}", holder, key)


def first_problem(document: Any, shape: Shape) -> Problem | None:
    """The first place `document` leaves `shape`, in the document's order, or None when it fits."""
    return next(_problems(document, shape, (), None, ""), None)
