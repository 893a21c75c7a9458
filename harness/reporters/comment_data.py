"""`--format comment`: what a review's pull-request comment says, as data (JSON), for `config-harness comment`.

The pull-request job that writes it runs the pull request's own code, so the commenting workflow treats this
document as untrusted: `harness.reporters.pr_comment` checks it and renders the markdown itself, string by string through
the markdown sink. Hence data and not markdown: the only free text here is the error lines, and the verdict is
recomputed there from the counts.
"""

from __future__ import annotations

from typing import Any

from harness.gates.escape import json_text
from harness.model.findings import ERROR, WARNING, MatrixResult, Severity
from harness.model.grouping import Tier, compared_ids, group_findings, plural
from harness.reporters.base import ReportOptions
from harness.reporters.layout import Alike, alike_rows, cause_parts, cut_at_record, introduced, mode_properties, tally

SCHEMA = "config-harness-comment"
SCHEMA_VERSION = 1
LISTED = 14  # the comment's lines of causes, errors first, then warnings: with the rest of it, at most 30 lines
LINE_CHARACTERS = 300  # one cause's line, shortened past this
MIN_WHERE = 40  # where a cause is, shortened to make room for its fix and file, keeps at least this much


def cause_line(row: Alike, all_ids: Any) -> str:
    """One cause (or causes alike, with their count) on one line, as the text report says it: what, then where (its
    cases, or its launches as the text report counts them), its fix and the file that sets it. A line too long is
    shortened in where it is (at a record's end, never inside one), so the fix and the file stay on it."""
    what = row.describe()
    where, tail = cause_parts(row.first, all_ids)
    room = LINE_CHARACTERS - len(what) - len(tail) - 4  # the two spaces and the parentheses
    if len(where) > room >= MIN_WHERE:
        where = cut_at_record(where, room)
    return cut_at_record(f"{what}  ({where}{tail})", LINE_CHARACTERS)


def verdict(ok: bool, introduced_errors: int) -> str:
    """The review's verdict in a few words, for the step name in the checks list and the comment's heading: the
    blocking causes, counted as the verdict line of every other format counts them."""
    if introduced_errors:
        return f"config-harness: FAILED, {plural(introduced_errors, 'blocking cause')}"
    return "config-harness: OK, no blocking cause" if ok else "config-harness: FAILED"


def comment_document(result: MatrixResult, options: ReportOptions) -> dict[str, Any]:
    """The verdict, the introduced errors and then warnings (one line per cause, LISTED in all), the rest counted."""
    groups = group_findings(result.cases, result.findings)
    all_ids = compared_ids(result)
    mine = [g for g in groups if introduced(g)]
    counted = tally(result, groups)
    # Rows: alike causes are one row; the counts are the verdict line's (blocking causes), whatever the rows.
    errors = alike_rows([g for g in mine if g.severity == ERROR])
    warnings = alike_rows([g for g in mine if g.severity == WARNING])
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "title": verdict(result.ok, counted.causes),  # for the job's own step name; the comment recomputes it
        "ok": result.ok,
        "base": options.base,
        **mode_properties(result),
        # How many rows there are in all (alike causes share one): the comment says how many rows it left out.
        "rows": {"errors": len(errors), "warnings": len(warnings)},
        "errors": [cause_line(g, all_ids) for g in errors[:LISTED]],
        "warnings": [cause_line(g, all_ids) for g in warnings[: max(LISTED - len(errors), 0)]],
        "counts": {
            "introduced_errors": counted.causes,
            "introduced_warnings": counted.warning_causes,
            "differences": sum(g.severity not in (ERROR, WARNING) for g in mine),
            "at_base": counted.at_base,
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
