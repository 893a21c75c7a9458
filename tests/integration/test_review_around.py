"""What runs the review and what it reads are reviewed too (issue 41 item 6): a submodule re-pointed (its gitlink or
its URL), a workflow that runs config-harness, or a file the CODEOWNERS template lists, changed by a pull request."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from harness.runner.around import around_review
from tests.synthetic_history import git

WORKFLOW = "name: config-harness\non: pull_request\njobs:\n  review:\n    steps:\n      - run: config-harness diff --base main\n"
OTHER = "name: docs\non: push\njobs:\n  build:\n    steps:\n      - run: make docs\n"
PINNED, REPINNED = "1" * 40, "2" * 40


def _repository(root: Path) -> tuple[Path, str]:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".github/workflows").mkdir(parents=True)
    (root / ".github/workflows/config-harness.yml").write_text(WORKFLOW)
    (root / ".github/workflows/docs.yml").write_text(OTHER)
    (root / "config-harness").mkdir()
    (root / "config-harness/requirements.txt").write_text("config-harness==0.9.0\n")
    (root / ".gitmodules").write_text('[submodule "recipe"]\n\tpath = recipe\n\turl = https://github.com/verl-project/verl-recipe.git\n')
    git(root, "add", "-A")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{PINNED},recipe")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    return root, git(root, "rev-parse", "HEAD").strip()


def test_an_unchanged_checkout_has_nothing_around_its_review(tmp_path):
    top, base = _repository(tmp_path / "repo")
    assert around_review(top, base, SimpleNamespace(command_globs=("**/*.sh",))) == []


def test_a_repointed_submodule_a_changed_workflow_and_an_owned_file_are_named_with_their_owners(tmp_path):
    top, base = _repository(tmp_path / "repo")
    git(top, "update-index", "--cacheinfo", f"160000,{REPINNED},recipe")
    (top / ".gitmodules").write_text('[submodule "recipe"]\n\tpath = recipe\n\turl = https://example.com/fork.git\n')
    (top / ".github/workflows/config-harness.yml").write_text(
        WORKFLOW.replace("config-harness diff --base main", "config-harness diff --base main || exit 0")
    )
    (top / ".github/workflows/docs.yml").write_text(OTHER + "# unrelated\n")
    (top / "config-harness/requirements.txt").write_text("config-harness==0.1.0\n")
    changes = {change.key: change for change in around_review(top, base, SimpleNamespace(command_globs=("**/*.sh",)))}
    assert sorted(changes) == [".github/workflows/config-harness.yml", "config-harness/requirements.txt", "submodule.recipe"]
    module = changes["submodule.recipe"]
    assert module.narrows and module.old == {"commit": PINNED, "url": "https://github.com/verl-project/verl-recipe.git"}
    assert module.new == {"commit": REPINNED, "url": "https://example.com/fork.git"}
    assert "submodule recipe re-pointed" in module.description and "(checked by the base)" in module.description
    workflow = changes[".github/workflows/config-harness.yml"]
    assert workflow.narrows and "the owners of .github/workflows/config-harness.yml must approve" in workflow.description
    # Where the base checks no launches, a re-pointed submodule is shown, not failed.
    assert not next(c for c in around_review(top, base, SimpleNamespace(command_globs=())) if c.key == "submodule.recipe").narrows


def test_a_workflow_replaced_by_a_link_is_read_as_gone_never_followed(tmp_path):
    top, base = _repository(tmp_path / "repo")
    outside = tmp_path / "elsewhere.yml"
    outside.write_text(WORKFLOW)
    (top / ".github/workflows/config-harness.yml").unlink()
    os.symlink(outside, top / ".github/workflows/config-harness.yml")
    (change,) = around_review(top, base, None)
    assert change.key == ".github/workflows/config-harness.yml" and change.new is None
