"""`--format text`: one line on success; on failure the findings in triage order, the verdict first and last;
`quiet` keeps errors only; color only when asked; `list`'s and `log`'s answers."""

from types import SimpleNamespace

from harness.model.findings import WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.model.semantic_diff import ABSENT
from harness.reporters import CaseList, KeyHistory, ReportOptions
from harness.reporters.text import REPORTER, paint


def case(case_id, *findings, status=Status.CHANGED):
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings)


STALE = Finding(Kind.CHANGED, "trainer.lr", 0.1, 0.2, message="trainer.lr: 0.1 -> 0.2")
WARNED = Finding(Kind.CONTRACT, "x.y", 1, 2, severity=WARNING, message="w: x.y\x1b[31m")
RUN = MatrixResult(
    cases=(case("train/cpu", STALE), case("train/gpu", STALE, WARNED), case("train/ok", status=Status.OK)), baseline="goldens in snapshots"
)


def test_a_passing_run_is_one_line():
    ok = MatrixResult(cases=(case("a", status=Status.OK), case("b", status=Status.OK)), baseline="goldens in snapshots")
    assert REPORTER.render(ok, ReportOptions()) == "OK: 2 cases against goldens in snapshots: 2 ok\n"


def test_a_failing_run_lists_each_cause_once_with_its_cases_between_two_verdicts():
    lines = REPORTER.render(RUN, ReportOptions()).splitlines()
    assert lines[0] == lines[-1] and lines[0].startswith("FAILED: 3 cases against goldens in snapshots: 1 ok, 2 changed")
    assert "  ERROR trainer.lr: 0.1 -> 0.2  (2 cases: train/cpu, train/gpu)" in lines
    # A control character from the input is shown, never sent to the terminal.
    (warning,) = [line for line in lines if line.startswith("  WARNING")]
    assert "\x1b" not in warning and warning.startswith("  WARNING w: x.y")


def test_quiet_keeps_errors_and_the_verdict():
    quiet = REPORTER.render(RUN, ReportOptions(quiet=True))
    assert "trainer.lr: 0.1 -> 0.2" in quiet and "WARNING" not in quiet and "Changed values" in quiet
    assert len(quiet.splitlines()) < len(REPORTER.render(RUN, ReportOptions()).splitlines())


def test_color_only_when_asked():
    assert "\033[" not in REPORTER.render(RUN, ReportOptions())
    assert REPORTER.render(RUN, ReportOptions(color=True)).startswith(paint("FAILED", "FAILED", True) + ":")
    assert paint("x", "FAILED", False) == "x" and paint("x", "FAILED", True) != "x"


def test_the_case_list_quiet_is_ids_and_verbose_names_programs_that_are_no_launch():
    rows = (
        {"id": "train/a", "golden": "snapshots/train/a.yaml", "overrides": ["x=1"]},
        {"id": "s.sh#1", "source": "s.sh:3", "overrides": [], "reason": "a loop"},
    )
    others = ({"program": "tool.py", "why": "no Hydra main", "sources": ["a.sh:1", "b.sh:2", "c.sh:3", "d.sh:4"]},)
    listing = CaseList(rows, others)
    assert REPORTER.cases(listing, ReportOptions(quiet=True)) == "train/a\ns.sh#1\n"
    lines = REPORTER.cases(listing, ReportOptions()).splitlines()
    assert lines[0].split() == ["train/a", "snapshots/train/a.yaml", "[x=1]"]
    assert lines[1].endswith("[]  not extracted: a loop") and len(lines) == 2
    verbose = REPORTER.cases(listing, ReportOptions(verbose=True)).splitlines()
    assert verbose[-1] == "not a launch: tool.py: no Hydra main (4 command(s): a.sh:1, b.sh:2, c.sh:3 and 1 more)"


def test_a_key_history_is_a_line_per_change_and_a_count():
    plain = SimpleNamespace(
        commit="a" * 40, date="2026-01-02T03:04", old=1, new=2, old_present=True, new_present=True, subject="bump", composes_from=None
    )
    added = SimpleNamespace(
        commit="b" * 40, date="2026-02-01", old=None, new=3, old_present=False, new_present=True, subject="add", composes_from=None
    )
    history = KeyHistory("t.lr", "train/a", SimpleNamespace(changes=[plain, added], since=None))
    assert REPORTER.log(history, ReportOptions()).splitlines() == [
        f"{'a' * 12} 2026-01-02 1 -> 2  bump",
        f"{'b' * 12} 2026-02-01 {ABSENT} -> 3  add",
        "2 change(s) of t.lr in train/a",
    ]
    assert REPORTER.log(history, ReportOptions(quiet=True)).count("\n") == 2


def test_a_passing_review_says_its_verdict_once():
    """Issue 56: every passing review printed its OK line twice, under the settings line and again at the end."""
    from harness.model.findings import INFO, LaunchTally, RulesUsed

    news = Finding(Kind.CHANGED, "trainer.lr", 0.1, 0.2, severity=INFO, message="trainer.lr: 0.1 -> 0.2")
    review = MatrixResult(
        cases=(case("train/cpu", news),),
        baseline="goldens at main",
        rules=RulesUsed("pyproject.toml", "main", False),
        launches=LaunchTally(3, 3, 3, 0),
    )
    lines = REPORTER.render(review, ReportOptions(review=True)).splitlines()
    assert lines[0].startswith("settings: main's pyproject.toml") and lines[1].startswith("OK: 1 case against goldens at main")
    assert sum(line.startswith("OK: ") for line in lines) == 1 and lines[-1] != lines[1]
