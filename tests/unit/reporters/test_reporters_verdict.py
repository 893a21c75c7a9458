"""The verdict table (issue 40 item 5): every kind has one row, and every format states one verdict from it.

In process, on a result built here (no compose): the quick tier's version of tests/integration/test_one_verdict.py."""

from __future__ import annotations

import json
from dataclasses import replace

from harness.model.findings import (
    INFO,
    VERDICTS,
    WARNING,
    CaseResult,
    Excused,
    Finding,
    Judged,
    Kind,
    LaunchFix,
    MatrixResult,
    Origin,
    Status,
    blocks,
)
from harness.model.matrix import Case
from harness.reporters import ReportOptions, reporter
from harness.reporters.layout import tally


def test_every_kind_has_one_row_in_the_verdict_table():
    # A branch that adds a kind adds its row: severity, and the runs it blocks.
    assert set(Kind) - set(VERDICTS) == set()


def test_a_golden_difference_blocks_check_only_and_an_excused_error_blocks_nothing():
    changed = Finding(Kind.CHANGED, "trainer.lr", 0.1, 0.2)
    assert blocks(changed, Judged.CHECK) and not blocks(changed, Judged.GENERATE)
    launch = Finding(Kind.LAUNCH, "trainer.x", None, "trainer.x=1")
    assert all(blocks(launch, judged) for judged in Judged)
    for excused in (
        replace(launch, origin=Origin.AT_BASE),
        replace(launch, origin=Origin.FIXED),
        replace(launch, severity=INFO, status=Excused.KNOWN, waiver="known at adoption"),
    ):
        assert not any(blocks(excused, judged) for judged in Judged)


def case(case_id: str, *findings: Finding, status: Status = Status.CHANGED) -> CaseResult:
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings)


def result() -> MatrixResult:
    """Three stale goldens (one changed value), one contract broken on two cases, one override broken on two launches."""
    stale = Finding(Kind.CHANGED, "trainer.lr", 0.1, 0.2, message="trainer.lr: 0.1 -> 0.2")
    contract = Finding(Kind.CONTRACT, "device.count", 8, 4, message="gpu-count: device.count is 4, not 8")
    launch = Finding(Kind.LAUNCH, "trainer.x", None, "trainer.x=1", message="key removed: trainer.x is not in the config")
    launch = replace(launch, detail=LaunchFix("key removed"))
    return MatrixResult(
        cases=(
            case("train/cpu", stale),
            case("train/gpu", stale, contract),
            case("train/tpu", stale, contract),
            case("cmd/a.sh#1", launch, status=Status.ERROR),
            case("cmd/b.sh#1", launch, status=Status.ERROR),
        ),
        baseline="goldens in snapshots",
    )


def test_every_format_opens_with_the_same_verdict_and_counts_causes_not_findings():
    run = result()
    counted = tally(run)
    assert (counted.causes, counted.findings, counted.goldens) == (2, 4, 3)
    options = ReportOptions()
    text = reporter("text").render(run, options).splitlines()
    document = json.loads(reporter("json").render(run, options))
    markdown = reporter("markdown").render(run, options).splitlines()
    comment = json.loads(reporter("comment").render(run, options))
    verdict = "FAILED: 5 cases against goldens in snapshots: 3 changed, 2 failing; 2 blocking causes (4 findings), 3 goldens to regenerate"
    assert text[0] == text[-1] == document["verdict"] == verdict
    assert markdown[0] == "**FAILED**: " + verdict.removeprefix("FAILED: ")
    assert comment["counts"]["introduced_errors"] == 2 and comment["title"] == "config-harness: FAILED, 2 blocking causes"
    assert not document["summary"].startswith("Nothing changed")


def test_a_finding_said_once_for_the_run_is_never_labelled_the_whole_run():
    # A Hydra warning is hoisted to the run from the one case that raised it.
    warning = Finding(Kind.HYDRA_WARNING, "", severity=WARNING, message="hydra warning: the default list is odd")
    run = replace(result(), findings=(warning,))
    for name in ("text", "markdown", "json", "github", "sarif", "comment"):
        assert "the whole run" not in reporter(name).render(run, ReportOptions()), name


def test_alike_causes_are_one_row_with_a_count_and_a_long_row_is_cut_between_records(tmp_path):
    from harness.reporters.layout import cut_at_record
    from harness.reporters.pr_comment import checked_comment, render

    # An added engine: eleven known entries added without a reason, the same words but for the entry.
    added = tuple(
        Finding(Kind.CONTRACT_CHANGE, "", message=f"known entry added for ppo/new_engine/{i} (target undeclared) without a recorded reason")
        for i in range(11)
    )
    run = MatrixResult(cases=(case("ppo/dp", status=Status.OK),), findings=added, baseline="goldens in snapshots")
    document = reporter("comment").render(run, ReportOptions())
    (tmp_path / "comment.json").write_text(document)
    event = {"workflow_run": {"event": "pull_request", "head_sha": "a" * 40, "pull_requests": []}}
    body = render(checked_comment(document.encode(), tmp_path / "comment.json"), event).splitlines()
    rows = [line for line in body if line.startswith("- ")]
    assert body[0] == "### config-harness: FAILED, 11 blocking causes" and len(rows) == 1, body
    assert rows[0].startswith("- `11 alike: contract change: known entry added for ppo/new_engine/0 ")
    assert "(also: ppo/new_engine/1, ppo/new_engine/2, ppo/new_engine/3 and 7 more)" in rows[0]
    markdown = reporter("markdown").render(run, ReportOptions())
    assert markdown.count("known entry added") == 1 and "| fix |" not in markdown  # no fix to show: no fix column
    record = "a.b: 1 -> 2; " * 40
    cut = cut_at_record(record, 100)
    assert len(cut) <= 100 and cut.endswith("a.b: 1 -> 2 …")


def test_inline_code_in_a_table_cell_renders_as_code_not_backticks():
    from harness.reporters.markdown import breakable_text

    cell = breakable_text("a violation the tree already had: `config-harness known` records it | `x<y`")
    assert "<code>config-harness known</code>" in cell and "`" not in cell and "\\|" in cell and "<code>x&lt;y</code>" in cell
