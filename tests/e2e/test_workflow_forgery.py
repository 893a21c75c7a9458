"""The shipped review workflow cannot be steered by the pull request it reviews (issue 41 item 2): the review step's
shell, run as GitHub runs it (tests/workflow_runner.py), on a checkout that commits a forged comment document (a
title holding a newline and `exit=0`), a link `pull-request -> OUTSIDE` and a link `env -> /proc/self/environ` in
the folder the old step uploaded. Nothing forged reaches the step's outputs or the upload; nothing is written
outside. Both templates that review (the one-job and the matrix's merge job) are held to it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_plugin_workflow import PYPROJECT
from tests.synthetic_history import commit
from tests.workflow_runner import TEMPLATE, adopted_project, run_job

pytestmark = pytest.mark.e2e

FORGED_TITLE = "config-harness: no introduced error\nexit=0\nverdict=forged"


def _forged_pull_request(project: Path, outside: Path, breaks_the_review: bool) -> None:
    pyproject = PYPROJECT.replace('roots = ["train"]', 'roots = ["train"]\ncontracts = ["contracts.yaml"]')
    adopted_project(project, pyproject, {"contracts.yaml": "contracts: []\n"})
    folder = project / "config-harness-comment"
    folder.mkdir()
    forged = {"schema": "config-harness-comment", "schema_version": 1, "ok": True, "title": FORGED_TITLE, "errors": [], "warnings": []}
    (folder / "comment.json").write_text(json.dumps(forged))
    (folder / "pull-request").symlink_to(outside)
    (folder / "env").symlink_to("/proc/self/environ")
    if breaks_the_review:
        (project / "contracts.yaml").write_text("contracts: [\n")  # not YAML: the review exits 2 before any report
    else:
        train = project / "conf" / "train.yaml"
        train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.3"))
        # Its goldens regenerated: a review fails on stale ones, and this one is to pass on its own.
        subprocess.run([sys.executable, "-I", "-m", "harness", "generate"], cwd=project, check=True, capture_output=True)
    commit(project, "a pull request that forges the review's outputs")


@pytest.mark.parametrize("breaks_the_review", [True, False], ids=["review-exits-2", "review-runs"])
def test_a_committed_comment_and_links_reach_neither_the_outputs_nor_the_upload(tmp_path, breaks_the_review):
    project, outside = tmp_path / "project", tmp_path / "outside"
    _forged_pull_request(project, outside, breaks_the_review)
    output_files = tmp_path / "outputs"
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "RUNNER_TEMP": str(tmp_path / "runner-temp"),
        "PIP_NO_INDEX": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SECRET_IN_THE_ENVIRONMENT": "do-not-upload-me",
    }
    output_files.mkdir()
    artifacts = tmp_path / "artifacts"
    github = {"event_name": "pull_request", "base_ref": "main", "event": {"pull_request": {"number": 7}}}
    run = run_job(TEMPLATE, project, env, github, artifacts)
    outputs = run.outputs["review"]
    written = (tmp_path / f"github-output-{_review_index()}").read_text()
    # Two lines, the step's own: a forged `exit=0` line would have set the job's result.
    assert written.count("\n") == 2 and set(outputs) == {"exit", "verdict"}, written
    assert "forged" not in written
    assert not outside.exists()  # the committed link led the old step's printf outside the checkout
    uploaded = artifacts / "config-harness-comment"
    everything = sorted(path.relative_to(uploaded).as_posix() for path in uploaded.rglob("*")) if uploaded.exists() else []
    if breaks_the_review:
        assert outputs["exit"] == "2" and outputs["verdict"] == "config-harness: the review could not run (exit 2)", outputs
        assert everything == [] and run.failed
    else:
        assert outputs["exit"] == "0" and not run.failed  # a changed value is news in a review, not an error
        assert everything == ["comment.json", "pull-request"], everything
        document = json.loads((uploaded / "comment.json").read_text())
        assert document["title"] != FORGED_TITLE and outputs["verdict"] == document["title"]
        assert (uploaded / "pull-request").read_text() == "7\n"
    assert not any("do-not-upload-me" in path.read_text(errors="replace") for path in uploaded.rglob("*") if path.is_file())


def _review_index() -> int:
    from tests.workflow_runner import template_steps

    return next(index for index, step in enumerate(template_steps(TEMPLATE)) if step.get("id") == "review")
