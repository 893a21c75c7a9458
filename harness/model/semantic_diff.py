"""A path-level semantic diff over plain config trees: leaf paths, lists as whole values."""

from __future__ import annotations

import difflib
import functools
import json
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.gates import linear
from harness.gates.errors import BadInput
from harness.gates.escape import any_json, keys_as

REMOVED = "removed"
ADDED = "added"
CHANGED = "changed"
ORDER = "order"  # a collection whose entries come in another order (`order_changes`)


@dataclass(frozen=True)
class Change:
    """One leaf that differs between an old and a new tree."""

    kind: str
    path: str
    old: Any = None
    new: Any = None
    detail: tuple[str, ...] = field(default=(), compare=False)  # a changed list: what changed inside it
    subtree: str = field(default="", compare=False)  # a removed or added leaf: the highest mapping the other side lacks


# A key that can stand bare in a dotted path; any other key is written as a JSON string ("actor.lr"), so a
# key with a dot in it never shares a path with a nested key (actor: {lr}) and hides a change.
PLAIN_KEY = linear.compile(r'[^."\[\]]+')


# A string key that reads like another YAML type (`"1"`, `"true"`) is quoted, so it can never share a path
# with the int or bool key of the same text: one of them would hide the other's changes.
LOOKS_TYPED = linear.compile(
    r"[-+]?(?:\d[\d_]*|0x[0-9a-f_]+|0o[0-7_]+|(?:\d[\d_]*)?\.\d[\d_]*(?:e[-+]?\d+)?|\d[\d_]*\.?(?:e[-+]?\d+)?|\.inf)"
    r"|\.nan|true|false|yes|no|on|off|null|~",
    linear.I,
)


# A key of another type than str, int and bool (a float, null, bytes, an enum): its repr as a JSON string in
# brackets. A bare string key never holds `[` and a quoted one starts with `"`, so no string shares the form.
# Its shape: `\["(?:[^"\\]|\\.)*"\]`, read by `_typed_key_end`.


@functools.lru_cache(maxsize=1 << 16, typed=True)  # the same keys recur in every case and launch; typed: 1 is not True
def path_segment(key: Any) -> str:
    """One key as it appears in a dotted path: a plain string bare, any other string quoted as a JSON string,
    an int or a bool as written (`1`, `True`: the strings "1" and "True" are quoted), any other key bracketed
    (`["1.5"]`, `["None"]`). Two distinct keys never share a segment."""
    if isinstance(key, str):
        if PLAIN_KEY.fullmatch(key) and not LOOKS_TYPED.fullmatch(key):
            return key
        return json.dumps(key, ensure_ascii=False)
    if isinstance(key, int) and type(key) in (int, bool):
        return str(key)
    return "[" + json.dumps(repr(key), ensure_ascii=False) + "]"


def join_path(prefix: str, key: Any) -> str:
    """Dotted path of `key` below `prefix`."""
    segment = path_segment(key)
    return f"{prefix}.{segment}" if prefix else segment


class PathError(ValueError, BadInput):
    """A dotted path that cannot be read (an unterminated or misplaced quoted key); the message names it."""


def split_path(path: str) -> list[str]:
    """The keys of a dotted path (the inverse of join_path): quoted segments may hold dots, and a bracketed
    segment (`["1.5"]`) names a key of another type. PathError for text that is not such a path."""
    if '"' not in path and "[" not in path:
        return path.split(".")
    return [key for key, _ in _scan(path)]


def path_prefixes(path: str) -> list[str]:
    """Every dotted path above `path` and `path` itself, as written (`a`, `a.1`, `a.1.b`: the segment of the int key
    1 stays `1`; rejoining split_path's keys would write the string "1")."""
    if '"' not in path and "[" not in path:
        parts = path.split(".")
        return [".".join(parts[:count]) for count in range(1, len(parts) + 1)]
    return [path[:end] for _, end in _scan(path)]


def _typed_key_end(path: str, index: int) -> int:
    """Where the typed key starting at `index` ends, or 0: scanned by hand, since the engine would encode
    the whole path again for each key."""
    at = index + 2
    while at < len(path):
        if path[at] == "\\":
            if at + 1 == len(path) or path[at + 1] == "\n":
                return 0
            at += 2
        elif path[at] == '"':
            return at + 2 if path.startswith('"]', at) else 0
        else:
            at += 1
    return 0


def _scan(path: str) -> list[tuple[str, int]]:
    """Each key of a dotted path with the offset where its segment ends."""
    keys, decoder, index = [], json.JSONDecoder(), 0
    while index <= len(path):
        try:
            if path.startswith('"', index):
                key, index = decoder.raw_decode(path, index)
            elif path.startswith('["', index) and (end := _typed_key_end(path, index)):
                key, index = path[index:end], end
            else:
                end = path.find(".", index)
                end = len(path) if end < 0 else end
                key, index = path[index:end], end
        except json.JSONDecodeError as error:
            raise PathError(f"{path!r} is not a dotted path: {error.msg} at offset {error.pos}") from None
        if index < len(path) and path[index] != ".":
            raise PathError(f"{path!r} is not a dotted path: {path[index]!r} at offset {index} after a quoted key")
        keys.append((key, index))
        index += 1  # the dot
    return keys


def parent_path(path: str) -> str:
    """The dotted path of the mapping that holds `path` ("" for a top-level key)."""
    parent = ""
    for key in split_path(path)[:-1]:
        parent = join_path(parent, key)
    return parent


def iter_leaves(tree: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted path, value) for every leaf; an empty mapping is itself a leaf, a list is one value.

    A stack of the mappings being walked, not nested generators (each leaf would pass through one per level):
    a review walks every case's and launch's tree several times."""
    if not (isinstance(tree, Mapping) and tree):
        if prefix:
            yield prefix, tree
        return
    walking = [(prefix, iter(tree.items()))]
    while walking:
        above, items = walking[-1]
        for key, value in items:
            path = join_path(above, key)
            if isinstance(value, Mapping) and value:
                walking.append((path, iter(value.items())))
                break
            yield path, value
        else:
            walking.pop()


def flatten(tree: Any) -> dict[str, Any]:
    """Every leaf path of a tree mapped to its value."""
    return dict(iter_leaves(tree))


def unflatten(leaves: Mapping[str, Any]) -> dict[str, Any]:
    """Rebuild a tree from leaf paths (the inverse of flatten; keys come back as strings)."""
    tree: dict[str, Any] = {}
    for path, value in leaves.items():
        *parents, last = split_path(path)
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
    if isinstance(old, float):
        # -0.0 == 0.0 and nan != nan in Python, but a program can tell the first pair apart (copysign, 1/x) and
        # the second is the same value written twice: floats compare by their exact bits.
        return struct.pack("<d", old) == struct.pack("<d", new)
    return bool(old == new)


def diff_leaves(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Changes between two flattened trees, sorted by path.

    An emptied mapping reports each leaf it lost (plus the empty mapping that now stands there),
    never the mapping as a whole, so the diff agrees exactly with a plain flatten.
    """
    changes = []
    old_present, new_present = _Present(old), _Present(new)
    for path in sorted(old.keys() | new.keys()):
        if path not in new:
            changes.append(Change(REMOVED, path, old[path], None, subtree=new_present.missing_root(path)))
        elif path not in old:
            changes.append(Change(ADDED, path, None, new[path], subtree=old_present.missing_root(path)))
        elif not same_value(old[path], new[path]):
            changes.append(Change(CHANGED, path, old[path], new[path], list_detail(path, old[path], new[path])))
    return changes


class _Present:
    """The paths of one flattened tree and every mapping above them, computed on first use."""

    def __init__(self, leaves: Mapping[str, Any]) -> None:
        self.leaves, self.paths = leaves, set[str]()

    def missing_root(self, path: str) -> str:
        """The highest mapping above `path` that this tree lacks ("" when only the leaf itself is missing).

        Reports fold a removed or added subtree into one line by it; the leaves stay findings of their own.
        """
        if not self.paths:
            for leaf in self.leaves:
                self.paths.update(path_prefixes(leaf))
        for prefix in path_prefixes(path)[:-1]:
            if prefix not in self.paths:
                return prefix
        return ""


def diff_trees(old: Any, new: Any) -> list[Change]:
    """Changes between two plain trees, sorted by path: exactly `diff_leaves(flatten(old), flatten(new))`.

    Walked side by side, so a subtree both sides hold the same (most of a big config, between a launch at the
    base and the same launch now) costs one equality walk and no path strings.
    """
    changes: list[Change] = []
    if isinstance(old, Mapping) and old and isinstance(new, Mapping) and new:
        _diff_mappings(old, new, "", changes)
    elif old or new:  # a leaf at the root is no path; flatten gives it none either
        return diff_leaves(flatten(old), flatten(new))
    changes.sort(key=lambda change: change.path)
    return changes


def _diff_mappings(old: Mapping[Any, Any], new: Mapping[Any, Any], prefix: str, out: list[Change]) -> None:
    """The changes below two non-empty mappings at `prefix` (both hold it), appended to `out`.

    Keys are matched by their path segment, as flatten's paths match them (True, 1 and 1.0 are one dict key but
    three segments)."""
    news = {join_path(prefix, key): value for key, value in new.items()}
    for key, value in old.items():
        path = join_path(prefix, key)
        if path not in news:
            # The other tree lacks `path` itself: every leaf below it is gone with it as their missing root.
            out += [Change(REMOVED, leaf, gone, None, subtree=path if leaf != path else "") for leaf, gone in iter_leaves(value, path)]
            continue
        other = news.pop(path)
        if value is not other and not same_tree(value, other):
            _diff_values(value, other, path, out)
    for path, value in news.items():  # what only the new tree holds
        out += [Change(ADDED, leaf, None, came, subtree=path if leaf != path else "") for leaf, came in iter_leaves(value, path)]


def same_tree(old: Any, new: Any) -> bool:
    """True when two subtrees flatten to the same leaves with the same values (same_value, keys by type too)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        if len(old) != len(new) or {(type(k), k) for k in old} != {(type(k), k) for k in new}:
            return False
        return all(same_tree(value, new[key]) for key, value in old.items())
    if isinstance(old, Mapping) or isinstance(new, Mapping):
        return False
    return same_value(old, new)


def _diff_values(old: Any, new: Any, path: str, out: list[Change]) -> None:
    """The changes at and below `path`, which both trees hold and where they differ."""
    old_branch = isinstance(old, Mapping) and bool(old)
    new_branch = isinstance(new, Mapping) and bool(new)
    if old_branch and new_branch:
        _diff_mappings(old, new, path, out)
    elif not old_branch and not new_branch:
        out.append(Change(CHANGED, path, old, new, list_detail(path, old, new)))
    elif old_branch:  # a mapping became a leaf: its leaves are gone, the leaf stands at `path` (their parents remain)
        out += [Change(REMOVED, leaf, gone, None, subtree=_below(path, leaf)) for leaf, gone in iter_leaves(old, path)]
        out.append(Change(ADDED, path, None, new))
    else:
        out.append(Change(REMOVED, path, old, None))
        out += [Change(ADDED, leaf, None, came, subtree=_below(path, leaf)) for leaf, came in iter_leaves(new, path)]


def _below(path: str, leaf: str) -> str:
    """The missing root of `leaf` in a tree that holds `path` as a leaf: the mapping just below `path`, if any."""
    below = path_prefixes(leaf)[len(path_prefixes(path)) :]
    return below[0] if len(below) > 1 else ""


def is_collection(mapping: Any) -> bool:
    """A mapping a program builds objects from in its own order: two or more named `_target_` nodes (Lightning's
    `callbacks` and `logger`, each entry a mapping with `_target_`, or null to switch one off) and no `_target_` of its
    own. Hydra keeps a mapping's keys in the order it merges them, and code that instantiates each value of such a
    mapping (`for cb in cfg.callbacks.values()`) builds them in that order. The fields of one `_target_` node (a
    dataclass, a constructor's keywords) mean the same in any order; so do the other mappings of a config."""
    if not isinstance(mapping, Mapping) or "_target_" in mapping:
        return False
    built = sum(isinstance(value, Mapping) and "_target_" in value for value in mapping.values())
    return built >= 2 and all(value is None or (isinstance(value, Mapping) and "_target_" in value) for value in mapping.values())


def order_changes(old: Any, new: Any) -> list[Change]:
    """Each collection (`is_collection`, on either side) both trees hold whose common entries come in another order: kind
    ORDER, `path` the collection, `old`/`new` its common keys in each tree's order (an entry added or removed is an
    added or removed leaf already). Sorted by path. The trees must keep Hydra's order: a golden's keys are sorted."""
    out = []
    walking = [("", old, new)]
    while walking:
        path, before, after = walking.pop()
        if not (isinstance(before, Mapping) and isinstance(after, Mapping)):
            continue
        common = [key for key in before if key in after]
        if (is_collection(before) or is_collection(after)) and common != [key for key in after if key in before]:
            out.append(Change(ORDER, path, common, [key for key in after if key in before]))
        walking += [(join_path(path, key), before[key], after[key]) for key in common]
    return sorted(out, key=lambda change: change.path)


def canonical(value: Any) -> Any:
    """A value with every mapping's keys sorted, so a golden (sorted) and a composition (merge order) read alike."""
    if isinstance(value, Mapping):
        return {key: canonical(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    return value


def value_text(value: Any) -> str:
    """One text per value, for keys and identities: JSON tells 1, 1.0, True and "1" apart; a mapping's keys in
    order whatever their types (a config may mix `1:` and `a:`, where JSON's sort_keys fails); dates as their text."""
    return json.dumps(keys_as(value, _marked), sort_keys=True, default=str)


def _marked(key: Any) -> str:
    # A non-string key gets a mark no YAML key text starts with, so `1` and `"1"` never become the same key.
    return key if isinstance(key, str) else f"\0{type(key).__name__}:{key!r}"


def describe_value(value: Any) -> str:
    """A short, readable rendering of a value, mappings with sorted keys."""
    text = repr(canonical(value))
    return text if len(text) <= 80 else text[:77] + "..."


# A changed list names at most this many changed elements or keys; the rest are counted.
DETAIL_LIMIT = 20


def _inner_changes(path: str, old: Any, new: Any) -> list[str]:
    if isinstance(old, list) and isinstance(new, list):
        return _list_changes(path, old, new)
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        lines = []
        for key in sorted(old.keys() | new.keys(), key=str):
            below = join_path(path, key)
            if key not in new:
                lines.append(f"{below}: removed (was {describe_value(old[key])})")
            elif key not in old:
                lines.append(f"{below}: added {describe_value(new[key])}")
            else:
                lines += _inner_changes(below, old[key], new[key])
        return lines
    return [] if same_value(old, new) else [f"{path}: {describe_value(old)} -> {describe_value(new)}"]


# Aligning two lists (difflib) costs up to the product of their lengths; past this many element pairs, the
# differing middle is compared position by position instead, and the detail says so.
ALIGN_BUDGET = 250_000


def _list_changes(path: str, old: list[Any], new: list[Any]) -> list[str]:
    # Align elements by their canonical text, so one inserted element is one `added`, not a shifted tail. The
    # common head and tail are matched first (linear); only the middle that differs is aligned.
    old_keys, new_keys = [repr(canonical(x)) for x in old], [repr(canonical(x)) for x in new]
    head = 0
    while head < min(len(old), len(new)) and old_keys[head] == new_keys[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old_keys[-1 - tail] == new_keys[-1 - tail]:
        tail += 1
    middle_old, middle_new = old_keys[head : len(old) - tail], new_keys[head : len(new) - tail]
    if len(middle_old) * len(middle_new) > ALIGN_BUDGET:
        lines = [f"{path}: {len(old)} -> {len(new)} elements; too long to align, compared position by position"]
        opcodes = [("replace", head, len(old) - tail, head, len(new) - tail)]
    else:
        lines = []
        matcher = difflib.SequenceMatcher(a=middle_old, b=middle_new, autojunk=False)
        opcodes = [(tag, a + head, b + head, c + head, d + head) for tag, a, b, c, d in matcher.get_opcodes()]
    for tag, old_start, old_end, new_start, new_end in opcodes:
        if tag == "equal":
            continue
        paired = min(old_end - old_start, new_end - new_start) if tag == "replace" else 0
        for offset in range(paired):
            lines += _inner_changes(f"{path}[{new_start + offset}]", old[old_start + offset], new[new_start + offset])
        for index in range(old_start + paired, old_end):
            lines.append(f"{path}[{index}]: removed (was {describe_value(old[index])})")
        for index in range(new_start + paired, new_end):
            lines.append(f"{path}[{index}]: added {describe_value(new[index])}")
    return lines


def list_detail(path: str, old: Any, new: Any) -> tuple[str, ...]:
    """For a list that changed, one line per changed element or key inside it (`a.b[2].c: 0.6 -> 0.7`); else ()."""
    if not (isinstance(old, list) and isinstance(new, list)):
        return ()
    lines = _inner_changes(path, old, new)
    if len(lines) > DETAIL_LIMIT:
        lines = lines[:DETAIL_LIMIT] + [f"... and {len(lines) - DETAIL_LIMIT} more"]
    return tuple(lines)


def change_row(change: Change) -> dict[str, Any]:
    """A change as JSON spells it: kind, path, old, new, and `detail` for a list that changed."""
    row = {"kind": change.kind, "path": change.path, "old": change.old, "new": change.new}
    return {**row, "detail": list(change.detail)} if change.detail else row


def describe_change(change: Change) -> str:
    """One line such as "REMOVED a.b.c (was 'qkv')"; a changed list names what changed inside it."""
    if change.kind == REMOVED:
        return f"REMOVED {change.path} (was {describe_value(change.old)})"
    if change.kind == ADDED:
        return f"ADDED {change.path} = {describe_value(change.new)}"
    if change.kind == ORDER:
        return f"ORDER {change.path}: {', '.join(map(str, change.old))} -> {', '.join(map(str, change.new))} (the order they are built in)"
    if change.detail:
        return f"CHANGED {change.path} (list): {'; '.join(change.detail)}"
    return f"CHANGED {change.path}: {describe_value(change.old)} -> {describe_value(change.new)}"


# How every report spells a value: JSON (`null` for null), `—` for an absent key, shortened past MAX_VALUE.
ABSENT = "—"
MAX_VALUE = 80


def show_value(value: Any, present: bool = True, limit: int = MAX_VALUE) -> str:
    """A value as JSON spells it (`null` for null), `—` for an absent key; long values shortened to `limit`."""
    if not present:
        return ABSENT
    text = any_json(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
