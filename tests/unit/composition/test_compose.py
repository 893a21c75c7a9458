from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.composition.compose import HydraSession
from harness.composition.render import parse_yaml, render_golden, to_plain
from harness.model.matrix import Case
from tests.conftest import SMALL_TREE, write_tree


def plain_compose(config_dir, config_name, overrides):
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return OmegaConf.to_container(compose(config_name, overrides=list(overrides)), resolve=False)


def test_group_options_are_discovered(tmp_path):
    conf = write_tree(tmp_path, SMALL_TREE)
    with HydraSession(conf) as session:
        assert session.group_options("backend") == ["cpu", "gpu"]


def test_shared_base_presets_equal_full_compose(tmp_path):
    conf = write_tree(tmp_path, SMALL_TREE)
    cases = [
        Case("train/gpu/default", "train", ("backend=gpu",)),
        Case("train/gpu/fast", "train", ("backend=gpu",), ("trainer.epochs=1", "+trainer.new=2", "~trainer.extra")),
        Case("train/gpu/sgd", "train", ("backend=gpu",), ("optimizer@trainer.optim=sgd",)),
    ]
    with HydraSession(conf) as session:
        fast = [to_plain(c.config) for c in session.compose_cases(cases)]
    for case, tree in zip(cases, fast):
        assert tree == plain_compose(conf, case.config_name, case.overrides), case.id
    assert fast[1]["trainer"]["epochs"] == 1 and fast[1]["trainer"]["new"] == 2 and "extra" not in fast[1]["trainer"]
    assert fast[2]["trainer"]["optim"]["name"] == "sgd"


def test_golden_parses_back_to_plain_compose(tmp_path):
    conf = write_tree(tmp_path, SMALL_TREE)
    case = Case("route/legacy", "legacy", ())
    with HydraSession(conf) as session:
        (composed,) = session.compose_cases([case])
    text = render_golden(case, composed.config)
    assert text.startswith("# config-harness golden") and "Do not edit" in text
    assert "${trainer.lr}" in text and "${oc.env:USER}" in text and "name: ???" in text
    assert parse_yaml(text) == plain_compose(conf, "legacy", [])


def test_a_broken_case_does_not_stop_the_others(tmp_path):
    conf = write_tree(tmp_path, SMALL_TREE)
    cases = [
        Case("a", "train", ("backend=tpu",)),
        Case("b", "train", ("backend=cpu",), ("trainer.epochs=[",)),
        Case("c", "train", ("backend=cpu",)),
    ]
    with HydraSession(conf) as session:
        results = list(session.compose_cases(cases))
    assert results[0].config is None and "tpu" in results[0].error and "\n" not in results[0].error
    assert results[1].config is None and "trainer.epochs=[" in results[1].error
    assert results[2].config is not None
