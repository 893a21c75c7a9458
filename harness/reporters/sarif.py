"""SARIF 2.1.0 for code scanning: one result per distinct finding, at the config line that sets it.

SARIF is JSON, so `json.dumps` is this format's escaper for text; locations are URI references, so a file
name is percent-encoded (a `#`, `%` or space in it cannot change which file a result points at).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from harness import __version__
from harness.gates.escape import json_text, sarif_message
from harness.model.findings import ERROR, INFO, WARNING, MatrixResult, Severity
from harness.model.grouping import Group, Tier, compared_ids, describe_cases, group_findings
from harness.reporters.base import ReportOptions
from harness.reporters.layout import describe_group, mode_properties, summary_line

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = MappingProxyType({ERROR: "error", WARNING: "warning", INFO: "note"})
REPORTED_INFO = (Tier.CHANGED, Tier.REMOVED, Tier.ADDED)  # a review's differences; other info is a note nobody asked for


def artifact_uri(file: str) -> str:
    """A file as a SARIF artifact URI: relative paths stay relative (to the repository), absolute ones are file URIs."""
    path = PurePosixPath(file)
    return ("file://" if path.is_absolute() else "") + quote(str(path), safe="/")


def _location(group: Group) -> list[dict[str, Any]]:
    file, line = group.anchor
    if not file:
        return []
    region = {"region": {"startLine": line}} if line else {}
    return [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(file)}, **region}}]


def sarif_result(group: Group, all_ids: Sequence[str]) -> dict[str, Any]:
    """One distinct finding as a SARIF result; a waived one is reported as suppressed, never as an open alert."""
    result: dict[str, Any] = {
        "ruleId": str(group.kind),
        "level": LEVELS.get(group.severity, "note"),
        "message": {"text": sarif_message(f"{describe_group(group)} ({describe_cases(group.cases, all_ids)})")},
        "locations": _location(group),
        "properties": {"path": group.path, "cases": list(group.cases), "severity": str(group.severity)},
    }
    if group.waiver:
        result["suppressions"] = [{"kind": "external", "justification": group.waiver}]
    if group.contract:
        result["properties"]["contract"] = group.contract
    return result


def to_sarif(result: MatrixResult) -> dict[str, Any]:
    """The SARIF log: one run of config-harness, its rules (the finding kinds seen) and its results."""
    all_ids = compared_ids(result)
    groups = [
        g
        for g in group_findings(result.cases, result.findings, notes=False)
        if g.tier != Tier.NOTED and (g.severity != INFO or g.tier in REPORTED_INFO)
    ]
    results = [sarif_result(g, all_ids) for g in groups]
    results += [
        {
            "ruleId": "orphan",
            "level": "error",
            "message": {"text": "orphan golden with no case; remove it with `generate --prune`"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(orphan)}}}],
        }
        for orphan in result.orphans
    ]
    kinds = sorted({r["ruleId"] for r in results})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "config-harness",
                        "version": __version__,
                        "rules": [{"id": kind, "shortDescription": {"text": f"config-harness finding kind {kind}"}} for kind in kinds],
                    }
                },
                "invocations": [{"executionSuccessful": True, "properties": {"verdict": summary_line(result), **mode_properties(result)}}],
                "results": results,
            }
        ],
    }


class SarifReporter:
    """`--format sarif`: SARIF 2.1.0, which GitHub code scanning reads."""

    name = "sarif"
    sink = "json"
    sourced: frozenset[Severity] = frozenset({ERROR, WARNING})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The SARIF log as JSON text."""
        return json_text(to_sarif(result)) + "\n"


REPORTER = SarifReporter()
