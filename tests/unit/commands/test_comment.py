"""`comment DIR --event FILE --out FILE`: the checked artifact's comment written as markdown and the pull request's
number printed; an artifact or event it refuses is one line, exit 2, and nothing is written."""

import json

from harness.model.findings import CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.reporters import ReportOptions, reporter

HEAD = "a" * 40


def artifact(tmp_path, claimed=None):
    failing = CaseResult(
        Case("a", "train", ()), "snapshots/a.yaml", Status.ERROR, (Finding(Kind.CONTRACT, "x", 1, 2, message="c: x broken"),)
    )
    folder = tmp_path / "artifact"
    folder.mkdir()
    (folder / "comment.json").write_text(reporter("comment").render(MatrixResult(cases=(failing,), baseline="goldens"), ReportOptions()))
    if claimed is not None:
        (folder / "pull-request").write_text(f"{claimed}\n")
    return folder


def event(tmp_path, number=7):
    run = {"event": "pull_request", "head_sha": HEAD, "conclusion": "failure", "pull_requests": [{"number": number, "head": {"sha": HEAD}}]}
    (tmp_path / "event.json").write_text(json.dumps({"workflow_run": run, "repository": {"full_name": "o/r"}}))
    return str(tmp_path / "event.json")


def test_the_comment_is_written_and_the_number_printed(tmp_path, cli):
    run = cli("comment", str(artifact(tmp_path)), "--event", event(tmp_path), "--out", "comment.md", cwd=tmp_path)
    assert run.code == 0 and run.out == "7\n"
    body = (tmp_path / "comment.md").read_text()
    assert body.startswith("### config-harness: FAILED, 1 blocking cause") and "c: x broken" in body
    assert cli("comment", "artifact", "--event", "event.json", "--out", "again.md", "--quiet").out == ""


def test_a_claim_the_event_contradicts_is_refused_and_nothing_is_written(tmp_path, cli):
    run = cli("comment", str(artifact(tmp_path, claimed=8)), "--event", event(tmp_path), "--out", "comment.md", cwd=tmp_path)
    assert run.code == 2 and run.err.count("\n") == 1
    assert "comment refused: the artifact names pull request #8, but the run's head commit aaaaaaaaaaaa is that of #7" in run.err
    assert not (tmp_path / "comment.md").exists()


def test_an_unexpected_file_in_the_artifact_is_refused(tmp_path, cli):
    folder = artifact(tmp_path)
    (folder / "run.sh").write_text("echo hi\n")
    run = cli("comment", str(folder), "--event", event(tmp_path), "--out", "comment.md", cwd=tmp_path)
    assert run.code == 2 and "comment refused:" in run.err and "unexpected entry 'run.sh'" in run.err
