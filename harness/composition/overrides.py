"""Hydra overrides parsed fast: the plain `key=value` form by its grammar's token rules, the rest by Hydra's parser.

Hydra's ANTLR parser takes about a millisecond per override, and a repository's launch scripts hold thousands.
Most are `a.b.c=word`; for those the value is typed exactly as Hydra's lexer types a lone token (INT, FLOAT,
BOOL, NULL, else a string). A test compares this with Hydra's parser on every override of verl's scripts.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType, ValueType

from harness.composition.session import current
from harness.gates import linear

KEY = linear.compile(r"(\+\+|\+|~)?([A-Za-z_][\w-]*(?:\.[\w-]+)*)(?:=(.*))?", linear.S)
# Characters that only ever form one unquoted string token (no quotes, brackets, sweeps, interpolations, escapes).
PLAIN_VALUE = linear.compile(r"[\w./:%-]+")
_DIGITS = r"[0-9](?:_?[0-9])*"
INT = linear.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)")
FLOAT = linear.compile(
    rf"[+-]?(?:(?:(?:{_DIGITS})?\.{_DIGITS}|{_DIGITS}\.)(?:[eE][+-]?{_DIGITS})?|{_DIGITS}[eE][+-]?{_DIGITS}|[Ii][Nn][Ff]|[Nn][Aa][Nn])"
)
TYPES = MappingProxyType({None: OverrideType.CHANGE, "+": OverrideType.ADD, "++": OverrideType.FORCE_ADD, "~": OverrideType.DEL})


def token_value(text: str) -> Any:
    """A lone unquoted token's value as Hydra's override grammar types it."""
    if INT.fullmatch(text):
        return int(text.replace("_", ""))
    if FLOAT.fullmatch(text):
        return float(text.replace("_", ""))
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "null":
        return None
    return text


def fast(text: str) -> Override | None:
    """The override, when it is the plain form this module types itself; None for anything else."""
    match = KEY.fullmatch(text)
    if match is None:
        return None
    prefix, key, value = match.groups()
    if value is None:
        if prefix != "~":
            return None
        parsed: Any = None
    elif (
        prefix == "~"
        or not PLAIN_VALUE.fullmatch(value)
        or value.startswith("-")
        and not INT.fullmatch(value)
        and not FLOAT.fullmatch(value)
    ):
        return None
    else:
        parsed = token_value(value)
    value_type = None if value is None else ValueType.ELEMENT  # `~key` alone carries no value at all
    return Override(type=TYPES[prefix], key_or_group=key, value_type=value_type, _value=parsed, package=None, input_line=text)


def parse(text: str) -> Override:
    """One override, as Hydra's parser reads it (it raises what Hydra raises on bad syntax)."""
    parsed = current().overrides
    if text not in parsed:
        override = fast(text)
        if override is None:
            (override,) = OverridesParser.create().parse_overrides(overrides=[text])
        parsed[text] = override
    return parsed[text]
