"""`lock`: derive a contract from a known-good tree and merge it into a contracts file, recording what it loosens.

The merge edits the file's text in place: only the named contract's entry changes (and records are appended to
`changes:`), so every other contract, waiver, record and comment keeps its bytes. When the file's layout does not
allow that (flow style, no such list), the whole document is written again, keeping its leading comment block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.composition.render import GoldenDumper
from harness.gates.errors import BadInput
from harness.model.semantic_diff import flatten, same_value
from harness.rules import KINDS
from harness.rules.contract_changes import record_for, term_changes
from harness.rules.contracts import ContractSet, parse_contracts, parse_terms
from harness.rules.protocol import TermChange


class LockRefused(BadInput):
    """A re-lock that would drop or re-pin terms without a reason; the message is one line."""


def derive_contract(name: str, cases: str, baseline_tree: Any, target_tree: Any) -> dict[str, Any]:
    """A contract from a known-good tree: keys only the target has are required and pinned; values it changed are pinned.

    `baseline_tree` is the engine every other engine is compared with (verl: dp); `target_tree` is the
    engine-specific config at a release known to be right (verl 0.7.1's ppo_megatron_trainer).
    """
    baseline, target = flatten(baseline_tree), flatten(target_tree)
    only_target = sorted(path for path in target if path not in baseline)
    differing = sorted(path for path in target if path in baseline and not same_value(baseline[path], target[path]))
    pinned = {path: target[path] for path in only_target + differing if not _is_unpinnable(target[path])}
    return {
        "name": name,
        "cases": cases,
        "require": only_target,
        "equal": dict(sorted(pinned.items())),
    }


def _is_unpinnable(value: Any) -> bool:
    """Interpolations and `???` are not values to pin: their text is compared through require and the golden."""
    return (isinstance(value, str) and ("${" in value or value == "???")) or value == {}


@dataclass(frozen=True)
class LockPlan:
    """What a lock does to a contracts file: the new text and every term it adds, drops or re-pins."""

    text: str
    contract: str
    added: list[str] = field(default_factory=list)
    loosened: list[TermChange] = field(default_factory=list)  # dropped, re-pinned or narrowed terms
    recorded: list[TermChange] = field(default_factory=list)  # of those, the ones this lock records a reason for

    def summary(self) -> list[str]:
        """Lines for people: counts, then one line per term, in a stable order."""
        repinned = [c for c in self.loosened if isinstance(c.new, dict) and "equal" in c.new]
        dropped = [c for c in self.loosened if c not in repinned]
        lines = [f"{self.contract}: {len(self.added)} added, {len(dropped)} dropped, {len(repinned)} re-pinned"]
        lines += [f"  added      {term}" for term in self.added]
        lines += [f"  dropped    {c.description}" for c in dropped]
        lines += [f"  re-pinned  {c.description}" for c in repinned]
        if self.recorded:
            lines.append(f"recorded {len(self.recorded)} change(s) under `changes:` with the given reason")
        return lines


def _added_terms(origin: Path, old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """The summary line of each term the derived contract adds, each rule kind in registry order."""
    before, after = parse_terms(origin, old or {}), parse_terms(origin, new)
    return [line for kind in KINDS for line in kind.added(before[kind.key], after[kind.key])]


def plan_lock(existing: str | None, origin: Path, derived: dict[str, Any], case_ids: Iterable[str], reason: str | None) -> LockPlan:
    """Merge the derived contract into the file's text (None: no file yet); raise LockRefused when that would
    loosen a term that no record excuses and no `reason` is given, else record `reason` for each such term.
    """
    before = parse_contracts(existing, origin) if existing is not None else ContractSet()
    document = _plain_document(existing)
    entries = document.setdefault("contracts", [])
    index = next((i for i, entry in enumerate(entries) if isinstance(entry, dict) and entry.get("name") == derived["name"]), None)
    old_entry = entries[index] if index is not None else None
    # Lock derives require and equal (and the case glob); rules it does not derive (forbid, agree) stay as written.
    entry = {**(old_entry or {}), **derived}
    if index is None:
        entries.append(entry)
    else:
        entries[index] = entry
    after = parse_contracts(_dump(document), origin)
    loosened = [c for c in term_changes(before, after, case_ids) if c.contract == derived["name"]]
    unexcused = [c for c in loosened if record_for(c, before.changes) is None]
    if unexcused and not reason:
        shown = "; ".join(c.description for c in unexcused[:3]) + (f"; and {len(unexcused) - 3} more" if len(unexcused) > 3 else "")
        raise LockRefused(
            f"lock would drop or re-pin {len(unexcused)} term(s) of {derived['name']} ({shown}); rerun with --reason TEXT to record why"
        )
    records = [change.record(reason) for change in unexcused] if reason else []
    if records:
        document.setdefault("changes", []).extend(records)
    text = _edit_in_place(existing, derived["name"], entry, records) if existing is not None else None
    if text is None or _plain_document(text) != document:
        text = _leading_comments(existing or "") + _dump(document)
    return LockPlan(text, derived["name"], _added_terms(origin, old_entry, derived), loosened, unexcused if records else [])


def _plain_document(text: str | None) -> dict[str, Any]:
    document = yaml.safe_load(text) if text else None
    return document if isinstance(document, dict) else {}


def _dump(value: Any, sort_keys: bool = True) -> str:
    return yaml.dump(value, Dumper=GoldenDumper, default_flow_style=False, allow_unicode=True, sort_keys=sort_keys, width=120)


def _leading_comments(text: str) -> str:
    lines = []
    for line in text.splitlines(keepends=True):
        if not line.startswith("#"):
            break
        lines.append(line)
    return "".join(lines)


def _content_end(node: yaml.Node) -> int:
    """Where a node's own text ends: a block collection's end mark also spans the comments after it."""
    if isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False) or not node.value:
        return node.end_mark.index
    last = node.value[-1]
    return _content_end(last[1] if isinstance(node, yaml.MappingNode) else last)


def _indented(text: str, column: int) -> str:
    """Block YAML (dumped at column 0) placed after a `- ` whose content starts at `column`."""
    return ("\n" + " " * column).join(text.rstrip("\n").split("\n"))


def _block_list(root: yaml.MappingNode, key: str) -> yaml.SequenceNode | None:
    for key_node, value in root.value:
        if key_node.value == key:
            is_block = isinstance(value, yaml.SequenceNode) and value.value and not value.flow_style
            return value if is_block else None
    return None


def _items_after(sequence: yaml.SequenceNode, items: list[Any], sort_keys: bool) -> tuple[int, int, str]:
    """An edit that adds `items` after the sequence's last item, in the same layout."""
    dash, column = sequence.start_mark.column, sequence.value[0].start_mark.column
    end = _content_end(sequence.value[-1])
    prefix = "\n" + " " * dash + "-" + " " * (column - dash - 1)
    return end, end, "".join(prefix + _indented(_dump(item, sort_keys), column) for item in items)


def _edit_in_place(text: str, name: str, entry: dict[str, Any], records: list[dict[str, Any]]) -> str | None:
    """The file's text with only the named contract replaced and the records appended, or None when its layout
    does not allow a local edit."""
    root = yaml.compose(text)
    if not isinstance(root, yaml.MappingNode):
        return None
    contracts = _block_list(root, "contracts")
    if contracts is None:
        return None
    edits = []  # (start, end, replacement), applied from the end so earlier offsets stay valid
    if records:
        changes = _block_list(root, "changes")
        if changes is not None:
            edits.append(_items_after(changes, records, sort_keys=False))
        elif any(key.value == "changes" for key, _ in root.value):
            return None  # an empty or flow-style list: rewrite the document
        else:
            end = len(text.rstrip("\n"))
            edits.append((end, len(text), "\nchanges:\n" + _dump(records, sort_keys=False)))
    for item in contracts.value:
        names = [value.value for key, value in item.value if key.value == "name"] if isinstance(item, yaml.MappingNode) else []
        if names == [name]:
            edits.append((item.start_mark.index, _content_end(item), _indented(_dump(entry), item.start_mark.column)))
            break
    else:
        edits.append(_items_after(contracts, [entry], sort_keys=True))
    for start, end, replacement in sorted(edits, key=lambda edit: edit[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text
