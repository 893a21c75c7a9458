"""Known findings: what a repository already had when it adopted the harness, excused the way waivers are.

Adoption on a real repository finds problems nobody introduced now: a launch script that passes an override
Hydra cannot parse, a class the program never builds from that node, a contract the tree already breaks. They
are worth knowing once; they must not fail every later run. `init` records each as a waiver of its finding in a
contracts file of its own (`config-harness/known.yaml`), with its finding line as the reason:

    waivers:
      - finding: launch                           # the finding's kind (instead of `contract:`)
        cases: "cmd/examples/x.sh#*"              # the case (a launch: any launch of that script)
        path: actor_rollout_ref.model.torch_dtype # "" for a finding about a whole case or launch
        what: key removed                         # the finding's own reason word, where it has one
        reason: "known at adoption: key removed: ... (examples/x.sh:23)"

There is one mechanism for excusing a finding, waivers, and this extends it: the same file list (`contracts`),
the same stale rule (an entry that excuses nothing is reported once, `fixed: remove its entry`), and in a review
the same rule as for every loosening: a finding the pull request's entries excuse and the base's do not is a
`contract_change` error unless a `changes:` record names it. An excused finding is `info` with
`"status": "known"`; it fails nothing and is one count line in every report.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

from harness.model.findings import (
    ERROR,
    GOLDEN_KINDS,
    INFO,
    WARNING,
    CaseResult,
    ContractRef,
    Excused,
    Finding,
    Kind,
    LaunchFix,
    Origin,
    TargetFacts,
)
from harness.model.matrix import LAUNCH_PREFIX
from harness.model.settings import display_path
from harness.rules.contract_changes import flow_record
from harness.rules.contracts import KNOWN, ChangeRecord, ContractSet, Waiver

KNOWN_FILE = "config-harness/known.yaml"
# Differences from a golden are settled by `generate`, never excused; run-level contract findings are about the
# contracts files themselves.
NEVER_KNOWN = GOLDEN_KINDS | {Kind.CONTRACT_CHANGE, Kind.SETTINGS_CHANGE, Kind.HYDRA_CHANGE, Kind.FALLBACK}


def what_of(finding: Finding) -> str:
    """The finding's own reason word, which tells two findings on one path apart: a launch's (`key removed`), a
    target finding's (`missing_class`), a contract's name."""
    launch, target = finding.detail_as(LaunchFix), finding.detail_as(TargetFacts)
    if finding.kind == Kind.LAUNCH and launch is not None:
        return launch.reason
    if finding.kind == Kind.TARGET:
        return str(target.reason) if target is not None else ""
    if finding.kind == Kind.CONTRACT:
        return finding.contract
    return ""


def cases_of(case_id: str) -> str:
    """The `cases` glob an entry for this case is written with: a launch's is any launch of its script (adding a
    launch above it renumbers the ids, not the problem); glob characters in names match only themselves."""
    if case_id.startswith(LAUNCH_PREFIX):
        script = case_id.rsplit("#", 1)[0]
        return _escaped(script) + "#*"
    return _escaped(case_id)


def _escaped(text: str) -> str:
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in text)


def excuses(waiver: Waiver, case_id: str, finding: Finding) -> bool:
    """True when a known entry names this finding: its kind, case, path and reason word."""
    return (
        bool(waiver.finding)
        and waiver.finding == str(finding.kind)
        and fnmatchcase(case_id, waiver.cases)
        and waiver.path == finding.path
        and (not waiver.what or waiver.what == what_of(finding))
    )


def excusable(finding: Finding) -> bool:
    """True for a finding a known entry may excuse: an error or warning that no golden settles."""
    return finding.severity in (ERROR, WARNING) and finding.kind not in NEVER_KNOWN and not finding.waiver


def known_entries(contract_set: ContractSet | None) -> tuple[Waiver, ...]:
    """The waivers of a set that name a finding (the known entries)."""
    return tuple(w for w in (contract_set.waivers if contract_set is not None else ()) if w.finding)


def excuse(findings: Sequence[Finding], entries: Sequence[Waiver], case_id: str, today: datetime.date) -> list[Finding]:
    """The findings with each one a live known entry names as `info`, status known, its entry's reason kept."""
    if not entries:
        return list(findings)
    out = []
    for finding in findings:
        entry = next((e for e in entries if excusable(finding) and excuses(e, case_id, finding)), None)
        if entry is not None and (entry.until is None or today <= entry.until):
            finding = replace(finding, severity=INFO, waiver=entry.reason, status=Excused.KNOWN, origin=None)
        out.append(finding)
    return out


def excuse_results(results: Iterable[CaseResult], entries: Sequence[Waiver], today: datetime.date) -> list[CaseResult]:
    """Case results with their known findings excused (and a case's status `ok` when nothing else fails)."""
    from harness.model.findings import Status

    out = []
    for result in results:
        findings = tuple(excuse(result.findings, entries, result.case.id, today))
        status = result.status
        if status == Status.ERROR and findings != result.findings and not any(f.severity == ERROR for f in findings):
            status = Status.OK
        out.append(replace(result, findings=findings, status=status))
    return out


def stale_entries(entries: Sequence[Waiver], results: Iterable[CaseResult]) -> list[Finding]:
    """A warning for each known entry that excuses nothing any more: the problem is fixed, the entry can go."""
    excused = [(r.case.id, f) for r in results for f in r.findings if f.status == Excused.KNOWN]
    findings = []
    for entry in entries:
        if any(excuses(entry, case_id, finding) for case_id, finding in excused):
            continue
        where = f"{display_path(Path(entry.origin))}:{entry.line}" if entry.origin else "its file"
        findings.append(
            Finding(
                Kind.CONTRACT,
                entry.path,
                None,
                None,
                WARNING,
                f"known finding fixed: {entry.what or entry.finding} on {entry.cases}"
                + (f" at {entry.path}" if entry.path else "")
                + f" no longer holds; remove its entry ({where})",
                detail=ContractRef(source=where),
            )
        )
    return findings


def record_of(entry_cases: str, finding: Finding) -> dict[str, Any]:
    """The `changes:` record that accepts a known entry a pull request added for this finding."""
    return {
        "known": entry_cases,
        "old": None,
        "new": {"finding": str(finding.kind), "path": finding.path, "what": what_of(finding)},
        "reason": "WHY",
    }


def added_entries(results: Iterable[CaseResult], base_entries: Sequence[Waiver], records: Sequence[ChangeRecord]) -> list[Finding]:
    """In a review, every finding the pull request's known entries excuse and the base's do not: a loosening by
    meaning, whatever was edited to get it. An error unless a `changes:` record with a reason accepts it."""
    findings: dict[tuple[str, str, str, str], Finding] = {}
    for result in results:
        for finding in result.findings:
            if finding.status != Excused.KNOWN or any(excuses(e, result.case.id, finding) for e in base_entries):
                continue
            cases = cases_of(result.case.id)
            record = _record_for(records, cases, finding)
            key = (cases, str(finding.kind), finding.path, what_of(finding))
            if key in findings:
                continue
            subject = f"known entry added for {what_of(finding) or finding.kind} on {cases}" + (
                f" at {finding.path}" if finding.path else ""
            )
            if record is not None:
                findings[key] = Finding(
                    Kind.CONTRACT_CHANGE,
                    finding.path,
                    None,
                    record_of(cases, finding)["new"],
                    WARNING,
                    f"{subject} [recorded reason: {record.reason}]",
                    origin=Origin.INTRODUCED,
                )
            else:
                findings[key] = Finding(
                    Kind.CONTRACT_CHANGE,
                    finding.path,
                    None,
                    record_of(cases, finding)["new"],
                    ERROR,
                    f"{subject} without a recorded reason; it excuses a finding the base reports;"
                    f" to accept it, add to `changes:` {flow_record(record_of(cases, finding))}",
                    origin=Origin.INTRODUCED,
                )
    return list(findings.values())


def _record_for(records: Sequence[ChangeRecord], cases: str, finding: Finding) -> ChangeRecord | None:
    new = {"finding": str(finding.kind), "path": finding.path, "what": what_of(finding)}
    return next((r for r in records if r.contract == KNOWN and r.path == cases and r.new == new), None)


# ---- what init writes ----


def entries_for(results: Iterable[CaseResult], today: datetime.date, when: str = "known at adoption") -> list[dict[str, Any]]:
    """One known entry per distinct finding that already holds (errors and warnings no golden settles), in the run's
    order, each with its finding line as the reason."""
    entries: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for result in results:
        for finding in result.findings:
            if not excusable(finding):
                continue
            cases = cases_of(result.case.id)
            key = (str(finding.kind), cases, finding.path, what_of(finding))
            if key in entries:
                continue
            where = f" ({finding.source})" if finding.source is not None else ""
            entry: dict[str, Any] = {"finding": str(finding.kind), "cases": cases, "path": finding.path}
            if what_of(finding):
                entry["what"] = what_of(finding)
            entry["reason"] = f"{when} ({today.isoformat()}): {' '.join(finding.message.split())}{where}"
            entries[key] = entry
    return list(entries.values())


HEADER = """\
# Findings this repository already had when config-harness was adopted (written by `config-harness init`).
# Each entry excuses one finding: it is counted, not failed. Fix the problem and remove its entry (the run says
# which entries no longer match). An entry a pull request adds is reviewed like any loosened contract.
"""


def appended(text: str, entries: Sequence[dict[str, Any]]) -> str:
    """A known file's text with `entries` added at the end of its `waivers:` list, every other byte kept; a file
    whose last key is not `waivers:` cannot be appended to (ValueError)."""
    document = yaml.safe_load(text) or {}
    if not isinstance(document, dict) or set(document) - {"waivers"}:
        raise ValueError("a known file holds only `waivers:`; add these entries by hand or to a file of their own")
    before = list(document.get("waivers") or [])
    head = re.sub(r"^waivers:[ \t]*\[\][ \t]*$", "waivers:", text, flags=re.M).rstrip("\n")
    if "waivers" not in document:
        head += "\nwaivers:"
    new = head + "\n" + _items(entries)
    try:
        same = (yaml.safe_load(new) or {}).get("waivers") == before + list(entries)
    except yaml.YAMLError:
        same = False  # an indentation appending cannot follow
    if not same:
        raise ValueError("its `waivers:` list is written in a way entries cannot be appended to; add them by hand")
    return new


def _items(entries: Sequence[dict[str, Any]]) -> str:
    return yaml.safe_dump(list(entries), sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)


def render(entries: Sequence[dict[str, Any]]) -> str:
    """The known file's text: a header, then `waivers:` with one entry per finding (an empty list when none)."""
    body = yaml.safe_dump({"waivers": list(entries)}, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return HEADER + body
