"""A kept review after each kind of change to what decides it (issue 52): a tracked edit, a file not yet added, an
edit staged, the environment, a base that moved. Each is reviewed again, its report a review's without any cache.
One review after another, in one test; tests/integration/test_kept_review.py holds the kept review itself and an
ignored file's edit. Both files run in the e2e tier (Makefile SLOW_TESTS), for the quick tier's CPU budget."""

from __future__ import annotations

import subprocess

from tests.conftest import git, write_tree
from tests.integration.test_kept_review import REVIEW, counted, project  # noqa: F401 (fixtures)


def test_each_change_is_reviewed_again_as_a_review_without_cache(project, cli, counted, monkeypatch):  # noqa: F811
    root, flags = project
    last = cli(*flags, *REVIEW).out

    def reviewed_again(changes_report: bool = True) -> None:
        nonlocal last
        counted.update(compose=0, read=0, run=0)
        after = cli(*flags, *REVIEW)
        assert counted["run"] == 1  # reviewed again, not taken
        assert (after.out != last) == changes_report
        assert (after.out, after.code) == (cli(*flags, "--no-cache", *REVIEW).out, after.code)
        last = after.out

    train = root / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.2", "lr: 0.3"))  # `git status` says " M" as it did before
    reviewed_again()
    write_tree(root / "conf", {"backend/tpu.yaml": "device:\n  kind: tpu\n"})  # not yet added: a new engine's cases
    reviewed_again()
    train.write_text(train.read_text().replace("lr: 0.3", "lr: 0.4"))
    git(root, "add", "conf/train.yaml")  # staged: another blob in the index
    reviewed_again()
    monkeypatch.setenv("CONFIG_HARNESS_KEPT_PROBE", "1")  # a config may read any variable
    reviewed_again(changes_report=False)
    # The base moves: main gets a commit of its own (the working tree's edits kept aside and put back).
    subprocess.run(["git", "-C", str(root), "stash", "-q", "--include-untracked"], check=True)
    (root / "NOTES.md").write_text("notes\n")
    git(root, "add", "NOTES.md")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notes")
    subprocess.run(["git", "-C", str(root), "stash", "pop", "-q"], check=True)
    reviewed_again(changes_report=False)
