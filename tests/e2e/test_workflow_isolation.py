"""The workflow templates run none of the pull request's code (issue 53 item 4): every job of every template, run as
GitHub runs it (tests/workflow_runner.py), on a checkout that commits a `pip/` package, `json.py`, `yaml.py`,
`sitecustomize.py`, `usercustomize.py`, a `harness/` package and a `.pth` file, each of which leaves a mark outside the
checkout when Python imports it. `python -m pip install` in the checkout's root ran the pull request's `pip/` (which
could install a config-harness that always passes) and the verdict step's `python -c 'import json ...'` its `json.py`;
`python -I` runs neither, and the console script never had the checkout on its path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.integration.test_plugin_workflow import PYPROJECT
from tests.synthetic_history import commit
from tests.workflow_runner import COMMENT_TEMPLATE, MATRIX_TEMPLATE, TEMPLATE, adopted_project, ci_environment, run_job

pytestmark = pytest.mark.e2e

# What a pull request commits to run its own code in a step that runs Python in its checkout.
PLANTED = ("pip/__init__.py", "json.py", "yaml.py", "sitecustomize.py", "usercustomize.py", "harness/__init__.py")


def _planting_pull_request(project: Path, marks: Path) -> None:
    adopted_project(project, PYPROJECT)
    train = project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.3"))
    # Its goldens regenerated (a review fails on stale ones), before anything is planted.
    subprocess.run([sys.executable, "-I", "-m", "harness", "generate"], cwd=project, check=True, capture_output=True)
    for name in PLANTED:
        mark = marks / name.replace("/", "-")
        write_tree(project, {name: f"open({str(mark)!r}, 'w').close()\nraise SystemExit(0)\n"})
    (project / "zz-config-harness.pth").write_text(f"import os; open({str(marks / 'pth')!r}, 'w').close()\n")
    commit(project, "a pull request that plants modules where Python looks first")


def test_no_step_of_any_template_imports_what_the_pull_request_commits(tmp_path):
    project, marks = tmp_path / "project", tmp_path / "marks"
    marks.mkdir()
    _planting_pull_request(project, marks)
    # Not vacuous: the planted modules are what a plain `python` run in the checkout imports.
    subprocess.run([sys.executable, "-c", "import json"], cwd=project, check=False)
    subprocess.run([sys.executable, "-m", "pip", "--version"], cwd=project, check=False, capture_output=True)
    assert sorted(path.name for path in marks.iterdir()) == ["json.py", "pip-__init__.py"]
    for mark in marks.iterdir():
        mark.unlink()

    pull_request = {"event_name": "pull_request", "base_ref": "main", "event": {"pull_request": {"number": 7}}}
    push = {"event_name": "push", "base_ref": "", "event": {}}
    one_job = run_job(TEMPLATE, project, ci_environment(tmp_path, "one"), pull_request, tmp_path / "artifacts-one")
    assert sorted(path.name for path in marks.iterdir()) == [], one_job.stdout
    # The steps ran: pip's own install, the review, the verdict read from the comment with Python.
    assert one_job.outcomes["Install config-harness"] == "success", one_job.stdout
    assert one_job.outputs["review"]["exit"] == "0" and not one_job.failed, one_job.stdout
    assert one_job.outputs["review"]["verdict"].startswith("config-harness"), one_job.outputs
    pushed = run_job(TEMPLATE, project, ci_environment(tmp_path, "push"), push, tmp_path / "artifacts-push")
    assert "7 cases against goldens" in pushed.stdout["Check every config case"], (
        pushed.stdout
    )  # it ran (the pull request regenerated its goldens)

    artifacts = tmp_path / "artifacts-matrix"
    for shard in (1, 2, 3, 4):
        shard_run = run_job(
            MATRIX_TEMPLATE,
            project,
            ci_environment(tmp_path, f"shard{shard}"),
            pull_request,
            artifacts,
            job="shard",
            matrix={"shard": shard},
        )
        assert not shard_run.failed, shard_run.stdout
    verdict = run_job(MATRIX_TEMPLATE, project, ci_environment(tmp_path, "verdict"), pull_request, artifacts, job="verdict")
    assert verdict.outputs["review"] == one_job.outputs["review"], verdict.stdout

    # The commenting workflow checks out the default branch only; were it this checkout, it would run nothing either.
    comment_env = ci_environment(tmp_path, "comment")
    Path(comment_env["RUNNER_TEMP"]).mkdir(parents=True)
    (Path(comment_env["RUNNER_TEMP"]) / "config-harness-comment").symlink_to(tmp_path / "artifacts-one" / "config-harness-comment")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"workflow_run": {"event": "pull_request", "head_sha": "0" * 40, "id": 1, "pull_requests": []}}))
    workflow_run = {
        "event_name": "workflow_run",
        "token": "",
        "repository": "o/r",
        "event": {"workflow_run": {"event": "pull_request", "conclusion": "success", "id": 1}},
    }
    commented = run_job(COMMENT_TEMPLATE, project, {**comment_env, "GITHUB_EVENT_PATH": str(event)}, workflow_run, tmp_path / "a-c")
    assert commented.outcomes["Install config-harness"] == "success", commented.stdout

    assert sorted(path.name for path in marks.iterdir()) == [], (pushed.stdout, verdict.stdout, commented.stdout)
