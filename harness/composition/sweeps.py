"""A multirun's points, as Hydra's basic sweeper makes them: what `python app.py -m a=1,2 b=range(3)` runs.

Hydra's own parser reads each override (`a=1,2`, `choice(...)`, `range(...)`, `glob(...)` over a group's options,
`shuffle(...)`), and its basic sweeper's `split_arguments` makes the points (the product of the swept values, each
point's overrides in Hydra's order: by key, as first written, the last value of a key written twice). Nothing here is
a re-implementation of either; what this module adds is the bound. Every sweep is counted before any point is listed,
so a sweep of a million points costs what its text costs: past `MAX_POINTS`, the points checked are those that take
each swept value once (`diagonal`), and the caller names that with the count.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hydra.core.override_parser.types import ChoiceSweep, Glob, RangeSweep

from harness.composition import hydra_compat
from harness.composition import overrides as harness_overrides
from harness.gates.errors import BadInput

# The points of one launch checked one by one. verl's and the apps' sweeps are a few seeds or a small grid (2 to 20
# points); a sweep past this is checked by `diagonal` and named, never listed whole.
MAX_POINTS = 64
# A float `range(...)` is counted by walking it (Hydra steps it in decimals): at most this far.
COUNTED = 4096


class SweepRefused(ValueError, BadInput):
    """A sweep Hydra's basic sweeper refuses (an `interval(...)`, a sweep over `hydra.*`), in Hydra's words."""


@dataclass(frozen=True)
class Point:
    """One run of a multirun: its overrides in Hydra's order, each with the index of the argument it comes from."""

    overrides: tuple[tuple[int, str], ...]
    swept: tuple[str, ...]  # the texts of the overrides that differ between points (what names the point)


@dataclass(frozen=True)
class Points:
    """A multirun's points: all of them (`total` of them), or past MAX_POINTS the diagonal's."""

    points: tuple[Point, ...]
    total: int  # how many runs Hydra starts (a lower bound when `exact` is false)
    exact: bool = True
    longest: int = 1  # the most values one swept key takes: past the limit, the points checked take only the first ones

    @property
    def all_listed(self) -> bool:
        return len(self.points) == self.total and self.exact


def is_sweep(text: str) -> bool:
    """True when Hydra reads the override as a sweep (`a=1,2`, `a=range(3)`, `a=glob(*)`, `a=interval(0,1)`). Every
    sweep holds a comma or a call, so the rest is never parsed here; one Hydra cannot parse is none."""
    if "," not in text and "(" not in text:
        return False
    try:
        return bool(harness_overrides.parse(text).is_sweep_override())
    except Exception:  # Hydra's parser raises many types; the launch names a bad override when it is composed
        return False


def _unshuffled(override: Any, loader: Any) -> Any:
    """The override with the config loader Hydra's sweeper gives it (a `glob` lists the group's options through it)
    and without `shuffle`: the same points in the order written, so two runs name them alike."""
    value = override._value
    if isinstance(value, ChoiceSweep | RangeSweep) and value.shuffle:
        value = dataclasses.replace(value, shuffle=False)
    return dataclasses.replace(override, _value=value, config_loader=loader)


def _count(override: Any) -> tuple[int, bool]:
    """How many values a parsed override takes (1 for a plain one), without listing a range; and whether exact."""
    if not override.is_sweep_override():
        return 1, True
    value = override._value
    if override.is_interval_sweep():
        raise SweepRefused(f"{override.input_line}: the basic sweeper does not support interval sweeps (an optimizing sweeper's)")
    if isinstance(value, RangeSweep):
        span = value.range()
        if isinstance(span, range):
            return len(span), True
        counted = sum(1 for _ in itertools.islice(span, COUNTED + 1))
        return min(counted, COUNTED), counted <= COUNTED
    if isinstance(value, Glob):
        return len(list(override.sweep_iterator())), True  # the group's options: a folder listing
    return len(value.list), True  # a choice's values are its text's


def _counted(override: Any) -> tuple[int, bool]:
    try:
        return _count(override)
    except SweepRefused:
        raise
    except Exception as error:  # a range Hydra cannot step (`range(1,5,0)`): what Hydra says
        raise SweepRefused(f"{override.input_line}: {error}") from error


def points(parsed: Sequence[tuple[int, Any]], loader: Any, limit: int = MAX_POINTS) -> Points:
    """The points of a multirun whose arguments are `parsed` ((index, Hydra's parsed override), in the order Hydra gets
    them: `hydra.sweeper.params`, then the command line's task overrides). SweepRefused for a sweep Hydra refuses."""
    prepared = [(index, _unshuffled(override, loader)) for index, override in parsed]
    keys: dict[str, int] = {}  # each key's place in a point, as the sweeper orders them, and the argument it takes
    for index, override in prepared:
        keys[override.get_key_element()] = index
    counts = {override.get_key_element(): _counted(override) for _, override in prepared}
    total = math.prod(count for count, _ in counts.values())
    exact = all(ok for _, ok in counts.values())
    swept = {key for key, (count, _) in counts.items() if count != 1 or _sweeps(prepared, key)}
    order = list(keys)
    if total <= limit and exact:
        batch = hydra_compat.basic_sweep([override for _, override in prepared])
        listed = [tuple(zip(order, point, strict=True)) for point in batch]
    else:
        listed = diagonal(prepared, order, limit)
    made = tuple(
        Point(tuple((keys[key], text) for key, text in point), tuple(text for key, text in point if key in swept)) for point in listed
    )
    return Points(made, total, exact, max((count for count, _ in counts.values()), default=1))


def _sweeps(prepared: Iterable[tuple[int, Any]], key: str) -> bool:
    """True when the last override of `key` is a sweep (`a=choice(1)` sweeps one value: the point still names it)."""
    last = [override for _, override in prepared if override.get_key_element() == key][-1]
    return bool(last.is_sweep_override())


def diagonal(prepared: Sequence[tuple[int, Any]], order: Sequence[str], limit: int) -> list[tuple[tuple[str, str], ...]]:
    """Points that take every swept value once (the n-th point each key's n-th value, round again for a shorter key),
    at most `limit` of them: a sweep too large to check whole still has each of its values composed. Each value is the
    text Hydra's sweeper writes for it (`key=value`)."""
    values: dict[str, list[str]] = {}
    for _, override in prepared:
        key = override.get_key_element()
        if override.is_sweep_override():
            values[key] = [f"{key}={value}" for value in itertools.islice(override.sweep_string_iterator(), limit)]
        else:
            values[key] = [f"{key}={override.get_value_element_as_str()}"]
    length = min(max((len(v) for v in values.values()), default=1), limit)
    return [tuple((key, values[key][n % len(values[key])]) for key in order if values[key]) for n in range(length)]


def sweeper_of(hydra: Any) -> str:
    """The `_target_` of the sweeper a composition's `hydra:` subtree configures ("" for Hydra's basic sweeper)."""
    sweeper = hydra.get("sweeper") if hydra is not None else None
    target = sweeper.get("_target_") if sweeper is not None else None
    return "" if not isinstance(target, str) or hydra_compat.is_basic_sweeper(target) else target


def sweep_params(hydra: Any) -> list[str]:
    """`hydra.sweeper.params` of the basic sweeper as the overrides it adds before the command line's (`key=sweep`)."""
    sweeper = hydra.get("sweeper") if hydra is not None else None
    params = sweeper.get("params") if sweeper is not None else None
    if params is None:
        return []
    return [f"{key}={value}" for key, value in params.items()]


def mode_of(hydra: Any) -> str:
    """`hydra.mode` as the composition sets it (`MULTIRUN` runs the app as a sweep without `-m`); "" when unset."""
    mode = hydra.get("mode") if hydra is not None else None
    return str(getattr(mode, "name", mode) or "")
