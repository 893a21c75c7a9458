"""`--format sarif`: SARIF 2.1.0 for code scanning: a result per distinct finding with its level, a waived one
suppressed, an orphan golden as a result, and file names as URIs."""

import json

from harness.model.findings import INFO, WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.reporters import ReportOptions
from harness.reporters.sarif import REPORTER, artifact_uri, to_sarif


def run(*findings, orphans=()):
    return MatrixResult(
        cases=(CaseResult(Case("a", "train", ()), "snapshots/a.yaml", Status.ERROR, findings),), orphans=orphans, baseline="goldens"
    )


def test_each_distinct_finding_is_a_result_with_its_level_and_an_orphan_is_one_too():
    error = Finding(Kind.CONTRACT, "e.x", 1, 2, message="c: e.x broken")
    warning = Finding(Kind.CONTRACT, "w.x", 1, 2, severity=WARNING, message="c: w.x broken")
    noted = Finding(Kind.TARGET, "t", None, None, severity=INFO, message="a note nobody asked for")
    log = json.loads(REPORTER.render(run(error, warning, noted, orphans=("snapshots/old one.yaml",)), ReportOptions()))
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (only,) = log["runs"]
    results = only["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("contract", "error"), ("contract", "warning"), ("orphan", "error")]
    assert results[0]["message"]["text"] == "c: e.x broken (a)" and results[0]["properties"]["path"] == "e.x"
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "snapshots/old%20one.yaml"
    assert [rule["id"] for rule in only["tool"]["driver"]["rules"]] == ["contract", "orphan"]
    assert only["invocations"][0]["properties"]["verdict"].startswith("FAILED")


def test_a_waived_finding_is_suppressed_with_its_reason():
    waived = Finding(Kind.CONTRACT, "w.x", 1, 2, severity=WARNING, message="c: w.x broken", waiver="known flake")
    (result,) = to_sarif(run(waived))["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "external", "justification": "known flake"}]


def test_a_relative_file_stays_relative_and_an_absolute_one_is_a_file_uri():
    assert artifact_uri("conf/a b#c.yaml") == "conf/a%20b%23c.yaml"
    assert artifact_uri("/abs/x.yaml") == "file:///abs/x.yaml"
