"""`--format comment`: a review's pull-request comment as data, with at most LISTED cause lines, errors first."""

import json

from harness.model.findings import WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.reporters import ReportOptions
from harness.reporters.comment_data import LINE_CHARACTERS, LISTED, REPORTER, SCHEMA, verdict


def run(*findings):
    return MatrixResult(cases=(CaseResult(Case("a", "train", ()), "snapshots/a.yaml", Status.ERROR, findings),), baseline="goldens")


def contract(path, severity="error", message=None):
    return Finding(Kind.CONTRACT, path, 1, 2, severity=severity, message=message or f"c: {path} broken")


def test_the_verdict_counts_blocking_causes():
    assert verdict(False, 1) == "config-harness: FAILED, 1 blocking cause"
    assert verdict(False, 3) == "config-harness: FAILED, 3 blocking causes"
    assert verdict(True, 0) == "config-harness: OK, no blocking cause"
    assert verdict(False, 0) == "config-harness: FAILED"  # an orphan golden, say: failing without a cause to count


def distinct(count):
    """Errors in words of their own (causes alike but for a key are one row: tests/unit/reporters/test_reporters_verdict.py)."""
    return [contract(f"e{i:02}", message=f"rule {'z' * (i + 1)} broken") for i in range(count)]


def test_errors_fill_the_lines_first_and_every_row_is_counted():
    document = json.loads(REPORTER.render(run(*distinct(LISTED + 2), contract("w", WARNING)), ReportOptions()))
    assert document["schema"] == SCHEMA and document["ok"] is False and document["base"] is None
    assert len(document["errors"]) == LISTED and document["warnings"] == []
    assert document["rows"] == {"errors": LISTED + 2, "warnings": 1}
    assert document["counts"]["introduced_errors"] == LISTED + 2 and document["counts"]["introduced_warnings"] == 1
    assert document["errors"][0] == "rule z broken  (a)"
    fewer = json.loads(REPORTER.render(run(*distinct(2), contract("w", WARNING)), ReportOptions()))
    assert len(fewer["errors"]) == 2 and fewer["warnings"] == ["c: w broken  (a)"]


def test_a_long_cause_is_cut_and_the_base_is_carried():
    document = json.loads(REPORTER.render(run(contract("x", message="x: " + "a.b: 1 -> 2; " * 60)), ReportOptions(base="main")))
    (line,) = document["errors"]
    assert len(line) <= LINE_CHARACTERS and line.endswith("…") and document["base"] == "main"


def test_a_clean_review_has_no_lines():
    document = json.loads(REPORTER.render(MatrixResult(baseline="goldens"), ReportOptions()))
    assert (document["ok"], document["title"], document["errors"], document["warnings"]) == (
        True,
        "config-harness: OK, no blocking cause",
        [],
        [],
    )


def test_a_cause_line_carries_the_file_and_the_fix_the_text_report_gives():
    """Issue 56: the sticky comment dropped the file that sets a value and a launch's fix, which the text report gives;
    a long list of launches is shortened, never the file or the fix."""
    from harness.composition.provenance import Source
    from harness.model.findings import LaunchFix

    contract_error = Finding(Kind.CONTRACT, "trainer.lr", 1, 2, message="c: trainer.lr broken", source=Source("conf/train.yaml", 4))
    launches = [
        CaseResult(
            Case(f"cmd/examples/a_very_long_directory_name/run_{n:03}.sh#1", "train", ()),
            "",
            Status.ERROR,
            (
                Finding(
                    Kind.LAUNCH,
                    "trainer.epochs",
                    None,
                    "trainer.epochs=5",
                    message="key removed: trainer.epochs is not in the config; it moved to trainer.num_epochs",
                    source=Source(f"examples/a_very_long_directory_name/run_{n:03}.sh", 7),
                    detail=LaunchFix("key removed", "trainer.num_epochs=5"),
                ),
            ),
        )
        for n in range(40)
    ]
    result = MatrixResult(cases=(CaseResult(Case("a", "train", ()), "snapshots/a.yaml", Status.ERROR, (contract_error,)), *launches))
    errors = json.loads(REPORTER.render(result, ReportOptions(review=True)))["errors"]
    assert "c: trainer.lr broken  (a; set by conf/train.yaml:4)" in errors
    (launch,) = [line for line in errors if line.startswith("key removed")]
    assert launch.endswith("; fix: write trainer.num_epochs=5)") and len(launch) <= LINE_CHARACTERS
    assert "40 launches in 40 scripts" in launch
