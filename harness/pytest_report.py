"""What the pytest plugin prints, in the text report's words: a few lines per failing test, one section per run."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from harness.gates.escape import printable
from harness.model.findings import ERROR, CaseResult, Finding, Kind, MatrixResult, fails
from harness.model.grouping import Group, Tier, compared_ids, group_findings, plural
from harness.reporters.base import NextSteps, ReportOptions
from harness.reporters.layout import Fold, cause_text, describe_group, folded, known_count, merged_launches, set_by, summary_line
from harness.reporters.steps import next_steps

# Lines under pytest's header of a failing test. A case has two tests (golden, semantics), so even when both fail
# it takes at most 2 × (header + BODY_LINES + its short-summary line) = 12 lines.
BODY_LINES = 4
MORE = "-vv lists them all"


def _groups(result: CaseResult, findings: Iterable[Finding]) -> list[Group]:
    return group_findings([replace(result, findings=tuple(findings))])


def _line(item: Group | Fold) -> str:
    """One value or folded subtree, as the text report says it, with the file that sets it."""
    if isinstance(item, Fold):
        text, source, verb = item.describe(), item.source_file(), set_by(item.first)
    elif item.kind == Kind.MISSING_GOLDEN:
        text, source, verb = "no golden yet; --snapshot-update writes it", None, ""
    else:
        text, source, verb = describe_group(item), item.source, set_by(item)
    return printable(text + (f"  ({verb} {source})" if source is not None else ""))


def error_lines(result: CaseResult, findings: Iterable[Finding], everything: bool = False) -> list[str]:
    """The errors among one case's `findings`: a line per value or folded subtree, in triage order, at most
    BODY_LINES of them (the last says how many more) unless `everything`."""
    lines = [_line(item) for item in folded([g for g in _groups(result, findings) if g.severity == ERROR])]
    if everything or len(lines) <= BODY_LINES:
        return lines
    shown = lines[: BODY_LINES - 1]
    return [*shown, f"… and {len(lines) - len(shown)} more ({MORE})"]


def waived(result: CaseResult) -> list[str]:
    """The case's waived warnings, one text each (the same text for the same warning on another case)."""
    return [describe_group(g) for g in _groups(result, result.findings) if g.tier == Tier.WAIVED]


def waived_line(by_case: Mapping[str, Sequence[str]]) -> str | None:
    """All waived warnings of the run as one line, as the text report counts them (None: there are none)."""
    total = sum(len(texts) for texts in by_case.values())
    if not total:
        return None
    cases = sum(1 for texts in by_case.values() if texts)
    distinct = len({text for texts in by_case.values() for text in texts})
    return (
        f"{plural(total, 'waived warning')} on {plural(cases, 'case')}, {distinct} distinct (`config-harness check --verbose` lists them)"
    )


def orphan_lines(orphans: Sequence[str], details: bool) -> list[str]:
    """Goldens without a case: a count and what to do, each golden listed only with `details` (as syrupy does)."""
    if not orphans:
        return []
    head = f"{plural(len(orphans), 'golden')} with no case: --snapshot-update removes "
    head += "them" if len(orphans) != 1 else "it"
    lines = [head + ("" if details else "; --snapshot-details lists " + ("them" if len(orphans) != 1 else "it"))]
    return lines + [printable(f"  {name}") for name in orphans] if details else lines


def run_errors(result: MatrixResult) -> list[str]:
    """The errors about the run as a whole (contract hygiene, a stale waiver under --strict-waivers), then each cause
    that fails a launch command (launch cases have no golden, so they have no test of their own), one line per cause
    as `check` writes it: a key an interpolation still reads, renamed, is one line with the cases and launches it
    breaks and the line that reads it, never a line per launch."""
    lines = [_line(g) for g in group_findings([], result.findings) if g.severity == ERROR]
    failing = [replace(r, findings=tuple(f for f in r.findings if fails(f))) for r in result.cases]
    causes = [g for g in merged_launches(group_findings(r for r in failing if r.findings)) if g.launches]
    all_ids = compared_ids(result)
    return lines + [printable(cause_text(group, all_ids)) for group in causes]


def run_warnings(result: MatrixResult) -> list[str]:
    """The warnings about the run as a whole (a waiver that excuses nothing), each on its line."""
    return [printable(f"warning: {describe_group(g)}") for g in group_findings([], result.findings) if g.severity != ERROR]


def verdict_line(result: MatrixResult, updated: bool) -> str:
    """The run's verdict with its counts, as `check` states it (after --snapshot-update, of the goldens as written),
    with the known findings counted as check counts them."""
    cases = tuple(r.written_out() for r in result.cases) if updated else result.cases
    groups = group_findings(cases, result.findings)
    known = [g for g in groups if g.tier == Tier.KNOWN]
    known_line = f" ({known_count(known, lists='`config-harness check --verbose`')})" if known else ""
    return printable(summary_line(replace(result, cases=cases), groups) + known_line)


def rewrite_command(settings_option: str | None = None) -> str:
    """pytest's command that rewrites the goldens and runs nothing else: plain `pytest --snapshot-update` in a
    repository with a suite of its own (verl's) collects that suite too, and fails on it."""
    return shlex.join(
        ["pytest", "--config-harness", *(["--config-harness-settings", settings_option] if settings_option else []), "--snapshot-update"]
    )


def generate_command(settings_option: str | None = None) -> str:
    """The CLI's `generate` for the plugin's settings: what writes the record of the code's config writes, which
    `--snapshot-update` does not."""
    return shlex.join(["config-harness", *(["--settings", settings_option] if settings_option else []), "generate"])


def next_lines(
    result: MatrixResult, goldens: str, updated: bool, rewrite: str | None = None, settings_option: str | None = None
) -> list[str]:
    """What to do about the run's errors, as `check` says it, with pytest's command for rewriting goldens (`rewrite`,
    default `rewrite_command()`).

    After --snapshot-update the differences are written, so only what rewriting cannot settle is left.
    """
    cases = tuple(r.written_out() for r in result.cases) if updated else result.cases
    settled = replace(result, cases=cases, orphans=())  # orphans have their own line (pytest's options)
    steps = NextSteps(regenerate=rewrite or rewrite_command(), goldens=goldens, generate=generate_command(settings_option))
    return [printable(f"Next: {step}") for step in next_steps(group_findings(cases, result.findings), settled, ReportOptions(steps=steps))]
