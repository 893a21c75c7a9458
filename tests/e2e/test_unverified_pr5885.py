"""Issue 51 item 1 on verl's own history (verl-commits.bundle): verl 74dc16c94 (#5885) adds
`object.__setattr__(self.engine, "strategy", self.strategy)` to the actor's and critic's `__post_init__`, so the
example launches that set the actor's strategy run its engine with it (fsdp -> fsdp2 on ten of them). Reviewed from
its parent, adopted as `init` writes it, it was "227 ok" with nothing named; now every file it changes is accounted
for, and each write is compared or named as not verified at its line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.e2e.adoption import adopt_verl, clone
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-commits-5885")]
CHANGED = ("verl/workers/config/actor.py", "verl/workers/config/critic.py")


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = clone("verl-commits.bundle", tmp_path_factory.mktemp("verl-5885") / "verl")
    adopt_verl(repository, "pr5885-parent", "adopted", "adopt config-harness")
    git(repository, "checkout", "-q", "-b", "pr5885")
    diff = subprocess.run(["git", "diff", "--binary", "pr5885-parent", "pr5885"], cwd=repository, check=True, capture_output=True)
    subprocess.run(["git", "apply"], cwd=repository, input=diff.stdout, check=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        main(["generate"])  # as the pull request's author would
    return repository


def review(verl: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(verl)
    capsys.readouterr()
    code = main(["diff", "--base", "adopted", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_review_of_5885_names_each_write_it_adds(verl, capsys, monkeypatch):
    code, report = review(verl, capsys, monkeypatch)
    rows = {row["file"]: row for row in report["changed_files"]}
    assert set(CHANGED) <= set(rows), rows
    for file in CHANGED:
        line = next(n for n, text in enumerate((verl / file).read_text().splitlines(), 1) if "object.__setattr__(self.engine" in text)
        row = rows[file]
        if row["verdict"] == "not verified":  # named at the write's line
            assert row["line"] == line and f"write not resolved at {file}:{line}" in row["reason"], row
            assert any(f["kind"] == "unverified" and f["source"] == f"{file}:{line}" for f in report["findings"])
        else:  # compared: the values the write changes are in the review
            assert row["verdict"] == "compared", row
            assert any(f["source"] and f["source"].startswith(file) for c in report["cases"] for f in c["findings"]), row
    assert "not verified" in report["verdict"] or any(c["status"] == "changed" for c in report["cases"]), report["verdict"]
    assert code == 0  # the base's settings (init's) warn
