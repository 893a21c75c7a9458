"""Render results for people (text) and programs (json)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

from harness.check import ERROR, INFO, WARNING, CaseResult, MatrixResult


def result_as_dict(result: MatrixResult) -> dict[str, Any]:
    """The `check --format json` document."""
    return {
        "ok": result.ok,
        "cases": [
            {
                "id": r.case.id,
                "golden": r.golden,
                "status": r.status,
                "findings": [f.as_dict() for f in r.findings],
            }
            for r in result.cases
        ],
        "orphans": result.orphans,
    }


def to_json(document: Any) -> str:
    """Stable JSON text."""
    return json.dumps(document, indent=2, sort_keys=False, default=str)


def summary_line(result: MatrixResult) -> str:
    """One line: case statuses and finding severities."""
    statuses = Counter(r.status for r in result.cases)
    severities = Counter(f.severity for r in result.cases for f in r.findings)
    parts = [f"{len(result.cases)} cases: " + ", ".join(f"{statuses.get(s, 0)} {s}" for s in ("ok", "changed", "new", "error"))]
    parts.append(f"{severities.get(ERROR, 0)} errors, {severities.get(WARNING, 0)} warnings")
    if result.orphans:
        parts.append(f"{len(result.orphans)} orphan golden(s)")
    verdict = "OK" if result.ok else "FAILED"
    return f"{verdict}: " + "; ".join(parts)


def case_lines(result: CaseResult) -> list[str]:
    """A case's heading and one indented line per finding."""
    label = f"{result.status}{' (written)' if result.written else ''}"
    lines = [f"{result.case.id:<48} {label:<10} {result.golden}"]
    for finding in result.findings:
        lines.append(f"  {finding.severity.upper():<7} {finding.kind:<14} {finding.message}")
    return lines


def to_text(result: MatrixResult, verbose: bool = False, quiet: bool = False) -> str:
    """The report for people: cases grouped with their findings, orphans, then a one-line summary.

    Info findings (such as known fallbacks) show only when verbose; quiet hides cases without problems.
    """
    lines: list[str] = []
    for case_result in result.cases:
        shown = tuple(f for f in case_result.findings if verbose or f.severity != INFO)
        if quiet and not shown and case_result.status == "ok":
            continue
        lines.extend(case_lines(replace(case_result, findings=shown)))
    for orphan in result.orphans:
        lines.append(f"orphan golden (no case): {orphan}; remove it with `generate --prune`")
    for pruned in result.pruned:
        lines.append(f"pruned orphan golden: {pruned}")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    text = "" if value is None else json.dumps(value, default=str)
    return text.replace("|", "\\|")[:80]


def to_markdown(result: MatrixResult) -> str:
    """A pull-request summary: one table per case with problems, then contracts and waivers."""
    lines = ["## config-harness", "", summary_line(result), ""]
    for case_result in result.cases:
        rows = [f for f in case_result.findings if f.kind != "contract" and f.severity != INFO]
        if not rows:
            continue
        lines += [f"### `{case_result.case.id}` ({case_result.status})", "", "| kind | path | old | new |", "|---|---|---|---|"]
        lines += [f"| {f.kind} | `{f.path}` | {_cell(f.old)} | {_cell(f.new)} |" for f in rows]
        lines.append("")
    contract_rows = [(r.case.id, f) for r in result.cases for f in r.findings if f.kind == "contract"]
    if contract_rows:
        lines += ["### Contracts and waivers", "", "| case | severity | message |", "|---|---|---|"]
        lines += [f"| `{case_id}` | {f.severity} | {f.message.replace('|', '/')} |" for case_id, f in contract_rows]
        lines.append("")
    for orphan in result.orphans:
        lines.append(f"- orphan golden: `{orphan}`")
    return "\n".join(lines) + "\n"


def to_github(result: MatrixResult) -> str:
    """GitHub workflow commands: one annotation per error or warning, on the case's golden."""
    lines = []
    for case_result in result.cases:
        for finding in case_result.findings:
            if finding.severity in (ERROR, WARNING):
                message = f"{case_result.case.id}: {finding.message}".replace("%", "%25").replace("\n", "%0A")
                lines.append(f"::{finding.severity} file={case_result.golden}::{message}")
    for orphan in result.orphans:
        lines.append(f"::error file={orphan}::orphan golden with no case")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
