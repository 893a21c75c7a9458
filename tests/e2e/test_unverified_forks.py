"""Issue 51's precision bound on real history: every commit of two verl forks (../shared/data/verl-forks.bundle:
TinyZero and Search-R1) that changes Python sources, scripts or configs, classified as a pull request against the
commit before it (adopted by `init` at the first, `python_sources = ["verl"]`), shows at most 3 lines not verified:
the section stays readable, so a line there is read. The review's own classifier runs in process on each tree (the
whole review of each commit is `test_promise_history`'s and `test_fork_histories`')."""

from __future__ import annotations

import io
import subprocess
from contextlib import redirect_stderr, redirect_stdout

import pytest

from harness.cli import main
from harness.model.settings import load_settings
from harness.runner.targets import program_view
from harness.runner.unverified import DiffAccounting
from tests.e2e.adoption import bundle
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e]
MAX_LINES = 3


@pytest.mark.parametrize("branch", ["tinyzero", "search-r1"])
def test_ordinary_commits_show_at_most_three_lines_not_verified(tmp_path, monkeypatch, branch):
    repository = tmp_path / branch
    subprocess.run(["git", "clone", "--quiet", "--branch", branch, str(bundle("verl-forks.bundle")), str(repository)], check=True)
    touched = git(repository, "log", "--reverse", "--first-parent", "--format=%H", "--", "*.py", "*.sh", "*.yaml").split()
    git(repository, "checkout", "-q", "-b", "base", touched[0])
    monkeypatch.chdir(repository)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["init", "--quiet"]) == 0
        pyproject = repository / "pyproject.toml"
        text = pyproject.read_text()
        if "python_sources" not in text:
            pyproject.write_text(text.replace("[tool.config-harness]\n", '[tool.config-harness]\npython_sources = ["verl"]\n', 1))
        main(["generate", "--quiet"])
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness")
    settings = load_settings(repository / "pyproject.toml")
    over: dict[str, list[str]] = {}

    for commit_id in touched[1:]:
        base = git(repository, "rev-parse", "HEAD").strip()
        git(repository, "rm", "-rq", "--cached", ".")
        subprocess.run(["git", "-C", str(repository), "clean", "-qfdx", "-e", "config-harness", "-e", "pyproject.toml"], check=True)
        git(repository, "checkout", commit_id, "--", ".")
        git(repository, "checkout", "base", "--", "config-harness", "pyproject.toml")
        account = DiffAccounting(repository, base, settings, view=program_view(settings))
        rows = account.classify([])
        assert rows, commit_id  # every commit changes something, and every change is accounted for
        lines = [f"{f.source}: {f.message}" for f in account.findings(rows)]

        if len(lines) > MAX_LINES:
            over[commit_id[:7]] = lines
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "--allow-empty", "-m", f"{commit_id[:7]}")
    assert not over, over
    assert len(touched) > 30
