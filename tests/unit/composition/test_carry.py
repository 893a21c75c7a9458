"""A cached composition carried over a value edit equals Hydra's own, and is refused wherever it might not.

On real trees, edit after edit: tests/e2e/test_carry_real.py."""

import textwrap

from omegaconf import AnyNode, OmegaConf

from harness.composition.carry import carried
from harness.composition.compose import MAX_CARRIED_VALUES, HydraSession
from harness.composition.hydra_compat import same_nodes, value_edits
from harness.model.semantic_diff import same_value
from tests.conftest import write_tree


def node(text: str):
    return OmegaConf.create(textwrap.dedent(text))


def test_a_later_file_or_an_override_that_writes_the_value_stops_the_carry():
    composed = node("trainer: {epochs: 1, lr: 0.1}")
    old, new = node("trainer: {epochs: 1}"), node("trainer: {epochs: 5}")
    edits = value_edits(old, new, same_value)
    assert edits is not None
    later = node("trainer: {epochs: 9}")
    # A later file decides the value: the edit does not reach the composition.
    kept = carried(composed.copy(), [((), new), ((), later)], {0: edits}, [])
    assert kept is not None and kept.trainer.epochs == 1
    # An override writes it: refused (Hydra composes).
    assert carried(composed.copy(), [((), new)], {0: edits}, [("trainer", "epochs")]) is None
    assert carried(composed.copy(), [((), new)], {0: edits}, [("trainer",)]) is None
    result = carried(composed.copy(), [((), new)], {0: edits}, [("model", "x")])
    assert result is not None and result.trainer.epochs == 5 and type(result.trainer._get_node("epochs")) is AnyNode


def test_a_composed_node_that_is_not_the_edits_old_value_is_refused():
    old, new = node("trainer: {epochs: 1}"), node("trainer: {epochs: 5}")
    edits = value_edits(old, new, same_value)
    assert carried(node("trainer: {epochs: 2}"), [((), new)], {0: edits}, []) is None


def test_a_carry_on_a_small_tree_equals_hydra_and_is_kept(tmp_path):
    conf = write_tree(
        tmp_path / "conf",
        {
            "train.yaml": "defaults:\n  - model: small\n  - _self_\ntrainer:\n  epochs: 3\n",
            "model/small.yaml": "width: 8\ndepth: 2\n",
        },
    )
    cache = tmp_path / "cache"
    with HydraSession(conf, cache) as session:
        session.compose("train", ["trainer.epochs=4"])
    (conf / "model" / "small.yaml").write_text("width: 16\ndepth: 2\n")
    with HydraSession(conf, cache) as session:
        got = session.compose("train", ["trainer.epochs=4"])
        assert session.carried == [("train", ("trainer.epochs=4",))]
    with HydraSession(conf, None) as session:
        assert same_nodes(got, session.compose("train", ["trainer.epochs=4"]), same_value)
    with HydraSession(conf, cache) as session:  # the carried composition is kept as a computed one
        session.compose("train", ["trainer.epochs=4"])
        assert session.reused and not session.carried


def test_a_file_of_more_edits_than_a_carry_takes_is_composed_by_hydra(tmp_path):
    """A carry asks every merged file about every edited value: past MAX_CARRIED_VALUES, Hydra composes."""
    many = MAX_CARRIED_VALUES + 1
    conf = write_tree(tmp_path / "conf", {"train.yaml": "".join(f"k{i}: 1\n" for i in range(many))})
    cache = tmp_path / "cache"
    with HydraSession(conf, cache) as session:
        session.compose("train", [])
    (conf / "train.yaml").write_text("".join(f"k{i}: 2\n" for i in range(many)))
    with HydraSession(conf, cache) as session:
        got = session.compose("train", [])
        assert session.carried == [] and session.composed_fresh == [("train", ())]
    assert got.k0 == 2 and got[f"k{many - 1}"] == 2
