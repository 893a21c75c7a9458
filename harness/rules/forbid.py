"""`forbid: [PATH, ...]`: each path must be absent from the config.

In a contract change the term is written `old: forbid` with the path; `new` is null when it is dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.composition.resolve import MISSING, lookup
from harness.rules.protocol import Contract, PathRule, TermChange, View, Violation, path_list, show

TERM = "forbid"


class Forbid(PathRule):
    key = "forbid"

    def parse(self, origin: Path, entry: Any) -> tuple[str, ...]:
        return path_list(origin, entry, self.key)

    def violations(self, contract: Contract, value: tuple[str, ...], view: View) -> list[Violation]:
        found = []
        for path in value:
            present = lookup(view.tree, path)
            if present is not MISSING:
                found.append(Violation(contract.name, path, "absent", present, f"{path} is forbidden but present ({show(present)})"))
        return found

    def paths(self, value: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
        return tuple((path,) for path in value)

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        gone = " (contract gone)" if new is None else ""
        kept = set(new.term(self.key)) if new is not None else set()
        return [TermChange(old.name, path, TERM, None, f"forbid {path} removed{gone}") for path in old.term(self.key) if path not in kept]


KIND = Forbid()
