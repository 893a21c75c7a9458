"""verl PR #5848 replayed from verl's own history (../shared/data/verl-replay.bundle): the harness adopted at the PR's
parent with the settings `init` writes, plus the one contract a team would write first (the Megatron-only keys the
PR silently lost). The review's GitHub annotations lead with that damage, and every annotation points at a file
of the pull request's checkout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.e2e.real_trees import SHARED_DATA
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

BUNDLE = SHARED_DATA / "verl-replay.bundle"
CONTRACTS = """\
contracts:
  - name: megatron-critical
    cases: "*megatron*"
    require:
      - actor_rollout_ref.rollout.layer_name_map.qkv_layer_name
      - actor_rollout_ref.model.override_config.moe_config.freeze_moe_router
    equal:
      actor_rollout_ref.model.use_remove_padding: false
"""
DAMAGE = ("layer_name_map", "moe_config", "use_remove_padding")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return replay_pr5848(tmp_path_factory.mktemp("pr5848"))


def replay_pr5848(folder: Path) -> Path:
    """verl at PR #5848's parent with the settings init writes and CONTRACTS, committed as `main`, and the PR's own
    change on the branch `pr5848-review` (checked out), in `folder`/verl."""
    if not BUNDLE.is_file():
        pytest.skip(f"the replay bundle of verl's history is not beside the project: {BUNDLE}")
    repository = folder / "verl"
    git(ROOT, "clone", "--quiet", str(BUNDLE), str(repository))
    git(repository, "checkout", "-q", "-B", "main", "pr5848-parent")
    (repository / "pyproject.toml").write_text('[project]\nname = "verl"\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        assert main(["init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"]) == 0
        (repository / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
        assert main(["generate"]) == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness at the parent of PR #5848")
    git(repository, "checkout", "-q", "-b", "pr5848-review")
    git(repository, "cherry-pick", "--allow-empty", "pr5848")  # the PR's own change, on top of the adoption
    return repository


def test_the_first_error_annotation_is_the_megatron_damage_and_every_file_exists(replayed, capsys, monkeypatch):
    monkeypatch.chdir(replayed)
    capsys.readouterr()
    code = main(["diff", "--base", "main", "--format", "github"])
    out = capsys.readouterr().out
    assert code == 1
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert errors and any(word in errors[0] for word in DAMAGE), errors[:3]
    assert len(errors) <= 10
    files = re.findall(r"^::\w+ file=([^,:]+)", out, flags=re.M)
    assert files and all((replayed / name.replace("%2C", ",")).is_file() for name in files), sorted(set(files))
    assert not any(name.startswith("main:") for name in files)
