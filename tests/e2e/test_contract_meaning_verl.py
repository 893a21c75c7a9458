"""Contract changes judged by meaning on verl's whole repository (../shared/data/verl-full.bundle): the harness adopted
at `pr5848-parent` with an alias contract, and a pull request that excuses a real disagreement by syntax the term
comparison cannot see (the agree group widened with a new key, and a waiver for that key)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.e2e.real_trees import SHARED_DATA
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

BUNDLE = SHARED_DATA / "verl-full.bundle"
MEGATRON = "verl/trainer/config/ppo_megatron_trainer.yaml"
ALIAS = """\
contracts:
  - name: lora-alias
    agree:
      - [actor_rollout_ref.model.lora_alpha, actor_rollout_ref.model.lora.alpha]
"""
WIDENED = """\
contracts:
  - name: lora-alias
    agree:
      - [actor_rollout_ref.model.lora_alpha, actor_rollout_ref.model.lora.alpha, actor_rollout_ref.model.lora.scale]
waivers:
  - {contract: lora-alias, path: actor_rollout_ref.model.lora.scale, reason: megatron's block scales on its own}
"""


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} in {path}"
    path.write_text(text.replace(old, new))


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verl at `pr5848-parent`, adopted with `init` and the alias contract; the adoption aligns the Megatron
    block's `lora.alpha` (32) with the flat `lora_alpha` (16), so the contract holds at the base."""
    if not BUNDLE.is_file():
        pytest.skip(f"the bundle of verl's whole repository is not beside the project: {BUNDLE}")
    repository = tmp_path_factory.mktemp("verl-meaning") / "verl"
    git(ROOT, "clone", "--quiet", str(BUNDLE), str(repository))
    git(repository, "checkout", "-q", "-B", "adopted", "pr5848-parent")
    edit(repository / MEGATRON, "      alpha: 32\n", "      alpha: 16\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        assert main(["init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"]) == 0
        (repository / "config-harness" / "contracts.yaml").write_text(ALIAS)
        assert main(["generate"]) == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness with the lora alias contract")
    return repository


def review(repository: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict]:
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "the pull request")
    monkeypatch.chdir(repository)
    capsys.readouterr()
    code = main(["diff", "--base", "adopted", "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def excused(report: dict) -> list[tuple[str, str, str]]:
    return [(case["id"], f["path"], f["severity"]) for case in report["cases"] for f in case["findings"] if f["kind"] == "contract_change"]


def test_the_agree_plus_waiver_loosening_is_a_contract_change_error(adopted, tmp_path, capsys, monkeypatch):
    checkout = tmp_path / "pr"
    git(adopted, "worktree", "add", "-q", "-b", "widened", str(checkout), "adopted")
    edit(checkout / MEGATRON, "      alpha: 16\n", "      alpha: 32\n")
    (checkout / "config-harness" / "contracts.yaml").write_text(WIDENED)
    code, report = review(checkout, capsys, monkeypatch)
    assert code == 1
    assert [f for f in report["findings"] if f["kind"] == "contract_change"] == []  # the terms the base names are all kept
    assert excused(report) == [("route/ppo_megatron_trainer", "actor_rollout_ref.model.lora.alpha", "error")]
    (change,) = [f for group in report["groups"] for f in [group] if group["kind"] == "contract_change"]
    assert change["severity"] == "error" and change["message"].startswith(
        "lora-alias: the base's contract is broken here (must agree but differ: actor_rollout_ref.model.lora_alpha=16, "
        "actor_rollout_ref.model.lora.alpha=32) and this change's contracts no longer report it"
    )
    # The pull request's own contracts only show the waived disagreement.
    (waived,) = [f for case in report["cases"] for f in case["findings"] if f["kind"] == "contract"]
    assert waived["severity"] == "warning" and "[waived: megatron's block scales on its own]" in waived["message"]
