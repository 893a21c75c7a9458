"""The text report for people at a terminal, with every piece of input kept on its line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType

from harness.gates.escape import printable
from harness.model.findings import ERROR, WARNING, CaseResult, MatrixResult, Severity, TargetReason
from harness.model.grouping import (
    LAUNCH_NEWS,
    TIER_TITLES,
    Group,
    Tier,
    compared_ids,
    count_paths,
    counts,
    describe_cases,
    group_findings,
    summary_paragraph,
    tier_heading,
)
from harness.model.semantic_diff import ABSENT, show_value
from harness.reporters.base import CaseList, KeyHistory, ReportOptions
from harness.reporters.layout import (
    LISTED_TIERS,
    Fold,
    accounted_line,
    approvals_line,
    by_tier,
    cause_text,
    describe_group,
    folded,
    known_count,
    launches_line,
    member_lines,
    merged_launches,
    mode_line,
    origin_count,
    rules_line,
    set_by,
    summary_line,
    waived_count,
)
from harness.reporters.steps import next_steps

SCREEN_LINES = 40  # a report longer than this scrolls its first line away on a terminal (issue 56: 100x50 screens)

COLORS = MappingProxyType(
    {
        "ok": "32",
        "OK": "1;32",
        "changed": "31",
        "new": "33",
        "error": "1;31",
        "FAILED": "1;31",
        "ERROR": "31",
        "WARNING": "33",
        "INFO": "2",
    }
)


def paint(text: str, style: str, color: bool) -> str:
    """`text` in the ANSI color for `style` when `color`, else unchanged."""
    return f"\033[{COLORS[style]}m{text}\033[0m" if color and style in COLORS else text


def _severity_tag(severity: str, color: bool) -> str:
    if severity not in (ERROR, WARNING):
        return ""
    return paint(severity.upper(), severity.upper(), color) + " "


def _text_line(group: Group, all_ids: Sequence[str], color: bool, listed: bool = False) -> str:
    """One line for one cause: what it says, then where (its cases, or its launches' script lines) and its fix."""
    return f"  {_severity_tag(group.severity, color)}{printable(cause_text(group, all_ids, listed))}"


def _group_lines(group: Group, all_ids: Sequence[str], options: ReportOptions) -> list[str]:
    """A cause's line; with `verbose`, a line under it for each launch it holds (its line, override and fix)."""
    listed = options.verbose and len(group.launches) > 1
    lines = [_text_line(group, all_ids, options.color, listed)]
    if listed:
        lines += [printable(f"      {line}") for line in member_lines(group)]
    return lines


def _item_lines(items: list[Group | Fold], all_ids: Sequence[str], options: ReportOptions) -> list[str]:
    """A line per group, a line per folded subtree; `verbose` lists a fold's leaves and a group's launches under it."""
    lines = []
    for item in items:
        if isinstance(item, Group):
            lines += _group_lines(item, all_ids, options)
            continue
        file = item.source_file()
        source = f"; {set_by(item.first)} {file}" if file else ""
        where = describe_cases(item.first.cases, all_ids)
        lines.append(f"  {_severity_tag(item.first.severity, options.color)}{printable(f'{item.describe()}  ({where}{source})')}")
        if options.verbose:
            lines += ["  " + _text_line(g, all_ids, options.color) for g in item.groups]
    return lines


def waived_lines(groups: list[Group], all_ids: Sequence[str]) -> list[str]:
    """One line per distinct waived finding with its cases, each reason once."""
    lines = [f"{TIER_TITLES[Tier.WAIVED]} ({sum(len(g.cases) for g in groups)}, {len(groups)} distinct):"]
    previous = None
    for group in sorted(groups, key=lambda g: (g.waiver, g.contract, g.path, g.message)):
        reason = "same reason" if group.waiver == previous else group.waiver
        lines.append(printable(f"  {describe_group(group)}  ({describe_cases(group.cases, all_ids)})  waived: {reason}"))
        previous = group.waiver
    return lines


def to_text(result: MatrixResult, options: ReportOptions) -> str:
    """The report for people: quiet on success, and on failure the errors, the next step and the verdict last.

    A run with nothing to list is one line. Otherwise: a summary paragraph, grouped findings in triage order,
    then one count line each for folded refactors and waived warnings (`verbose` lists them), the next steps,
    and the verdict. Info that is not a difference (known fallbacks) shows with `verbose` or in a review.
    `quiet` keeps only errors, the next steps and the verdict.
    """
    verbose, quiet, color = options.verbose, options.quiet, options.color
    groups = group_findings(result.cases, result.findings, notes=verbose or options.review)
    tiers = by_tier(groups)
    all_ids = compared_ids(result)
    shown = [g for tier in LISTED_TIERS for g in tiers.get(tier, []) if not quiet or g.severity == ERROR]
    refactors = [g for g in tiers.get(Tier.REFACTOR, []) if not quiet or g.severity == ERROR]
    noted = tiers.get(Tier.NOTED, []) if (verbose or options.review) and not quiet else []
    waived = tiers.get(Tier.WAIVED, []) if not quiet else []
    known = tiers.get(Tier.KNOWN, []) if not quiet else []
    by_origin = [(tier, tiers[tier]) for tier in (Tier.AT_BASE, Tier.FIXED) if tiers.get(tier) and not quiet]
    lines: list[str] = []
    news = [g for g in noted if g.kind in LAUNCH_NEWS]  # a review's new or moved launches are named, never only counted
    if shown or refactors or result.orphans or result.pruned or by_origin or news or (verbose and (waived or noted or known)):
        if not quiet:
            lines += [printable(summary_paragraph(groups, result)), ""]
        for tier in LISTED_TIERS:
            listed = [g for g in shown if g.tier == tier]
            if listed:
                merged = merged_launches(listed)
                lines.append(f"{tier_heading(tier, merged)}:")
                if tier == Tier.UNVERIFIED and accounted_line(result):  # how the whole diff was accounted for
                    lines.append(printable(f"  ({accounted_line(result)})"))
                lines += _item_lines(folded(merged), all_ids, options)
        if refactors and verbose:
            lines.append(f"{TIER_TITLES[Tier.REFACTOR]} ({count_paths(refactors)}):")
            lines += [_text_line(g, all_ids, color) for g in refactors]
        elif refactors:
            lines.append(f"{TIER_TITLES[Tier.REFACTOR]}: {count_paths(refactors)} (folded; --verbose lists them)")
        if noted:
            lines.append(f"{TIER_TITLES[Tier.NOTED]} ({len(noted)}):")
            lines += [_text_line(g, all_ids, color) for g in noted]
        if waived and verbose:
            lines += waived_lines(waived, all_ids)
        elif waived:
            lines.append(waived_count(waived))
        if known:
            lines.append(known_count(known, listed=verbose))
            if verbose:
                lines += _item_lines(list(known), all_ids, options)
        for tier, groups_of_origin in by_origin:
            lines.append(origin_count(groups_of_origin, tier, listed=verbose))
            if verbose:
                lines += _item_lines(folded(groups_of_origin), all_ids, options)
        for orphan in result.orphans:
            lines.append(printable(f"orphan golden (no case): {orphan}"))
        for pruned in result.pruned:
            lines.append(printable(f"pruned orphan golden: {pruned}"))
        lines += [printable(f"Next: {step}") for step in next_steps(groups, result, options)]
    anything_listed = bool(lines)
    # A review keeps only what the change did: the per-case notes the counts are made of are check's (they would
    # all read 0 here).
    # The counts say how the program sees every case, the same on every run: on request only (a green check is short).
    program = target_counts_line(result.cases) if not options.review and verbose else None
    if program and not quiet:
        lines.insert(max(len(lines) - len(next_steps(groups, result, options)), 0), printable(program))
    if launches_line(result.launches) and not quiet:
        lines.insert(0, printable(launches_line(result.launches)))
    if approvals_line(result.approvals):
        lines.insert(0, printable(approvals_line(result.approvals)))
    if rules_line(result.rules):
        lines.insert(0, printable(rules_line(result.rules)))
    if mode_line(result) and not quiet:
        lines.insert(0, printable(mode_line(result)))
    summary = summary_line(result, groups)
    verdict, _, rest = summary.partition(":")
    if waived and not anything_listed:
        rest += f" ({sum(len(g.cases) for g in waived)} waived, {len(waived)} distinct; --verbose lists them)"
    if known and not anything_listed:
        rest += f" ({known_count(known)})"
    shown_verdict = paint(verdict, verdict, color) + ":" + printable(rest)
    # The verdict is the first line (what a reader of a long report needs first); a failing one is the last too,
    # below a report of more than a line, and a passing one below a report longer than a screen: a terminal shows the
    # end of what scrolled by. A passing verdict above a screenful is said once. A review's first line says which
    # settings decided it (the interface's rule), the verdict next.
    head = 1 if rules_line(result.rules) else 0
    again = bool(lines[head:]) and (not result.ok or len(lines) > SCREEN_LINES)
    return "\n".join(lines[:head] + [shown_verdict] + lines[head:] + ([shown_verdict] if again else [])) + "\n"


class TextReporter:
    """`--format text`: for people at a terminal."""

    name = "text"
    sink = "text"
    sourced: frozenset[Severity] = frozenset({ERROR})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The text report."""
        return to_text(result, options)

    def cases(self, listing: CaseList, options: ReportOptions) -> str:
        """`list`: a line per case (id, golden or script line, overrides); quiet: the ids; verbose: the programs
        that are no Hydra application too."""
        if options.quiet:
            return _lines(str(row["id"]) for row in listing.rows)
        lines = []
        for row in listing.rows:
            where = row.get("golden") or row.get("source")
            lines.append(
                f"{row['id']:<48} {where}  [{' '.join(row['overrides'])}]"
                + (f"  not extracted: {row['reason']}" if row.get("reason") else "")
            )
        for other in listing.not_launches if options.verbose else ():
            shown = ", ".join(other["sources"][:3]) + (f" and {len(other['sources']) - 3} more" if len(other["sources"]) > 3 else "")
            lines.append(f"not a launch: {other['program']}: {other['why']} ({len(other['sources'])} command(s): {shown})")
        return _lines(lines)

    def log(self, history: KeyHistory, options: ReportOptions) -> str:
        """`log`: a line per change, oldest first, and (not quiet) the count line."""
        answer, key = history.log, history.key
        lines = [answer.since.line(key, show_value(answer.since.value) if answer.since.present else ABSENT)] if answer.since else []
        for change in answer.changes:
            old = show_value(change.old) if change.old_present else ABSENT
            new = show_value(change.new) if change.new_present else ABSENT
            if change.composes_from:
                lines.append(
                    f"{change.commit[:12]} {change.date[:10]} composes from {change.commit[:12]} on: {new} "
                    f"(before it, {change.composes_from})  {change.subject}"
                )
            else:
                lines.append(f"{change.commit[:12]} {change.date[:10]} {old} -> {new}  {change.subject}")
        if not options.quiet:
            lines.append(f"{len(answer.changes)} change(s) of {key} in {history.case}")
        return _lines(lines)


def _lines(lines: Iterable[str]) -> str:
    """Lines of the text sink: each one shown as it is stored, input kept on its line (harness.gates.escape.printable)."""
    return "".join(printable(line) + "\n" for line in lines)


REPORTER = TextReporter()


def target_counts_line(results: Sequence[CaseResult]) -> str | None:
    """One line with the undeclared keys and Python-defaulted fields of each case (cases with the same counts
    written together); None when no case has a target finding."""
    per_case = {r.case.id: counts(r.findings) for r in results if r.case.config_name}
    if not any(sum(c.values()) for c in per_case.values()):
        return None
    total = {reason: sum(c.get(reason, 0) for c in per_case.values()) for reason in map(str, TargetReason)}
    alike: dict[tuple[int, int], list[str]] = {}
    for case_id, counted in per_case.items():
        alike.setdefault((counted["undeclared"], counted["defaulted"]), []).append(case_id)
    shown = "; ".join(
        f"{undeclared} undeclared, {defaulted} Python-defaulted on {describe_cases(ids, list(per_case), counted=False)}"
        for (undeclared, defaulted), ids in alike.items()
    )
    return (
        f"Program view (classes read from python_sources; an upper bound): {total['missing_class']} missing classes, "
        f"{total['required']} required fields without a value; per case: {shown}"
    )
