"""GitHub workflow commands: annotations on the config lines, with every part escaped as GitHub's toolkit does."""

from __future__ import annotations

from typing import Any

from harness.findings import ERROR, INFO, WARNING, MatrixResult, Severity
from harness.grouping import Tier, compared_ids, describe_cases, group_findings
from harness.reporters.base import ReportOptions
from harness.reporters.common import Fold, describe_group, folded, next_steps, summary_line


def escape_data(text: str) -> str:
    """Escape workflow-command data as GitHub's toolkit does: `%`, then CR and LF."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value, where `:` and `,` are also separators."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, data: str, **properties: Any) -> str:
    """One `::command key=value,...::data` line with every part escaped, so input cannot start a command of its own."""
    shown = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value not in (None, ""))
    return f"::{command}{' ' + shown if shown else ''}::{escape_data(data)}"


def to_github(result: MatrixResult, options: ReportOptions) -> str:
    """GitHub workflow commands: one annotation per distinct error or unwaived warning, at the config line that sets it.

    A review's differences are info: each changed, removed or added value becomes a `notice` on its line, so a
    pull request shows what it changes where it changes it. A waived warning is known and accepted: annotating
    it would put the same notes on lines no pull request touched, every time. The next steps and the verdict
    end the log as plain lines.
    """
    groups = group_findings(result.cases, result.findings)
    all_ids = compared_ids(result)
    lines = []
    for item in folded(groups):
        # A folded subtree is one annotation, at the line of its first leaf.
        group = item.first if isinstance(item, Fold) else item
        noticed = group.severity == INFO and group.tier in (Tier.CHANGED, Tier.REMOVED, Tier.ADDED)
        if (group.severity not in (ERROR, WARNING) and not noticed) or group.tier in (Tier.NOTED, Tier.WAIVED):
            continue
        file, line = group.anchor
        what, path = (item.describe(), item.root) if isinstance(item, Fold) else (describe_group(group), group.path)
        message = f"{what} ({describe_cases(group.cases, all_ids)})"
        title = f"{group.kind} {path}".strip()
        command = "notice" if noticed else str(group.severity)
        lines.append(workflow_command(command, message, file=file, line=line, title=title))
    for orphan in result.orphans:
        lines.append(workflow_command("error", "orphan golden with no case; remove it with `generate --prune`", file=orphan))
    lines += [escape_data(f"Next: {step}") for step in next_steps(groups, result, options)]
    lines.append(escape_data(summary_line(result)))
    return "\n".join(lines) + "\n"


class GithubReporter:
    """`--format github`: annotations where each value is set."""

    name = "github"
    sourced: frozenset[Severity] = frozenset({ERROR, WARNING})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The workflow commands."""
        return to_github(result, options)


REPORTER = GithubReporter()
