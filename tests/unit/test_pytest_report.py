"""What the pytest plugin prints, in the text report's words: at most BODY_LINES lines per failing test (the last
counts the rest), waived warnings as one line for the run, orphan goldens counted unless details are asked for."""

from harness.composition.provenance import Source
from harness.model.findings import WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.pytest_report import (
    BODY_LINES,
    MORE,
    error_lines,
    next_lines,
    orphan_lines,
    rewrite_command,
    run_errors,
    run_warnings,
    verdict_line,
    waived,
    waived_line,
)


def result(case_id, *findings, status=Status.CHANGED):
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings)


def changed(i):
    return Finding(Kind.CHANGED, f"key{i}.x", i, i + 1, message=f"key{i}.x: {i} -> {i + 1}")


def test_a_failing_test_shows_a_few_lines_and_counts_the_rest():
    few = result("a", changed(1), changed(2))
    assert error_lines(few, few.findings) == ["key1.x: 1 -> 2", "key2.x: 2 -> 3"]
    many = result("a", *(changed(i) for i in range(BODY_LINES + 3)))
    lines = error_lines(many, many.findings)
    assert len(lines) == BODY_LINES and lines[-1] == f"… and 4 more ({MORE})"
    assert len(error_lines(many, many.findings, everything=True)) == BODY_LINES + 3


def test_waived_warnings_are_one_line_for_the_run():
    warning = Finding(Kind.CONTRACT, "a", 1, 2, severity=WARNING, message="c: a broken", waiver="not yet")
    texts = {"x": waived(result("x", warning)), "y": waived(result("y", warning)), "z": []}
    assert texts["x"] == texts["y"] == ["c: a broken"]
    assert waived_line(texts) == "2 waived warnings on 2 cases, 1 distinct (`config-harness check --verbose` lists them)"
    assert waived_line({"x": []}) is None


def test_orphans_are_counted_and_listed_only_with_details():
    assert orphan_lines([], True) == []
    assert orphan_lines(["snapshots/a.yaml"], False) == ["1 golden with no case: --snapshot-update removes it; --snapshot-details lists it"]
    assert orphan_lines(["a", "b"], True) == ["2 goldens with no case: --snapshot-update removes them", "  a", "  b"]


def test_what_the_run_as_a_whole_says():
    stale = Finding(Kind.HYDRA_WARNING, "", severity=WARNING, message="the defaults list is missing `_self_`")
    hygiene = Finding(Kind.CONTRACT_CHANGE, "", message="contract gpu gone without a recorded reason")
    launch = result("cmd/run.sh#1", Finding(Kind.LAUNCH, "t.x", None, "t.x=1", message="key removed: t.x"), status=Status.ERROR)
    run = MatrixResult(cases=(result("a", changed(1)), launch), findings=(stale, hygiene))
    (warned,) = run_warnings(run)
    assert warned.startswith("warning: ") and warned.endswith("the defaults list is missing `_self_`")
    errors = run_errors(run)
    assert errors[0].endswith("contract gpu gone without a recorded reason") and errors[-1] == "key removed: t.x  (run.sh#1)"
    # The command that runs the harness's tests alone: plain `pytest --snapshot-update` collects a repository's own suite.
    assert any("run `pytest --config-harness --snapshot-update`" in line for line in next_lines(run, "snapshots", updated=False))
    assert any(
        "`pytest --config-harness --config-harness-settings h.toml --snapshot-update`" in line
        for line in next_lines(run, "snapshots", False, rewrite_command("h.toml"))
    )


def test_a_cause_that_breaks_many_launches_is_one_line_as_check_writes_it():
    """Issue 56: a renamed key an interpolation still reads broke 153 of verl's launches, and pytest listed a line per
    launch (496 rows against check's 35): one line, with the cases and launches it breaks and the line that reads it."""
    written = "${.ppo_max_token_len_per_gpu}"
    message = f"critic.forward_max_token_len_per_gpu cannot be resolved: {written}: critic.ppo_max_token_len_per_gpu is not in the config"
    on_case = Finding(Kind.UNRESOLVED, "critic.forward_max_token_len_per_gpu", written, written, message=message)
    on_case = CaseResult(
        Case("ppo_trainer/dp/default", "ppo_trainer", ()),
        "g.yaml",
        Status.ERROR,
        (Finding(**{**on_case.__dict__, "source": Source("critic.yaml", 49)}),),
    )
    launches = [
        result(
            f"cmd/examples/run_{n}.sh#1",
            Finding(Kind.UNRESOLVED, on_case.findings[0].path, None, written, message=message),
            status=Status.ERROR,
        )
        for n in range(40)
    ]
    (line,) = run_errors(MatrixResult(cases=(on_case, *launches)))
    assert line.startswith(message + "  (ppo_trainer/dp/default; also in 40 launches in 40 scripts: examples/run_0.sh#1")
    assert line.endswith("and 37 more; set by critic.yaml:49)")


def test_the_ok_line_counts_the_known_findings_as_check_does():
    """Issue 56: pytest's OK line dropped the known count that check's OK line carries."""
    from harness.model.findings import INFO, Excused

    known = Finding(Kind.CONTRACT, "a", 1, 2, severity=INFO, message="c: a broken", status=Excused.KNOWN, waiver="known since 2026")
    run = MatrixResult(cases=(result("x", known, status=Status.OK), result("y", known, status=Status.OK)))
    assert verdict_line(run, updated=False) == (
        "OK: 2 cases: 2 ok (2 known findings (1 cause), excused by the known file; `config-harness check --verbose` lists them)"
    )
