"""GitHub workflow commands: annotations on the config lines, with every part escaped as GitHub's toolkit does."""

from __future__ import annotations

from pathlib import Path

from harness.gates.confine import project_root
from harness.gates.escape import escape_data, workflow_command
from harness.model.findings import ERROR, INFO, WARNING, Kind, MatrixResult, Severity
from harness.model.grouping import Group, Tier, compared_ids, describe_cases, group_findings
from harness.reporters.base import ReportOptions
from harness.reporters.layout import (
    Fold,
    approvals_line,
    describe_group,
    folded,
    introduced,
    mode_line,
    rules_line,
    summary_line,
)
from harness.reporters.steps import next_steps

# GitHub shows this many annotations of each kind per step; the rest are only in the log and the job summary.
SHOWN_PER_KIND = 10
KIND_ORDER = ("error", "warning", "notice")


def _existing(file: str | None, fallback: str | None) -> str | None:
    """A file an annotation can point at in this checkout: `file` when it exists here, else `fallback`. Reports name
    files from the repository's top (harness.model.settings.display_path), wherever the run started."""
    top = project_root(Path.cwd())
    if file and (top / file).is_file():
        return file
    return fallback if fallback and (top / fallback).is_file() else None


def annotated(group: Group) -> str | None:
    """The annotation kind a group gets (`error`, `warning`, `notice`), or None: it gets none.

    Errors and unwaived warnings are annotated; in a review only those this change introduced (an error already
    at the base, fixed, waived or known is on no line: it would be on lines no pull request touched, every time),
    and a difference (info) is a `notice` on its line, so a pull request shows what it changes where it changes it.
    """
    if not introduced(group):
        return None
    if group.severity in (ERROR, WARNING):
        return str(group.severity)
    if group.severity == INFO and group.tier in (Tier.CHANGED, Tier.REMOVED, Tier.ADDED):
        return "notice"
    return None


def to_github(result: MatrixResult, options: ReportOptions) -> str:
    """GitHub workflow commands: one annotation per distinct error or unwaived warning, at the config line that sets it.

    Which groups are annotated, and as what, is `annotated`'s rule. Errors come first, in triage
    order, at most ten of each kind (what GitHub shows), then one line saying how many more the summary has.
    Every `file=` is a file of this checkout: a value set only at the base (a removed key) or a golden that does
    not exist here points at the case's root config, with the base's FILE:LINE in the message.
    The next steps and, for a failing run, the verdict again end the log as plain lines.
    """
    groups = group_findings(result.cases, result.findings)
    all_ids = compared_ids(result)
    roots = {r.case.id: r.root_file for r in result.cases if r.root_file}
    annotations: list[tuple[str, str, str | None, int | None, str]] = []
    for item in folded(groups):
        # A folded subtree is one annotation, at the line of its first leaf.
        group = item.first if isinstance(item, Fold) else item
        command = annotated(group)
        if command is None:
            continue
        file, line = group.anchor
        what, path = (item.describe(), item.root) if isinstance(item, Fold) else (describe_group(group), group.path)
        message = f"{what} ({describe_cases(group.cases, all_ids)})"
        if group.kind == Kind.SETTINGS_CHANGE and not file:
            # A changed file the review's runs depend on (a workflow that runs config-harness, a CODEOWNERS file) is
            # its own path; a settings key's change is in the settings file.
            file = group.path if _existing(group.path, None) else (result.rules.file if result.rules is not None else "")
        at = _existing(file, None)
        if at is None:
            at, line = _existing(None, next((roots[c] for c in group.cases if c in roots), None)), None
            if group.source is not None:
                message += f" [set by {group.source}]"
        annotations.append((command, message, at, line, f"{group.kind} {path}".strip()))
    for orphan in result.orphans:
        annotations.append(("error", "orphan golden with no case; remove it with `generate --prune`", _existing(orphan, None), None, ""))
    annotations.sort(key=lambda a: KIND_ORDER.index(a[0]))  # stable: triage order within each kind
    # The verdict opens the log (in a review right under the settings line, the interface's first line) and ends it.
    verdict = escape_data(summary_line(result, groups))
    said = [escape_data(line) for line in (rules_line(result.rules), mode_line(result), approvals_line(result.approvals)) if line]
    head = 1 if rules_line(result.rules) else 0
    lines = [*said[:head], verdict, *said[head:]]
    left_out = {kind: 0 for kind in KIND_ORDER}
    shown = {kind: 0 for kind in KIND_ORDER}
    for command, message, at_file, at_line, title in annotations:
        if shown[command] == SHOWN_PER_KIND:
            left_out[command] += 1
            continue
        shown[command] += 1
        lines.append(workflow_command(command, message, file=at_file, line=at_line, title=title))
    if any(left_out.values()):
        counted = ", ".join(f"{n} {kind}{'s' * (n != 1)}" for kind, n in left_out.items() if n)
        lines.append(
            escape_data(f"{counted} more are not annotated (GitHub shows {SHOWN_PER_KIND} of each kind); the job summary lists them all")
        )
    lines += [escape_data(f"Next: {step}") for step in next_steps(groups, result, options)]
    if not result.ok:  # a failing verdict ends the log too (where a reader lands); a passing one is said once
        lines.append(verdict)
    return "\n".join(lines) + "\n"


class GithubReporter:
    """`--format github`: annotations where each value is set."""

    name = "github"
    sink = "github"
    sourced: frozenset[Severity] = frozenset({ERROR, WARNING})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The workflow commands."""
        return to_github(result, options)


REPORTER = GithubReporter()
