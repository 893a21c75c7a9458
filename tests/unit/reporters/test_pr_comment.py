"""The commenting workflow shows the job's real conclusion (issue 41 item 2): an artifact that says ok beside a job
GitHub says failed is never posted as OK."""

from __future__ import annotations

from harness.reporters.pr_comment import COUNTS, Comment, render


def _comment(ok: bool) -> Comment:
    return Comment(ok=ok, base="origin/main", errors=(), warnings=(), counts=tuple((name, 0) for name in COUNTS))


def _event(conclusion: str) -> dict:
    return {"workflow_run": {"conclusion": conclusion, "html_url": "https://github.com/o/r/actions/runs/1"}}


def test_an_ok_artifact_beside_a_failed_job_is_not_ok():
    body = render(_comment(ok=True), _event("failure"))
    assert body.splitlines()[0] == "### config-harness: FAILED"
    assert ": FAILED. The job: failure." in body and ": OK." not in body


def test_an_ok_artifact_of_a_successful_job_is_ok():
    body = render(_comment(ok=True), _event("success"))
    assert body.splitlines()[0] == "### config-harness: OK, no blocking cause" and ": OK. The job: success." in body
