"""`cases: GLOB`: the cases a contract applies to (default every case).

In a contract change a narrowed glob is written `{cases: OLD}` -> `{cases: NEW}` at path `''`; narrowed means it
covers fewer of the review's case ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.gates.linear import fnmatchcase
from harness.rules.protocol import Contract, ContractError, Option, TermChange, View, where


class Cases(Option):
    key = "cases"
    default = "*"

    def parse(self, origin: Path, entry: Any) -> str:
        cases = entry.get(self.key, self.default)
        if not isinstance(cases, str):
            raise ContractError(f"{where(origin, entry, self.key)}: cases must be one glob string")
        return cases

    def scope(self, value: str, view: View) -> View | None:
        return view if view.case_id is None or fnmatchcase(view.case_id, value) else None

    def merged(self, first: str, second: str) -> str:
        return first  # the first contract of a name decides where it applies

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        if new is None:
            return []  # the contract's rules are reported gone one by one
        before, after = old.term(self.key), new.term(self.key)
        lost = [case_id for case_id in case_ids if fnmatchcase(case_id, before) and not fnmatchcase(case_id, after)]
        if not lost:
            return []
        shown = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
        return [
            TermChange(
                old.name, "", {"cases": before}, {"cases": after}, f"cases narrowed from {before!r} to {after!r}: no longer covers {shown}"
            )
        ]


KIND = Cases()
