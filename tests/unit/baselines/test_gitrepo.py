"""gitrepo: reading files at a commit of a real repository."""

from __future__ import annotations

import os

import pytest

from harness.baselines import gitrepo
from tests.synthetic_history import commit, git


@pytest.fixture
def repository(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "a.yaml").write_bytes(b"a: 1\n")
    (tmp_path / "snapshots" / "with space.yaml").write_bytes(b"b: 2\n")
    (tmp_path / "snapshots" / "new\nline.yaml").write_bytes(b"c: 3\n")
    (tmp_path / "snapshots" / "empty.yaml").write_bytes(b"")
    (tmp_path / "snapshots" / "folder").mkdir()
    (tmp_path / "snapshots" / "folder" / "x.yaml").write_bytes(b"x\n" * 100)
    return tmp_path, commit(tmp_path, "goldens")


def test_read_files_reads_each_file_as_read_file_does_from_one_git_process(repository):
    top, head = repository
    paths = [
        "snapshots/a.yaml",
        "snapshots/with space.yaml",
        "snapshots/new\nline.yaml",
        "snapshots/empty.yaml",
        "snapshots/folder",
        "snapshots/absent.yaml",
    ]
    found = gitrepo.read_files(top, head, paths)
    assert found == {path: gitrepo.read_file(top, head, path) for path in paths}
    assert found["snapshots/a.yaml"] == b"a: 1\n" and found["snapshots/new\nline.yaml"] == b"c: 3\n"
    assert found["snapshots/empty.yaml"] == b"" and found["snapshots/folder"] is None and found["snapshots/absent.yaml"] is None
    assert gitrepo.read_files(top, head, []) == {}


def test_read_files_refuses_a_file_past_the_bound(repository):
    top, head = repository
    with pytest.raises(gitrepo.GitError, match="more than 100"):
        gitrepo.read_files(top, head, ["snapshots/a.yaml", "snapshots/folder/x.yaml"], limit=100)


def _with_submodule(tmp_path):
    """A repository whose `vendor` is a submodule holding extra/x.yaml (`k: 2` at the first commit, `k: 3` after)."""
    library, top = tmp_path / "library", tmp_path / "top"
    for folder in (library, top):
        folder.mkdir()
        git(folder, "init", "-q", "-b", "main")
    (library / "extra").mkdir()
    (library / "extra" / "x.yaml").write_text("k: 2\n")
    commit(library, "library")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendor")
    base = commit(top, "base")
    (top / "vendor" / "extra" / "x.yaml").write_text("k: 3\n")
    commit(top / "vendor", "bump")
    git(top, "add", "vendor")
    return top, base, commit(top, "the pull request bumps the submodule")


def test_extract_folder_holds_a_submodules_files_as_the_commit_pins_them(tmp_path):
    """git archive leaves a submodule out: a search path in one was an empty folder at the base, so the base never
    composed and a pull request's change there was never a changed value (the review said OK)."""
    top, base, head = _with_submodule(tmp_path)
    at_base = gitrepo.extract_folder(top, base, "vendor", tmp_path / "base")
    assert (at_base / "extra" / "x.yaml").read_text() == "k: 2\n"
    assert (gitrepo.extract_folder(top, head, "vendor", tmp_path / "head") / "extra" / "x.yaml").read_text() == "k: 3\n"
    (top / "vendor" / ".git").unlink()  # the submodule's repository is not there: an error, never a folder left empty
    with pytest.raises(gitrepo.GitError, match="submodule"):
        gitrepo.extract_folder(top, base, "vendor", tmp_path / "again")


def test_a_folder_inside_a_submodule_is_read_from_the_submodule_at_the_commit_the_base_pins(tmp_path):
    top, base, head = _with_submodule(tmp_path)
    assert gitrepo.list_files(top, base, "vendor/extra") == ["vendor/extra/x.yaml"]
    copy = gitrepo.extract_folder(top, base, "vendor/extra", tmp_path / "base")
    assert copy == tmp_path / "base" / "vendor" / "extra" and (copy / "x.yaml").read_text() == "k: 2\n"
    assert (gitrepo.extract_folder(top, head, "vendor/extra", tmp_path / "head") / "x.yaml").read_text() == "k: 3\n"


def test_links_into_a_submodule_are_followed_as_the_commit_holds_them_never_as_the_working_tree_does(tmp_path):
    """RAGEN's layout: config files of the project that are links into its submodule, through another link."""
    top, _, _ = _with_submodule(tmp_path)
    (top / "conf").mkdir()
    (top / "conf" / "x.yaml").symlink_to("../lib/extra/x.yaml")
    (top / "lib").symlink_to("vendor")
    base = commit(top, "links")
    (top / "conf" / "x.yaml").unlink()
    (top / "conf" / "x.yaml").symlink_to("../elsewhere.yaml")  # the pull request re-points it: not the base's
    assert gitrepo.resolve_at(top, base, "conf/x.yaml") == "vendor/extra/x.yaml"
    copy = gitrepo.extract_folder(top, base, "conf", tmp_path / "base")
    assert (copy / "x.yaml").read_text() == "k: 3\n"  # the submodule as the links commit pins it
    assert [(p, (tmp_path / "base" / p).is_symlink()) for p in ("conf/x.yaml", "lib", "vendor")] == [
        ("conf/x.yaml", True),
        ("lib", True),
        ("vendor", False),
    ]
    assert sorted(p.name for p in (tmp_path / "base" / "vendor").rglob("*")) == ["extra", "x.yaml"]  # what the link reads, no more


def test_a_link_leading_out_of_the_repository_is_copied_as_it_is_and_never_followed(tmp_path):
    """The confinement gate refuses to read through it at the base as in the working tree; the copy never holds
    what it names, and the rest of the folder is there (one such link does not refuse the whole base)."""
    top = tmp_path / "top"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    (tmp_path / "secret.yaml").write_text("token: 1\n")
    (top / "conf").mkdir()
    (top / "conf" / "a.yaml").write_text("a: 1\n")
    (top / "conf" / "out.yaml").symlink_to("../../secret.yaml")
    (top / "conf" / "abs.yaml").symlink_to(tmp_path / "secret.yaml")
    base = commit(top, "links out")
    copy = gitrepo.extract_folder(top, base, "conf", tmp_path / "base" / "copy")
    assert (copy / "a.yaml").read_text() == "a: 1\n"
    assert os.readlink(copy / "out.yaml") == "../../secret.yaml" and os.readlink(copy / "abs.yaml") == str(tmp_path / "secret.yaml")
    assert not any(p.name == "secret.yaml" for p in (tmp_path / "base").rglob("*"))
    assert gitrepo.resolve_at(top, base, "conf/out.yaml") is None
