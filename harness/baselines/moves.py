"""Moved keys: a removed leaf or subtree whose value (or whole subtree) now sits under another path of the same case.

Pure functions over a case's `removed` and `added` findings; one `moved` finding replaces the pair (or, for a
subtree, every leaf of it), so a rename reads as one line in every report and a launch can be told the new key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import Any

from harness.gates import linear
from harness.model.findings import Difference, Finding, Kind, Moved
from harness.model.semantic_diff import join_path, parent_path, split_path, value_text


@dataclass(frozen=True)
class Move:
    """A leaf or subtree that moved: its old and new path, and the value (a mapping for a subtree)."""

    old: str
    new: str
    value: Any
    leaves: tuple[tuple[str, str], ...]  # (old leaf path, new leaf path) pairs it accounts for


def _same(a: Any, b: Any) -> bool:
    # 1, 1.0 and True are different values in a config; compare their JSON with the type.
    return type(a) is type(b) and value_text(a) == value_text(b)


def _distinctive(value: Any) -> bool:
    """A value rare enough that finding it once elsewhere says where it went (not a flag, a small number or null)."""
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return value not in (0, 1, -1)
    if isinstance(value, str):
        return len(value) >= 3
    return bool(value)


def _similar(old_name: str, new_name: str) -> bool:
    """Names alike enough that a rename from one to the other is believable (val_before_train -> validate_before_train)."""
    return SequenceMatcher(None, old_name, new_name).ratio() >= 0.75


def _relative(path: str, prefix: str) -> str:
    return path[len(prefix) + 1 :]


def _subtrees(leaves: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every proper prefix of the leaves, with the leaves below it (relative path -> value)."""
    trees: dict[str, dict[str, Any]] = {}
    for path, value in leaves.items():
        prefix = ""
        for key in split_path(path)[:-1]:
            prefix = join_path(prefix, key)
            trees.setdefault(prefix, {})[_relative(path, prefix)] = value
    return trees


def find_moves(
    removed: Mapping[str, Any], added: Mapping[str, Any], present: Iterable[str] = (), rewired: Mapping[str, str] | None = None
) -> list[Move]:
    """The moves among removed and added leaves (path -> value).

    A subtree moved when every leaf removed under one prefix reappears, with the same relative paths and values,
    under exactly one other prefix, and nothing else sits under either (`present`: paths of the new config's
    other leaves, so a subtree that only lost some keys is not taken for a move). The outermost such prefix is
    the move. A leaf moved when exactly one added leaf has its value and the same name (a move), or else a similar
    name (a rename; one in the same parent wins). `rewired` (old path -> new path, see `rewired_references`) names
    renames the config's own interpolations confirm: such a leaf moved whatever its new name, when its value is the same.

    Over 60 lines: the subtree pass and the leaf pass share the paths already claimed (`used_old`, `used_new`): a leaf
    is matched only among what no subtree move took, so the two passes run in this order over one state.
    """
    present = set(present)
    moves: list[Move] = []
    used_old: set[str] = set()
    used_new: set[str] = set()
    old_trees = _subtrees(removed)
    new_trees = _subtrees(added)
    fingerprints: dict[str, list[str]] = {}
    for prefix, tree in new_trees.items():
        if len(tree) >= 2 and not any(p.startswith(prefix + ".") for p in present):
            fingerprints.setdefault(value_text(tree), []).append(prefix)
    for prefix in sorted(old_trees, key=lambda p: len(split_path(p))):
        tree = old_trees[prefix]
        if len(tree) < 2 or any(path.startswith(prefix + ".") for path in used_old) or any(p.startswith(prefix + ".") for p in present):
            continue
        targets = [
            t for t in fingerprints.get(value_text(tree), []) if t != prefix and not any(path.startswith(t + ".") for path in used_new)
        ]
        if len(targets) != 1:
            continue
        target = targets[0]
        leaves = tuple((f"{prefix}.{rel}", f"{target}.{rel}") for rel in sorted(tree))
        moves.append(Move(prefix, target, _unflatten(tree), leaves))
        used_old.update(old for old, _ in leaves)
        used_new.update(new for _, new in leaves)
    for path, value in sorted(removed.items()):
        if path in used_old:
            continue
        confirmed = (rewired or {}).get(path)
        if confirmed is not None and confirmed in added and confirmed not in used_new and _same(added[confirmed], value):
            moves.append(Move(path, confirmed, value, ((path, confirmed),)))
            used_old.add(path)
            used_new.add(confirmed)
            continue
        candidates = [q for q, v in added.items() if q not in used_new and _same(v, value)]
        name = split_path(path)[-1]
        # A leaf kept its name under another parent (a pure move), or was renamed to a similar name. A flag, null or
        # small number says little: only a rename within its parent counts for it (`val_before_train: true` ->
        # `validate_before_train: true`); the same value under an unrelated name is two changes.
        leaf = {q: split_path(q)[-1] for q in candidates}
        moved = [q for q in candidates if leaf[q] == name]
        renamed = [q for q in candidates if leaf[q] != name and _similar(name, leaf[q])]
        if not _distinctive(value):
            moved, renamed = [], [q for q in renamed if parent_path(q) == parent_path(path)]
        chosen = moved if len(moved) == 1 else renamed
        if len(chosen) == 1:
            moves.append(Move(path, chosen[0], value, ((path, chosen[0]),)))
            used_old.add(path)
            used_new.add(chosen[0])
    return moves


def _unflatten(tree: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for path, value in tree.items():
        keys = split_path(path)
        node = nested
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    return nested


REFERENCE = linear.compile(r"\$\{([^${}]+)\}")


def _swaps(finding: Finding) -> set[tuple[str, str]] | None:
    """The absolute interpolation paths a refactor rewrote (`${training.seed}` -> `${training.rng_seed}`), when
    that is all it changed; None otherwise."""
    if finding.kind != Kind.CHANGED or not finding.effective_same or not isinstance(finding.old, str) or not isinstance(finding.new, str):
        return None
    old_refs, new_refs = REFERENCE.findall(finding.old), REFERENCE.findall(finding.new)
    if len(old_refs) != len(new_refs):
        return None
    pairs = {(a, b) for a, b in zip(old_refs, new_refs, strict=True) if a != b}
    if not pairs or any(a.startswith(".") or ":" in a or b.startswith(".") or ":" in b for a, b in pairs):
        return None
    text = finding.old
    for a, b in pairs:
        text = text.replace(f"${{{a}}}", f"${{{b}}}")
    return pairs if text == finding.new else None


def rewired_references(findings: Iterable[Finding]) -> dict[str, str]:
    """Old path -> new path for every interpolation that now reads another key and resolves to the same value."""
    return {a: b for finding in findings for a, b in _swaps(finding) or ()}


def fold_moves(findings: list[Finding], present: Iterable[str] = ()) -> list[Finding]:
    """The findings with each moved leaf's or subtree's `removed` and `added` pair replaced by one `moved` finding;
    an interpolation that only follows a moved key to its new path is part of that move, not a refactor of its own."""
    removed = {f.path: f.old for f in findings if f.kind == Kind.REMOVED}
    added = {f.path: f.new for f in findings if f.kind == Kind.ADDED}
    if not removed or not added:
        return findings
    moves = find_moves(removed, added, set(present) - set(added), rewired_references(findings))
    if not moves:
        return findings
    gone = {old for move in moves for old, _ in move.leaves} | {new for move in moves for _, new in move.leaves}
    pairs = {pair for move in moves for pair in move.leaves}
    template = next(f for f in findings if f.kind == Kind.REMOVED)
    subtree = template.detail.subtree if isinstance(template.detail, Difference) else ""
    folded = [
        f for f in findings if not (f.kind in (Kind.REMOVED, Kind.ADDED) and f.path in gone) and not (_swaps(f) or {("", "")}) <= pairs
    ]
    for move in moves:
        what = "subtree" if len(move.leaves) > 1 else "key"
        folded.append(
            replace(
                template,
                kind=Kind.MOVED,
                path=move.old,
                old=move.old,
                new=move.new,
                source=None,
                message=f"MOVED {move.old} -> {move.new} ({what} with its value unchanged)",
                detail=Moved(move.value, subtree),
            )
        )
    return folded


def moved_paths(findings: Iterable[Finding]) -> dict[str, str]:
    """Old path -> new path of every moved finding (what a launch's override is checked against)."""
    return {f.old: f.new for f in findings if f.kind == Kind.MOVED and isinstance(f.old, str) and isinstance(f.new, str)}
