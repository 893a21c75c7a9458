"""Carried compositions (harness.composition.carry) equal Hydra's own on three real trees, edit after edit.

Each trial edits one `key: value` line of a file the cases read; a quarter of the new values (`null`, `???`, an
interpolation, a quoted number, a list, a mapping) must never be carried, so the refusals run on the same trees.
"""

from __future__ import annotations

import pytest

from harness.baselines.releases import fetch_wheel_tree
from tests.carry_checks import carry_trials
from tests.conftest import CACHE

pytestmark = [pytest.mark.e2e]


def _assert_exact(tally, least: int) -> None:
    assert tally.mismatches == []
    assert tally.carried >= least, tally  # the fast path ran: the comparison is not vacuous


@pytest.mark.parametrize("seed", [1, 2])
def test_verl(tmp_path, seed):
    cases = [
        ["model_engine=megatron"],
        ["model_engine=dp", "actor_rollout_ref.model.lora_rank=32", "actor_rollout_ref.model.lora_alpha=32"],
        ["model_engine=veomni", "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=5"],
    ]
    files = [
        "ppo_trainer.yaml",
        "actor/*.yaml",
        "rollout/rollout.yaml",
        "model_engine/*.yaml",
        "engine/*.yaml",
        "critic/*.yaml",
        "ref/*.yaml",
    ]
    tree = CACHE / "verl" / "verl" / "trainer" / "config"
    chosen = sorted(str(p.relative_to(tree)) for pattern in files for p in tree.glob(pattern))
    _assert_exact(carry_trials(tree, tmp_path, "ppo_trainer", cases, chosen, trials=20, seed=seed), 8)


def test_sheeprl(tmp_path):
    tree = fetch_wheel_tree("sheeprl==0.8.4", "sheeprl/configs", CACHE / "sheeprl-0.8.4")
    cases = [["exp=ppo"], ["exp=ppo", "fabric=ddp-cpu", "fabric.devices=2"], ["exp=dreamer_v3"], ["exp=sac", "algo.total_steps=1024"]]
    files = ["config.yaml", "algo/ppo.yaml", "algo/sac.yaml", "algo/dreamer_v3.yaml", "exp/ppo.yaml", "exp/sac.yaml", "exp/dreamer_v3.yaml",
             "env/gym.yaml", "fabric/default.yaml", "fabric/ddp-cpu.yaml", "buffer/default.yaml"]  # fmt: skip
    _assert_exact(carry_trials(tree, tmp_path, "config", cases, files, trials=30, seed=3), 10)


def test_anemoi(tmp_path):
    tree = fetch_wheel_tree("anemoi-training==0.17.1", "anemoi/training/config", CACHE / "anemoi-training-0.17.1")
    cases = [["model=gnn"], ["model=graphtransformer", "training.max_epochs=2"], []]
    files = ["config.yaml", "model/gnn.yaml", "model/graphtransformer.yaml", "training/default.yaml", "dataloader/native_grid.yaml"]
    _assert_exact(carry_trials(tree, tmp_path, "config", cases, [f for f in files if (tree / f).is_file()], trials=20, seed=4), 6)
