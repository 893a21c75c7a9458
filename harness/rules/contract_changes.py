"""Contract changes between a baseline and now: every removed or loosened term is a `contract_change` finding.

Each rule kind (harness/rules) says how its term is written in findings and in the `changes:` records that
excuse them: `require` and `forbid` as that word, a pin as `{equal: VALUE}`, a group as `{agree: [PATH, ...]}`
at its last path, an option as `{OPTION: VALUE}` at path `''`. A waiver is `{waiver: {cases: GLOB, until: DATE
or null}}` at the waived path. `new` is null when the term is gone. A record `{contract, path, old, new, reason}`
excuses exactly the change with the same four values, so an old reason never excuses a later weakening.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml
from omegaconf import DictConfig

from harness.gates.linear import fnmatchcase
from harness.model.findings import ERROR, WARNING, CaseChecker, CaseResult, ContractHygiene, ContractRef, Finding, Kind, Origin
from harness.model.matrix import Case
from harness.model.semantic_diff import value_text
from harness.rules import KINDS
from harness.rules.contracts import (
    SUBJECT_KEYS,
    ChangeRecord,
    Contract,
    ContractSet,
    Waiver,
    contract_hygiene,
    merge_sets,
    parse_contracts,
    stale_waivers,
    unwaived_violations,
    utc_today,
    violations_seen,
)
from harness.rules.protocol import ContractError, ProgramLookup, TermChange


def _merged(contract_set: ContractSet) -> dict[str, Contract]:
    """Contracts by name; two contracts with one name (a hygiene warning) count as one, each kind merging its terms."""
    merged: dict[str, Contract] = {}
    for contract in contract_set.contracts:
        first = merged.get(contract.name)
        if first is None:
            merged[contract.name] = contract
            continue
        terms = {kind.key: kind.merged(first.term(kind.key), contract.term(kind.key)) for kind in KINDS}
        merged[contract.name] = replace(first, terms=MappingProxyType(terms))
    return merged


def _waiver_term(waiver: Waiver) -> dict[str, Any]:
    return {"waiver": {"cases": waiver.cases, "until": waiver.until.isoformat() if waiver.until else None}}


def _loosened_terms(old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
    """The terms of `old` that `new` drops or loosens (None: the contract is gone, or renamed: the new name is a
    new contract), each rule kind in registry order."""
    return [change for kind in KINDS for change in kind.loosened(old, new, case_ids)]


def _covers(old: Waiver, new: Waiver, case_ids: list[str]) -> bool:
    """True when `old` already excused everything `new` excuses: as many cases, for at least as long."""
    wide_enough = old.cases == new.cases or all(fnmatchcase(case_id, old.cases) for case_id in case_ids if fnmatchcase(case_id, new.cases))
    long_enough = old.until is None or (new.until is not None and new.until <= old.until)
    return wide_enough and long_enough


def _loosened_waivers(base: ContractSet, head: ContractSet, base_contracts: dict[str, Contract], case_ids: list[str]) -> list[TermChange]:
    changes = []
    for waiver in head.waivers:
        contract = base_contracts.get(waiver.contract)
        if contract is None or waiver.path not in contract.paths():
            continue  # it can only excuse a rule that is new since the base: nothing the base checked is loosened
        before = [b for b in base.waivers if b.contract == waiver.contract and b.path == waiver.path]
        if any(_covers(b, waiver, case_ids) for b in before):
            continue
        same_scope = next((b for b in before if b.cases == waiver.cases), None)
        until = waiver.until.isoformat() if waiver.until else "never expires"
        if same_scope is None:
            description = f"waiver for {waiver.path} added (cases {waiver.cases!r}, until {until})"
        else:
            was = same_scope.until.isoformat() if same_scope.until else "never expires"
            description = f"waiver for {waiver.path} extended (cases {waiver.cases!r}): until {was} -> {until}"
        old_term = _waiver_term(same_scope) if same_scope else None
        changes.append(TermChange(waiver.contract, waiver.path, old_term, _waiver_term(waiver), description))
    return changes


def term_changes(base: ContractSet, head: ContractSet, case_ids: Iterable[str]) -> list[TermChange]:
    """Every term removed or loosened from `base` to `head`, in base order, then waivers in head order.

    `case_ids` are what a `cases` glob is measured against: a glob is narrowed when it covers fewer of them.
    """
    case_ids = sorted(set(case_ids))
    base_contracts, head_contracts = _merged(base), _merged(head)
    changes = []
    for name, old in base_contracts.items():
        changes += _loosened_terms(old, head_contracts.get(name), case_ids)
    return changes + _loosened_waivers(base, head, base_contracts, case_ids)


def record_for(change: TermChange, records: Iterable[ChangeRecord]) -> ChangeRecord | None:
    """The record that excuses exactly this change (same contract, path, old and new), if any."""
    key = (change.contract, change.path, value_text(change.old), value_text(change.new))
    for record in records:
        if (record.contract, record.path, value_text(record.old), value_text(record.new)) == key:
            return record
    return None


def flow_record(record: dict[str, Any]) -> str:
    """A record as one line of YAML, ready to paste under `changes:`."""
    return yaml.safe_dump(record, default_flow_style=True, sort_keys=False, width=10**9, allow_unicode=True).strip()


def change_finding(change: TermChange, records: Iterable[ChangeRecord], kind: Kind = Kind.CONTRACT_CHANGE) -> Finding:
    """A warning showing the recorded reason, or an error saying which record would excuse the change."""
    return _recorded(change, record_for(change, records), kind)


def _recorded(change: TermChange, record: ChangeRecord | None, kind: Kind = Kind.CONTRACT_CHANGE, contract: str = "") -> Finding:
    subject = "" if change.contract in SUBJECT_KEYS.values() else f"{change.contract}: "
    detail = ContractRef(contract) if contract else None
    if record is not None:
        return Finding(
            kind,
            change.path,
            change.old,
            change.new,
            WARNING,
            f"{subject}{change.description} [recorded reason: {record.reason}]",
            detail=detail,
        )
    return Finding(
        kind,
        change.path,
        change.old,
        change.new,
        ERROR,
        f"{subject}{change.description} without a recorded reason; to accept it, add to `changes:` {flow_record(change.record('WHY'))}",
        detail=detail,
    )


def contract_changes(base: ContractSet, head: ContractSet, case_ids: Iterable[str]) -> list[Finding]:
    """`contract_change` findings from `base` to `head`; only `head`'s records excuse a change."""
    return [change_finding(change, head.changes) for change in term_changes(base, head, case_ids)]


# The term of a base rule that the pull request's contracts excuse on a case: the change is judged by what the rules
# report, not by how the file was edited (a waiver, a widened group, a narrowed glob, an option all look alike).
ENFORCED, EXCUSED = "enforced", "excused"


def unreported_findings(
    base: ContractSet,
    head: ContractSet,
    case_id: str,
    config: DictConfig,
    tree: Any,
    today: datetime.date,
    program: ProgramLookup | None = None,
) -> list[Finding]:
    """A `contract_change` for each error the base's contracts (terms and waivers) find on this case of the pull
    request that no error of the pull request's own contracts reports (at any of the violation's paths).

    A record the pull request adds (one the base's file does not hold) naming the contract and one of the paths
    excuses it, so one record explains both an edit of a term and the violation that edit lets through.
    """
    reported = {path for v in unwaived_violations(head, case_id, config, tree, today, program) for path in (v.path, *v.paths)}
    added = [record for record in head.changes if record not in base.changes]
    findings = []
    for violation in unwaived_violations(base, case_id, config, tree, today, program):
        paths = {violation.path, *violation.paths}
        if paths & reported:
            continue
        record = next((r for r in added if r.contract == violation.contract and r.path in paths), None)
        change = TermChange(
            violation.contract,
            violation.path,
            ENFORCED,
            EXCUSED,
            f"the base's contract is broken here ({violation.message}) and this change's contracts no longer report it",
        )
        findings.append(_recorded(change, record, contract=violation.contract))
    return findings


def unreported_check(
    base: ContractSet, head: ContractSet, today: datetime.date | None = None, program: ProgramLookup | None = None
) -> CaseChecker:
    """`unreported_findings` as a case check of a review (waivers expire by `today`, default the UTC date)."""
    day = today or utc_today()

    def check(case: Case, config: DictConfig, tree: Any) -> list[Finding]:
        return unreported_findings(base, head, case.id, config, tree, day, program)

    return check


def read_contract_files(files: Mapping[str, str | None]) -> ContractSet:
    """A base's contract files as texts (None: the file does not exist, so it has no contracts), merged in order;
    known entries an earlier version wrote for a case glob are read as written (a base is what it is)."""
    return merge_sets(parse_contracts(text, Path(name), legacy_known=True) for name, text in files.items() if text is not None)


def run_findings(
    head: ContractSet,
    base_texts: Mapping[str, str | None] | None,
    case_ids: Iterable[str],
    results: Iterable[CaseResult],
    strict_waivers: bool = False,
    whole_matrix: bool = True,
    review: bool = False,
) -> list[Finding]:
    """The contract findings about a run as a whole, contract changes first: what the baseline's contracts lost
    (when `base_texts`, its contract files, are known), then file hygiene, then waivers no case needs any more.

    `case_ids` are every case of the tree under test; `results` the run's case results. Stale waivers need the
    whole matrix (`whole_matrix`): on a `--case` subset a waiver for another case would look stale.
    """
    case_ids = list(case_ids)
    findings = []
    base = None
    if base_texts is not None:
        try:
            base = read_contract_files(base_texts)
        except ContractError as error:
            raise ContractError(f"the baseline's contracts: {error}") from None
        findings += contract_changes(base, head, case_ids)
    hygiene = contract_hygiene(head, case_ids)
    if review:
        # A contract that checks nothing is how a pull request can switch one off: an error, unless the base's
        # contracts had the same problem (then it is one of the errors already at the base).
        before = {f.message for f in contract_hygiene(base, case_ids)} if base is not None else set()
        hygiene = [
            replace(f, severity=ERROR, origin=Origin.AT_BASE if f.message in before else Origin.INTRODUCED)
            if isinstance(f.detail, ContractHygiene) and f.detail.checks_nothing
            else f
            for f in hygiene
        ]
    findings += hygiene
    if whole_matrix:
        findings += stale_waivers(head, violations_seen(head, results), strict_waivers)
    return findings


def unmatched_records(
    records: Iterable[ChangeRecord], base_texts: Mapping[str, str | None] | None, findings: Iterable[Finding]
) -> list[Finding]:
    """A warning for each `changes:` record the pull request adds that accepts nothing in this review: a record is
    read only where a loosening shows it (`[recorded reason: ...]`), so one that matches no change is a reason for
    nothing (records the base already holds are history, not news)."""
    try:
        before = list(read_contract_files(base_texts).changes) if base_texts else []
    except ContractError:
        before = []
    shown = " ".join(f.message for f in findings if f.severity == WARNING)
    return [
        Finding(
            Kind.CONTRACT,
            record.path,
            None,
            None,
            WARNING,
            f"a `changes:` record matches no change in this review ({record.origin}): it accepts nothing; remove it or"
            " write the record the error asks for",
            detail=ContractRef(source=record.origin),
        )
        for record in records
        if record not in before and f"[recorded reason: {record.reason}]" not in shown
    ]
