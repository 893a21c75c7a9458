"""The finding vocabulary: which errors fail a run, what a rewritten golden settles, and the JSON a finding is."""

from __future__ import annotations

import json

from harness.composition.provenance import Source
from harness.model.findings import (
    DIFFERENCE_KINDS,
    ERROR,
    GOLDEN_KINDS,
    INFO,
    NEW_FALLBACK,
    RECORDED_KINDS,
    WARNING,
    CaseResult,
    Comparison,
    ContractRef,
    Difference,
    Excused,
    Finding,
    Kind,
    LaunchFix,
    MatrixResult,
    Mode,
    Moved,
    Origin,
    Status,
    fails,
)
from harness.model.matrix import Case

CASE = Case("app/cpu/default", "app", ())


def result(*findings: Finding) -> CaseResult:
    return CaseResult(CASE, "snapshots/g.yaml", Status.CHANGED, findings)


def test_an_error_fails_unless_a_review_found_it_at_the_base_and_nothing_else_fails():
    assert fails(Finding(Kind.CONTRACT, "a", severity=ERROR))
    assert fails(Finding(Kind.CONTRACT, "a", severity=ERROR, origin=Origin.INTRODUCED))
    assert not fails(Finding(Kind.CONTRACT, "a", severity=ERROR, origin=Origin.AT_BASE))
    assert not any(fails(Finding(Kind.CHANGED, "a", severity=severity)) for severity in (WARNING, INFO))
    assert not fails(Finding(Kind.CONTRACT, "a", severity=INFO, origin=Origin.FIXED))


def test_a_run_is_ok_without_failing_case_or_run_findings_and_without_orphans():
    warned = result(Finding(Kind.HIDDEN_TEXT, "a", severity=WARNING))
    at_base = result(Finding(Kind.CONTRACT, "a", severity=ERROR, origin=Origin.AT_BASE))
    assert MatrixResult(cases=(warned, at_base)).ok and not at_base.failed
    assert not MatrixResult(cases=(warned, result(Finding(Kind.CHANGED, "b", 1, 2)))).ok
    assert not MatrixResult(cases=(warned,), findings=(Finding(Kind.CONTRACT_CHANGE, "c", severity=ERROR),)).ok
    assert not MatrixResult(cases=(warned,), orphans=("snapshots/_generated_gone.yaml",)).ok
    assert MatrixResult().ok  # nothing checked fails nothing; the shells refuse an empty selection before this


def test_a_rewritten_golden_settles_the_differences_and_keeps_what_the_rules_say():
    new_fallback = "x silently uses its default 0 because y is missing or ???"
    case = result(
        Finding(Kind.CHANGED, "a", 1, 2),
        Finding(Kind.MOVED, "b", "b", "c"),
        Finding(Kind.MISSING_GOLDEN, ""),
        Finding(Kind.FALLBACK, "x", None, "0", ERROR, new_fallback + NEW_FALLBACK),
        Finding(Kind.HIDDEN_TEXT, "h", severity=WARNING, message="h holds control characters"),
    )
    written = case.written_out()
    assert written.written and written.status == Status.OK and not written.failed
    assert [(f.kind, f.severity, f.message) for f in written.findings] == [
        (Kind.FALLBACK, INFO, new_fallback),
        (Kind.HIDDEN_TEXT, WARNING, "h holds control characters"),
    ]
    # A rule's error stays an error: rewriting the golden does not satisfy a contract.
    broken = result(Finding(Kind.CHANGED, "a", 1, 2), Finding(Kind.CONTRACT, "a", severity=ERROR, message="a must be 1"))
    assert broken.written_out().status == Status.ERROR and [f.kind for f in broken.written_out().findings] == [Kind.CONTRACT]


def test_the_kind_sets_agree_with_what_they_are_used_for():
    # What a rewritten golden settles is a difference; a rule's finding and a recorded loosening never are.
    assert GOLDEN_KINDS <= DIFFERENCE_KINDS
    assert not (DIFFERENCE_KINDS & RECORDED_KINDS) and Kind.CONTRACT not in DIFFERENCE_KINDS | RECORDED_KINDS
    assert Kind.FALLBACK in DIFFERENCE_KINDS - GOLDEN_KINDS  # a fallback is news in a review, and outlives a rewrite


def test_a_finding_is_the_interfaces_json_with_the_optional_fields_only_where_they_apply():
    plain = Finding(Kind.REMOVED, "a.b", "qkv", None, ERROR, "REMOVED a.b (was 'qkv')", source=Source("conf/x.yaml", 3))
    assert plain.as_dict() == {
        "kind": "removed",
        "path": "a.b",
        "old": "qkv",
        "new": None,
        "severity": "error",
        "message": "REMOVED a.b (was 'qkv')",
        "source": "conf/x.yaml:3",
    }
    listed = Finding(Kind.CHANGED, "l", [1], [2], detail=Difference(("[0]: 1 -> 2",)), origin=Origin.AT_BASE)
    assert {k: v for k, v in listed.as_dict().items() if k in ("detail", "origin")} == {"detail": ["[0]: 1 -> 2"], "origin": "at_base"}
    waived = Finding(
        Kind.CONTRACT, "c", severity=WARNING, status=Excused.WAIVED, waiver="until 2027-01-01", detail=ContractRef("c", "contracts.yaml:4")
    )
    assert (waived.as_dict()["status"], waived.as_dict()["contract_source"]) == ("waived", "contracts.yaml:4")
    moved = Finding(Kind.MOVED, "old.k", "old.k", "new.k", detail=Moved({"x": 1})).as_dict()
    launch = Finding(Kind.LAUNCH, "a.k", None, "a.k=1", detail=LaunchFix("key removed")).as_dict()
    assert moved["value"] == {"x": 1} and "fix" not in moved
    assert "fix" in launch and launch["fix"] is None  # a launch says it has no fix; other kinds never carry the key
    for finding in (plain, listed, waived):
        assert json.loads(json.dumps(finding.as_dict())) == finding.as_dict()  # plain JSON: enums as their values
        assert type(finding.as_dict()["kind"]) is str and type(finding.as_dict()["severity"]) is str


def test_a_comparison_says_what_it_compares_and_what_one_result_is():
    assert [
        (c.what, c.unit)
        for c in (
            Comparison(Mode.FILES, "a.yaml", "b.yaml"),
            Comparison(Mode.FILES, "a", "b", folders=True),
            Comparison(Mode.GOLDENS, "old", "new"),
            Comparison(Mode.TREES, "0.8", "0.9"),
        )
    ] == [
        ("two YAML files", "file"),
        ("two folders file by file", "file"),
        ("two snapshot folders", "golden"),
        ("two config trees", "case"),
    ]
