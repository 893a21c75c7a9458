"""What every rule kind shares: the protocol, the view a rule reads a case through, a violation, a term change,
and the strict parsing helpers a kind validates its YAML with.

A rule kind owns one key of a contract (`require`, `equal`, `program_view`, ...). Options (`cases`,
`program_view`, `agree_require_both`) are kinds too: they find no violation of their own but shape the view the
other kinds read, and turning one the wrong way is a loosening like dropping a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from omegaconf import DictConfig

from harness.composition.resolve import MISSING
from harness.gates.errors import BadInput
from harness.model.semantic_diff import PathError, describe_value, split_path


class Contract(Protocol):
    """What a rule kind reads of the contract it checks (harness.rules.contracts.Contract, which holds the kinds):
    declared here, where the kinds live, so that no kind imports the module that imports it."""

    @property
    def name(self) -> str:
        """The contract's name, as reports show it."""

    def term(self, key: str) -> Any:
        """The term of the rule kind `key` (its default when the contract does not write it)."""


class ContractError(BadInput):
    """A contracts file that cannot be used; the message names the file, line and key."""


# What the program sees at a path the YAML lacks: a Python default (literal value, or an object that says it is
# not literal), or MISSING. Given by harness/runner/targets.py when the settings name `python_sources`.
ProgramLookup = Callable[[Any, str], Any]


@dataclass(frozen=True)
class View:
    """One case as a contract's rules read it; a rule option may narrow it (or drop it: the contract does not apply)."""

    config: DictConfig
    tree: Any
    program: ProgramLookup | None = None  # the Python defaults, for rules of a contract with `program_view`
    case_id: str | None = None  # None: evaluate whatever the case (a caller that already chose the contracts)


@dataclass(frozen=True)
class Violation:
    """A rule that does not hold, before waivers are applied."""

    contract: str
    path: str
    expected: Any
    actual: Any
    message: str
    paths: tuple[str, ...] = ()


# The subjects of change records that are not contracts, written `setting: KEY`, `hydra: PATH`, `known: CASES`,
# `entry: MODULE` and `launch: CASE_ID` in a contracts file's `changes:`, each with the name its changes carry.
SETTINGS, HYDRA, KNOWN, ENTRY, LAUNCH = "[settings]", "[hydra]", "[known]", "[entry]", "[launch]"
SUBJECT_KEYS = MappingProxyType({"setting": SETTINGS, "hydra": HYDRA, "known": KNOWN, "entry": ENTRY, "launch": LAUNCH})


@dataclass(frozen=True)
class TermChange:
    """One term of one contract removed or loosened between the baseline and now."""

    contract: str
    path: str
    old: Any
    new: Any
    description: str

    def record(self, reason: str) -> dict[str, Any]:
        """The `changes:` record that excuses this change."""
        subject = next((key for key, name in SUBJECT_KEYS.items() if name == self.contract), None)
        named = {subject: self.path} if subject else {"contract": self.contract, "path": self.path}
        return {**named, "old": self.old, "new": self.new, "reason": reason}


class RuleKind(Protocol):
    """One key of a contract: how it is parsed, what it finds, which paths it names, how it loosens, what lock says.

    `value` is always this kind's parsed term of a contract (its `default` when the contract does not write it).
    """

    key: str
    default: Any

    def parse(self, origin: Path, entry: Mapping[str, Any]) -> Any:
        """The term as written in `entry` (a contract's YAML mapping), checked; a ContractError names the line."""

    def scope(self, value: Any, view: View) -> View | None:
        """The view the contract's rules read the case through (None: the contract does not apply to it)."""

    def violations(self, contract: Contract, value: Any, view: View) -> list[Violation]:
        """Every way the case breaks this term."""

    def paths(self, value: Any) -> tuple[tuple[str, ...], ...]:
        """The paths the term names, in groups a single violation stands for (its last path is where it is reported)."""

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        """What `new` (None: the contract is gone) drops or weakens of `old`'s term."""

    def merged(self, first: Any, second: Any) -> Any:
        """The term of two contracts with one name, read as one contract."""

    def added(self, old: Any, new: Any) -> list[str]:
        """How `lock`'s summary names each term `new` has that `old` had not."""


class Option:
    """Defaults for a kind that finds nothing itself and names no paths (an option of the other rules)."""

    key: str
    default: Any = False

    def scope(self, value: Any, view: View) -> View | None:
        return view

    def violations(self, contract: Contract, value: Any, view: View) -> list[Violation]:
        return []

    def paths(self, value: Any) -> tuple[tuple[str, ...], ...]:
        return ()

    def merged(self, first: Any, second: Any) -> Any:
        return first or second

    def added(self, old: Any, new: Any) -> list[str]:
        return []


class PathRule:
    """Defaults for a kind that checks paths: it applies to every case it is given and keeps both terms on a merge."""

    key: str
    default: Any = ()

    def scope(self, value: Any, view: View) -> View | None:
        return view

    def merged(self, first: Any, second: Any) -> Any:
        return first + second

    def added(self, old: Any, new: Any) -> list[str]:
        return []


def show(value: Any) -> str:
    """A value as messages show it; a path absent from the config is `missing`."""
    return "missing" if value is MISSING else describe_value(value)


def where(origin: Path, mapping: Any, key: str = "") -> str:
    """FILE:LINE of `key` in a parsed mapping (of the mapping itself when the key has no line)."""
    line = getattr(mapping, "lines", {}).get(key) or getattr(mapping, "lines", {}).get("")
    return f"{origin}:{line}" if line else str(origin)


def strict_keys(origin: Path, mapping: Any, allowed: AbstractSet[str], what: str) -> None:
    """A ContractError unless `mapping` is a mapping whose keys are all `allowed`."""
    if not isinstance(mapping, dict):
        raise ContractError(f"{where(origin, mapping)}: {what} must be a mapping, got {type(mapping).__name__}")
    for key in mapping:
        if key not in allowed:
            raise ContractError(f"{where(origin, mapping, key)}: unknown key {key!r} in {what} (allowed: {', '.join(sorted(allowed))})")


def checked(origin: Path, mapping: Any, key: str, path: str) -> str:
    """`path` if it reads as a dotted path, else a ContractError at the line of `key`."""
    try:
        split_path(path)
    except PathError as error:
        raise ContractError(f"{where(origin, mapping, key)}: {key}: {error}") from None
    return path


def path_list(origin: Path, mapping: Any, key: str) -> tuple[str, ...]:
    """The dotted paths listed under `key`, checked."""
    value = mapping.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{where(origin, mapping, key)}: {key} must be a list of dotted paths")
    return tuple(checked(origin, mapping, key, path) for path in value)


def flag(origin: Path, mapping: Any, key: str) -> bool:
    """The boolean option `key` (false when absent)."""
    value = mapping.get(key, False)
    if not isinstance(value, bool):
        raise ContractError(f"{where(origin, mapping, key)}: {key} must be true or false")
    return value


def plain(value: Any) -> Any:
    """A parsed YAML value with line-remembering mappings turned back into plain dicts (so values compare by type)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
