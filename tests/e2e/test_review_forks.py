"""Real commits of a verl fork replayed as pull requests (../shared/data/verl-forks.bundle, Search-R1's whole history):
adopted at the commit's parent as README.md's "Adopt it" says, the commit applied on a branch, reviewed.

Search-R1 keeps its launch scripts at the repository's root (`train_grpo.sh`, `train_ppo.sh`): init's `*.sh` glob
names them, and a review reads them at both sides (issue 40 item 2). What each commit changes is read from git's own
diff of it (every `+KEY=VALUE` line with its line number), never written down here.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-forks")]

DATA = Path(os.environ.get("CONFIG_HARNESS_TEST_DATA") or ROOT.parent / "shared" / "data")
BUNDLE = DATA / "verl-forks.bundle"


def run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()


def adopted_before(tmp_path: Path, branch: str, commit: str, config_dir: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fork at `commit`'s parent with the harness adopted there (init, generate, commit), and `commit` applied on
    a branch `pr`; the working folder is the repository afterwards."""
    if not BUNDLE.is_file():
        pytest.skip(f"{BUNDLE} is absent")
    repository = tmp_path / branch
    subprocess.run(["git", "clone", "--quiet", "--branch", branch, str(BUNDLE), str(repository)], check=True)
    git(repository, "checkout", "-q", "-b", "adopted", f"{commit}^")
    monkeypatch.chdir(repository)
    assert run("init", "--config-dir", config_dir)[0] == 0
    assert run("generate", "--quiet")[0] == 0
    git(repository, "add", "-A")
    git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "adopt config-harness")
    git(repository, "checkout", "-q", "-b", "pr")
    git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "cherry-pick", commit)
    return repository


def overrides_changed(repository: Path, base: str) -> set[tuple[str, str, str, str, str]]:
    """(script, line, key, old value, new value) of every override line the change rewrote, from `git diff -U0`."""
    diff = git(repository, "diff", "-U0", base, "--", "*.sh")
    changed = set()
    script = ""
    removed: dict[str, str] = {}
    line = 0
    for text in diff.splitlines():
        if text.startswith("+++ "):
            script = text[len("+++ b/") :]
        elif hunk := re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", text):
            line = int(hunk.group(1))
        elif override := re.match(r"-\s*([\w.+]+)=(\S+)", text):
            removed[override.group(1)] = override.group(2)
        elif override := re.match(r"\+\s*([\w.+]+)=(\S+)", text):
            key, value = override.groups()
            changed.add((script, f"{script}:{line}", key, removed.pop(key), value))
            line += 1
    return changed


def test_search_r1_ba78b68_names_the_five_values_its_root_scripts_change_with_script_and_line(tmp_path, monkeypatch):
    repository = adopted_before(tmp_path, "search-r1", "ba78b68", "verl/trainer/config", monkeypatch)
    expected = overrides_changed(repository, "adopted")
    assert len(expected) == 5 and {script for script, *_ in expected} == {"train_grpo.sh", "train_ppo.sh"}

    code, out = run("diff", "--base", "adopted", "--format", "json")
    assert code == 0, out[-3000:]
    report = json.loads(out)
    named = {
        (c["id"].removeprefix("cmd/").rsplit("#", 1)[0], f["source"], f["path"], str(f["old"]), str(f["new"]))
        for c in report["cases"]
        for f in c["findings"]
        if f["kind"] == "changed" and c["id"].startswith("cmd/")
    }
    assert named == expected, out[-3000:]
    code, text = run("diff", "--base", "adopted")
    for _, source, key, old, new in expected:
        (line,) = [line for line in text.splitlines() if line.startswith(f"  {key}: {old} -> {new}")]
        assert source in line, text
    assert "nothing changed" not in text.lower()
