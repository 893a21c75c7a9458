"""Invariants of a runnable config in a review (`diff --base REF`) and in `check`, on a small git repository built
here: a renamed key left behind an interpolation, a broken `hydra.run.dir` and a deleted `optional` option are each
named and each fail both; one the base already had is `at_base` and fails nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import git
from tests.unit.rules.test_invariants import TREE, edit

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def repo(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, TREE)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def kinds(run) -> set[tuple[str, str, str, str]]:
    return {
        (f["kind"], f["path"], f["severity"], f.get("origin", ""))
        for case in run.json()["cases"]
        for f in case["findings"]
        if f["kind"] in ("unresolved", "option_gone")
    }


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        ("conf/task/classify.yaml", "monitored_metric", "metric", ("unresolved", "callbacks.checkpoint.monitor")),
        ("conf/app.yaml", "experiment_name: exp", "run_name: exp", ("unresolved", "hydra.run.dir")),
        ("conf/db/sqlite.yaml", "driver: sqlite\nport: 0\n", None, ("option_gone", "db")),
    ],
)
def test_each_break_fails_the_review_and_check_after_generate(repo: Path, cli, name, old, new, expected) -> None:
    if new is None:
        (repo / name).unlink()
    else:
        edit(repo, name, old, new)
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert review.code == 1
    assert kinds(review) == {(*expected, "error", "introduced")}
    check = cli("--settings", "harness.toml", "check", "--format", "json")
    assert check.code == 1 and {k[:3] for k in kinds(check)} == {(*expected, "error")}
    # Regenerated and committed, the break is the base's: the next review names it as such and passes.
    cli("--settings", "harness.toml", "generate")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "broken")
    later = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    if expected[0] == "unresolved":
        assert later.code == 0 and kinds(later) == {(*expected, "error", "at_base")}
