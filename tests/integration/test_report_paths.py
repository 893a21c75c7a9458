"""Paths are the repository's (issue 54 item 4), on a small project whose config reads a search-path folder: a review
names a file of the base's copy of that folder (kept in the cache) as the repository does, in every format, and a base
whose own `hydra.searchpath` its copy cannot follow still gets a review, not exit 2 with the cache's path."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

from tests.conftest import commit_small_project, write_tree
from tests.synthetic_history import git

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit", "comment")
PROJECT = {
    "conf/train.yaml": "defaults:\n  - db: x\n  - _self_\nlr: 1\n",
    "extra/db/x.yaml": "port: 1\nhost: a\n",
    "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\nsearch_path = ["extra"]\n',
}


def machine_prefixes(project: Path) -> list[str]:
    return [str(project.resolve()), str(Path(os.environ["CONFIG_HARNESS_CACHE_DIR"]).resolve()), str(Path(tempfile.gettempdir()).resolve())]


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, PROJECT)
    project = commit_small_project(tmp_path, cli, None)
    (project / "extra/db/x.yaml").write_text("port: 2\n")  # the pull request: a value changed, a key removed
    assert cli("--settings", "harness.toml", "generate").code == 0
    return project


def test_a_file_of_the_base_s_copy_of_a_search_path_folder_is_named_as_the_repository_does_in_every_format(project, cli):
    for name in FORMATS:
        review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", name)
        assert review.code == 0, review.out[-2000:]
        text = review.out.replace("<wbr>", "")
        assert [prefix for prefix in machine_prefixes(project) if prefix in text] == [], name
        assert not re.search(r"(?<![\w.:/])/\w+/", text), name
    text = cli("--settings", "harness.toml", "diff", "--base", "main").out
    assert 'db.host: "a" -> —  (train/base/default; was set by extra/db/x.yaml:2 at main)' in text
    assert "db.port: 1 -> 2  (train/base/default; set by extra/db/x.yaml:1)" in text


def test_a_base_whose_own_search_path_its_copy_lacks_is_reviewed_without_the_cache_s_path(tmp_path, cli):
    settings = 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n'
    searched = "defaults:\n  - db: x\n  - _self_\nhydra:\n  searchpath:\n    - file://extra\nlr: 1\n"
    project = write_tree(tmp_path, {**PROJECT, "harness.toml": settings, "conf/train.yaml": searched})
    git(project, "init", "-q", "-b", "main")  # `file://extra` is read from the repository's top
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 0
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    (project / "extra/db/x.yaml").write_text("port: 2\n")
    assert cli("--settings", "harness.toml", "generate").code == 0
    review = cli("--settings", "harness.toml", "diff", "--base", "main")
    assert review.code == 0, review.err
    assert 'db.host: "a" -> —' in review.out
    assert [prefix for prefix in machine_prefixes(project) if prefix in review.out + review.err] == []
