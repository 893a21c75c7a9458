"""The places the harness lives: a terminal, GitHub Actions, pre-commit."""

from __future__ import annotations

import os
import pty
import select
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT, SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT


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
