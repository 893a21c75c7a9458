"""Effective (resolved) values, with host lookups kept opaque, and `oc.select` fallback detection."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from harness.diff import iter_leaves, same_value, split_path
from harness.policy import resolution_policy


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


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
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
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


REFERENCE = re.compile(r"\$\{(?:oc\.select:)?\s*(\.*[A-Za-z_][\w.]*)")


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
OTHER_RESOLVER = re.compile(r"\$\{\s*(?!oc\.select:)[A-Za-z_][\w.]*:")


def _prefixes(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def affected_interpolations(interpolations: dict[str, str], changed: set[str]) -> set[str]:
    """The interpolation leaves whose resolved value may differ because the leaves in `changed` did.

    Conservative: a reference to a changed key, to one of its ancestors or descendants, or through another
    interpolation that is affected (transitively), or any resolver besides oc.select, counts as affected.
    Indexed by reference, so a chain of thousands of interpolations costs linear time, not quadratic.
    """
    readers_of: dict[str, set[str]] = {}  # a referenced key -> the interpolations that read it
    readers_below: dict[str, set[str]] = {}  # a key -> the interpolations that read it or something below it
    for path, text in interpolations.items():
        for key in referenced_keys(path, text):
            readers_of.setdefault(key, set()).add(path)
            for prefix in _prefixes(key):
                readers_below.setdefault(prefix, set()).add(path)
    affected = {path for path, text in interpolations.items() if OTHER_RESOLVER.search(text)}
    pending, marked = list(changed) + sorted(affected), set()
    while pending:
        path = pending.pop()
        if path in marked:
            continue
        marked.add(path)
        # A reader of this key or of anything below it, or of one of its ancestors, may see a new value.
        readers = set(readers_below.get(path, ()))
        for ancestor in _prefixes(path):
            readers |= readers_of.get(ancestor, set())
        for reader in readers - affected:
            affected.add(reader)
            pending.append(reader)
    return affected


# How many interpolation steps the harness follows; OmegaConf itself gives up a little later (recursion).
MAX_CHAIN = 40


def long_chains(interpolations: dict[str, str], limit: int = MAX_CHAIN) -> set[str]:
    """The interpolation leaves that need more than `limit` steps through other interpolations (or a cycle)
    to reach a plain value: resolving them costs time and ends in a recursion error, so they are not resolved."""
    depth: dict[str, int] = {}
    for start in interpolations:
        stack, on_stack = [start], {start}
        while stack:
            path = stack[-1]
            references = [k for k in referenced_keys(path, interpolations[path]) if k in interpolations]
            waiting = next((k for k in references if k not in depth and k not in on_stack), None)
            if path not in depth and waiting is not None:
                stack.append(waiting)  # one at a time, so the stack is exactly the path being followed
                on_stack.add(waiting)
                continue
            # Every reference is known, or leads back into the path (a cycle: beyond any limit).
            if path not in depth:
                depth[path] = min(limit + 1, 1 + max((depth.get(k, limit + 1) for k in references), default=0))
            stack.pop()
            on_stack.discard(path)
    return {path for path, steps in depth.items() if steps > limit}


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


def _resolved(config: DictConfig, path: str) -> Any:
    with resolution_policy():
        try:
            value = OmegaConf.select(config, path, throw_on_missing=True)
            return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
        except (OmegaConfBaseException, RecursionError):
            return Unresolvable(f"{path} cannot be resolved")


def resolves_unchanged(old_tree: Any, new_tree: Any, paths: Iterable[str]) -> frozenset[str]:
    """Of `paths` (leaves present in both trees whose written value changed), those whose resolved value did not.

    Such a change is a refactor, `false -> ${oc.select:x,False}` for one: nothing a program reads moved.
    Two different literals never resolve alike, so only a leaf with an interpolation on a side is resolved.
    """
    candidates = [
        path for path in paths
        if holds_interpolation(lookup(old_tree, path)) or holds_interpolation(lookup(new_tree, path))
    ]
    if not candidates:
        return frozenset()
    old_config, new_config = OmegaConf.create(old_tree), OmegaConf.create(new_tree)
    same = set()
    for path in candidates:
        old, new = _resolved(old_config, path), _resolved(new_config, path)
        if not isinstance(old, Unresolvable) and not isinstance(new, Unresolvable) and same_value(old, new):
            same.add(path)
    return frozenset(same)
