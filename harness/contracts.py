"""Contracts on composed configs (require, equal, forbid, agree) with dated waivers."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig

from harness.findings import ERROR, WARNING, CaseChecker, Finding
from harness.diff import describe_value, same_value
from harness.matrix import Case
from harness.render import GoldenLoader, describe_yaml_error
from harness.resolve import MISSING, Unresolvable, effective_value, lookup
from harness.settings import Settings


class ContractError(Exception):
    """A contracts file that cannot be used; the message names the file, line and key."""


@dataclass(frozen=True)
class Contract:
    """Rules that every case matching `cases` must satisfy."""

    name: str
    cases: str = "*"
    require: tuple[str, ...] = ()
    equal: tuple[tuple[str, Any], ...] = ()
    forbid: tuple[str, ...] = ()
    agree: tuple[tuple[str, ...], ...] = ()
    origin: str = ""


@dataclass(frozen=True)
class Waiver:
    """A known violation, accepted with a reason until an optional date."""

    contract: str
    path: str
    reason: str
    until: datetime.date | None = None


@dataclass(frozen=True)
class ContractSet:
    """All contracts and waivers of a run."""

    contracts: tuple[Contract, ...] = ()
    waivers: tuple[Waiver, ...] = ()


class _Lines(dict):
    """A mapping that remembers the line of each key, for error messages."""

    lines: dict[str, int]


class _ContractLoader(GoldenLoader):  # type: ignore[misc,valid-type]
    pass


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> _Lines:
    result = _Lines(loader.construct_mapping(node, deep=True))
    result.lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value}
    result.lines[""] = node.start_mark.line + 1
    return result


_ContractLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)

CONTRACT_KEYS = {"name", "cases", "require", "equal", "forbid", "agree"}
WAIVER_KEYS = {"contract", "path", "reason", "until"}
FILE_KEYS = {"contracts", "waivers"}


def _where(origin: Path, mapping: Any, key: str = "") -> str:
    line = getattr(mapping, "lines", {}).get(key) or getattr(mapping, "lines", {}).get("")
    return f"{origin}:{line}" if line else str(origin)


def _strict_keys(origin: Path, mapping: Any, allowed: set[str], what: str) -> None:
    if not isinstance(mapping, dict):
        raise ContractError(f"{_where(origin, mapping)}: {what} must be a mapping, got {type(mapping).__name__}")
    for key in mapping:
        if key not in allowed:
            raise ContractError(f"{_where(origin, mapping, key)}: unknown key {key!r} in {what} (allowed: {', '.join(sorted(allowed))})")


def _path_list(origin: Path, mapping: Any, key: str) -> tuple[str, ...]:
    value = mapping.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{_where(origin, mapping, key)}: {key} must be a list of dotted paths")
    return tuple(value)


def parse_contracts(text: str, origin: Path) -> ContractSet:
    """Validate a contracts document strictly and return its contracts and waivers."""
    try:
        document = yaml.load(text, Loader=_ContractLoader) or _Lines()
    except yaml.YAMLError as error:
        raise ContractError(describe_yaml_error(error, str(origin))) from None
    _strict_keys(origin, document, FILE_KEYS, "the contracts file")
    contracts = []
    for entry in document.get("contracts") or []:
        _strict_keys(origin, entry, CONTRACT_KEYS, "a contract")
        if not isinstance(entry.get("name"), str):
            raise ContractError(f"{_where(origin, entry)}: a contract needs a string 'name'")
        equal = entry.get("equal", {})
        if not isinstance(equal, dict):
            raise ContractError(f"{_where(origin, entry, 'equal')}: equal must map dotted paths to values")
        agree = entry.get("agree", [])
        if not isinstance(agree, list) or not all(
            isinstance(group, list) and len(group) >= 2 and all(isinstance(p, str) for p in group) for group in agree
        ):
            raise ContractError(f"{_where(origin, entry, 'agree')}: agree must be a list of lists of two or more paths")
        cases = entry.get("cases", "*")
        if not isinstance(cases, str):
            raise ContractError(f"{_where(origin, entry, 'cases')}: cases must be one glob string")
        contracts.append(
            Contract(
                name=entry["name"],
                cases=cases,
                require=_path_list(origin, entry, "require"),
                equal=tuple((str(k), v) for k, v in equal.items()),
                forbid=_path_list(origin, entry, "forbid"),
                agree=tuple(tuple(group) for group in agree),
                origin=str(origin),
            )
        )
    names = {c.name for c in contracts}
    waivers = []
    for entry in document.get("waivers") or []:
        _strict_keys(origin, entry, WAIVER_KEYS, "a waiver")
        for required in ("contract", "path", "reason"):
            if not isinstance(entry.get(required), str) or not entry[required].strip():
                raise ContractError(f"{_where(origin, entry)}: a waiver needs a non-empty {required!r}")
        if entry["contract"] not in names:
            raise ContractError(f"{_where(origin, entry, 'contract')}: waiver names no contract: {entry['contract']!r}")
        until = entry.get("until")
        if until is not None:
            try:
                until = until if isinstance(until, datetime.date) else datetime.date.fromisoformat(str(until))
            except ValueError:
                raise ContractError(f"{_where(origin, entry, 'until')}: until must be a date YYYY-MM-DD, got {until!r}") from None
        waivers.append(Waiver(entry["contract"], entry["path"], entry["reason"], until))
    return ContractSet(tuple(contracts), tuple(waivers))


def load_contracts(paths: tuple[Path, ...] | list[Path]) -> ContractSet:
    """Read and merge contract files; any problem is a ContractError naming the file."""
    contracts: list[Contract] = []
    waivers: list[Waiver] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ContractError(f"{path}: contracts file not found") from None
        except UnicodeDecodeError as error:
            raise ContractError(f"{path}: not UTF-8 (offset {error.start})") from None
        loaded = parse_contracts(text, Path(path))
        contracts += loaded.contracts
        waivers += loaded.waivers
    return ContractSet(tuple(contracts), tuple(waivers))


@dataclass(frozen=True)
class Violation:
    """A rule that does not hold, before waivers are applied."""

    contract: str
    path: str
    expected: Any
    actual: Any
    message: str
    paths: tuple[str, ...] = ()


def _show(value: Any) -> str:
    return "missing" if value is MISSING else describe_value(value)


def violations(contract: Contract, config: DictConfig, tree: Any) -> list[Violation]:
    """Every rule of `contract` that `config` breaks."""
    found = []
    for path in contract.require:
        if lookup(tree, path) is MISSING:
            found.append(Violation(contract.name, path, "present", None, f"{path} is required but missing"))
    for path, expected in contract.equal:
        actual = effective_value(config, tree, path)
        if actual is MISSING and path in contract.require:
            continue  # already reported once as a missing required key
        if isinstance(actual, Unresolvable):
            found.append(Violation(contract.name, path, expected, None, f"{path} must equal {_show(expected)} but {actual.reason}"))
        elif actual is MISSING or not same_value(expected, actual):
            found.append(Violation(contract.name, path, expected, None if actual is MISSING else actual,
                                   f"{path} must equal {_show(expected)} but is {_show(actual)}"))
    for path in contract.forbid:
        value = lookup(tree, path)
        if value is not MISSING:
            found.append(Violation(contract.name, path, "absent", value, f"{path} is forbidden but present ({_show(value)})"))
    for group in contract.agree:
        values = [effective_value(config, tree, p) for p in group]
        broken = [(p, v) for p, v in zip(group, values) if isinstance(v, Unresolvable)]
        if broken:
            found.append(Violation(contract.name, group[-1], None, None,
                                   "; ".join(f"{p}: {v.reason}" for p, v in broken), tuple(group)))
        elif any(v is MISSING for v in values) or not all(same_value(values[0], v) for v in values[1:]):
            shown = ", ".join(f"{p}={_show(v)}" for p, v in zip(group, values))
            found.append(Violation(contract.name, group[-1], _show(values[0]), _show(values[-1]),
                                   f"must agree but differ: {shown}", tuple(group)))
    return found


def _waiver_for(violation: Violation, waivers: tuple[Waiver, ...]) -> Waiver | None:
    for waiver in waivers:
        if waiver.contract == violation.contract and (waiver.path == violation.path or waiver.path in violation.paths):
            return waiver
    return None


def contract_findings(contract_set: ContractSet, case: Case, config: DictConfig, tree: Any, today: datetime.date) -> list[Finding]:
    """Contract findings for one case; a live waiver turns an error into a warning."""
    findings = []
    for contract in contract_set.contracts:
        if not fnmatchcase(case.id, contract.cases):
            continue
        for violation in violations(contract, config, tree):
            waiver = _waiver_for(violation, contract_set.waivers)
            severity, note = ERROR, ""
            if waiver is not None and (waiver.until is None or today <= waiver.until):
                severity, note = WARNING, f" [waived: {waiver.reason}" + (f"; until {waiver.until}]" if waiver.until else "]")
            elif waiver is not None:
                note = f" [waiver expired on {waiver.until}: {waiver.reason}]"
            findings.append(Finding("contract", violation.path, violation.expected, violation.actual, severity,
                                    f"{contract.name}: {violation.message}{note}"))
    return findings


def contract_checks(settings: Settings, today: datetime.date | None = None) -> list[CaseChecker]:
    """The settings' contracts as a case check (raises ContractError for an unusable file)."""
    contract_set = load_contracts(settings.contracts)
    if not contract_set.contracts:
        return []
    day = today or datetime.date.today()

    def check(case: Case, config: DictConfig, tree: Any) -> list[Finding]:
        return contract_findings(contract_set, case, config, tree, day)

    return [check]


def derive_contract(name: str, cases: str, baseline_tree: Any, target_tree: Any) -> dict[str, Any]:
    """A contract from a known-good tree: keys only the target has are required and pinned; values it changed are pinned.

    `baseline_tree` is the engine every other engine is compared with (verl: dp); `target_tree` is the
    engine-specific config at a release known to be right (verl 0.7.1's ppo_megatron_trainer).
    """
    from harness.diff import flatten

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
