"""The markdown report for pull requests (GitHub-flavored), with every piece of input escaped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from harness.findings import ERROR, WARNING, Kind, MatrixResult, Severity
from harness.grouping import TIER_TITLES, Group, Tier, compared_ids, count_paths, describe_cases, group_findings, summary_paragraph
from harness.reporters.base import ReportOptions
from harness.reporters.common import (
    ABSENT,
    EFFECTIVE_NOTE,
    LISTED_TIERS,
    by_tier,
    describe_group,
    new_present,
    old_present,
    show_value,
    shows_detail,
    summary_line,
    without_waiver_note,
)

# Underscores inside a word (snake_case keys) never emphasize in GitHub markdown, so they stay readable.
MARKDOWN_SPECIAL = re.compile(r"[\\`*|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
LINK_TARGET = re.compile(r"\](?=[(\[:])")  # `[text](url)`, `[text][ref]`, `[ref]: url`: a bracket stays text
LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")


def markdown_text(text: str) -> str:
    """Plain text safe in a markdown table cell or paragraph: no HTML, no markup, no extra cells, one line."""
    text = LINE_BREAKS.sub(" ", str(text))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return LINK_TARGET.sub(r"\\]", MARKDOWN_SPECIAL.sub(lambda match: "\\" + match.group(), text))


def code_span(text: str, in_table: bool = True) -> str:
    """`text` as an inline code span that no backtick inside can end early; pipes escaped inside tables.

    A code span shows HTML as text, so only its fence and (in a table, where GitHub splits cells first) the
    pipe need care.
    """
    text = LINE_BREAKS.sub(" ", str(text))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ") and text.strip()):
        text = f" {text} "
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def _value_cell(value: Any, present: bool) -> str:
    return code_span(show_value(value, present)) if present else ABSENT


def _cases_cell(group: Group, all_ids: list[str]) -> str:
    return markdown_text(describe_cases(group.cases, all_ids))


def _source_cell(group: Group) -> str:
    if group.source is None:
        return ""
    return ("was " if group.kind == Kind.REMOVED else "") + code_span(str(group.source))


def _value_table(groups: list[Group], all_ids: list[str]) -> list[str]:
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


def _finding_table(groups: list[Group], all_ids: list[str]) -> list[str]:
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
    tiers = by_tier(groups)
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


class MarkdownReporter:
    """`--format markdown`: a pull-request summary; warnings name their file too."""

    name = "markdown"
    sourced: frozenset[Severity] = frozenset({ERROR, WARNING})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The markdown report."""
        return to_markdown(result, title=options.title, include_info=options.verbose or options.review)


REPORTER = MarkdownReporter()
