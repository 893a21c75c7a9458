"""`one_of: {PATH: [VALUE, ...]}`: the value at each path, resolved, must be one of the listed values (a missing
path is a violation: no missing value is one of them).

In a contract change the term is written `{one_of: [VALUE, ...]}` with the path; `new` is the widened list, or
null when the path is dropped. Narrowing the list checks more and is no change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.composition.resolve import MISSING, Unresolvable, effective_value
from harness.model.semantic_diff import describe_value, same_value
from harness.rules.protocol import Contract, ContractError, PathRule, TermChange, View, Violation, checked, plain, show, where

Choices = tuple[tuple[str, tuple[Any, ...]], ...]


def _term(values: tuple[Any, ...]) -> dict[str, Any]:
    return {"one_of": list(values)}


def _within(values: tuple[Any, ...], allowed: tuple[Any, ...]) -> bool:
    return all(any(same_value(value, choice) for choice in allowed) for value in values)


class OneOf(PathRule):
    key = "one_of"

    def parse(self, origin: Path, entry: Any) -> Choices:
        one_of = entry.get(self.key, {})
        if not isinstance(one_of, dict) or not all(isinstance(v, list) and v for v in one_of.values()):
            raise ContractError(f"{where(origin, entry, self.key)}: one_of must map dotted paths to non-empty lists of values")
        return tuple((checked(origin, entry, self.key, str(path)), tuple(plain(values))) for path, values in one_of.items())

    def violations(self, contract: Contract, value: Choices, view: View) -> list[Violation]:
        found = []
        for path, allowed in value:
            actual = effective_value(view.config, view.tree, path)
            expected = f"one of {describe_value(list(allowed))}"
            if isinstance(actual, Unresolvable):
                found.append(Violation(contract.name, path, list(allowed), None, f"{path} must be {expected} but {actual.reason}"))
            elif actual is MISSING or not _within((actual,), allowed):
                found.append(
                    Violation(
                        contract.name,
                        path,
                        list(allowed),
                        None if actual is MISSING else actual,
                        f"{path} must be {expected} but is {show(actual)}",
                    )
                )
        return found

    def paths(self, value: Choices) -> tuple[tuple[str, ...], ...]:
        return tuple((path,) for path, _ in value)

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        kept = dict(new.term(self.key)) if new is not None else {}
        gone = " (contract gone)" if new is None else ""
        changes = []
        for path, allowed in old.term(self.key):
            if path not in kept:
                changes.append(TermChange(old.name, path, _term(allowed), None, f"one_of {path} removed{gone}"))
            elif not _within(kept[path], allowed):
                changes.append(
                    TermChange(
                        old.name,
                        path,
                        _term(allowed),
                        _term(kept[path]),
                        f"one_of {path} widened from {describe_value(list(allowed))} to {describe_value(list(kept[path]))}",
                    )
                )
        return changes

    def added(self, old: Choices, new: Choices) -> list[str]:
        before = dict(old)
        return [f"one_of {path}: {describe_value(list(values))}" for path, values in new if path not in before]


KIND = OneOf()
