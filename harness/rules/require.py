"""`require: [PATH, ...]`: each path must be in the config (with `program_view`, a Python default counts).

In a contract change the term is written `old: require` with the path; `new` is null when it is dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.composition.resolve import MISSING, lookup
from harness.rules.protocol import Contract, PathRule, TermChange, View, Violation, path_list

TERM = "require"


class Require(PathRule):
    key = "require"

    def parse(self, origin: Path, entry: Any) -> tuple[str, ...]:
        return path_list(origin, entry, self.key)

    def violations(self, contract: Contract, value: tuple[str, ...], view: View) -> list[Violation]:
        found = []
        for path in value:
            if lookup(view.tree, path) is MISSING and (view.program is None or view.program(view.tree, path) is MISSING):
                found.append(Violation(contract.name, path, "present", None, f"{path} is required but missing"))
        return found

    def paths(self, value: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
        return tuple((path,) for path in value)

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        name = old.name
        if new is None:
            return [TermChange(name, path, TERM, None, f"require {path} removed (contract gone)") for path in old.term(self.key)]
        # An equal pin still requires the path: a missing value never equals the pin.
        kept = set(new.term(self.key)) | {path for path, _ in new.term("equal")}
        return [TermChange(name, path, TERM, None, f"require {path} removed") for path in old.term(self.key) if path not in kept]

    def added(self, old: tuple[str, ...], new: tuple[str, ...]) -> list[str]:
        return [f"require {path}" for path in new if path not in old]


KIND = Require()
