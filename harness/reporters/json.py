"""The JSON report for programs: per-case findings, the same findings grouped, and the schema version."""

from __future__ import annotations

from typing import Any

from harness.gates.escape import json_text
from harness.model.findings import ERROR, Kind, MatrixResult, Mode, Severity
from harness.model.grouping import counts as target_counts
from harness.model.grouping import group_findings, summary_paragraph
from harness.model.matrix import launch_condition
from harness.model.semantic_diff import ABSENT, change_row, show_value
from harness.reporters.base import CaseList, KeyHistory, ReportOptions
from harness.reporters.layout import (
    accounted_line,
    approvals_line,
    launches_line,
    mode_properties,
    rules_line,
    subtree_folds,
    summary_line,
    tally,
)
from harness.reporters.steps import next_steps

SCHEMA_VERSION = 2  # every JSON answer carries it; 2 added baseline, run-level findings, `gone` cases and groups


def result_as_dict(result: MatrixResult) -> dict[str, Any]:
    """The `check --format json` document: per-case findings, and the same findings grouped in triage order."""
    groups = group_findings(result.cases, result.findings)
    read_classes = any(f.kind == Kind.TARGET for r in result.cases for f in r.findings)
    return {
        "schema_version": SCHEMA_VERSION,
        **mode_properties(result),
        **({"settings": rules_line(result.rules)} if result.rules else {}),
        **({"approvals": approvals_line(result.approvals)} if approvals_line(result.approvals) else {}),
        **({"launches": launches_line(result.launches)} if result.launches else {}),
        **({"changed_files_line": accounted_line(result)} if result.accounted else {}),
        "ok": result.ok,
        # The verdict line and its counts, as every format states them (harness/reporters/layout.py: tally).
        "verdict": summary_line(result, groups),
        "counts": {name: value for name, value in vars(tally(result, groups)).items() if name != "ok"},
        "baseline": result.baseline,
        "summary": summary_paragraph(groups, result),
        "cases": [
            {
                "id": r.case.id,
                # A launch read under an environment its script tests: the condition its values hold under (issue 51).
                **({"when": when} if (when := launch_condition(r.case.id)) else {}),
                "golden": r.golden,
                "status": r.status,
                "findings": [f.as_dict() for f in r.findings],
                # What building each `_target_` node does, counted by reason (harness/runner/targets.py); an upper bound.
                **({"targets": target_counts(r.findings)} if read_classes else {}),
            }
            for r in result.cases
        ],
        "groups": [group.as_dict() for group in groups],
        "subtrees": [fold.as_dict() for fold in subtree_folds(groups)],
        "orphans": result.orphans,
        "findings": [f.as_dict() for f in result.findings],
        # A review: every file the pull request changes, compared, not relevant or not verified, with the reason.
        **(
            {"changed_files": [dict(zip(("file", "verdict", "reason", "line"), row, strict=True)) for row in result.accounted]}
            if result.accounted
            else {}
        ),
        **({"changes": change_rows(result)} if result.comparison is not None and result.comparison.mode != Mode.TREES else {}),
    }


def change_rows(result: MatrixResult) -> list[dict[str, Any]]:
    """The interface's `changes` of a diff of YAML documents: every leaf that differs, as `kind, path, old, new`
    (and `detail` for a list), each naming its `file` when two folders were compared."""
    folders = result.comparison is not None and result.comparison.folders
    return [{**change_row(change), **({"file": r.case.id} if folders else {})} for r in result.cases for change in r.changes]


def to_json(document: Any) -> str:
    """Stable JSON text; every JSON answer carries `schema_version` first."""
    if isinstance(document, dict):
        document = {"schema_version": SCHEMA_VERSION, **document}
    return json_text(document)


class JsonReporter:
    """`--format json`: the whole result, for programs."""

    name = "json"
    sink = "json"
    sourced: frozenset[Severity] = frozenset({ERROR})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The document of `result_as_dict`, with the ref a review compared with."""
        document = result_as_dict(result)
        document["next_steps"] = next_steps(group_findings(result.cases, result.findings), result, options)
        if options.base is not None:
            document["base"] = options.base
        return to_json(document) + "\n"

    def cases(self, listing: CaseList, options: ReportOptions) -> str:
        """`list --format json`: the interface's `{"cases": [...]}`; verbose: `not_launches` too."""
        extra = {"not_launches": list(listing.not_launches)} if options.verbose else {}
        return to_json({"cases": list(listing.rows), **extra}) + "\n"

    def log(self, history: KeyHistory, options: ReportOptions) -> str:
        """`log --format json`: `{"key", "case", "changes": [...]}`, and how a `--since` off HEAD's line was walked."""
        answer = history.log
        document: dict[str, Any] = {"key": history.key, "case": history.case, "changes": [vars(c) for c in answer.changes]}
        if answer.since is not None:
            shown = show_value(answer.since.value) if answer.since.present else ABSENT
            document["since"] = {**vars(answer.since), "note": answer.since.line(history.key, shown)}
        return to_json(document) + "\n"


REPORTER = JsonReporter()
