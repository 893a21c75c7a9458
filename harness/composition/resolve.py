"""Effective (resolved) values, with host lookups kept opaque, and `oc.select` fallback detection."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from harness.composition.policy import resolution_policy
from harness.gates import linear
from harness.gates.budget import MAX_INDEX_DIGITS
from harness.model.semantic_diff import iter_leaves, same_value, split_path


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"  # unpickled as this module's one MISSING, so `is MISSING` holds for a cached value too


MISSING: Any = _Missing()
MANDATORY = "???"


@dataclass(frozen=True)
class Unresolvable:
    """A value that cannot be resolved, with the reason naming the key."""

    reason: str


def lookup(tree: Any, path: str) -> Any:
    """The value at a dotted path of a plain tree, or MISSING."""
    node = tree
    for part in split_path(path):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdecimal() and len(part) <= MAX_INDEX_DIGITS and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node


def is_interpolation(value: Any) -> bool:
    """True for a string that OmegaConf would resolve."""
    return isinstance(value, str) and "${" in value


# Python's recursion limit bounds how far OmegaConf follows interpolations (about 60 steps); past it, say so.
TOO_DEEP = "circular interpolation, or a chain of interpolations too long to follow (more than about 60 steps)"


def select_key(path: str) -> str:
    """A dotted path as OmegaConf.select reads it: a key with a dot in it goes in brackets (`[actor.lr]`)."""
    if '"' not in path:
        return path
    return "".join(f"[{key}]" if "." in key else (f".{key}" if index else key) for index, key in enumerate(split_path(path)))


def resolve_path(config: DictConfig, path: str) -> Any:
    """The resolved value at `path`, or Unresolvable naming the key and the reason."""
    with resolution_policy():
        try:
            value = OmegaConf.select(config, select_key(path), throw_on_missing=True)
        except OmegaConfBaseException as error:
            if isinstance(error.__cause__, RecursionError) or "RecursionError" in str(error):
                return Unresolvable(f"{path} cannot be resolved: {TOO_DEEP}")
            message = " ".join(str(error).split("\n")[0].split())
            return Unresolvable(f"{path} cannot be resolved: {message}")
        except RecursionError:
            return Unresolvable(f"{path} cannot be resolved: {TOO_DEEP}")
    if isinstance(value, (DictConfig,)) or OmegaConf.is_config(value):
        return OmegaConf.to_container(value, resolve=False)
    return value


# `${a.b.c}` and nothing else: one absolute reference, written whole.
PLAIN_REFERENCE = linear.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")
NOT_PLAIN = object()


def referenced_plain(tree: Any, written: str) -> Any:
    """What OmegaConf resolves `written` to, read from the plain tree, when that needs no OmegaConf: `written` is one
    absolute reference (`${model.num_channels}`) to a key of mappings that holds a plain value (a number, a boolean,
    null, or a string with no `$`, backslash or `???`); else NOT_PLAIN. Building a golden's whole config to resolve
    such a reference cost an edit of anemoi-training's model most of its time (issue 52)."""
    match = PLAIN_REFERENCE.fullmatch(written)
    if match is None:
        return NOT_PLAIN
    node = tree
    for key in match.group(1).split("."):
        if not isinstance(node, dict) or key not in node:
            return NOT_PLAIN
        node = node[key]
    if node is None or type(node) in (int, float, bool):
        return node
    if type(node) is str and "$" not in node and "\\" not in node and node != MANDATORY:
        return node
    return NOT_PLAIN


def effective_value(config: DictConfig, tree: Any, path: str) -> Any:
    """The value a program would see at `path`: MISSING, Unresolvable, or the resolved value."""
    raw = lookup(tree, path)
    if raw is MISSING:
        return MISSING
    if raw == MANDATORY:
        return Unresolvable(f"{path} is '???' (a mandatory value that is not set)")
    if not is_interpolation(raw) and not isinstance(raw, (dict, list)):
        return raw
    return resolve_path(config, path)


SELECT_OPEN = "${oc.select:"


def parse_select(text: str, start: int) -> tuple[str, str, int]:
    """(key, default, end) of the `${oc.select:key,default}` opening at `start`, nested braces allowed."""
    body_start = index = start + len(SELECT_OPEN)
    depth = 1
    while index < len(text) and depth:
        if text.startswith("${", index):
            depth, index = depth + 1, index + 2
            continue
        depth -= text[index] == "}"
        index += 1
    body = text[body_start : index - 1] if depth == 0 else text[body_start:]
    key, _, default = body.partition(",")
    return key.strip(), default.strip() or "null", index


@dataclass(frozen=True)
class Fallback:
    """An `oc.select` whose key is absent, so its default is silently used."""

    path: str
    key: str
    default: str


def fallbacks(tree: Any) -> dict[str, Fallback]:
    """Every leaf holding `${oc.select:key,default}` whose key is missing or `???` in this tree."""
    found = {}
    for path, value in iter_leaves(tree):
        if not isinstance(value, str) or "oc.select" not in value:
            continue
        start = value.find(SELECT_OPEN)
        while start != -1 and path not in found:
            key, default, end = parse_select(value, start)
            target = lookup(tree, key)
            # Relative keys are left to OmegaConf; a present key means its default (nested selects too) is unused.
            if not key.startswith(".") and (target is MISSING or target == MANDATORY):
                found[path] = Fallback(path, key, default)
            start = value.find(SELECT_OPEN, end)
    return found


REFERENCE = linear.compile(r"\$\{(?:oc\.select:)?\s*(\.*[A-Za-z_][\w.]*)")


def referenced_keys(path: str, written: str) -> list[str]:
    """The absolute keys an interpolation written at `path` reads; `${.x}` is a sibling, `${..x}` an uncle."""
    keys = []
    for reference in REFERENCE.findall(written):
        dots = len(reference) - len(reference.lstrip("."))
        if dots:
            parent = path.split(".")[:-dots]
            reference = ".".join(parent + [reference[dots:]])
        keys.append(reference)
    return keys


# An interpolation through a resolver other than oc.select may read keys its text does not spell out.
RESOLVER_NAME = linear.compile(r"\$\{\s*([A-Za-z_][\w.]*):")  # its name runs up to the `:` (no `:` in `[\w.]`)


# No key of a composed config lies deeper than this many levels (harness.composition.render.MAX_DEPTH bounds every file and
# composition), so a reference is indexed by at most this many leading keys, however long its text.
MAX_REFERENCE_DEPTH = 41


def _prefixes(path: str) -> list[str]:
    parts = path.split(".", MAX_REFERENCE_DEPTH)[:MAX_REFERENCE_DEPTH]
    prefixes, prefix = [], ""
    for part in parts:
        prefix = f"{prefix}.{part}" if prefix else part
        prefixes.append(prefix)
    return prefixes


def affected_interpolations(interpolations: dict[str, str], changed: set[str]) -> set[str]:
    """The interpolation leaves whose resolved value may differ because the leaves in `changed` did.

    Conservative: a reference to a changed key, to one of its ancestors or descendants, or through another
    interpolation that is affected (transitively), or any resolver besides oc.select, counts as affected.
    Indexed by reference, and each index entry is visited once, so the walk is linear in the size of the index
    (every reference times the depth of its key, which is bounded), whatever the shape of the references.
    """
    readers_of: dict[str, list[str]] = {}  # a referenced key -> the interpolations that read it
    readers_below: dict[str, list[str]] = {}  # a key -> the interpolations that read it or something below it
    for path, text in interpolations.items():
        for key in referenced_keys(path, text):
            prefixes = _prefixes(key)
            readers_of.setdefault(prefixes[-1], []).append(path)
            for prefix in prefixes:
                readers_below.setdefault(prefix, []).append(path)
    affected = {path for path, text in interpolations.items() if any(m[1] != "oc.select" for m in RESOLVER_NAME.finditer(text))}
    pending, marked, visited_ancestors = list(changed) + sorted(affected), set(), set()
    while pending:
        path = pending.pop()
        if path in marked:
            continue
        marked.add(path)
        # A reader of this key or of anything below it, or of one of its ancestors, may see a new value. An
        # ancestor's readers are all affected the first time it is met, so it is never expanded twice.
        readers = list(readers_below.get(path, ()))
        for ancestor in _prefixes(path):
            if ancestor not in visited_ancestors:
                visited_ancestors.add(ancestor)
                readers += readers_of.get(ancestor, ())
        for reader in readers:
            if reader not in affected:
                affected.add(reader)
                pending.append(reader)
    return affected


# How many interpolation steps the harness follows; OmegaConf itself gives up a little later (recursion).
MAX_CHAIN = 40


def long_chains(interpolations: dict[str, str], limit: int = MAX_CHAIN) -> set[str]:
    """The interpolation leaves that need more than `limit` steps through other interpolations (or a cycle)
    to reach a plain value: resolving them costs time and ends in a recursion error, so they are not resolved.

    Each leaf's references are read once and followed once (a depth-first walk with one iterator per leaf),
    so the walk is linear in the number of references.
    """
    depth: dict[str, int] = {}
    references: dict[str, list[str]] = {}
    for start in interpolations:
        if start in depth:
            continue
        stack = [(start, iter(_references(start, interpolations, references)))]
        on_stack = {start}
        while stack:
            path, waiting = stack[-1]
            following = next((k for k in waiting if k not in depth and k not in on_stack), None)
            if following is not None:
                stack.append((following, iter(_references(following, interpolations, references))))
                on_stack.add(following)
                continue
            # Every reference is known, or leads back into the path (a cycle: beyond any limit).
            depth[path] = min(limit + 1, 1 + max((depth.get(k, limit + 1) for k in references[path]), default=0))
            stack.pop()
            on_stack.discard(path)
    return {path for path, steps in depth.items() if steps > limit}


def _references(path: str, interpolations: dict[str, str], known: dict[str, list[str]]) -> list[str]:
    """The interpolation leaves `path` reads (each read once, then kept in `known`)."""
    if path not in known:
        known[path] = list(dict.fromkeys(k for k in referenced_keys(path, interpolations[path]) if k in interpolations))
    return known[path]


def interpolation_leaves(tree: Any) -> dict[str, str]:
    """Leaves whose written value is an interpolation."""
    return {path: value for path, value in iter_leaves(tree) if is_interpolation(value)}


def holds_interpolation(value: Any) -> bool:
    """True when a value, or any element of a list or mapping value, is an interpolation."""
    if isinstance(value, dict):
        return any(holds_interpolation(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_interpolation(item) for item in value)
    return is_interpolation(value)


# How far `_reads_at_most` counts: enough to tell a scalar from a mapping, never the whole of a big one.
READ_COUNT_CAP = 64


def _reads_at_most(tree: Any, path: str) -> int:
    """About how many values resolving `path` reads: what the keys its interpolations name hold, counted up to
    READ_COUNT_CAP each (a literal side reads nothing)."""
    written = lookup(tree, path)
    total = 0
    for text in _scalars(written):
        if not is_interpolation(text):
            continue
        for key in referenced_keys(path, text):
            pending, count = [lookup(tree, key)], 0
            while pending and count < READ_COUNT_CAP:
                value = pending.pop()
                count += 1
                if isinstance(value, dict):
                    pending += value.values()
                elif isinstance(value, list):
                    pending += value
            total += count
    return total


def _scalars(value: Any) -> list[Any]:
    """The value itself, or the scalar values inside a list or mapping value."""
    found, pending = [], [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending += item.values()
        elif isinstance(item, list):
            pending += item
        else:
            found.append(item)
    return found


def _resolved(config: DictConfig, path: str) -> Any:
    with resolution_policy():
        try:
            value = OmegaConf.select(config, select_key(path), throw_on_missing=True)
            return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
        except (OmegaConfBaseException, RecursionError):
            return Unresolvable(f"{path} cannot be resolved")


# How many values the harness may resolve for one case (each resolution costs the size of what it resolves to):
# verl's whole review resolves a few hundred. Many interpolations that each read a big mapping would otherwise
# cost the square of the config's size.
RESOLUTION_BUDGET = 50_000


@dataclass
class Budget:
    """What is left of a case's resolution budget; once spent, nothing more is resolved and a finding says so."""

    left: int = RESOLUTION_BUDGET

    def spend(self, *values: Any) -> None:
        """Count the work resolving `values` took: one per value, mapping entry, list item and 256 characters."""
        pending = list(values)
        while pending and self.left >= 0:
            value = pending.pop()
            self.left -= 1 + (len(value) // 256 if isinstance(value, str) else 0)
            if isinstance(value, dict):
                pending += value.values()
            elif isinstance(value, list):
                pending += value

    @property
    def spent(self) -> bool:
        """True once the budget is used up."""
        return self.left < 0


def resolves_unchanged(old_tree: Any, new_tree: Any, paths: Iterable[str], budget: Budget | None = None) -> frozenset[str]:
    """Of `paths` (leaves present in both trees whose written value changed), those whose resolved value did not.

    Such a change is a refactor, `false -> ${oc.select:x,False}` for one: nothing a program reads moved.
    Two different literals never resolve alike, so only a leaf with an interpolation on a side is resolved.
    Once `budget` is spent the rest count as changed (never folded away unchecked).
    """
    budget = Budget() if budget is None else budget
    candidates = [path for path in paths if holds_interpolation(lookup(old_tree, path)) or holds_interpolation(lookup(new_tree, path))]
    if not candidates:
        return frozenset()
    # Cheapest first: were they resolved in the order given, a case whose other interpolations read big mappings
    # would spend its budget before a scalar refactor (`${oc.select:x,null} -> null`) that every other case folds.
    candidates.sort(key=lambda path: _reads_at_most(old_tree, path) + _reads_at_most(new_tree, path))
    old_config, new_config = OmegaConf.create(old_tree), OmegaConf.create(new_tree)
    same = set()
    for path in candidates:
        if budget.spent:
            break
        old, new = _resolved(old_config, path), _resolved(new_config, path)
        budget.spend(old, new)
        if not isinstance(old, Unresolvable) and not isinstance(new, Unresolvable) and same_value(old, new):
            same.add(path)
    return frozenset(same)


def in_order_of(tree: Any, order: Any) -> Any:
    """`tree` with each mapping's keys in the order `order` (the composed config) has them, keys only `tree` has after.

    A golden is written with sorted keys, but a program resolves in Hydra's order (the defaults list's):
    `${oc.dict.values:metrics}` lists the mapping as composed. Compared with the composition, a golden's values are
    resolved in the composition's order, so an unrelated edit never shows as a reordered list.
    """
    if isinstance(tree, dict) and isinstance(order, dict):
        first = [key for key in order if key in tree]
        return {key: in_order_of(tree[key], order.get(key)) for key in [*first, *(k for k in tree if k not in order)]}
    if isinstance(tree, list) and isinstance(order, list):
        return [in_order_of(item, order[index] if index < len(order) else None) for index, item in enumerate(tree)]
    return tree
