"""`agree: [[PATH, PATH, ...], ...]`: aliases of one setting must hold the same value where both are present;
with the option `agree_require_both: true`, a missing alias is a violation too.

In a contract change a group is written `{agree: [PATH, ...]}` at the group's last path (`new` is the group that
kept some of its paths, or null); the option turned off is `{agree_require_both: true}` -> `false` at path `''`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.composition.resolve import MISSING, Unresolvable, effective_value
from harness.model.semantic_diff import same_value
from harness.rules.protocol import Contract, ContractError, Option, PathRule, TermChange, View, Violation, checked, flag, show, where

Group = tuple[str, ...]


class Agree(PathRule):
    key = "agree"

    def parse(self, origin: Path, entry: Any) -> tuple[Group, ...]:
        agree = entry.get(self.key, [])
        if not isinstance(agree, list) or not all(
            isinstance(group, list) and len(group) >= 2 and all(isinstance(p, str) for p in group) for group in agree
        ):
            raise ContractError(f"{where(origin, entry, self.key)}: agree must be a list of lists of two or more paths")
        return tuple(tuple(checked(origin, entry, self.key, path) for path in group) for group in agree)

    def violations(self, contract: Contract, value: tuple[Group, ...], view: View) -> list[Violation]:
        require_both = contract.term(REQUIRE_BOTH.key)
        found = []
        for group in value:
            found += _group_violations(contract.name, group, [effective_value(view.config, view.tree, p) for p in group], require_both)
        return found

    def paths(self, value: tuple[Group, ...]) -> tuple[Group, ...]:
        return value

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        name = old.name
        if new is None:
            return [
                TermChange(name, group[-1], {"agree": list(group)}, None, f"agree {list(group)} removed (contract gone)")
                for group in old.term(self.key)
            ]
        kept_groups = new.term(self.key)
        changes = []
        for group in old.term(self.key):
            if any(set(group) <= set(kept) for kept in kept_groups):
                continue
            nearest = next((kept for kept in kept_groups if set(group) & set(kept)), None)
            new_term = {"agree": list(nearest)} if nearest else None
            described = f"narrowed to {list(nearest)}" if nearest else "removed"
            changes.append(TermChange(name, group[-1], {"agree": list(group)}, new_term, f"agree {list(group)} {described}"))
        return changes


def _group_violations(name: str, group: Group, values: list[Any], require_both: bool) -> list[Violation]:
    """Aliases agree when every present one has the same value; a missing alias is fine unless `require_both`."""
    broken = [(p, v) for p, v in zip(group, values) if isinstance(v, Unresolvable)]
    if broken:
        return [Violation(name, group[-1], None, None, "; ".join(f"{p}: {v.reason}" for p, v in broken), group)]
    shown = ", ".join(f"{p}={show(v)}" for p, v in zip(group, values))
    if require_both and any(v is MISSING for v in values):
        return [Violation(name, group[-1], "present", None, f"must all be present and agree: {shown}", group)]
    present = [v for v in values if v is not MISSING]
    if len(present) < 2 or all(same_value(present[0], v) for v in present[1:]):
        return []
    return [Violation(name, group[-1], show(values[0]), show(values[-1]), f"must agree but differ: {shown}", group)]


class RequireBoth(Option):
    """`agree_require_both: true`: an agree group with a missing path is a violation, not an alias not yet there."""

    key = "agree_require_both"

    def parse(self, origin: Path, entry: Any) -> bool:
        return flag(origin, entry, self.key)

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        if new is None or not old.term(self.key) or new.term(self.key):
            return []
        return [
            TermChange(
                old.name, "", {self.key: True}, {self.key: False}, "agree_require_both turned off: a missing alias is no longer a violation"
            )
        ]


KIND = Agree()
REQUIRE_BOTH = RequireBoth()
