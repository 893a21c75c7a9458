"""What init reads in a config tree: routes, plain presets, the group a root's entry belongs to."""

from __future__ import annotations


def test_groups_a_root_leaves_off_become_routes_when_their_options_override_its_values(tmp_path):
    from harness.adopt.discovery import Guess, switch_routes, switched_groups
    from tests.conftest import write_tree

    conf = write_tree(
        tmp_path / "conf",
        {
            "train.yaml": "defaults:\n  - _self_\n  - debug: null\n  - logger: null\n  - override_me: null\ntrainer:\n  epochs: 10\n",
            "debug/fast.yaml": "# @package _global_\ntrainer:\n  epochs: 1\n",
            "debug/broken.yaml": "defaults:\n  - missing_group: x\n",
            "logger/csv.yaml": "path: logs\n",
        },
    )
    assert switched_groups(conf / "train.yaml") == ["debug", "logger", "override_me"]
    switches = switch_routes(conf, ["train"], Guess())
    assert switches.routes == ({"name": "train_debug_fast", "config_name": "train", "overrides": ["debug=fast"]},)
    reasons = {entry.name: entry.reason for entry in switches.left_out}
    assert reasons["train logger=csv"] == "they only add keys; they override none the root sets"
    assert "missing_group" in reasons["train debug=broken"]


def test_the_preset_without_overrides_is_plain_beside_an_engine_called_default():
    from harness.adopt.discovery import Discovery, Guess, readable_presets

    discovery = Discovery(("train",), engines=("cpu", "default"), same_as=(("big", "train/default/default"),))
    renamed, guess = readable_presets(discovery, Guess(), explicit=False)
    assert guess.presets == (("plain", ()),) and renamed.same_as == (("big", "train/default/plain"),)
    assert readable_presets(discovery, Guess(), explicit=True) == (discovery, Guess())  # --preset names it
    assert readable_presets(Discovery(("train",), engines=("cpu",)), Guess(), explicit=False)[1] == Guess()


def test_a_root_s_entry_belongs_to_the_group_its_defaults_list_names():
    from harness.adopt.discovery import _selected_group

    # `- environment: pufferlib_ocean/bandit` selects from `environment`, not from a group `environment/pufferlib_ocean`
    assert _selected_group("environment/pufferlib_ocean/bandit", {"environment"}) == "environment"
    assert _selected_group("model/representation/painn", {"model/representation"}) == "model/representation"
    assert _selected_group("actor/dp_actor", {"actor"}) == "actor"
    assert _selected_group("a/b/c", set()) == "a"
