"""Issue 50 item 4 on verl's own history (verl-commits.bundle): verl 2e1a1a660 (#2757, "remove default rollout
selection") made `actor_rollout_ref.rollout.name` mandatory (`???`). Adopted at its parent as `init` writes it, the
pull request applied and its goldens regenerated: the review blocks on exactly the launches that pass no value for it,
each named with the key and its script's line, and `check` on the head names the same launches; the matrix's cases,
whose `???` the user's command line supplies, block nothing for it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.e2e.adoption import clone
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-commits-2757")]
KEY = "actor_rollout_ref.rollout.name"
REASON = "mandatory value not given"
# The launches of #2757's tree that give rollout.name no value (a plain run of run_test.sh passes no `$@`: its
# `--config-name "$CONFIG_NAME"` is every root it may take, and the two trainers' roots hold the `???`).
UNSET = {
    ("cmd/examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh#1", "examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh:3"),
    ("cmd/tests/special_e2e/run_test.sh#1@ppo_trainer", "tests/special_e2e/run_test.sh:12"),
    ("cmd/tests/special_e2e/run_test.sh#1@ppo_megatron_trainer", "tests/special_e2e/run_test.sh:12"),
}


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = clone("verl-commits.bundle", tmp_path_factory.mktemp("verl-2757") / "verl")
    git(repository, "checkout", "-q", "-b", "adopted", "pr2757-parent")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        assert main(["init", "--config-dir", "verl/trainer/config", "--quiet"]) == 0
        main(["generate"])
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "-m", "adopt config-harness")
        git(repository, "checkout", "-q", "-b", "pr2757")
        diff = subprocess.run(["git", "diff", "--binary", "pr2757-parent", "pr2757"], cwd=repository, check=True, capture_output=True)
        subprocess.run(["git", "apply"], cwd=repository, input=diff.stdout, check=True)
        main(["generate"])  # the pull request's author regenerated: the review still blocks
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "-m", "verl #2757")
    return repository


def run_json(
    verl: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *arguments: str
) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(verl)
    capsys.readouterr()
    code = main([*arguments, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def unset_launches(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (case["id"], finding["source"]): finding
        for case in report["cases"]
        for finding in case["findings"]
        if finding["kind"] == "launch" and finding.get("detail") == [REASON]
    }


def test_the_review_of_2757_blocks_on_the_launches_that_leave_rollout_name_unset(verl, capsys, monkeypatch):
    code, report = run_json(verl, capsys, monkeypatch, "diff", "--base", "adopted")
    assert code == 1
    found = unset_launches(report)
    assert set(found) == UNSET
    assert {(f["path"], f["severity"], f["origin"]) for f in found.values()} == {(KEY, "error", "introduced")}
    # What this change introduced that blocks is exactly those launches (the base's own breaks stay at_base).
    introduced = {
        (case["id"], f["source"])
        for case in report["cases"]
        for f in case["findings"]
        if f["severity"] == "error" and f.get("origin") == "introduced"
    }
    assert introduced == UNSET
    # The matrix's cases hold the `???` too: the user's command line gives it, nothing blocks there.
    matrix = [case for case in report["cases"] if not case["id"].startswith("cmd/")]
    assert matrix and not any(f["severity"] == "error" for case in matrix for f in case["findings"] if f["path"] == KEY)

    # `check` on the head names the same launches, and counts the launches as the review does.
    code, checked = run_json(verl, capsys, monkeypatch, "check")
    assert code == 1
    assert set(unset_launches(checked)) == UNSET
    assert checked["launches"] == report["launches"]
    assert not any(
        f["path"] == KEY and f["severity"] == "error"
        for case in checked["cases"]
        if not case["id"].startswith("cmd/")
        for f in case["findings"]
    )
