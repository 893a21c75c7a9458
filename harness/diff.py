"""A path-level semantic diff over plain config trees: leaf paths, lists as whole values."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

REMOVED = "removed"
ADDED = "added"
CHANGED = "changed"


@dataclass(frozen=True)
class Change:
    """One leaf that differs between an old and a new tree."""

    kind: str
    path: str
    old: Any = None
    new: Any = None


def join_path(prefix: str, key: Any) -> str:
    """Dotted path of `key` below `prefix`."""
    return f"{prefix}.{key}" if prefix else str(key)


def iter_leaves(tree: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted path, value) for every leaf; an empty mapping is itself a leaf, a list is one value."""
    if isinstance(tree, Mapping) and tree:
        for key, value in tree.items():
            yield from iter_leaves(value, join_path(prefix, key))
    elif prefix:
        yield prefix, tree


def flatten(tree: Any) -> dict[str, Any]:
    """Every leaf path of a tree mapped to its value."""
    return dict(iter_leaves(tree))


def unflatten(leaves: Mapping[str, Any]) -> dict[str, Any]:
    """Rebuild a tree from leaf paths (the inverse of flatten for keys without dots)."""
    tree: dict[str, Any] = {}
    for path, value in leaves.items():
        *parents, last = path.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return tree


def same_value(old: Any, new: Any) -> bool:
    """Equality that also requires equal types, so 1, 1.0 and True differ."""
    if type(old) is not type(new):
        return False
    if isinstance(old, (list, tuple)):
        return len(old) == len(new) and all(same_value(a, b) for a, b in zip(old, new))
    if isinstance(old, Mapping):
        return old.keys() == new.keys() and all(same_value(old[k], new[k]) for k in old)
    return bool(old == new)


def diff_leaves(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Changes between two flattened trees, sorted by path.

    An emptied mapping reports each leaf it lost (plus the empty mapping that now stands there),
    never the mapping as a whole, so the diff agrees exactly with a plain flatten.
    """
    changes = []
    for path in sorted(old.keys() | new.keys()):
        if path not in new:
            changes.append(Change(REMOVED, path, old[path], None))
        elif path not in old:
            changes.append(Change(ADDED, path, None, new[path]))
        elif not same_value(old[path], new[path]):
            changes.append(Change(CHANGED, path, old[path], new[path]))
    return changes


def diff_trees(old: Any, new: Any) -> list[Change]:
    """Changes between two plain trees, sorted by path."""
    return diff_leaves(flatten(old), flatten(new))


def apply_changes(tree: Any, changes: list[Change]) -> dict[str, Any]:
    """Apply changes to a tree's leaves and rebuild it (used to prove the diff is complete)."""
    leaves = flatten(tree)
    for change in changes:
        if change.kind == REMOVED:
            leaves.pop(change.path, None)
        else:
            leaves[change.path] = change.new
    return unflatten(leaves)


def describe_value(value: Any) -> str:
    """A short, readable rendering of a leaf value."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def describe_change(change: Change) -> str:
    """One line such as "REMOVED a.b.c (was 'qkv')"."""
    if change.kind == REMOVED:
        return f"REMOVED {change.path} (was {describe_value(change.old)})"
    if change.kind == ADDED:
        return f"ADDED {change.path} = {describe_value(change.new)}"
    return f"CHANGED {change.path}: {describe_value(change.old)} -> {describe_value(change.new)}"
