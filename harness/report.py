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
    verdict = "OK" if result.ok and not result.orphans else "FAILED"
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
