"""What a kept review's key sees (harness.runner.kept_runs), on real git repositories: every change git lists, each
submodule, the folders the settings name (ignored or not), and where each file the run asked for leads now."""

from __future__ import annotations

import os
from pathlib import Path

from harness.model.settings import Settings
from harness.runner import kept_runs
from harness.runner.kept_runs import fingerprint, named_folders, working_tree
from tests.conftest import git


def repository(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "a.yaml").write_text("a: 1\n")
    (path / ".gitignore").write_text("cache/\n*.log\n")
    git(path, "add", "-A")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    return path


def test_the_working_tree_digest_sees_edits_new_files_the_index_and_ignored_names(tmp_path):
    top = repository(tmp_path / "repo")
    seen = [working_tree(top)]
    (top / "a.yaml").write_text("a: 2\n")  # `git status` says " M a.yaml" for this edit and the next alike
    seen.append(working_tree(top))
    (top / "a.yaml").write_text("a: 3\n")
    seen.append(working_tree(top))
    git(top, "add", "a.yaml")  # the same bytes, now in the index
    seen.append(working_tree(top))
    (top / "b.yaml").write_text("b: 1\n")  # not yet added
    seen.append(working_tree(top))
    (top / "b.yaml").write_text("b: 2\n")
    seen.append(working_tree(top))
    (top / "run.log").write_text("x")  # an ignored file: listed by name, its size and times
    seen.append(working_tree(top))
    (top / "cache").mkdir()  # an ignored folder: one name
    seen.append(working_tree(top))
    assert len(set(seen)) == len(seen) and None not in seen
    assert working_tree(top) == seen[-1]  # nothing changed: the same key


def test_a_submodule_is_seen_checked_out_or_not(tmp_path):
    inner = repository(tmp_path / "inner")
    top = repository(tmp_path / "top")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    git(top, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "sub")
    checked_out = working_tree(top)
    (top / "sub" / "a.yaml").write_text("a: 9\n")  # an edit inside the submodule
    edited = working_tree(top)
    (top / "sub" / "cache").mkdir()  # ignored inside the submodule
    ignored = working_tree(top)
    assert len({checked_out, edited, ignored}) == 3 and None not in {checked_out, edited, ignored}


def test_named_folders_are_seen_file_by_file_and_past_the_entry_bound_not_kept(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    (conf / "group").mkdir(parents=True)
    (conf / "group" / "a.yaml").write_text("a: 1\n")
    settings = Settings(origin=tmp_path / "harness.toml", config_dir=conf, snapshot_dir=tmp_path / "snapshots")
    first = named_folders(settings)
    (conf / "group" / "b.yaml").write_text("b: 1\n")  # a new option of the group
    second = named_folders(settings)
    (conf / "group" / "b.yaml").write_text("b: 22\n")
    third = named_folders(settings, None)
    assert len({first, second, third}) == 3
    monkeypatch.setattr(kept_runs, "MAX_NAMED_ENTRIES", 2)
    assert named_folders(settings) is None


def test_a_files_fingerprint_is_where_it_leads_and_what_it_holds(tmp_path):
    (tmp_path / "one").write_text("1")
    (tmp_path / "two").write_text("1")
    link = tmp_path / "link"
    scope = (tmp_path,)
    assert fingerprint(str(link), scope)[1] == "absent"
    link.symlink_to(tmp_path / "one")
    before = fingerprint(str(link), scope)
    os.remove(link)
    link.symlink_to(tmp_path / "two")  # the same bytes elsewhere
    assert fingerprint(str(link), scope) != before and fingerprint(str(link), scope)[1] == before[1]
    assert fingerprint(str(tmp_path), scope)[1] == "NotAFile"
    # A link out of the scope is never followed to be read: only where it leads is part of the fingerprint.
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.write_text("secret")
    os.remove(link)
    link.symlink_to(outside)
    assert fingerprint(str(link), scope) == (str(outside), "UnsafeInput")
