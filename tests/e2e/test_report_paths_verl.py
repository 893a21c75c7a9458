"""Paths are the repository's (issue 54 item 4): every file the review of verl PR #5848 names, in every format (text,
JSON, markdown, GitHub annotations, SARIF, JUnit, the pull-request comment), is named as the repository names it. No
report holds the cache folder's path (where a review keeps its copy of the base), a temporary folder's, the checkout's
own absolute path, the home folder, or any absolute path but those verl's own files write (a script's `source
/usr/local/Ascend/...`). Run from the repository's top and from a folder inside it, as a maintainer may: the names are
the same (GitHub and SARIF read them from the repository's top)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness.cli import main
from tests.e2e.test_review_annotations_pr5848 import replay_pr5848

pytestmark = pytest.mark.e2e

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit", "comment")
# An absolute path: a slash not after a word, a colon or a slash (never a URL's), then folders and a name.
ABSOLUTE = re.compile(r"(?<![\w.:/~$}*-])/(?:[\w.@+-]+/)+[\w.@+-]*")
EVENT = {
    "repository": {"full_name": "volcengine/verl", "html_url": "https://github.com/volcengine/verl"},
    "workflow_run": {
        "event": "pull_request",
        "head_sha": "0" * 40,
        "conclusion": "failure",
        "id": 1,
        "html_url": "https://github.com/volcengine/verl/actions/runs/1",
        "pull_requests": [{"number": 5848, "head": {"sha": "0" * 40}}],
    },
}


def reports(where: Path, folder: Path, capsys, monkeypatch) -> dict[str, str]:
    """The review against `main` in every format from one run started in the folder `where` (text on standard output,
    the others written by `--report` into `folder`), and the comment the commenting workflow renders from the
    `comment` format's artifact."""
    folder.mkdir()
    monkeypatch.chdir(where)
    written = [f"--report={name}:{folder / name}" for name in FORMATS[1:]]
    capsys.readouterr()
    assert main(["diff", "--base", "main", *written]) == 1
    said = {"text": capsys.readouterr().out, **{name: (folder / name).read_text() for name in FORMATS[1:]}}
    artifact = folder / "artifact"
    artifact.mkdir()
    (artifact / "comment.json").write_text(said["comment"])
    event = folder / "event.json"
    event.write_text(json.dumps(EVENT))
    body = folder / "comment.md"
    assert main(["comment", str(artifact), "--event", str(event), "--out", str(body), "--quiet"]) == 0
    said["pull-request comment"] = body.read_text()
    return said


def machine_paths(text: str, allowed: set[str]) -> list[str]:
    """The absolute paths a report holds (markdown's word breaks taken out) that the repository's files do not write."""
    plain = text.replace("<wbr>", "")
    return sorted({path for path in ABSOLUTE.findall(plain) if not any(path.startswith(ok) for ok in allowed)})


def test_every_format_of_the_review_names_files_as_the_repository_does_from_its_top_and_from_a_folder(tmp_path, capsys, monkeypatch):
    repository = replay_pr5848(tmp_path)
    written = subprocess.run(
        ["git", "grep", "-h", "-o", "-E", r"/(usr|opt|mnt|data|etc)/[A-Za-z0-9_./-]+"], cwd=repository, capture_output=True, text=True
    )
    allowed = set(written.stdout.split())  # the paths verl's scripts and configs write themselves
    assert "/usr/local/Ascend/nnal/atb/set_env.sh" in allowed
    machine = {
        str(repository.resolve()),
        str(Path(os.environ["CONFIG_HARNESS_CACHE_DIR"]).resolve()),
        str(Path(tempfile.gettempdir()).resolve()),
        str(Path.home()),
    }
    from_top = reports(repository, tmp_path / "from-top", capsys, monkeypatch)
    from_folder = reports(repository / "verl", tmp_path / "from-folder", capsys, monkeypatch)
    for where, said in (("top", from_top), ("verl/", from_folder)):
        for name, text in said.items():
            assert [prefix for prefix in machine if prefix in text] == [], (where, name)
            assert machine_paths(text, allowed) == [], (where, name)
    # The same files, named alike wherever the review runs from: a GitHub annotation's `file=` and a SARIF location's
    # URI are read from the repository's top.
    for name, named in (("github", r"^::\w+ file=([^,:]+)"), ("sarif", r"\"uri\": \"([^\"]+)\"")):
        files = set(re.findall(named, from_top[name], flags=re.M))
        assert files and files == set(re.findall(named, from_folder[name], flags=re.M)), name
    assert all((repository / name).is_file() for name in re.findall(r"^::\w+ file=([^,:]+)", from_folder["github"], flags=re.M))
