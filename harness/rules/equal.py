"""`equal: {PATH: VALUE}`: the value at each path, resolved, must equal VALUE (with `program_view`, a Python
default the YAML leaves to the program is what is compared).

In a contract change the term is written `{equal: VALUE}` with the path; `new` is the new pin, or null when dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.composition.resolve import MISSING, Unresolvable, effective_value
from harness.model.semantic_diff import describe_value, same_value
from harness.rules.protocol import Contract, ContractError, PathRule, TermChange, View, Violation, checked, plain, show, where


def pin(value: Any) -> dict[str, Any]:
    """The term of one pinned value, as findings and records write it."""
    return {"equal": value}


class Equal(PathRule):
    key = "equal"

    def parse(self, origin: Path, entry: Any) -> tuple[tuple[str, Any], ...]:
        equal = entry.get(self.key, {})
        if not isinstance(equal, dict):
            raise ContractError(f"{where(origin, entry, self.key)}: equal must map dotted paths to values")
        return tuple((checked(origin, entry, self.key, str(path)), plain(value)) for path, value in equal.items())

    def violations(self, contract: Contract, value: tuple[tuple[str, Any], ...], view: View) -> list[Violation]:
        found = []
        required = contract.term("require")
        for path, expected in value:
            actual = effective_value(view.config, view.tree, path)
            if actual is MISSING and view.program is not None:
                actual = view.program(view.tree, path)
                if actual is not MISSING and hasattr(actual, "describe"):  # a Python default that is not a literal
                    found.append(
                        Violation(
                            contract.name,
                            path,
                            expected,
                            None,
                            f"{path} must equal {show(expected)}; it is not in the config and its Python default is {actual.describe()}",
                        )
                    )
                    continue
            if actual is MISSING and path in required:
                continue  # already reported once as a missing required key
            if isinstance(actual, Unresolvable):
                found.append(Violation(contract.name, path, expected, None, f"{path} must equal {show(expected)} but {actual.reason}"))
            elif actual is MISSING or not same_value(expected, actual):
                found.append(
                    Violation(
                        contract.name,
                        path,
                        expected,
                        None if actual is MISSING else actual,
                        f"{path} must equal {show(expected)} but is {show(actual)}",
                    )
                )
        return found

    def paths(self, value: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, ...], ...]:
        return tuple((path,) for path, _ in value)

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        name = old.name
        if new is None:
            return [
                TermChange(name, path, pin(value), None, f"equal {path}: {describe_value(value)} removed (contract gone)")
                for path, value in old.term(self.key)
            ]
        pins = dict(new.term(self.key))
        changes = []
        for path, value in old.term(self.key):
            if path not in pins:
                changes.append(TermChange(name, path, pin(value), None, f"equal {path}: {describe_value(value)} removed"))
            elif not same_value(value, pins[path]):
                changes.append(
                    TermChange(
                        name,
                        path,
                        pin(value),
                        pin(pins[path]),
                        f"equal {path} re-pinned from {describe_value(value)} to {describe_value(pins[path])}",
                    )
                )
        return changes

    def added(self, old: tuple[tuple[str, Any], ...], new: tuple[tuple[str, Any], ...]) -> list[str]:
        pinned = dict(old)
        return [f"equal {path}: {describe_value(value)}" for path, value in new if path not in pinned]


KIND = Equal()
