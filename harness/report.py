"""Render results for people (text) and programs (json)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from harness.findings import ERROR, INFO, WARNING, CaseResult, Finding, MatrixResult

# Reviewers read the loudest kinds first.
KIND_ORDER = {kind: index for index, kind in enumerate(
    ("error", "missing_golden", "removed", "changed", "added", "effective", "fallback", "parity", "format")
)}


SCHEMA_VERSION = 2  # every JSON answer carries it; 2 added baseline, run-level findings and `gone` cases


def result_as_dict(result: MatrixResult) -> dict[str, Any]:
    """The `check --format json` document."""
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": result.ok,
        "baseline": result.baseline,
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
        "findings": [f.as_dict() for f in result.findings],
    }


def to_json(document: Any) -> str:
    """Stable JSON text."""
    return json.dumps(document, indent=2, sort_keys=False, default=str)


def summary_line(result: MatrixResult) -> str:
    """One line: case statuses and finding severities."""
    statuses = Counter(r.status for r in result.cases)
    severities = Counter(f.severity for r in result.cases for f in r.findings) + Counter(f.severity for f in result.findings)
    parts = [(f"{len(result.cases)} cases against {result.baseline}: " if result.baseline else f"{len(result.cases)} cases: ") + ", ".join(f"{statuses.get(s, 0)} {s}" for s in ("ok", "changed", "new", "gone", "error") if s != "gone" or statuses.get(s))]
    parts.append(f"{severities.get(ERROR, 0)} errors, {severities.get(WARNING, 0)} warnings")
    if result.orphans:
        parts.append(f"{len(result.orphans)} orphan golden(s)")
    verdict = "OK" if result.ok else "FAILED"
    return f"{verdict}: " + "; ".join(parts)


COLORS = {
    "ok": "32", "OK": "1;32", "changed": "31", "new": "33", "error": "1;31", "FAILED": "1;31",
    "ERROR": "31", "WARNING": "33", "INFO": "2",
}


def paint(text: str, style: str, color: bool) -> str:
    """`text` in the ANSI color for `style` when `color`, else unchanged."""
    return f"\033[{COLORS[style]}m{text}\033[0m" if color and style in COLORS else text


def case_lines(result: CaseResult, color: bool = False) -> list[str]:
    """A case's heading and one indented line per finding."""
    label = f"{result.status}{' (written)' if result.written else ''}"
    lines = [f"{result.case.id:<48} {paint(f'{label:<10}', result.status, color)} {result.golden}"]
    for finding in result.findings:
        said = "was set by" if finding.kind == "removed" else "set by"
        where = f"  [{said} {finding.source}]" if finding.source is not None else ""
        severity = paint(f"{finding.severity.upper():<7}", finding.severity.upper(), color)
        lines.append(f"  {severity} {finding.kind:<14} {finding.message}{where}")
    return lines


def to_text(result: MatrixResult, verbose: bool = False, quiet: bool = False, color: bool = False) -> str:
    """The report for people: cases grouped with their findings, orphans, then a one-line summary.

    Info findings (such as known fallbacks) show only when verbose; quiet hides cases without problems.
    """
    lines: list[str] = []
    # Findings about the run as a whole (contract changes first) lead: a weakened contract is read before its effects.
    for finding in result.findings:
        if verbose or finding.severity != INFO:
            severity = paint(f"{finding.severity.upper():<7}", finding.severity.upper(), color)
            lines.append(f"{severity} {finding.kind:<14} {finding.message}")
    for case_result in result.cases:
        shown = tuple(f for f in case_result.findings if verbose or f.severity != INFO)
        if quiet and not shown and case_result.status == "ok":
            continue
        lines.extend(case_lines(replace(case_result, findings=shown), color))
    for orphan in result.orphans:
        lines.append(f"orphan golden (no case): {orphan}; remove it with `generate --prune`")
    for pruned in result.pruned:
        lines.append(f"pruned orphan golden: {pruned}")
    summary = summary_line(result)
    verdict, _, rest = summary.partition(":")
    lines.append(paint(verdict, verdict, color) + ":" + rest)
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    text = "" if value is None else json.dumps(value, default=str)
    return text.replace("|", "\\|")[:80]


def _source_cell(finding: Finding) -> str:
    return "" if finding.source is None else f"`{finding.source}`"


def to_markdown(result: MatrixResult, title: str = "config-harness", include_info: bool = False) -> str:
    """A pull-request summary: one table per case with problems, then contracts and waivers."""
    lines = [f"## {title}", "", summary_line(result), ""]
    run_rows = [f for f in result.findings if include_info or f.severity != INFO]
    if run_rows:
        lines += ["### Contract changes and contract files", "", "| severity | kind | path | finding |", "|---|---|---|---|"]
        lines += [f"| {f.severity} | {f.kind} | {f'`{f.path}`' if f.path else ''} | {f.message.replace('|', '/')} |" for f in run_rows]
        lines.append("")
    for case_result in result.cases:
        rows = [f for f in case_result.findings if f.kind != "contract" and (include_info or f.severity != INFO)]
        if not rows:
            continue
        lines += [
            f"### `{case_result.case.id}` ({case_result.status})",
            "",
            "| kind | path | old | new | set by |",
            "|---|---|---|---|---|",
        ]
        rows.sort(key=lambda f: KIND_ORDER.get(f.kind, len(KIND_ORDER)))
        lines += [
            f"| {f.kind} | `{f.path}` | {_cell(f.old)} | {_cell(f.new)} | {_source_cell(f)} |" if f.path
            else f"| {f.kind} | | | | {f.message.replace('|', '/')} |"
            for f in rows
        ]
        lines.append("")
    # The same contract finding usually repeats across cases; one row each keeps the summary short.
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for case_result in result.cases:
        for f in case_result.findings:
            if f.kind == "contract":
                grouped.setdefault((f.severity, f.message, _source_cell(f)), []).append(case_result.case.id)
    if grouped:
        lines += ["### Contracts and waivers", "", "| severity | finding | set by | cases |", "|---|---|---|---|"]
        for (severity, message, source), case_ids in sorted(grouped.items(), key=lambda item: item[0][0] != ERROR):
            cases = ", ".join(f"`{case_id}`" for case_id in case_ids)
            lines.append(f"| {severity} | {message.replace('|', '/')} | {source} | {cases} |")
        lines.append("")
    for orphan in result.orphans:
        lines.append(f"- orphan golden: `{orphan}`")
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    """Escape a workflow-command message (% first, then line breaks)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """Escape a workflow-command property value, where `:` and `,` are separators."""
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def annotation_target(case_result: CaseResult, finding: Finding) -> tuple[str, int | None]:
    """The file and line an annotation points at: the config line that sets the value, else the golden's line."""
    source = finding.source
    if source is not None and source.file is not None:
        return source.file, source.line
    return case_result.golden, case_result.golden_lines.get(finding.path)


def to_github(result: MatrixResult) -> str:
    """GitHub workflow commands: one annotation per error or warning, on the config line that set the value."""
    lines = []
    for finding in result.findings:
        if finding.severity in (ERROR, WARNING):
            lines.append(f"::{finding.severity} title={_escape_property(finding.kind)}::{_escape(finding.message)}")
    for case_result in result.cases:
        for finding in case_result.findings:
            if finding.severity in (ERROR, WARNING):
                file, line = annotation_target(case_result, finding)
                where = f"file={_escape_property(file)}" + (f",line={line}" if line else "")
                message = _escape(f"{case_result.case.id}: {finding.message}")
                lines.append(f"::{finding.severity} {where},title={_escape_property(finding.kind)}::{message}")
    for orphan in result.orphans:
        lines.append(f"::error file={orphan}::orphan golden with no case")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def changes_markdown(title: str, changes: list[dict[str, Any]], group: str = "file", notes: Sequence[str] = ()) -> str:
    """`diff` rows as markdown: one table per `group` value (file or case), or one table for two files."""
    lines = [f"## {title}", "", f"{len(changes)} change(s)", ""] + [f"- {note}" for note in notes]
    if notes:
        lines.append("")
    by_group: dict[str, list[dict[str, Any]]] = {}
    for row in changes:
        by_group.setdefault(row.get(group, ""), []).append(row)
    for name, rows in by_group.items():
        if name:
            lines += [f"### `{name}`", ""]
        lines += ["| kind | path | old | new |", "|---|---|---|---|"]
        lines += [f"| {r['kind']} | `{r['path']}` | {_cell(r['old'])} | {_cell(r['new'])} |" for r in rows]
        lines.append("")
    return "\n".join(lines) + "\n"

