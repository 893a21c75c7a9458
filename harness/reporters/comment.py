"""`--format comment`: what a review's pull-request comment says, as data (JSON), for `config-harness comment`.

The pull-request job that writes it runs the pull request's own code, so the commenting workflow treats this
document as untrusted: `harness.pr_comment` checks it and renders the markdown itself, string by string through
the markdown sink. Hence data and not markdown: the only free text here is the error lines, and the verdict is
recomputed there from the counts.
"""

from __future__ import annotations

from typing import Any

from harness.gates.escape import json_text
from harness.model.findings import ERROR, WARNING, MatrixResult, Severity
from harness.model.grouping import Group, Tier, compared_ids, describe_cases, group_findings
from harness.reporters.base import ReportOptions
from harness.reporters.common import describe_group, introduced, mode_properties

SCHEMA = "config-harness-comment"
SCHEMA_VERSION = 1
LISTED = 14  # the comment's lines of causes, errors first, then warnings: with the rest of it, at most 30 lines
LINE_CHARACTERS = 300  # one cause's line, shortened past this


def cause_line(group: Group, all_ids: Any) -> str:
    """One cause on one line, as the text report says it: what, then on which cases."""
    line = f"{describe_group(group)}  ({describe_cases(group.cases, all_ids)})"
    return line if len(line) <= LINE_CHARACTERS else line[: LINE_CHARACTERS - 1] + "…"


def verdict(ok: bool, introduced_errors: int) -> str:
    """The review's verdict in a few words, for the step name in the checks list and the comment's heading."""
    if introduced_errors:
        return f"config-harness: {introduced_errors} introduced error{'s' * (introduced_errors != 1)}"
    return "config-harness: no introduced error" if ok else "config-harness: the review failed"


def comment_document(result: MatrixResult, options: ReportOptions) -> dict[str, Any]:
    """The verdict, the introduced errors and then warnings (one line per cause, LISTED in all), the rest counted."""
    groups = group_findings(result.cases, result.findings)
    all_ids = compared_ids(result)
    mine = [g for g in groups if introduced(g)]
    errors = [g for g in mine if g.severity == ERROR]
    warnings = [g for g in mine if g.severity == WARNING]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "title": verdict(result.ok, len(errors)),  # for the job's own step name; the comment recomputes it
        "ok": result.ok,
        "base": options.base,
        **mode_properties(result),
        "errors": [cause_line(g, all_ids) for g in errors[:LISTED]],
        "warnings": [cause_line(g, all_ids) for g in warnings[: max(LISTED - len(errors), 0)]],
        "counts": {
            "introduced_errors": len(errors),
            "introduced_warnings": len(warnings),
            "differences": sum(g.severity not in (ERROR, WARNING) for g in mine),
            "at_base": sum(g.tier == Tier.AT_BASE and g.severity == ERROR for g in groups),
            "excused": sum(
                g.tier in (Tier.WAIVED, Tier.KNOWN) or (bool(g.waiver or g.finding.status) and g.tier != Tier.AT_BASE) for g in groups
            ),
            "fixed": sum(g.tier == Tier.FIXED for g in groups),
        },
    }


class CommentReporter:
    """`--format comment`: the pull-request comment's content, as JSON."""

    name = "comment"
    sink = "json"
    sourced: frozenset[Severity] = frozenset({ERROR})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The comment document."""
        return json_text(comment_document(result, options)) + "\n"


REPORTER = CommentReporter()
