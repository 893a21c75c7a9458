"""The places the harness lives: a terminal, GitHub Actions, pre-commit (console scripts in subprocesses, on verl's
real tree; the workflow's `make` steps in a copy of this checkout, which get a `.venv` of their own there)."""

from __future__ import annotations

import os
import pty
import select
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT
from tests.synthetic_history import commit, git
from tests.workflow_runner import TEMPLATE, run_job, step_runs, template_steps

pytestmark = pytest.mark.e2e


def checkout_copy(folder: Path) -> Path:
    """This checkout as a fresh clone would have it (tracked and new files, nothing ignored: no .venv) in a git
    repository of one commit, plus the verl tree `make setup` fetched, so the copy needs no network for it."""
    listed = (
        subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True)
        .stdout.decode()
        .split("\0")
    )
    copy = folder / "checkout"
    for name in filter(None, listed):
        if (ROOT / name).is_file():  # not a file deleted in the working tree
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / ".cache" / "verl", copy / ".cache" / "verl", symlinks=True)
    git(copy, "init", "-q", "-b", "main")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "the checkout under test")
    return copy


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
    job = workflow["jobs"]["config-check"]
    steps = job["steps"]
    # The matrix is the lowest and the highest Python the package supports: pyproject.toml's classifiers.
    classifiers = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["classifiers"]
    supported = sorted(c.rsplit(" :: ", 1)[1] for c in classifiers if c.startswith("Programming Language :: Python :: 3."))
    assert job["strategy"]["matrix"]["python"] == [supported[0], supported[-1]] == ["3.11", "3.12"]
    assert {
        "uses": "actions/setup-python@v5",
        "with": {"python-version": "${{ matrix.python }}", "cache": "pip", "cache-dependency-path": "pyproject.toml"},
    } in steps
    runs = {step["name"]: step for step in steps if "run" in step}
    assert runs["Tests"]["run"].strip() == "make test"
    assert runs["End-to-end tests"]["run"].strip() == "make test-e2e"  # the tier this test belongs to
    # One review report per pull request, not one per Python of the matrix.
    assert runs["Review report against the base branch"]["if"] == "github.event_name == 'pull_request' && matrix.python == '3.11'"

    # Run the workflow's own commands, as GitHub would, except the tests (we are inside them), in a copy of the
    # checkout: `make check-config` creates and installs `.venv` where it runs, which must not be this checkout.
    checkout = checkout_copy(tmp_path)
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "CI": "true", "BASE_REF": "HEAD"}
    for name in ("Check every config case", "Review report against the base branch"):
        completed = subprocess.run(["bash", "-e", "-c", runs[name]["run"]], cwd=checkout, env=env, capture_output=True, text=True)
        assert completed.returncode == 0, f"{name}: {completed.stdout[-1500:]} {completed.stderr[-1500:]}"
        if name == "Check every config case":
            # This project's only warnings are waived: known and accepted, so never annotations.
            assert not [line for line in completed.stdout.splitlines() if line.startswith("::")]
    text = summary.read_text()
    # The verdict first, then the title.
    verdict, report = text.split("\n\n", 1)
    assert verdict.startswith("**OK**: 13 cases") and report.startswith("## config-harness\n") and "<summary>Waived warnings: " in text
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


def test_the_template_checks_pushes_and_reviews_pull_requests_and_the_verdict_step_follows_the_review():
    steps = {step.get("name", step.get("uses")): step for step in template_steps()}
    check, review = steps["Check every config case"], steps["Review against the base branch"]
    upload = next(step for step in template_steps() if step.get("uses", "").startswith("actions/upload-artifact@"))
    verdict = steps["${{ steps.review.outputs.verdict }}"]
    assert step_runs(check, event="push", job_failed=False, cancelled=False, outcomes={})
    assert not step_runs(review, event="push", job_failed=False, cancelled=False, outcomes={})
    assert not step_runs(check, event="pull_request", job_failed=False, cancelled=False, outcomes={})
    assert step_runs(review, event="pull_request", job_failed=False, cancelled=False, outcomes={})
    for step in (upload, verdict):  # both follow the review step, which keeps the review's exit for the verdict step
        assert step_runs(step, event="pull_request", job_failed=False, cancelled=False, outcomes={"review": "success"})
        assert not step_runs(step, event="push", job_failed=False, cancelled=False, outcomes={"review": "skipped"})
        assert not step_runs(step, event="pull_request", job_failed=True, cancelled=False, outcomes={"review": "skipped"})
    assert verdict["run"].strip() == 'exit "${REVIEW_EXIT:-3}"' and verdict["env"] == {"REVIEW_EXIT": "${{ steps.review.outputs.exit }}"}
    # It installs the repository's own pin and caches pip keyed on it.
    (setup,) = [step for step in template_steps() if step.get("uses", "").startswith("actions/setup-python@")]
    assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == "${{ env.CONFIG_HARNESS_REQUIREMENTS }}"
    assert '-r "$CONFIG_HARNESS_REQUIREMENTS"' in steps["Install config-harness"]["run"]


def test_the_template_run_in_order_fails_a_pull_request_that_forgot_its_goldens_and_passes_it_regenerated(tmp_path):
    """The template's steps, run one after another as GitHub would, on a pull request that changes a value and does
    not regenerate the goldens: `check` on the merged head would fail, so the review fails too (issue 50: a green
    review is a promise the merge keeps), saying to regenerate. Regenerated, a changed value is news, not an error:
    the job passes, the summary has the review, the artifact the comment."""
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
    assert subprocess.run([sys.executable, "-m", "harness", "check"], cwd=project, capture_output=True).returncode == 1

    summary, artifacts = tmp_path / "summary.md", tmp_path / "artifacts"
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(summary),
        "PIP_NO_INDEX": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    github = {"event_name": "pull_request", "base_ref": "main", "event": {"pull_request": {"number": 7}}}
    forgot = run_job(TEMPLATE, project, env, github, tmp_path / "forgot")
    assert forgot.failed and forgot.outputs["review"]["exit"] == "1", forgot.stdout
    assert "golden to regenerate" in summary.read_text() or "goldens to regenerate" in summary.read_text()
    summary.unlink()
    subprocess.run([sys.executable, "-m", "harness", "generate"], cwd=project, check=True, capture_output=True)
    commit(project, "the goldens regenerated")
    run = run_job(TEMPLATE, project, env, github, artifacts)
    assert {name: outcome for name, outcome in run.outcomes.items() if not name.startswith("actions/")} == {
        "Install config-harness": "success",
        "Check every config case": "skipped",
        "Review against the base branch": "success",
        "Keep the comment for the commenting workflow": "success",
        "config-harness: OK, no blocking cause": "success",
    }, run.stdout
    assert not run.failed and run.outputs["review"]["exit"] == "0"
    notices = [line for line in run.stdout["Review against the base branch"].splitlines() if line.startswith("::")]
    assert notices and all(line.startswith("::notice ") for line in notices)  # differences only: no error, no warning
    assert any("title=changed trainer.lr::trainer.lr: 0.1 -> 0.3" in line for line in notices), notices
    text = summary.read_text().replace("<wbr>", "")  # markdown lets long paths wrap after dots
    assert "review against `origin/main`" in text and "trainer.lr" in text
    assert sorted(path.name for path in (artifacts / "config-harness-comment").iterdir()) == ["comment.json", "pull-request"]
    assert (artifacts / "config-harness-comment" / "pull-request").read_text() == "7\n"
