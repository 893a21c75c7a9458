"""The markdown report for pull requests (GitHub-flavored), with every piece of input escaped."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from harness.gates import linear
from harness.gates.escape import LINE_BREAKS, code_span, markdown_text, printable
from harness.model.findings import ERROR, INFO, WARNING, Kind, MatrixResult, Severity
from harness.model.grouping import (
    TIER_TITLES,
    Group,
    Tier,
    compared_ids,
    count_paths,
    describe_cases,
    group_findings,
    summary_paragraph,
    tier_heading,
)
from harness.model.semantic_diff import ABSENT, show_value
from harness.reporters.base import ReportOptions
from harness.reporters.layout import (
    EFFECTIVE_NOTE,
    LISTED_TIERS,
    SHOWN_LAUNCHES,
    Fold,
    accounted_line,
    alike_rows,
    approvals_line,
    by_tier,
    describe_group,
    fix_text,
    folded,
    known_count,
    launch_where,
    member_lines,
    merged_launches,
    mode_words,
    new_present,
    old_present,
    rules_line,
    shows_detail,
    summary_line,
    without_waiver_note,
    write_change,
)
from harness.reporters.steps import next_steps

SHORT_VALUE = 32  # characters of a value shown in a table cell; the full value is in a folded block below it
MAX_ROWS = 20  # a longer table is folded in <details>
BREAK_AFTER = linear.compile(r"([./])")
LONG_WORD = linear.compile(r"\S{25,}")
CODE_WORD = linear.compile(r"`([^`\s]+)`([^\w`]*)")  # only a word this long can widen a cell past its share of 1000 px
SEVERITY_TITLES = ((ERROR, "Errors"), (WARNING, "Warnings"), (INFO, "Differences"))


def _value_cell(value: Any, present: bool) -> str:
    return code_span(show_value(value, present, SHORT_VALUE)) if present else ABSENT


def breakable_code(text: str) -> str:
    """`text` as inline code that may wrap after a dot or a slash, so a long path never widens its table.

    Raw `<code>` with `<wbr>` instead of a code span: a code span cannot hold a break opportunity. The text is
    escaped as markdown text (HTML, markup and pipes), then the breaks are inserted.
    """
    return "<code>" + BREAK_AFTER.sub(_break, markdown_text(text)) + "</code>"


def _cases_cell(group: Group, all_ids: Sequence[str]) -> str:
    # A count reads at a glance; the list (often long globs) stays folded so it cannot widen the table.
    if len(group.cases) <= 1 or set(group.cases) >= set(all_ids):
        return markdown_text(describe_cases(group.cases, all_ids))
    listed = markdown_text(describe_cases(group.cases, all_ids, counted=False))
    return f"<details><summary>{len(group.cases)} cases</summary>{listed}</details>"


def _source_cell(group: Group | Fold) -> str:
    first = group.first if isinstance(group, Fold) else group
    source = group.source_file() if isinstance(group, Fold) else group.source
    if source is None:
        return ""
    return ("was " if first.kind == Kind.REMOVED else "") + breakable_code(str(source))


def _change(group: Group) -> tuple[str, bool]:
    """The `change` cell of a value (`old → new`) and whether a value had to be shortened."""
    # A code write's `old` is the write at the base (none: `null`), never the YAML value it replaces: `write_change` says it.
    if (
        group.path
        and group.kind not in (Kind.LAUNCH, Kind.CONFIG_WRITE)
        and (group.kind != Kind.EFFECTIVE or group.new is not None)
        and not shows_detail(group)
    ):
        old_shown, new_shown = show_value(group.old, old_present(group)), show_value(group.new, new_present(group))
        cut = any(len(shown) > SHORT_VALUE for shown in (old_shown, new_shown))
        note = f" {markdown_text(EFFECTIVE_NOTE)}" if group.kind == Kind.EFFECTIVE else ""
        return f"{_value_cell(group.old, old_present(group))} → {_value_cell(group.new, new_present(group))}{note}", cut
    # An effective change or a pathless finding says itself best in its own words; a code write the change it makes
    # (`1 -> 4`, harness/reporters/layout.py `write_change`) before them, its path in the path column.
    written = write_change(group) if group.kind == Kind.CONFIG_WRITE else ""
    return breakable_text(written.removeprefix(f"{group.path}: ") or describe_group(group)), False


def _full_values(groups: list[Group]) -> list[str]:
    """Every shortened value in full, as a fenced block (folded) that no content can close early."""
    rows = [f"{g.path}: {show_value(g.old, old_present(g), 10**9)} -> {show_value(g.new, new_present(g), 10**9)}" for g in groups]
    text = "\n".join(printable(LINE_BREAKS.sub(" ", row)) for row in rows)
    fence = "`" * max(3, 1 + max((len(run) for run in linear.compile(r"`+").findall(text)), default=0))
    return _folded(f"Full values ({len(rows)})", [fence, text, fence])


def _value_table(items: list[Group | Fold], all_ids: Sequence[str]) -> list[str]:
    lines = ["| path | change | cases | set by |", "|---|---|---|---|"]
    shortened = []
    for item in items:
        if isinstance(item, Fold):
            what = item.describe().removeprefix(item.root + (".* " if item.whole else ": "))
            lines.append(
                f"| {breakable_code(item.root + ('.*' if item.whole else ''))} | {markdown_text(what)} "
                f"| {_cases_cell(item.first, all_ids)} | {_source_cell(item)} |"
            )
            continue
        change, cut = _change(item)
        path = breakable_code(item.path) if item.path else markdown_text(str(item.kind))
        where = _where_cell(item, all_ids) if item.launches else _cases_cell(item, all_ids)
        lines.append(f"| {path} | {change} | {where} | {'' if item.launches else _source_cell(item)} |")
        if cut:
            shortened.append(item)
    return lines + ([""] + _full_values(shortened) if shortened else [])


INLINE_CODE = linear.compile(r"`([^`\n]+)`")


def breakable_text(text: str) -> str:
    """`text` escaped as markdown text, with a break opportunity after each dot or slash inside a word: a dotted key
    or a script path in a message wraps instead of widening its table past the page. What a message writes as
    inline code (`config-harness known`) renders as code, never as literal backticks."""
    parts = INLINE_CODE.split(text)  # even: plain text; odd: what was between backticks
    return "".join(
        LONG_WORD.sub(_breakable_word, markdown_text(part)) if index % 2 == 0 else breakable_code(part) for index, part in enumerate(parts)
    )


def _break(match: linear.Match[str]) -> str:
    return match[1] + "<wbr>"


def _break_inside(text: str) -> str:
    """A break opportunity after each `.` and `/` with no whitespace on either side (was `(?<=\\S)([./])(?=\\S)`)."""
    last = len(text) - 1
    return "".join(
        char + "<wbr>" if char in "./" and 0 < index < last and not text[index - 1].isspace() and not text[index + 1].isspace() else char
        for index, char in enumerate(text)
    )


def _breakable_word(word: linear.Match[str]) -> str:
    """A long word with break opportunities: a code span the sink made (a `sh#1` that GitHub would link) as raw
    `<code>` that may wrap, any other word after its dots and slashes; a word with part of a span, as it is."""
    text = word.group()
    span = CODE_WORD.fullmatch(text)
    if span is not None:
        return "<code>" + BREAK_AFTER.sub(_break, html.escape(span.group(1), quote=False)) + "</code>" + span.group(2)
    return text if "`" in text else _break_inside(text)


def _where_cell(group: Group, all_ids: Sequence[str]) -> str:
    """The cases of a finding, or its launches' script lines (the first few; every one folded below them)."""
    if not group.launches:
        source = _source_cell(group)
        return _cases_cell(group, all_ids) + (f"<br>set by {source}" if source else "")
    where = breakable_text(launch_where(group, all_ids))
    if len(group.launches) <= SHOWN_LAUNCHES:
        return where
    every = "<br>".join(breakable_text(line) for line in member_lines(group))
    return f"{where}<details><summary>every launch</summary>{every}</details>"


def _finding_table(groups: list[Group], all_ids: Sequence[str]) -> list[str]:
    """One row per cause: what it says, where (cases, or launches' script lines) and the fix in the script's text."""
    rows = alike_rows(merged_launches(groups))
    fixes = [fix_text(row.first).removeprefix("fix: ") for row in rows]
    lines = ["| finding | where | fix |", "|---|---|---|"] if any(fixes) else ["| finding | where |", "|---|---|"]
    for row, fix in zip(rows, fixes, strict=True):
        g = row.first
        cells = [breakable_text(row.prefix() + without_waiver_note(describe_group(g)) + row.suffix()), _where_cell(g, all_ids)]
        lines.append("| " + " | ".join(cells + ([breakable_text(fix)] if any(fixes) else [])) + " |")
    return lines


def _folded(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{markdown_text(summary)}</summary>", "", *body, "", "</details>", ""]


def _section(title: str, table: list[str], open_always: bool = False) -> list[str]:
    """A table under its title, folded when it is longer than MAX_ROWS (never what blocks: `open_always`)."""
    if not open_always and len([line for line in table if line.startswith("| ")]) - 1 > MAX_ROWS:
        return _folded(title, table)
    return [f"#### {markdown_text(title)}", "", *table, ""]


def to_markdown(result: MatrixResult, options: ReportOptions) -> str:
    """A pull-request summary that fits 1000 px: the summary, a section per severity with a table per triage tier
    (path, change, cases, set by), long tables and values folded, refactors and waivers folded, the next steps.

    `options.title` is markdown written by the caller (escape any input in it with code_span or markdown_text).
    """
    groups = group_findings(result.cases, result.findings, notes=options.verbose or options.review)
    tiers = by_tier(groups)
    all_ids = compared_ids(result)
    verdict, _, counted = summary_line(result, groups).partition(": ")
    # The verdict and its counts first (in a review, right under the line that says which settings decided it: the
    # interface's first line), then what blocks (open); every other section is folded.
    settings = [markdown_text(rules_line(result.rules)) + "  "] if result.rules is not None else []
    lines = [*settings, f"**{verdict}**: {markdown_text(counted)}", ""]
    lines += [markdown_text(approvals_line(result.approvals)) + "  ", ""] if approvals_line(result.approvals) else []
    lines += [f"## {options.title}", ""]
    if result.comparison is not None:
        old, new = (breakable_code(side) for side in (result.comparison.old, result.comparison.new))  # a long path wraps
        lines += [f"Comparing {markdown_text(mode_words(result))}: {old} → {new}.", ""]
    lines += [markdown_text(summary_paragraph(groups, result)), ""]
    if result.baseline:
        lines += [f"Compared with {code_span(result.baseline, in_table=False)}.", ""]
    if accounted_line(result) and any(f.kind == Kind.UNVERIFIED for f in result.findings):
        lines += [markdown_text(accounted_line(result)) + ".", ""]
    for severity, heading in SEVERITY_TITLES:
        sections: list[str] = []
        for tier in LISTED_TIERS:
            listed = [g for g in tiers.get(tier, []) if g.severity == severity]
            if listed:
                table = (
                    _finding_table(listed, all_ids)
                    if tier in (Tier.SETTINGS, Tier.BROKEN, Tier.BLOCKING, Tier.UNVERIFIED)
                    else _value_table(folded(listed), all_ids)
                )
                title = tier_heading(tier, merged_launches(listed))
                sections += _section(title, table, open_always=True) if severity == ERROR else _folded(title, table)
        if sections:
            lines += [f"### {heading}", "", *sections]
    if tiers.get(Tier.REFACTOR):
        refactors = tiers[Tier.REFACTOR]
        lines += _folded(f"{TIER_TITLES[Tier.REFACTOR]} ({count_paths(refactors)})", _value_table(list(refactors), all_ids))
    if tiers.get(Tier.WAIVED):
        waived = tiers[Tier.WAIVED]
        total = sum(len(g.cases) for g in waived)
        table = ["| finding | cases | waiver reason |", "|---|---|---|"]
        table += [
            f"| {markdown_text(describe_group(g))} | {_cases_cell(g, all_ids)} | {markdown_text(g.waiver)} |"
            for g in sorted(waived, key=lambda g: (g.waiver, g.contract, g.path))
        ]
        lines += _folded(f"{TIER_TITLES[Tier.WAIVED]}: {total}, {len(waived)} distinct", table)
    if tiers.get(Tier.KNOWN):
        known = tiers[Tier.KNOWN]
        lines += _folded(known_count(known, listed=True).rstrip(":"), _finding_table(list(known), all_ids))
    if tiers.get(Tier.NOTED) and (options.verbose or options.review):
        lines += _folded(f"{TIER_TITLES[Tier.NOTED]} ({len(tiers[Tier.NOTED])})", _finding_table(tiers[Tier.NOTED], all_ids))
    for orphan in result.orphans:
        lines.append(f"- orphan golden: {code_span(orphan, in_table=False)}")
    steps = next_steps(groups, result, options)
    if steps:
        lines += ["", "**Next steps**", "", *[f"- {breakable_text(step)}" for step in steps]]
    return "\n".join(lines) + "\n"


class MarkdownReporter:
    """`--format markdown`: a pull-request summary; warnings name their file too."""

    name = "markdown"
    sink = "markdown"
    sourced: frozenset[Severity] = frozenset({ERROR, WARNING})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The markdown report."""
        return to_markdown(result, options)


REPORTER = MarkdownReporter()
