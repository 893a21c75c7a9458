"""What every format shares: the verdict's counts (causes, not findings; goldens to regenerate apart), its words,
causes alike but for a key as one row, and a line cut at a record's end. (One verdict across the formats:
tests/unit/reporters/test_reporters_verdict.py.)"""

from harness.model.findings import ERROR, WARNING, CaseResult, Finding, Kind, MatrixResult, Origin, Status
from harness.model.grouping import group_findings
from harness.model.matrix import Case
from harness.reporters.layout import Tally, alike_rows, cut_at_record, summary_line, tally, tally_words


def case(case_id, *findings, status=Status.ERROR):
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings)


def counts(**changed):
    base = dict(causes=0, findings=0, goldens=0, warnings=0, warning_causes=0, at_base=0, orphans=0, ok=True)
    return Tally(**{**base, **changed})


def test_a_cause_over_many_cases_is_one_cause_of_many_findings():
    broken = Finding(Kind.CONTRACT, "a", 1, 2, message="c: a broken")
    stale = Finding(Kind.CHANGED, "b", 1, 2, message="b: 1 -> 2")
    at_base = Finding(Kind.CONTRACT, "z", 1, 2, message="c: z", origin=Origin.AT_BASE)
    warned = Finding(Kind.CONTRACT, "w", 1, 2, severity=WARNING, message="c: w")
    run = MatrixResult(cases=(case("x", broken, stale, warned), case("y", broken, at_base)), orphans=("snapshots/o.yaml",))
    counted = tally(run)
    assert (counted.causes, counted.findings, counted.goldens, counted.warnings, counted.at_base, counted.orphans) == (1, 2, 1, 1, 1, 1)
    assert counted.verdict == "FAILED" and not counted.ok


def test_the_counts_in_words_leave_out_every_zero():
    assert tally_words(counts()) == []
    assert tally_words(counts(causes=1, findings=3, goldens=2, warnings=4, warning_causes=2, at_base=1, orphans=1)) == [
        "1 blocking cause (3 findings)",
        "2 goldens to regenerate",
        "4 warnings (2 causes)",
        "1 error already at base",
        "1 orphan golden",
    ]
    assert tally_words(counts(causes=2, findings=2, warnings=1, warning_causes=1)) == ["2 blocking causes", "1 warning"]
    assert tally_words(counts(goldens=1), unit="file") == ["1 file that differs"]


def test_the_summary_line_counts_cases_by_status():
    run = MatrixResult(cases=(case("a", status=Status.OK), case("b", status=Status.OK)), baseline="goldens in snapshots")
    assert summary_line(run) == "OK: 2 cases against goldens in snapshots: 2 ok"
    assert summary_line(MatrixResult()) == "OK: 0 cases"


def test_causes_alike_but_for_a_key_are_one_row_and_values_never_are():
    entries = [Finding(Kind.CONTRACT_CHANGE, "", message=f"known entry added for ppo/e{i} without a recorded reason") for i in range(5)]
    other = Finding(Kind.CONTRACT_CHANGE, "", message="contract gone without a recorded reason")
    (row, alone) = alike_rows(group_findings((), tuple(entries) + (other,)))
    assert row.describe().startswith("5 alike: contract change: known entry added for ppo/e0 ")
    assert row.suffix() == " (also: ppo/e1, ppo/e2, ppo/e3 and 1 more)" and alone.prefix() == "" and alone.suffix() == ""
    values = [Finding(Kind.CHANGED, f"k{i}", 1, 2, severity=ERROR, message=f"k{i}: 1 -> 2") for i in range(3)]
    assert len(alike_rows(group_findings((case("a", *values),), ()))) == 3


def test_a_long_line_is_cut_after_a_record_never_inside_one():
    text = "; ".join(f"key{i}: {i} -> {i + 1}" for i in range(20))
    cut = cut_at_record(text, 60)
    assert len(cut) <= 60 and cut.endswith(" …") and cut.removesuffix(" …").endswith("-> 4")
    assert cut_at_record("short", 60) == "short"
    assert cut_at_record("one-long-word " * 10, 40).endswith(" …")


def _write(old, new, forms, replaces=()):
    from harness.model.findings import Replaced, WriteFacts

    facts = WriteFacts("train", tuple(Replaced(*r) for r in replaces), *forms)
    message = "rollout.n: a config write added: app.main.main sets rollout.n = 4 at app/main.py:8"
    (group,) = group_findings([], [Finding(Kind.CONFIG_WRITE, "rollout.n", old, new, WARNING, message, detail=facts)])
    return group


def test_a_code_write_is_the_change_it_makes_from_the_yaml_value_then_its_words():
    """Issue 56: `null -> 4` (the write at the base, none) hid that the program ran with the YAML's 1 before."""
    from harness.reporters.layout import describe_group

    said = "(a config write added: app.main.main sets rollout.n = 4 at app/main.py:8)"
    assert describe_group(_write(None, 4, ("", "value"), [(1, True, ("a",))])) == f"rollout.n: 1 -> 4 {said}"
    two = _write(None, 4, ("", "value"), [(1, True, ("a",)), (2, True, ("b", "c", "d"))])
    assert describe_group(two) == f"rollout.n: 1 -> 4 on a, 2 -> 4 on b and 2 more cases {said}"
    assert describe_group(_write(None, 4, ("", "value"), [(None, False, ("a",))])) == f"rollout.n: — -> 4 {said}"
    # Removed: back to the YAML's value; deleted by code: absent; computed: the code as written; changed: base -> now.
    assert describe_group(_write(4, None, ("value", ""), [(1, True, ("a",))])).startswith("rollout.n: 4 -> 1 (")
    assert describe_group(_write(None, "(deleted)", ("", "deleted"), [(1, True, ("a",))])).startswith("rollout.n: 1 -> — (")
    assert describe_group(_write(None, "n * 2", ("", "code"), [(1, True, ("a",))])).startswith("rollout.n: 1 -> n * 2 (")
    assert describe_group(_write(2, "x", ("value", "value"))).startswith('rollout.n: 2 -> "x" (')
    # Without the YAML's value (no golden, a key not static), its words alone, as before.
    assert describe_group(_write(None, 4, ("", "value"))) == said[1:-1].replace("a config", "rollout.n: a config", 1)
