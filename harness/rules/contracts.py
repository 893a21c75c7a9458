"""Contracts on composed configs (each rule kind a module of harness/rules) with dated, case-scoped waivers."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml
from omegaconf import DictConfig

from harness.composition.render import GoldenLoader
from harness.gates.confine import Scope, UnsafeInput
from harness.gates.errors import describe_yaml_error
from harness.gates.linear import fnmatchcase
from harness.gates.reader import InputLimitError, read_text
from harness.model.findings import ERROR, INFO, WARNING, CaseChecker, CaseResult, ContractHygiene, ContractRef, Excused, Finding, Kind
from harness.model.matrix import Case
from harness.model.schema import ANY, ListOf, OneOf, Shape, Table, first_problem
from harness.model.settings import display_path
from harness.rules import BY_KEY, KINDS

# The subjects of change records (`setting: KEY`, `hydra: PATH`, ...) live in rules/protocol.py, which a term change's
# record reads without importing this module; they are this file format's names too.
from harness.rules.protocol import ENTRY as ENTRY
from harness.rules.protocol import HYDRA as HYDRA
from harness.rules.protocol import KNOWN as KNOWN
from harness.rules.protocol import LAUNCH as LAUNCH
from harness.rules.protocol import SETTINGS as SETTINGS
from harness.rules.protocol import SUBJECT_KEYS as SUBJECT_KEYS
from harness.rules.protocol import ContractError, ProgramLookup, View, Violation, plain
from harness.rules.protocol import checked as _checked
from harness.rules.protocol import strict_keys as _strict_keys
from harness.rules.protocol import where as _where


@dataclass(frozen=True)
class Contract:
    """Rules that every case matching its `cases` must satisfy: one term per rule kind (harness/rules)."""

    name: str
    terms: Mapping[str, Any] = field(
        default_factory=lambda: MappingProxyType({})
    )  # a kind's key -> its parsed term; a kind not here has its default
    origin: str = ""
    line: int = 0  # where the contract starts in its file

    def term(self, key: str) -> Any:
        """The term of the rule kind `key` (its default when the contract does not write it)."""
        return self.terms[key] if key in self.terms else BY_KEY[key].default

    def location(self) -> str:
        """The contract's FILE:LINE, as the reader's shell names the file."""
        where = display_path(Path(self.origin)) if self.origin else "the contracts file"
        return f"{where}:{self.line}" if self.line else where

    def path_groups(self) -> list[tuple[str, ...]]:
        """The paths the contract's rules name, in groups one violation stands for (an agree group, else one path)."""
        return [group for kind in KINDS for group in kind.paths(self.term(kind.key))]

    def paths(self) -> frozenset[str]:
        """Every path one of the contract's rules names."""
        return frozenset(path for group in self.path_groups() for path in group)


@dataclass(frozen=True)
class Waiver:
    """A known violation, accepted with a reason until an optional date."""

    contract: str
    path: str
    reason: str
    until: datetime.date | None = None
    cases: str = "*"  # a glob over case ids: a waiver for megatron's mismatch does not hide a new one on dp
    # A known entry (harness/rules/known_entries.py) names a finding's cause instead of a contract: its kind, the key (`path`),
    # the script line or config file (`source`), its reason word and, for a finding about no key, its words.
    finding: str = ""
    what: str = ""
    source: str = ""
    message: str = ""
    # A launch's cause by what it means (harness/rules/known_entries.py): the config name the launch composes and, for a
    # failure about no key, the launch's content identity. An entry without them (an earlier version's) names its script.
    config: str = ""
    launch: str = ""
    origin: str = ""  # the file and line it is written at, for the line that says it is no longer needed
    line: int = 0

    def excuses(self, contract: str, paths: Iterable[str], case_id: str) -> bool:
        """True when this waiver is about `contract`, one of `paths` and the case `case_id` (expiry aside).

        A target waiver may name a whole node (one the program reads raw): it excuses every key below it.
        """
        if self.contract != contract or not fnmatchcase(case_id, self.cases):
            return False
        if contract == TARGET_WAIVER:
            return any(path == self.path or path.startswith(self.path + ".") for path in paths)
        return self.path in paths


@dataclass(frozen=True)
class ChangeRecord:
    """An intentional loosening, with the reason a reviewer reads; it excuses exactly one change of one term.

    The subject is a contract's name, or SETTINGS for a settings key (`path`), or HYDRA for a leaf of the
    composed `hydra:` subtree (`path`): one mechanism records every loosening a review can find.
    """

    contract: str
    path: str
    old: Any
    new: Any
    reason: str
    origin: str = field(default="", compare=False)  # the file it is written in (`FILE:LINE`)


@dataclass(frozen=True)
class ContractSet:
    """All contracts, waivers and recorded changes of a run."""

    contracts: tuple[Contract, ...] = ()
    waivers: tuple[Waiver, ...] = ()
    changes: tuple[ChangeRecord, ...] = ()
    # Records written in a known file: the file a pull request loosens cannot also hold the reason that approves
    # it, so these approve nothing (harness/rules/known_entries.py reports them).
    unheeded: tuple[ChangeRecord, ...] = ()


class _Lines(dict[Any, Any]):
    """A mapping that remembers the line of each key, for error messages (keys and values as YAML wrote them)."""

    lines: dict[str, int]


class _ContractLoader(GoldenLoader):
    pass


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> _Lines:
    result = _Lines(loader.construct_mapping(node, deep=True))
    result.lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value}
    result.lines[""] = node.start_mark.line + 1
    return result


_ContractLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)

CONTRACT_KEYS = frozenset({"name", *BY_KEY})
# A waiver naming this "contract" excuses target findings (harness/runner/targets.py): a node the program reads raw, a
# class that takes more than its source shows. No contract may take the name.
TARGET_WAIVER = "target"
KNOWN_KEYS = frozenset(
    {"finding", "path", "source", "what", "message", "config", "launch", "reason", "until"}
)  # a known entry (harness/rules/known_entries.py)
CHANGE_KEYS = frozenset({"contract", "path", "setting", "hydra", "known", "entry", "launch", "old", "new", "reason"})

FILE_KEYS = frozenset({"contracts", "waivers", "changes"})
# The shape of a contracts (or known) file before any entry is read (harness/model/schema.py): `waivers: 5` is one
# line naming the key, never a TypeError. An empty `waivers:` is YAML's null, read as no entries.
_ENTRIES = OneOf((ListOf(Table({}, closed=False, what="a mapping")), type(None)))
FILE_SHAPE = Table(dict.fromkeys(FILE_KEYS, _ENTRIES), what="a mapping")
WAIVER_SHAPE = Table(
    {"contract": str, "path": str, "reason": str, "until": OneOf((str, datetime.date, type(None))), "cases": str},
    required=frozenset({"contract", "path", "reason"}),
    what="a waiver",
)
CHANGE_SHAPE = Table({key: ANY if key in ("old", "new") else str for key in CHANGE_KEYS}, required=frozenset({"reason"}), what="a record")
# A known entry (harness/rules/known_entries.py); `cases` only as an earlier version wrote it, read from a base's file.
KNOWN_SHAPE = Table(
    {**{key: str for key in KNOWN_KEYS}, "until": OneOf((str, datetime.date, type(None))), "cases": str},
    required=frozenset({"finding", "reason"}),
    what="a known entry",
)


def _conform(origin: Path, document: Any, shape: Shape) -> None:
    """A ContractError at the line of the first key that leaves `shape`."""
    problem = first_problem(document, shape)
    if problem is not None:
        holder = problem.holder if problem.holder is not None else document
        raise ContractError(f"{_where(origin, holder, problem.key)}: {problem.at() + ': ' if problem.path else ''}{problem.message}")


def parse_terms(origin: Path, entry: Any) -> Mapping[str, Any]:
    """Every rule kind's term of one contract entry, checked by its kind (a ContractError names the line)."""
    return MappingProxyType({kind.key: kind.parse(origin, entry) for kind in KINDS})


def _parse_contract(origin: Path, entry: Any) -> Contract:
    _strict_keys(origin, entry, CONTRACT_KEYS, "a contract")
    if not isinstance(entry.get("name"), str):
        raise ContractError(f"{_where(origin, entry)}: a contract needs a string 'name'")
    if entry["name"] == TARGET_WAIVER:
        raise ContractError(f"{_where(origin, entry, 'name')}: {TARGET_WAIVER!r} is reserved for waivers of target findings")
    return Contract(entry["name"], parse_terms(origin, entry), str(origin), getattr(entry, "lines", {}).get("", 0))


def parse_contracts(text: str, origin: Path, legacy_known: bool = False) -> ContractSet:
    """Validate a contracts document strictly and return its contracts and waivers. With `legacy_known` (a base's
    file), known entries an earlier version wrote for a case glob are read as written."""
    try:
        document = yaml.load(text, Loader=_ContractLoader) or _Lines()
    except yaml.YAMLError as error:
        raise ContractError(describe_yaml_error(error, str(origin))) from None
    _conform(origin, document, FILE_SHAPE)
    contracts = [_parse_contract(origin, entry) for entry in document.get("contracts") or []]
    names = {c.name for c in contracts}
    waivers = []
    for entry in document.get("waivers") or []:
        if isinstance(entry, dict) and "finding" in entry:
            waivers.append(_known_entry(origin, entry, legacy_known))
            continue
        _conform(origin, entry, WAIVER_SHAPE)
        for required in ("contract", "path", "reason"):
            if not entry[required].strip():
                raise ContractError(f"{_where(origin, entry)}: a waiver needs a non-empty {required!r}")
        if entry["contract"] not in names and entry["contract"] != TARGET_WAIVER:
            raise ContractError(f"{_where(origin, entry, 'contract')}: waiver names no contract: {entry['contract']!r}")
        until = _until(origin, entry)
        cases = entry.get("cases", "*")
        if not isinstance(cases, str) or not cases:
            raise ContractError(f"{_where(origin, entry, 'cases')}: a waiver's cases must be one glob string")
        _checked(origin, entry, "path", entry["path"])
        waivers.append(Waiver(entry["contract"], entry["path"], entry["reason"], until, cases))
    records = _parse_changes(origin, document.get("changes") or [])
    if origin.name == KNOWN_FILE_NAME or any(w.finding for w in waivers):
        return ContractSet(tuple(contracts), tuple(waivers), (), records)
    return ContractSet(tuple(contracts), tuple(waivers), records)


def _until(origin: Path, entry: Any) -> datetime.date | None:
    """A waiver's optional `until` date (YAML's date, or its ISO text)."""
    until = entry.get("until")
    if until is None:
        return None
    try:
        return until if isinstance(until, datetime.date) else datetime.date.fromisoformat(str(until))
    except ValueError:
        raise ContractError(f"{_where(origin, entry, 'until')}: until must be a date YYYY-MM-DD, got {until!r}") from None


KNOWN_FILE_NAME = "known.yaml"


def _known_entry(origin: Path, entry: Any, legacy: bool = False) -> Waiver:
    """A waiver that names one finding's cause (its kind, key, script line or config file, reason word and words)
    instead of a contract. An entry for a whole case or script (`cases:`, as an earlier version wrote) is refused
    with the way to write it again, except in a base's file (`legacy`), read as it was written."""
    _conform(origin, entry, KNOWN_SHAPE)
    if "cases" in entry and not legacy:
        whole = "for a whole script or case" if not entry.get("path") else "for a case glob"
        raise ContractError(
            f"{_where(origin, entry)}: known entry {whole} (cases: {entry['cases']!r}, path: {entry.get('path', '')!r}),"
            " as an earlier version wrote it; an entry names one cause now (finding, path, source, what):"
            " run `config-harness known` to write the file's entries again"
        )
    for key in ("finding", "reason", *(("cases",) if "cases" in entry else ())):
        if not entry[key].strip():
            raise ContractError(f"{_where(origin, entry, key)}: a known entry needs a non-empty {key!r}")
    if entry.get("path"):
        _checked(origin, entry, "path", entry["path"])
    if "cases" not in entry and not (entry.get("path") or entry.get("source") or entry.get("message")):
        raise ContractError(
            f"{_where(origin, entry)}: known entry for a whole case (no path, source or message): an entry names one cause;"
            " run `config-harness known` to record it again"
        )
    return Waiver(
        "",
        entry.get("path", ""),
        entry["reason"],
        _until(origin, entry),
        entry.get("cases", ""),
        finding=entry["finding"],
        what=entry.get("what", ""),
        source=entry.get("source", ""),
        message=entry.get("message", ""),
        config=entry.get("config", ""),
        launch=entry.get("launch", ""),
        origin=str(origin),
        line=getattr(entry, "lines", {}).get("", 0),
    )


def _parse_changes(origin: Path, entries: Any) -> tuple[ChangeRecord, ...]:
    # A record may name a contract that no longer exists: deleting or renaming one is exactly what it records.
    if not isinstance(entries, list):
        raise ContractError(f"{_where(origin, entries)}: changes must be a list of records")
    records = []
    for entry in entries:
        _conform(origin, entry, CHANGE_SHAPE)
        subjects = [key for key in ("contract", *SUBJECT_KEYS) if key in entry]
        if len(subjects) != 1:
            raise ContractError(
                f"{_where(origin, entry)}: a change record names exactly one of 'contract', {', '.join(repr(key) for key in SUBJECT_KEYS)}"
            )
        (subject,) = subjects
        if subject != "contract" and "path" in entry:
            raise ContractError(f"{_where(origin, entry, 'path')}: a {subject!r} record names its key in {subject!r}, not in 'path'")
        for required in (subject, "reason"):
            if not isinstance(entry.get(required), str) or not entry[required].strip():
                raise ContractError(f"{_where(origin, entry)}: a change record needs a non-empty {required!r}")
        path = entry.get("path") or "" if subject == "contract" else entry[subject]
        if not isinstance(path, str):
            raise ContractError(f"{_where(origin, entry, 'path')}: a change record's path must be a dotted path")
        name = entry["contract"] if subject == "contract" else SUBJECT_KEYS[subject]
        where = f"{display_path(origin)}:{getattr(entry, 'lines', {}).get('', 0)}"
        records.append(ChangeRecord(name, path, plain(entry.get("old")), plain(entry.get("new")), entry["reason"], where))
    return tuple(records)


def merge_sets(sets: Iterable[ContractSet]) -> ContractSet:
    """Several files' contracts, waivers and records as one set, in order."""
    sets = list(sets)
    return ContractSet(
        tuple(c for s in sets for c in s.contracts),
        tuple(w for s in sets for w in s.waivers),
        tuple(r for s in sets for r in s.changes),
        tuple(r for s in sets for r in s.unheeded),
    )


def load_contracts(paths: tuple[Path, ...] | list[Path], scope: Scope | None = None) -> ContractSet:
    """Read and merge contract files through the one reader (bounded, confined to `scope` when given); any problem
    is a ContractError naming the file."""
    loaded = []
    for path in paths:
        try:
            text = read_text(path, scope, what=str(path))
        except FileNotFoundError:
            raise ContractError(f"{path}: contracts file not found") from None
        except UnicodeDecodeError as error:
            raise ContractError(f"{path}: not UTF-8 (offset {error.start})") from None
        except (InputLimitError, UnsafeInput) as error:
            raise ContractError(str(error)) from None
        loaded.append(parse_contracts(text, Path(path)))
    return merge_sets(loaded)


def violations(
    contract: Contract, config: DictConfig, tree: Any, program: ProgramLookup | None = None, case_id: str | None = None
) -> list[Violation]:
    """Every rule of `contract` that `config` breaks, each kind in registry order; with `program_view`, a Python
    default counts as a value. With `case_id`, a contract whose `cases` do not match it finds nothing."""
    view = View(config, tree, program, case_id)
    for kind in KINDS:
        scoped = kind.scope(contract.term(kind.key), view)
        if scoped is None:
            return []
        view = scoped
    return [found for kind in KINDS for found in kind.violations(contract, contract.term(kind.key), view)]


def waiver_for(violation: Violation, waivers: tuple[Waiver, ...], case_id: str, today: datetime.date) -> Waiver | None:
    """The waiver for a violation: a live one if any (whatever the order they are written in), else an expired one."""
    paths = {violation.path, *violation.paths}
    matching = [waiver for waiver in waivers if waiver.excuses(violation.contract, paths, case_id)]
    return next((waiver for waiver in matching if _live(waiver, today)), matching[0] if matching else None)


def utc_today() -> datetime.date:
    """Today's date in UTC, so a waiver expires at the same moment on every machine."""
    return datetime.datetime.now(datetime.UTC).date()


def contract_findings(
    contract_set: ContractSet, case: Case, config: DictConfig, tree: Any, today: datetime.date, program: ProgramLookup | None = None
) -> list[Finding]:
    """Contract findings for one case; a live waiver turns an error into a warning."""
    findings = []
    for contract in contract_set.contracts:
        for violation in violations(contract, config, tree, program, case.id):
            findings.append(violation_finding(contract_set, contract, violation, case.id, today))
    return findings


def violation_finding(
    contract_set: ContractSet,
    contract: Contract,
    violation: Violation,
    case_id: str,
    today: datetime.date,
    said: str = "",
    source: Any = None,
    written_by: str = "",
) -> Finding:
    """One violation as the contract's error (a live waiver makes it a warning); `said` ends its message, `source` and
    `written_by` name the code that writes the value it breaks (harness/runner/config_writes.py)."""
    finding = Finding(
        Kind.CONTRACT,
        violation.path,
        violation.expected,
        violation.actual,
        ERROR,
        f"{contract.name}: {violation.message}{said}",
        source=source,
        detail=ContractRef(contract.name, contract.location(), written_by),
    )
    return waived(finding, waiver_for(violation, contract_set.waivers, case_id, today), today)


def unwaived_violations(
    contract_set: ContractSet, case_id: str, config: DictConfig, tree: Any, today: datetime.date, program: ProgramLookup | None = None
) -> list[Violation]:
    """The violations of one case that no live waiver excuses: what the set reports as contract errors."""
    found = []
    for contract in contract_set.contracts:
        for violation in violations(contract, config, tree, program, case_id):
            waiver = waiver_for(violation, contract_set.waivers, case_id, today)
            if waiver is None or not _live(waiver, today):
                found.append(violation)
    return found


def _live(waiver: Waiver, today: datetime.date) -> bool:
    return waiver.until is None or today <= waiver.until


def waived(finding: Finding, waiver: Waiver | None, today: datetime.date) -> Finding:
    """The error finding as a live waiver leaves it: a warning that names the reason (an expired one only notes it)."""
    if waiver is None:
        return finding
    if _live(waiver, today):
        reason = waiver.reason + (f"; until {waiver.until}" if waiver.until else "")
        return replace(finding, severity=WARNING, message=f"{finding.message} [waived: {reason}]", status=Excused.WAIVED, waiver=reason)
    return replace(finding, message=f"{finding.message} [waiver expired on {waiver.until}: {waiver.reason}]")


def checks_for(contract_set: ContractSet, today: datetime.date | None = None, program: ProgramLookup | None = None) -> list[CaseChecker]:
    """A contract set as a case check; waivers expire by `today` (default: the UTC date); `program` lets
    contracts with `program_view` see Python defaults."""
    if not contract_set.contracts:
        return []
    day = today or utc_today()

    def check(case: Case, config: DictConfig, tree: Any) -> list[Finding]:
        return contract_findings(contract_set, case, config, tree, day, program)

    return [check]


def contract_of_finding(contract_set: ContractSet, finding: Finding) -> Contract | None:
    """The contract a `contract` finding reports on (the first of that name)."""
    if finding.kind != Kind.CONTRACT or not finding.contract:
        return None
    return next((contract for contract in contract_set.contracts if contract.name == finding.contract), None)


def violations_seen(contract_set: ContractSet, results: Iterable[CaseResult]) -> set[tuple[str, str, str]]:
    """(case id, contract, path) of every contract violation in the results, waived or not; an agree
    violation counts for every path of its group, as a waiver may name any of them."""
    seen: set[tuple[str, str, str]] = set()
    for result in results:
        for finding in result.findings:
            if finding.kind == Kind.TARGET and finding.severity != INFO:
                seen.add((result.case.id, TARGET_WAIVER, finding.path))
                continue
            contract = contract_of_finding(contract_set, finding)
            if contract is None:
                continue
            paths = {finding.path}
            paths.update(*(group for group in contract.path_groups() if group[-1] == finding.path))
            seen.update((result.case.id, contract.name, path) for path in paths)
    return seen


def stale_waivers(contract_set: ContractSet, seen: Iterable[tuple[str, str, str]], strict: bool = False) -> list[Finding]:
    """A finding for each waiver that excuses no violation in any case ("waiver no longer needed").

    `seen` holds (case id, contract, path) for every violation of the full matrix (see violations_seen): on a
    subset of the cases a waiver for another case would look stale. Warnings, or errors when `strict`.
    """
    seen = list(seen)
    findings = []
    for waiver in contract_set.waivers:
        if waiver.finding:
            continue  # a known entry: harness/rules/known_entries.py says when it no longer matches
        if any(waiver.excuses(contract, (path,), case_id) for case_id, contract, path in seen):
            continue
        scope = "" if waiver.cases == "*" else f" in cases {waiver.cases!r}"
        findings.append(
            Finding(
                Kind.CONTRACT,
                waiver.path,
                None,
                None,
                ERROR if strict else WARNING,
                f"{waiver.contract}: waiver no longer needed: no case{scope} violates {waiver.path}; remove the waiver ({waiver.reason})",
                detail=ContractHygiene(waiver.contract),
            )
        )
    return findings


NOTHING_CHECKED = "; the contract checks nothing"


def contract_hygiene(contract_set: ContractSet, case_ids: Iterable[str]) -> list[Finding]:
    """Warnings for contract files that do less than they seem to: a `cases` glob matching no case, a waiver
    for a path no rule of its contract names, two contracts with the same name.

    Call it on the side under check only: a glob that matches nothing at the base of a review is normal.
    """
    case_ids = list(case_ids)
    findings = []
    names = [contract.name for contract in contract_set.contracts]
    for name in sorted({name for name in names if names.count(name) > 1}):
        origins = ", ".join(sorted({c.origin for c in contract_set.contracts if c.name == name}))
        findings.append(
            Finding(Kind.CONTRACT, "", None, None, WARNING, f"{name}: duplicate contract name (in {origins})", detail=ContractHygiene(name))
        )
    for contract in contract_set.contracts:
        cases = contract.term("cases")
        if not any(fnmatchcase(case_id, cases) for case_id in case_ids):
            findings.append(
                Finding(
                    Kind.CONTRACT,
                    "",
                    None,
                    None,
                    WARNING,
                    f"{contract.name}: cases {cases!r} matches no case{NOTHING_CHECKED}",
                    detail=ContractHygiene(contract.name, checks_nothing=True),
                )
            )
    paths_by_name: dict[str, set[str]] = {}
    for contract in contract_set.contracts:
        paths_by_name.setdefault(contract.name, set()).update(contract.paths())
    for waiver in contract_set.waivers:
        if waiver.contract == TARGET_WAIVER or waiver.finding:
            continue  # its paths are keys of `_target_` nodes, which no contract names
        if waiver.path not in paths_by_name.get(waiver.contract, set()):
            findings.append(
                Finding(
                    Kind.CONTRACT,
                    waiver.path,
                    None,
                    None,
                    WARNING,
                    f"{waiver.contract}: waiver for {waiver.path}, which no rule of the contract names",
                    detail=ContractHygiene(waiver.contract),
                )
            )
        elif not any(fnmatchcase(case_id, waiver.cases) for case_id in case_ids):
            findings.append(
                Finding(
                    Kind.CONTRACT,
                    waiver.path,
                    None,
                    None,
                    WARNING,
                    f"{waiver.contract}: waiver for {waiver.path}: cases {waiver.cases!r} matches no case",
                    detail=ContractHygiene(waiver.contract),
                )
            )
    return findings
