"""What a top-level config is to init, read from its defaults list: mandatory groups, parts, included configs."""

from __future__ import annotations

from harness.runner.root_kinds import fragments, included_configs, mandatory_groups, required_group
from tests.conftest import write_tree


def test_a_mandatory_group_is_read_from_the_defaults_list_as_written(tmp_path):
    write_tree(tmp_path, {"train.yaml": "defaults:\n  - _self_\n  - experiment: ???\n  - override /db: ???\n  - model: x\n"})
    assert mandatory_groups(tmp_path / "train.yaml") == ["experiment", "db"]
    assert required_group(tmp_path / "train.yaml", "You must specify 'experiment', e.g, experiment=<OPTION>") == "experiment"
    assert required_group(tmp_path / "train.yaml", "Could not load 'model/x'") is None
    assert mandatory_groups(tmp_path / "absent.yaml") == []


def test_a_config_another_includes_by_name_is_a_part_unless_it_has_a_defaults_list(tmp_path):
    write_tree(
        tmp_path,
        {
            "base.yaml": "defaults:\n  - _self_\n  - logger\n  - trainer\n  - /shared/common\n",
            "logger.yaml": "# @package _global_\nloggers: []\n",
            "trainer.yaml": "defaults:\n  - engine: dp\n",  # a config of its own that base builds on: stays a root
            "megatron.yaml": "defaults:\n  - base\n",  # base has a defaults list: a root megatron builds on
        },
    )
    assert included_configs(tmp_path / "base.yaml", tmp_path) == {"logger", "trainer", "shared/common"}
    assert fragments(tmp_path, ["base", "logger", "megatron", "trainer"]) == {"logger": "base"}
