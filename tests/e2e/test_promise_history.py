"""Issue 50's promise proved on real history: a green review is never followed by a red `check` on the merged head.

Two verl forks' whole histories (../shared/data/verl-forks.bundle: TinyZero and Search-R1) are replayed as a chain of
pull requests: adopted by one plain `init` at the first commit that touches a config or a launch script, each later
such commit is a pull request whose tree is that commit's (the harness's files kept), reviewed against the previous
one. For each, as committed (its goldens not regenerated) and again after `generate`: review exit 0 implies `check`
exit 0 on the head. The head then becomes the base, green (`known` records what the commit broke, as a maintainer
who merged it would). 35 real commits in all (22 of TinyZero after its base, 13 of Search-R1)."""

from __future__ import annotations

import io
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from harness.cli import main
from tests.e2e.adoption import bundle
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e]

HARNESS_FILES = ("config-harness", "pyproject.toml")


def run(*args: str) -> int:
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        return main(list(args))


def commit(repository: Path, message: str) -> None:
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "--allow-empty", "-m", message)


def as_pull_request(repository: Path, commit_id: str) -> None:
    """The working tree made `commit_id`'s tree exactly, but for the harness's own files (the base's)."""
    git(repository, "rm", "-rq", "--cached", ".")
    subprocess.run(["git", "-C", str(repository), "clean", "-qfdx", "-e", "config-harness", "-e", "pyproject.toml"], check=True)
    git(repository, "checkout", commit_id, "--", ".")
    git(repository, "checkout", "HEAD", "--", *HARNESS_FILES)


@pytest.mark.parametrize("branch", ["tinyzero", "search-r1"])
def test_a_green_review_is_never_followed_by_a_red_check_on_real_history(tmp_path, monkeypatch, branch):
    repository = tmp_path / branch
    subprocess.run(["git", "clone", "--quiet", "--branch", branch, str(bundle("verl-forks.bundle")), str(repository)], check=True)
    touched = git(repository, "log", "--reverse", "--first-parent", "--format=%H", "--", "*.yaml", "*.sh").split()
    git(repository, "checkout", "-q", "-b", "base", touched[0])
    monkeypatch.chdir(repository)
    assert run("init") == 0
    run("generate", "--quiet")
    run("known")  # what the first commit already had
    commit(repository, "adopt config-harness")
    assert run("check") == 0
    reviewed = 0
    for commit_id in touched[1:]:
        git(repository, "checkout", "-q", "-B", "pr", "base")
        as_pull_request(repository, commit_id)
        commit(repository, f"{commit_id[:7]} as committed")
        stale = run("diff", "--base", "base")
        assert stale != 0 or run("check") == 0, f"{commit_id}: green review, red check (goldens not regenerated)"
        run("generate", "--quiet")
        commit(repository, f"{commit_id[:7]} with its goldens")
        regenerated = run("diff", "--base", "base")
        assert regenerated != 0 or run("check") == 0, f"{commit_id}: green review, red check (goldens regenerated)"
        if run("check") != 0:
            run("known")  # merged anyway: the next pull request's base is green again
            commit(repository, f"{commit_id[:7]}: what it broke, recorded")
        assert run("check") == 0, commit_id
        git(repository, "branch", "-q", "-f", "base", "pr")
        reviewed += 1
    assert reviewed >= 13
