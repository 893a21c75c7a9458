"""kept_trees: a config tree at a commit is kept in the cache folder only while it holds exactly what git holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.baselines import kept_trees
from harness.baselines.kept_trees import same_python_sources, tree_at_commit
from harness.gates.confine import project_root
from tests.synthetic_history import commit, git


@pytest.fixture
def repository(tmp_path):
    top = tmp_path / "repo"
    (top / "conf" / "backend").mkdir(parents=True)
    (top / "conf" / "train.yaml").write_text("defaults:\n  - backend: cpu\n")
    (top / "conf" / "backend" / "cpu.yaml").write_text("kind: cpu\n")
    git(top, "init", "-q", "-b", "main")
    return top, commit(top, "tree")


def files_of(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_same_commit_is_the_same_kept_folder_holding_what_git_holds(repository, tmp_path):
    top, head = repository
    cache = tmp_path / "cache"
    first = tree_at_commit(top, head, "conf", cache, tmp_path / "scratch-1")
    inode = (first / "train.yaml").stat().st_ino
    second = tree_at_commit(top, head, "conf", cache, tmp_path / "scratch-2")
    assert (second / "train.yaml").stat().st_ino == inode  # reused, not extracted again
    assert first == second and cache in first.parents
    assert files_of(first) == files_of(top / "conf")
    assert not (tmp_path / "scratch-1").exists() and not (tmp_path / "scratch-2").exists()


@pytest.mark.parametrize("tamper", ["edit", "extra_file", "extra_folder", "symlink", "remove"])
def test_a_kept_tree_that_differs_from_git_in_any_way_is_extracted_again(repository, tmp_path, tamper):
    top, head = repository
    cache = tmp_path / "cache"
    kept = tree_at_commit(top, head, "conf", cache, tmp_path / "scratch")
    if tamper == "edit":
        (kept / "backend" / "cpu.yaml").write_text("kind: gpu\n")
    elif tamper == "extra_file":
        (kept / "backend" / "gpu.yaml").write_text("kind: gpu\n")
    elif tamper == "extra_folder":
        (kept / "optimizer").mkdir()  # an empty group is a group to Hydra
    elif tamper == "symlink":
        (kept / "backend" / "cpu.yaml").unlink()
        (kept / "backend" / "cpu.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    else:
        (kept / "train.yaml").unlink()
    again = tree_at_commit(top, head, "conf", cache, tmp_path / "scratch-2")
    assert files_of(again) == files_of(top / "conf") and not any(p.is_symlink() for p in again.rglob("*"))
    assert {p.name for p in again.rglob("*")} == {"train.yaml", "backend", "cpu.yaml"}
    assert sorted(p.name for p in again.parent.iterdir()) == [".config-harness-copy", ".git", "conf"]


def test_without_a_cache_or_with_a_link_in_the_tree_it_is_extracted_into_scratch(repository, tmp_path):
    top, head = repository
    assert (tmp_path / "scratch") in tree_at_commit(top, head, "conf", None, tmp_path / "scratch").parents
    (top / "conf" / "link.yaml").symlink_to("train.yaml")
    linked = commit(top, "a link")
    assert (tmp_path / "scratch-2") in tree_at_commit(top, linked, "conf", tmp_path / "cache", tmp_path / "scratch-2").parents


def test_only_the_most_recently_used_trees_are_kept(repository, tmp_path, monkeypatch):
    top, head = repository
    monkeypatch.setattr(kept_trees, "KEEP", 2)
    cache = tmp_path / "cache"
    commits = [head]
    for number in range(3):
        (top / "conf" / "backend" / "cpu.yaml").write_text(f"kind: cpu{number}\n")
        commits.append(commit(top, f"edit {number}"))
    kept = []
    for index, each in enumerate(commits):
        kept.append(tree_at_commit(top, each, "conf", cache, tmp_path / f"scratch-{index}"))
        os.utime(kept[-1].parent, (index, index))  # used in this order
    assert sorted(p.name for p in (cache / "trees").iterdir()) == sorted(k.parent.name for k in kept[-2:])


def test_a_nested_config_folder_is_kept_and_its_copy_is_a_project_of_its_own(tmp_path):
    top = tmp_path / "repo"
    (top / "pkg" / "trainer" / "config").mkdir(parents=True)
    (top / "pkg" / "trainer" / "config" / "ppo.yaml").write_text("a: 1\n")
    (top / "pkg" / "trainer" / "other.py").write_text("")
    git(top, "init", "-q", "-b", "main")
    head = commit(top, "tree")
    first = tree_at_commit(top, head, "pkg/trainer/config", tmp_path / "cache", tmp_path / "scratch")
    inode = (first / "ppo.yaml").stat().st_ino
    assert tree_at_commit(top, head, "pkg/trainer/config", tmp_path / "cache", tmp_path / "scratch-2") == first
    assert (first / "ppo.yaml").stat().st_ino == inode  # reused, not extracted again
    kept = first.parents[2]
    assert project_root(first) == kept  # not a git checkout the cache folder happens to lie in
    assert sorted(str(p.relative_to(kept)) for p in kept.rglob("*")) == [
        ".config-harness-copy",  # the copy's place in the repository: its top (harness.gates.copies)
        ".git",
        "pkg",
        "pkg/trainer",
        "pkg/trainer/config",
        "pkg/trainer/config/ppo.yaml",
    ]


@pytest.mark.parametrize("plant", ["beside_the_folder", "at_the_top", "too_big", "marker_with_content", "place_elsewhere"])
def test_anything_planted_in_a_kept_copy_means_it_is_extracted_again(repository, tmp_path, plant):
    top, head = repository
    kept = tree_at_commit(top, head, "conf", tmp_path / "cache", tmp_path / "scratch").parent
    if plant == "beside_the_folder":
        (kept / "elsewhere").mkdir()
    elif plant == "at_the_top":
        (kept / "notes.yaml").write_text("x: 1\n")
    elif plant == "too_big":
        (kept / "conf" / "train.yaml").write_bytes(b"#" * (9 * 1024 * 1024))
    elif plant == "place_elsewhere":  # a copy that would name its files under another folder of the repository
        (kept / ".config-harness-copy").write_text("elsewhere")
    else:
        (kept / ".git").write_text("gitdir: /elsewhere\n")
    again = tree_at_commit(top, head, "conf", tmp_path / "cache", tmp_path / "scratch-2")
    assert files_of(again) == files_of(top / "conf")
    assert sorted(p.name for p in again.parent.iterdir()) == [".config-harness-copy", ".git", "conf"]
    assert (again.parent / ".git").stat().st_size == 0 and (again.parent / ".config-harness-copy").stat().st_size == 0


def test_same_python_sources_compares_every_py_file_and_folder_and_ignores_bytecode(tmp_path):
    def sources(name: str, extra: dict[str, str] | None = None) -> Path:
        files = {"pkg/__init__.py": "", "pkg/config.py": "class A:\n    x: int = 1\n", "pkg/data.json": "{}", **(extra or {})}
        for relative, text in files.items():
            path = tmp_path / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return tmp_path / name / "pkg"

    base = sources("base")
    assert same_python_sources([base], [sources("same", {"pkg/__pycache__/config.cpython-311.pyc": "bytecode"})])
    assert same_python_sources([base], [sources("data", {"pkg/data.json": "[1]"})])  # no reader looks at it
    assert not same_python_sources([base], [sources("edited", {"pkg/config.py": "class A:\n    x: int = 2\n"})])
    assert not same_python_sources([base], [sources("added", {"pkg/extra.py": ""})])
    assert not same_python_sources([base], [sources("folder", {"pkg/sub/notes.txt": ""})])  # a namespace package now
    linked = sources("linked")
    (linked / "link.py").symlink_to(linked / "config.py")
    assert not same_python_sources([base], [linked])  # a link: each side read on its own
    assert not same_python_sources([base], [base, base])
