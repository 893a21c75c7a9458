"""verl PR #5848 through the pull-request workflow, on verl's whole repository (../shared/data/verl-full.bundle):
config-harness adopted at the PR's parent as the README says (`init`, `generate`, commit) with the maintainer's
contracts (both `layer_name_map` keys and `moe_config.freeze_moe_router` required and `use_remove_padding` false on
`*megatron*`; `lora_alpha` agreeing with `lora.alpha`), the PR's own diff applied on a branch, then the template's
job run step by step as GitHub runs it and the commenting workflow's `config-harness comment` on its artifact. The checks: the annotations are the review's
introduced findings only, at most ten of each kind; the job fails exactly as the review does, and its verdict step
says so; the comment names the four damages in at most 30 lines, within GitHub's limit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.reporters.pr_comment import COMMENT_LIMIT, MAX_BODY_LINES
from tests.e2e.test_day_one import CONTRACTS, adopt, apply_pull_request
from tests.synthetic_history import git
from tests.workflow_runner import COMMENT_TEMPLATE, TEMPLATE, run_job

pytestmark = pytest.mark.e2e

DAMAGES = ("layer_name_map", "moe_config.freeze_moe_router", "use_remove_padding", "lora.alpha")


def harness(repository: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=repository, capture_output=True, text=True)


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PR #5848 on verl's whole repository, adopted at its parent with the maintainer's contracts (test_day_one's),
    as the branch `pr`; `origin/main` is the adoption, as actions/checkout's fetch-depth 0 leaves it."""
    repository = adopt(tmp_path_factory.mktemp("pr5848-ci"), "pr5848-parent", CONTRACTS)
    git(repository, "update-ref", "refs/remotes/origin/main", "HEAD")
    apply_pull_request(repository, "pr5848-parent", "pr5848")
    # The repository's own pin of config-harness, which the template installs: the one installed here.
    (repository / "config-harness" / "requirements.txt").write_text("config-harness\n")
    return repository


def test_the_pull_request_job_and_the_comment_on_pr_5848(pull_request, tmp_path):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=pull_request, capture_output=True, text=True, check=True).stdout.strip()
    summary, artifacts = tmp_path / "summary.md", tmp_path / "artifacts"
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(summary),
        "PIP_NO_INDEX": "1",
        "CI": "true",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    github = {"event_name": "pull_request", "base_ref": "main", "event": {"pull_request": {"number": 5848}}}
    run = run_job(TEMPLATE, pull_request, env, github, artifacts)

    # The job's result is the review's: it failed, and the verdict step says why, in the checks list.
    review = json.loads(harness(pull_request, "diff", "--base", "origin/main", "--format", "json").stdout)
    introduced_errors = [g for g in review["groups"] if g["severity"] == "error" and g.get("origin") == "introduced"]
    causes = review["counts"]["causes"]  # the blocking causes, as every format counts them
    verdict = f"config-harness: FAILED, {causes} blocking cause{'s' * (causes != 1)}"
    assert run.outputs["review"]["exit"] == "1" and run.outcomes[verdict] == "failure" and run.failed, run.outcomes
    assert run.outcomes["Check every config case"] == "skipped"
    assert run.outcomes["Keep the comment for the commenting workflow"] == "success"

    # Annotations: the introduced findings only, errors first, at most ten of each kind.
    log = run.stdout["Review against the base branch"].splitlines()
    annotations = [line for line in log if line.startswith("::")]
    kinds = [line[2:].split(" ", 1)[0] for line in annotations]
    assert kinds == sorted(kinds, key=("error", "warning", "notice").index)
    assert all(kinds.count(kind) <= 10 for kind in ("error", "warning", "notice")) and kinds.count("error") == min(
        10, len(introduced_errors)
    )
    severities = {"error": "error", "warning": "warning", "notice": "info"}
    for line, kind in zip(annotations, kinds):
        # The title is the group's `KIND PATH` (a folded subtree: its root); some introduced group of that
        # severity must be it.
        title = re.search(r"title=([^:]*)::", line).group(1).replace("%2C", ",")
        group_kind, _, path = title.partition(" ")
        assert any(
            g["kind"] == group_kind
            and g["severity"] == severities[kind]
            and g.get("origin") in ("introduced", None)
            and (g["path"] == path or g["path"].startswith(path + "."))
            for g in review["groups"]
        ), line
    at_base = [g for g in review["groups"] if g.get("origin") == "at_base"]
    assert at_base  # the parent's own lora-alpha violation on the Megatron route, and launches that already failed
    for group in at_base:
        cases = ", ".join(group["cases"])
        assert not any(group["message"] in line and f"({cases})" in line for line in annotations), group["message"]
    for damage in DAMAGES:
        assert any(line.startswith("::error") and damage in line for line in annotations), damage
    assert "review against `origin/main`" in summary.read_text()

    # The commenting workflow, on the artifact: the comment for PR #5848, named by the event GitHub writes.
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "repository": {"full_name": "volcengine/verl", "html_url": "https://github.com/volcengine/verl"},
                "workflow_run": {
                    "event": "pull_request",
                    "head_sha": head,
                    "conclusion": "failure",
                    "id": 1,
                    "html_url": "https://github.com/volcengine/verl/actions/runs/1",
                    "pull_requests": [{"number": 5848, "head": {"sha": head}}],
                },
            }
        )
    )
    assert 'config-harness comment "$artifact" --event "$GITHUB_EVENT_PATH"' in COMMENT_TEMPLATE.read_text()
    body_file = tmp_path / "comment.md"
    posted = harness(pull_request, "comment", str(artifacts / "config-harness-comment"), "--event", str(event), "--out", str(body_file))
    assert posted.returncode == 0 and posted.stdout == "5848\n", posted.stderr
    body = body_file.read_text()
    lines = body.splitlines()
    assert lines[0] == f"### {verdict}" and len(lines) <= MAX_BODY_LINES and len(body) <= COMMENT_LIMIT
    errors = lines[lines.index("Introduced errors, one line per cause:") + 2 :]
    errors = errors[: errors.index("")]
    # One row per cause, causes alike (the same words but for a key or entry) sharing one row with their count.
    alike = [re.match(r"- `(\d+) alike: ", line) for line in errors]
    assert sum(int(m.group(1)) if m else 1 for m in alike) == len(introduced_errors), errors
    assert all(line.startswith("- `") for line in errors), errors
    for damage in DAMAGES:
        assert any(damage in line for line in errors), (damage, errors)
    # The introduced warnings, if the review has any, follow in their own list (the rest of the 14 lines of causes).
    introduced_warnings = [g for g in review["groups"] if g["severity"] == "warning" and g.get("origin") == "introduced"]
    assert ("Introduced warnings, one line per cause:" in lines) == bool(introduced_warnings), (introduced_warnings, lines)
    assert re.search(r"^Also: \d+ differences?, \d+ errors? already at the base", body, re.M), body
    assert lines[-1] == "[The whole review is in the job summary](https://github.com/volcengine/verl/actions/runs/1)."
