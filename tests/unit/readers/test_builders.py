"""Who builds a `_target_` node, read from the sources' call sites as bytes: the keys code removes first, the
nodes passed to a builder, and those built with arguments of the program's own. (The findings they decide:
tests/unit/runner/test_targets_who_builds.py.)"""

from pathlib import Path

from harness.readers.builders import build_sites

SOURCE = b"""
def fit(self):
    self.config.ref.pop("log_prob_micro_batch_size")
    del self.config.actor.extra
    model_del stray.thing
    actor = instantiate(self.config.actor)
    critic = instantiate(cfg.critic, _convert_="partial")
    loss = instantiate(cfg.module.loss, self.model)
    cls = get_class(cfg.policy._target_)
    whole = instantiate(config)
"""


def sites():
    return build_sites([("app.train", Path("app/train.py"), SOURCE)])


def test_what_code_removes_before_building_names_the_line():
    found = sites()
    assert found.removes("actor_rollout_ref.ref", "log_prob_micro_batch_size") == "app/train.py:3"
    assert found.removes("actor_rollout_ref.actor", "extra") == "app/train.py:4"
    assert found.removes("x.stray", "thing") is None  # `model_del` is a name, not the statement
    assert found.removes("ref", "other") is None


def test_which_nodes_are_built_and_which_with_more_arguments():
    found = sites()
    assert found.builds("trainer.actor") and found.builds("trainer.critic") and found.builds("trainer.actor.optim")  # recursive
    assert found.builds_with_more("trainer.critic") is None  # `_convert_` says how, not what it is given
    assert found.builds_with_more("model.loss") == "app/train.py:8"
    assert found.builds_with_more("agent.policy") == "app/train.py:9"  # the class taken, called by the program
    assert not found.builds("trainer.config") and found.any_builder  # a bare name: which node it holds is not known


def test_a_file_without_a_builder_or_a_removal_is_skipped():
    empty = build_sites([("m", Path("m.py"), b"x = 1\n"), ("n", Path("n.py"), b"print('instantiate')\n")])
    assert not empty.any_builder and empty.removed == {}
