"""Our words for mistakes: the closest existing name, or nothing when none is close."""

from __future__ import annotations

import io

import pytest

from harness.model.hints import case_hint, did_you_mean, key_paths
from harness.reporters.terminal import wants_color

IDS = ["ppo_trainer/dp/default", "ppo_trainer/megatron/default", "ppo_trainer/megatron/grpo", "route/ppo_megatron_trainer"]


def test_a_typo_gets_the_closest_name_and_nonsense_gets_nothing():
    assert did_you_mean("snapshot_dri", ["snapshot_dir", "config_dir", "roots"]) == "; did you mean 'snapshot_dir'?"
    assert did_you_mean("zzzz", ["snapshot_dir", "config_dir"]) == ""


def test_a_typo_inside_a_case_glob_is_found_segment_by_segment():
    assert case_hint("*/megatorn/*", IDS) == "; did you mean '*/megatron/*'?"
    assert case_hint("ppo_trainer/megatron/grop", IDS) == "; did you mean 'ppo_trainer/megatron/grpo'?"
    assert case_hint("*/nothing_like_it/*", IDS) == ""


def test_key_hints_know_leaves_and_the_mappings_above_them():
    tree = {"algorithm": {"gamma": 1.0, "kl_ctrl": {"kl_coef": 0.001}}}
    assert key_paths(tree) == ["algorithm", "algorithm.gamma", "algorithm.kl_ctrl", "algorithm.kl_ctrl.kl_coef"]
    assert did_you_mean("algorithm.gama", key_paths(tree)) == "; did you mean 'algorithm.gamma'?"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("variable", "value"), [("TERM", "dumb"), ("NO_COLOR", "1")])
def test_a_dumb_terminal_and_no_color_get_no_color(monkeypatch, variable, value):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert wants_color(_Terminal())
    monkeypatch.setenv(variable, value)
    assert not wants_color(_Terminal())


def test_a_misspelled_group_option_is_named_with_the_closest_option():
    from harness.model.hints import option_hint

    message = "In 'train': Could not find 'backend/cpuu' Available options in 'backend': cpu gpu"
    assert option_hint(message) == "In 'train': 'cpuu' is not an option of backend; did you mean 'cpu'? (options: cpu, gpu)"
    assert option_hint("In 'train': Could not load 'backend/cpu'") is None  # not the listing form: Hydra's words stay


def test_a_misspelled_override_key_is_named_with_the_closest_key():
    from harness.model.hints import override_hint

    tree = {"algorithm": {"adv_estimator": "gae", "gamma": 1.0}}
    message = "Could not override 'algorithm.adv_estimatr'. To append to your config use +algorithm.adv_estimatr=grpo"
    assert override_hint(message, tree) == (
        "override algorithm.adv_estimatr=grpo: the config has no key algorithm.adv_estimatr; did you mean 'algorithm.adv_estimator'?"
    )
    far = "Could not override 'trainer.zzz'. To append to your config use +trainer.zzz=1"
    assert override_hint(far, tree) == "override trainer.zzz=1: the config has no key trainer.zzz; to add a new key, write +trainer.zzz=1"


def test_an_option_only_a_plugin_provides_names_the_plugin_package():
    from harness.model.hints import option_hint

    message = (
        "In 'hydra/config': Could not find 'hydra/job_logging/colorlog' Available options in 'hydra/job_logging': "
        "default disabled none stdout"
    )
    assert option_hint(message) == (
        "In 'hydra/config': 'colorlog' is not an option of hydra/job_logging: it comes from "
        "the Hydra plugin hydra-colorlog (install it beside config-harness)"
    )
    launcher = option_hint("Could not find 'hydra/launcher/submitit_slurm' Available options in 'hydra/launcher': basic")
    assert launcher is not None and "hydra-submitit-launcher" in launcher
    other = option_hint("Could not find 'backend/tpu' Available options in 'backend': cpu gpu")
    assert other is not None and "plugin" not in other  # an application's own group: the closest option, not a plugin


def test_a_key_hint_compares_the_last_part_among_the_keys_beside_it_and_the_whole_path_when_its_parent_is_missing():
    """Issue 42 item 9's "did you mean" for an override's key: beside a long shared prefix every two keys look alike
    (`...model.torch_dtype` is not `...model.mtp`), so the last parts are compared; a typo above the last part is
    found among every path."""
    from harness.model.hints import key_hint

    paths = {"actor", "actor.model", "actor.model.mtp", "actor.model.path", "actor.optim", "actor.optim.lr", "trainer", "trainer.lr"}
    assert key_hint("actor.model.torch_dtype", paths) == ""
    assert key_hint("actor.model.pth", paths) == "; did you mean 'actor.model.path'?"
    assert key_hint("actr.optim.lr", paths) == "; did you mean 'actor.optim.lr'?"
    assert key_hint("trainer.lrr", paths) == "; did you mean 'trainer.lr'?"
