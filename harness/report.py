"""Render results for people (text, markdown), CI (GitHub workflow commands) and programs (JSON).

Every format is built from the same groups (see grouping.py) in the same triage order.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from harness.escape import code_span, escape_data, json_text, markdown_text, printable, workflow_command
from harness.findings import ERROR, INFO, WARNING, Kind, MatrixResult
from harness.grouping import (
    TIER_TITLES,
    VALUE_KINDS,
    Group,
    Tier,
    compared_ids,
    count_paths,
    describe_cases,
    group_findings,
    summary_paragraph,
)

SCHEMA_VERSION = 2  # every JSON answer carries it; 2 added baseline, run-level findings, `gone` cases and groups

# Tiers listed in full; refactors are folded and waived warnings summarized after them.
LISTED_TIERS = (Tier.BLOCKING, Tier.CHANGED, Tier.REMOVED, Tier.ADDED, Tier.REGENERATE)
ABSENT = "—"
EFFECTIVE_NOTE = "(resolved value; the written interpolation is unchanged)"
MAX_VALUE = 80


def result_as_dict(result: MatrixResult) -> dict[str, Any]:
    """The `check --format json` document: per-case findings, and the same findings grouped in triage order."""
    groups = group_findings(result.cases, result.findings)
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": result.ok,
        "baseline": result.baseline,
        "summary": summary_paragraph(groups, result),
        "cases": [
            {
                "id": r.case.id,
                "golden": r.golden,
                "status": r.status,
                "findings": [f.as_dict() for f in r.findings],
            }
            for r in result.cases
        ],
        "groups": [group.as_dict() for group in groups],
        "orphans": result.orphans,
        "findings": [f.as_dict() for f in result.findings],
    }


def to_json(document: Any) -> str:
    """Stable JSON text through the JSON sink; every JSON answer carries `schema_version` first."""
    if isinstance(document, dict):
        document = {"schema_version": SCHEMA_VERSION, **document}
    return json_text(document)


def summary_line(result: MatrixResult) -> str:
    """One line: case statuses and finding severities."""
    statuses = Counter(r.status for r in result.cases)
    severities = Counter(f.severity for r in result.cases for f in r.findings) + Counter(f.severity for f in result.findings)
    shown = [s for s in ("ok", "changed", "new", "gone", "error") if s != "gone" or statuses.get(s)]
    against = f" against {result.baseline}" if result.baseline else ""
    parts = [f"{len(result.cases)} cases{against}: " + ", ".join(f"{statuses.get(s, 0)} {s}" for s in shown)]
    parts.append(f"{severities.get(ERROR, 0)} errors, {severities.get(WARNING, 0)} warnings")
    if result.orphans:
        parts.append(f"{len(result.orphans)} orphan golden(s)")
    verdict = "OK" if result.ok else "FAILED"
    return f"{verdict}: " + "; ".join(parts)


COLORS = MappingProxyType({
    "ok": "32", "OK": "1;32", "changed": "31", "new": "33", "error": "1;31", "FAILED": "1;31",
    "ERROR": "31", "WARNING": "33", "INFO": "2",
})


def paint(text: str, style: str, color: bool) -> str:
    """`text` in the ANSI color for `style` when `color`, else unchanged."""
    return f"\033[{COLORS[style]}m{text}\033[0m" if color and style in COLORS else text


def show_value(value: Any, present: bool = True) -> str:
    """A value as JSON spells it (`null` for null), `—` for an absent key; long values shortened."""
    if not present:
        return ABSENT
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def old_present(group: Group) -> bool:
    """An added key had no old value: absent, not null."""
    return group.kind != Kind.ADDED


def new_present(group: Group) -> bool:
    """A removed key has no new value: absent, not null."""
    return group.kind != Kind.REMOVED


def set_by(group: Group) -> str:
    """How a source is introduced: a removed key's file set it at the baseline, any other sets it now."""
    return "was set by" if group.kind == Kind.REMOVED else "set by"


def without_waiver_note(message: str) -> str:
    """A contract message without its ` [waived: ...]` tail, which reports show once on their own."""
    cut = message.rfind(" [waived: ")
    return message[:cut] if cut != -1 else message


DETAIL_LINES = 5  # changes inside one list shown in a report line; JSON carries them all


def shows_detail(group: Group) -> bool:
    """A list holding mappings or lists is shown by what changed inside it; a list of scalars reads whole."""
    nested = any(isinstance(item, (dict, list)) for side in (group.old, group.new) if isinstance(side, list) for item in side)
    return bool(group.finding.detail) and nested


def describe_group(group: Group) -> str:
    """What a group says, without its cases: `path: old -> new` for values, else its message.

    A changed list of mappings or lists says what changed inside it (its `detail`) rather than both lists.
    """
    if shows_detail(group):
        shown = list(group.finding.detail[:DETAIL_LINES])
        more = len(group.finding.detail) - len(shown)
        return "; ".join(shown) + (f"; and {more} more inside {group.path}" if more else "")
    if group.kind in VALUE_KINDS and group.path:
        return f"{group.path}: {show_value(group.old, old_present(group))} -> {show_value(group.new, new_present(group))}"
    if group.kind == Kind.EFFECTIVE and group.path and group.new is not None:
        return f"{group.path}: {show_value(group.old)} -> {show_value(group.new)} {EFFECTIVE_NOTE}"
    if group.kind == Kind.MISSING_GOLDEN:
        return "no golden; run generate"
    if group.kind == Kind.FORMAT:
        return "golden differs in text but not in meaning; regenerate it"
    if group.kind == Kind.CONTRACT_CHANGE:
        return f"contract change: {group.message}"
    return without_waiver_note(group.message)


def _by_tier(groups: Sequence[Group]) -> dict[Tier, list[Group]]:
    tiers: dict[Tier, list[Group]] = {}
    for group in groups:
        tiers.setdefault(group.tier, []).append(group)
    return tiers


def _severity_tag(severity: str, color: bool) -> str:
    if severity not in (ERROR, WARNING):
        return ""
    return paint(severity.upper(), severity.upper(), color) + " "


def _text_line(group: Group, all_ids: Sequence[str], color: bool) -> str:
    where = describe_cases(group.cases, all_ids)
    source = f"; {set_by(group)} {group.source}" if group.source is not None else ""
    return f"  {_severity_tag(group.severity, color)}{printable(f'{describe_group(group)}  ({where}{source})')}"


def waived_lines(groups: list[Group], all_ids: Sequence[str], verbose: bool) -> list[str]:
    """One line per distinct waived finding with its case count (every case when verbose), each reason once."""
    total = sum(len(g.cases) for g in groups)
    cases = {case for g in groups for case in g.cases}
    lines = [
        f"{TIER_TITLES[Tier.WAIVED]}: {total} on {len(cases)} case{'s' * (len(cases) != 1)}, {len(groups)} distinct"
        + ("" if verbose else " (--verbose names every case)") + ":"
    ]
    previous = None
    for group in sorted(groups, key=lambda g: (g.waiver, g.contract, g.path, g.message)):
        where = describe_cases(group.cases, all_ids) if verbose else f"{len(group.cases)} case{'s' * (len(group.cases) != 1)}"
        reason = "same reason" if group.waiver == previous else group.waiver
        lines.append(printable(f"  {describe_group(group)}  ({where})  waived: {reason}"))
        previous = group.waiver
    return lines


def to_text(
    result: MatrixResult, verbose: bool = False, quiet: bool = False, color: bool = False, include_info: bool = False
) -> str:
    """The report for people: a summary paragraph, then grouped findings in triage order, then the verdict.

    Refactors with unchanged values are folded and waived warnings summarized unless `verbose`; info that is
    not a difference (known fallbacks) shows with `verbose` or `include_info`. `quiet` keeps only errors and
    the verdict.
    """
    groups = group_findings(result.cases, result.findings)
    tiers = _by_tier(groups)
    all_ids = compared_ids(result)
    lines: list[str] = []
    if not quiet:
        lines += [printable(summary_paragraph(groups, result)), ""]
    for tier in LISTED_TIERS:
        listed = [g for g in tiers.get(tier, []) if not quiet or g.severity == ERROR]
        if listed:
            lines.append(f"{TIER_TITLES[tier]} ({count_paths(listed)}):")
            lines += [_text_line(g, all_ids, color) for g in listed]
    refactors = [g for g in tiers.get(Tier.REFACTOR, []) if not quiet or g.severity == ERROR]
    if refactors and verbose:
        lines.append(f"{TIER_TITLES[Tier.REFACTOR]} ({count_paths(refactors)}):")
        lines += [_text_line(g, all_ids, color) for g in refactors]
    elif refactors:
        lines.append(f"{TIER_TITLES[Tier.REFACTOR]}: {count_paths(refactors)} (folded; --verbose lists them)")
    if tiers.get(Tier.WAIVED) and not quiet:
        lines += waived_lines(tiers[Tier.WAIVED], all_ids, verbose)
    if tiers.get(Tier.NOTED) and (verbose or include_info) and not quiet:
        lines.append(f"{TIER_TITLES[Tier.NOTED]} ({len(tiers[Tier.NOTED])}):")
        lines += [_text_line(g, all_ids, color) for g in tiers[Tier.NOTED]]
    for orphan in result.orphans:
        lines.append(printable(f"orphan golden (no case): {orphan}; remove it with `generate --prune`"))
    for pruned in result.pruned:
        lines.append(printable(f"pruned orphan golden: {pruned}"))
    summary = summary_line(result)
    verdict, _, rest = summary.partition(":")
    lines.append(paint(verdict, verdict, color) + ":" + printable(rest))
    return "\n".join(lines) + "\n"


# ---- markdown: GitHub-flavored, with every piece of input escaped ----

def _value_cell(value: Any, present: bool) -> str:
    return code_span(show_value(value, present)) if present else ABSENT


def _cases_cell(group: Group, all_ids: Sequence[str]) -> str:
    return markdown_text(describe_cases(group.cases, all_ids))


def _source_cell(group: Group) -> str:
    if group.source is None:
        return ""
    return ("was " if group.kind == Kind.REMOVED else "") + code_span(str(group.source))


def _value_table(groups: list[Group], all_ids: Sequence[str]) -> list[str]:
    lines = ["| severity | path | old | new | cases | set by |", "|---|---|---|---|---|---|"]
    for g in groups:
        if g.path and (g.kind != Kind.EFFECTIVE or g.new is not None) and not shows_detail(g):
            old, new = _value_cell(g.old, old_present(g)), _value_cell(g.new, new_present(g))
            note = f" {markdown_text(EFFECTIVE_NOTE)}" if g.kind == Kind.EFFECTIVE else ""
            lines.append(
                f"| {g.severity} | {code_span(g.path)}{note} | {old} | {new} | {_cases_cell(g, all_ids)} | {_source_cell(g)} |"
            )
        else:
            # An effective change or a pathless finding says itself best in its own words.
            path = code_span(g.path) if g.path else markdown_text(str(g.kind))
            lines.append(f"| {g.severity} | {path} | {markdown_text(describe_group(g))} | | {_cases_cell(g, all_ids)} | {_source_cell(g)} |")
    return lines


def _finding_table(groups: list[Group], all_ids: Sequence[str]) -> list[str]:
    # Kinds are the harness's own vocabulary, so they need no escaping.
    lines = ["| severity | kind | path | finding | cases | set by |", "|---|---|---|---|---|---|"]
    lines += [
        f"| {g.severity} | {g.kind} | {code_span(g.path) if g.path else ''} | {markdown_text(without_waiver_note(g.message))} "
        f"| {_cases_cell(g, all_ids)} | {_source_cell(g)} |"
        for g in groups
    ]
    return lines


def _folded(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{markdown_text(summary)}</summary>", "", *body, "", "</details>", ""]


def to_markdown(result: MatrixResult, title: str = "config-harness", include_info: bool = False) -> str:
    """A pull-request summary: the summary paragraph, one table per triage tier, refactors and waivers folded.

    `title` is markdown written by the caller (escape any input in it with code_span or markdown_text).
    """
    groups = group_findings(result.cases, result.findings)
    tiers = _by_tier(groups)
    all_ids = compared_ids(result)
    lines = [f"## {title}", "", markdown_text(summary_paragraph(groups, result)), ""]
    if result.baseline:
        lines += [f"Compared with {code_span(result.baseline, in_table=False)}.", ""]
    lines += [markdown_text(summary_line(result)), ""]
    for tier in LISTED_TIERS:
        listed = tiers.get(tier, [])
        if listed:
            lines += [f"### {TIER_TITLES[tier]} ({count_paths(listed)})", ""]
            lines += _finding_table(listed, all_ids) if tier == Tier.BLOCKING else _value_table(listed, all_ids)
            lines.append("")
    if tiers.get(Tier.REFACTOR):
        refactors = tiers[Tier.REFACTOR]
        lines += _folded(f"{TIER_TITLES[Tier.REFACTOR]} ({count_paths(refactors)})", _value_table(refactors, all_ids))
    if tiers.get(Tier.WAIVED):
        waived = tiers[Tier.WAIVED]
        total = sum(len(g.cases) for g in waived)
        table = ["| finding | cases | waiver reason |", "|---|---|---|"]
        table += [
            f"| {markdown_text(describe_group(g))} | {_cases_cell(g, all_ids)} | {markdown_text(g.waiver)} |"
            for g in sorted(waived, key=lambda g: (g.waiver, g.contract, g.path))
        ]
        lines += _folded(f"{TIER_TITLES[Tier.WAIVED]}: {total}, {len(waived)} distinct", table)
    if tiers.get(Tier.NOTED) and include_info:
        lines += _folded(f"{TIER_TITLES[Tier.NOTED]} ({len(tiers[Tier.NOTED])})", _finding_table(tiers[Tier.NOTED], all_ids))
    for orphan in result.orphans:
        lines.append(f"- orphan golden: {code_span(orphan, in_table=False)}")
    return "\n".join(lines) + "\n"


# ---- GitHub workflow commands ----


def to_github(result: MatrixResult) -> str:
    """GitHub workflow commands: one annotation per distinct error or warning, at the config line that sets it.

    A review's differences are info: each changed, removed or added value becomes a `notice` on its line, so a
    pull request shows what it changes where it changes it.
    """
    groups = group_findings(result.cases, result.findings)
    all_ids = compared_ids(result)
    lines = []
    for group in groups:
        noticed = group.severity == INFO and group.tier in (Tier.CHANGED, Tier.REMOVED, Tier.ADDED)
        if (group.severity not in (ERROR, WARNING) and not noticed) or group.tier == Tier.NOTED:
            continue
        file, line = group.anchor
        waived = f" [waived: {group.waiver}]" if group.waiver else ""
        message = f"{describe_group(group)}{waived} ({describe_cases(group.cases, all_ids)})"
        title = f"{group.kind} {group.path}".strip()
        command = "notice" if noticed else str(group.severity)
        lines.append(workflow_command(command, message, file=file, line=line, title=title))
    for orphan in result.orphans:
        lines.append(workflow_command("error", "orphan golden with no case; remove it with `generate --prune`", file=orphan))
    lines.append(escape_data(summary_line(result)))
    return "\n".join(lines) + "\n"


def changes_markdown(title: str, changes: list[dict[str, Any]], group: str = "file", notes: Sequence[str] = ()) -> str:
    """`diff` rows as markdown: one table per `group` value (file or case), or one table for two files.

    `title` and `notes` are markdown written by the caller; every value from the rows is escaped here.
    """
    lines = [f"## {title}", "", f"{len(changes)} change(s)", ""] + [f"- {note}" for note in notes]
    if notes:
        lines.append("")
    by_group: dict[str, list[dict[str, Any]]] = {}
    for row in changes:
        by_group.setdefault(row.get(group, ""), []).append(row)
    for name, rows in by_group.items():
        if name:
            lines += [f"### {code_span(name, in_table=False)}", ""]
        lines += ["| kind | path | old | new |", "|---|---|---|---|"]
        lines += [
            f"| {markdown_text(r['kind'])} | {code_span(r['path'])} | {_value_cell(r['old'], r['kind'] != Kind.ADDED)} "
            f"| {_value_cell(r['new'], r['kind'] != Kind.REMOVED)} |"
            for r in rows
        ]
        lines.append("")
    return "\n".join(lines) + "\n"
