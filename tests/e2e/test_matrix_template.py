"""templates/config-harness-matrix.yml run as GitHub runs it (tests/workflow_runner.py): its four shard jobs, each on
a runner of its own (its own RUNNER_TEMP), then the verdict job on their artifacts. The verdict job's exit,
annotations, job summary and comment artifact are the one-job template's on the same pull request (issue 46)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.test_plugin_workflow import PYPROJECT
from tests.synthetic_history import commit
from tests.workflow_runner import MATRIX_TEMPLATE, TEMPLATE, adopted_project, ci_environment, run_job

pytestmark = pytest.mark.e2e

CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
"""


def _pull_request(project: Path) -> None:
    pyproject = PYPROJECT.replace('roots = ["train"]', 'roots = ["train"]\ncontracts = ["contracts.yaml"]')
    adopted_project(project, pyproject, {"contracts.yaml": CONTRACTS})
    gpu = project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))  # breaks the contract: an introduced error
    train = project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.3"))
    commit(project, "a pull request")


def _annotations(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("::")]


def test_the_matrix_template_gives_the_one_job_templates_verdict(tmp_path):
    project = tmp_path / "project"
    _pull_request(project)
    github = {"event_name": "pull_request", "base_ref": "main", "event": {"pull_request": {"number": 7}}}

    one_job = run_job(TEMPLATE, project, ci_environment(tmp_path, "one"), github, tmp_path / "artifacts-one")
    assert one_job.outputs["review"]["exit"] == "1" and one_job.failed

    artifacts = tmp_path / "artifacts-matrix"
    for shard in (1, 2, 3, 4):
        run = run_job(
            MATRIX_TEMPLATE, project, ci_environment(tmp_path, f"shard{shard}"), github, artifacts, job="shard", matrix={"shard": shard}
        )
        assert not run.failed, run.stdout
        document = json.loads((artifacts / f"config-harness-shard-{shard}" / "result.json").read_text())
        assert document["shard"]["index"] == shard and document["shard"]["count"] == 4
    verdict = run_job(MATRIX_TEMPLATE, project, ci_environment(tmp_path, "verdict"), github, artifacts, job="verdict")
    assert verdict.outputs["review"] == one_job.outputs["review"] and verdict.failed
    assert verdict.outcomes[one_job.outputs["review"]["verdict"]] == "failure"
    merged_log = verdict.stdout["Merge the shards"]
    assert _annotations(merged_log) == _annotations(one_job.stdout["Review against the base branch"]) != []
    assert (tmp_path / "summary-verdict.md").read_text() == (tmp_path / "summary-one.md").read_text()
    comment, one = artifacts / "config-harness-comment", tmp_path / "artifacts-one" / "config-harness-comment"
    assert sorted(p.name for p in comment.iterdir()) == ["comment.json", "pull-request"]
    assert (comment / "comment.json").read_text() == (one / "comment.json").read_text()
    assert re.fullmatch(r"7\n", (comment / "pull-request").read_text())
