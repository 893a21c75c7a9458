"""`--format junit`: a test case per case (a compose error an `error`, a broken rule a `failure`, warnings in
`system-out`), one `(run)` case for run-wide findings and orphans, and counts that match the cases."""

import xml.etree.ElementTree as ET

from harness.model.findings import WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.reporters import ReportOptions
from harness.reporters.junit import REPORTER, RUN_CASE


def case(case_id, *findings, status=Status.ERROR):
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings)


def test_cases_their_failures_and_the_counts():
    broken = Finding(Kind.ERROR, "", message="cannot compose: <bad> & worse")
    rule = Finding(Kind.CONTRACT, "a.b", 1, 2, message="c: a.b broken")
    warning = Finding(Kind.CONTRACT, "w.x", 1, 2, severity=WARNING, message="c: w.x")
    run_wide = Finding(Kind.CONTRACT_CHANGE, "", message="contract gone without a reason")
    result = MatrixResult(
        cases=(case("a", broken), case("b", rule, warning), case("c", status=Status.OK), case("d", status=Status.GONE)),
        orphans=("snapshots/old.yaml",),
        findings=(run_wide,),
        baseline="goldens",
    )
    text = REPORTER.render(result, ReportOptions())
    assert text.startswith("<?xml") and "<bad>" not in text
    root = ET.fromstring(text.split("\n", 1)[1])
    assert {name: root.get(name) for name in ("tests", "failures", "errors", "skipped")} == {
        "tests": "5",
        "failures": "2",
        "errors": "1",
        "skipped": "1",
    }
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert list(cases) == ["a", "b", "c", "d", RUN_CASE]
    assert cases["a"].find("error").get("message") == "cannot compose: <bad> & worse"
    assert cases["b"].find("failure").text == "c: a.b broken" and cases["b"].find("system-out").text == "c: w.x"
    assert list(cases["c"]) == [] and cases["d"].find("skipped") is not None
    assert cases[RUN_CASE].find("failure").text.splitlines() == [
        "contract change: contract gone without a reason",
        "orphan golden (no case): snapshots/old.yaml; remove it with `generate --prune`",
    ]
    assert root.find("testsuite/system-out").text.startswith("FAILED")


def test_a_clean_run_has_no_run_case():
    root = ET.fromstring(
        REPORTER.render(MatrixResult(cases=(case("a", status=Status.OK),), baseline="g"), ReportOptions()).split("\n", 1)[1]
    )
    assert [c.get("name") for c in root.iter("testcase")] == ["a"] and root.get("failures") == "0"
