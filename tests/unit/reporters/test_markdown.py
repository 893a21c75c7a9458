"""`--format markdown`: the verdict first, a section per severity with a table per tier, long values shortened with
the full value folded below, input escaped in every cell, waived warnings folded with their reasons."""

from harness.model.findings import WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.reporters import ReportOptions
from harness.reporters.markdown import REPORTER, SHORT_VALUE, breakable_code, breakable_text


def run(*findings, cases=("a",)):
    results = tuple(CaseResult(Case(c, "train", ()), f"snapshots/{c}.yaml", Status.CHANGED, findings) for c in cases)
    return MatrixResult(cases=results, baseline="goldens in snapshots")


def test_the_verdict_opens_and_each_severity_has_its_section():
    changed = Finding(Kind.CHANGED, "trainer.lr", 0.1, 0.2, message="trainer.lr: 0.1 -> 0.2")
    warned = Finding(Kind.CONTRACT, "x.y", 1, 2, severity=WARNING, message="w: x.y broken")
    lines = REPORTER.render(run(changed, warned), ReportOptions(title="Review of `main`")).splitlines()
    assert lines[0].startswith("**FAILED**: 1 case against goldens in snapshots")
    assert "## Review of `main`" in lines and "### Errors" in lines and "### Warnings" in lines
    assert "| <code>trainer.<wbr>lr</code> | `0.1` → `0.2` | a |  |" in lines
    assert "Compared with `goldens in snapshots`." in lines


def test_a_long_value_is_shortened_in_its_cell_and_given_in_full_below():
    long = "x" * (SHORT_VALUE * 3)
    text = REPORTER.render(run(Finding(Kind.CHANGED, "k", "short", long, message="k changed")), ReportOptions())
    (row,) = [line for line in text.splitlines() if line.startswith("| <code>k</code>")]
    assert long not in row
    assert "<summary>Full values (1)</summary>" in text and f'k: "short" -> "{long}"' in text


def test_input_in_a_cell_cannot_add_cells_markup_or_lines():
    hostile = Finding(Kind.CONTRACT, "a", 1, 2, message="c: a | <script>x</script>\n# heading")
    text = REPORTER.render(run(hostile), ReportOptions())
    (row,) = [line for line in text.splitlines() if line.startswith("| c: a")]
    assert "<script>" not in text and "\\|" in row and row.count(" | ") == 1 and "# heading" in row


def test_a_waived_warning_is_folded_with_its_reason():
    waived = Finding(Kind.CONTRACT, "a", 1, 2, severity=WARNING, message="c: a broken", waiver="known flake")
    text = REPORTER.render(run(waived, cases=("a", "b")), ReportOptions())
    assert "<summary>Waived warnings: 2, 1 distinct</summary>" in text and "| c: a broken | all 2 cases | known flake |" in text


def test_long_words_may_wrap_and_inline_code_stays_code():
    assert breakable_code("a.b/c") == "<code>a.<wbr>b/<wbr>c</code>"
    assert breakable_text("run `config-harness known` now") == "run <code>config-harness known</code> now"
    assert breakable_text("a.short.word") == "a.short.word"  # shorter than a cell's share of the page
    assert "<wbr>" in breakable_text("actor_rollout_ref.rollout.tensor_model_parallel_size")


def test_a_code_write_is_said_in_its_words_never_as_null_to_its_value():
    """Issue 56: a write added in code was shown `null` → `4` where the YAML value it replaces is 1: `old` is the write
    at the base (none), not a value the program ever had."""
    from harness.composition.provenance import Source
    from harness.reporters import ReportOptions
    from harness.reporters.markdown import to_markdown

    message = "rollout.n: a config write added: app.main.main sets rollout.n = 4 at app/main.py:8"
    write = Finding(Kind.CONFIG_WRITE, "rollout.n", None, 4, WARNING, message, source=Source("app/main.py", 8))
    text = to_markdown(MatrixResult(findings=(write,)), ReportOptions(review=True))
    (row,) = [line for line in text.splitlines() if line.startswith("| <code>rollout.<wbr>n</code>")]
    assert "`null`" not in row and f"| {message} |" in row, row


def test_a_code_write_with_the_yaml_value_it_replaces_is_that_change_in_the_change_column():
    from harness.composition.provenance import Source
    from harness.model.findings import Replaced, WriteFacts
    from harness.reporters import ReportOptions
    from harness.reporters.markdown import to_markdown

    message = "rollout.n: a config write added: app.main.main sets rollout.n = 4 at app/main.py:8"
    facts = WriteFacts("train", (Replaced(1, True, ("train/base/default",)),), "", "value")
    write = Finding(Kind.CONFIG_WRITE, "rollout.n", None, 4, WARNING, message, source=Source("app/main.py", 8), detail=facts)
    text = to_markdown(MatrixResult(findings=(write,)), ReportOptions(review=True))
    (row,) = [line for line in text.splitlines() if line.startswith("| <code>rollout.<wbr>n</code>")]
    assert row.startswith(
        "| <code>rollout.<wbr>n</code> | 1 -&gt; 4 (a config write added: app.main.main sets rollout.n = 4 at app/main.py:8) |"
    ), row
