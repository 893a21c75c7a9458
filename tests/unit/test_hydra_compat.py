"""One test per private Hydra API in harness/hydra_compat.py: each fails by name when a Hydra release changes it."""

from __future__ import annotations

from hydra import compose
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from harness import hydra_compat
from harness.compose import SCHEME, CachedFileConfigSource
from tests.conftest import write_tree

TREE = {
    "train.yaml": """
        defaults:
          - optimizer: adam
          - _self_
        lr: 0.1
        """,
    "optimizer/adam.yaml": """
        # @package trainer.optim
        name: adam
        """,
    "optimizer/sgd.yaml": "name: sgd\n",
}


def _loader():
    return GlobalHydra.instance().config_loader()


def test_start_hydra_puts_the_primary_folder_then_the_extra_folders_on_the_search_path(tmp_path):
    primary = write_tree(tmp_path / "conf", TREE)
    extra = write_tree(tmp_path / "extra", {"optimizer/lamb.yaml": "name: lamb\n"})
    hydra_compat.start_hydra(f"file://{primary}", [f"file://{extra}"], None)
    try:
        assert hydra_compat.file_source_folders(_loader()) == [str(primary), str(extra)]
        assert _loader().get_group_options("optimizer") == ["adam", "lamb", "sgd"]
        assert OmegaConf.to_container(compose("train", ["optimizer=lamb"]))["optimizer"] == {"name": "lamb"}
    finally:
        GlobalHydra.instance().clear()


def test_start_hydra_applies_version_base(tmp_path):
    conf = write_tree(tmp_path, {"c.yaml": "defaults:\n  - g: a\n", "g/a.yaml": "# @package _group_\nx: 1\n"})
    for version_base, expected in (("1.1", {"g": {"x": 1}}), (None, {"_group_": {"x": 1}})):
        hydra_compat.start_hydra(f"file://{conf}", (), version_base)
        try:
            assert OmegaConf.to_container(compose("c")) == expected, version_base
        finally:
            GlobalHydra.instance().clear()


def test_registered_source_serves_its_scheme(tmp_path):
    conf = write_tree(tmp_path, TREE)
    hydra_compat.register_source(CachedFileConfigSource)
    hydra_compat.start_hydra(f"{SCHEME}://{conf}")
    try:
        sources = [s for s in _loader().get_sources() if isinstance(s, CachedFileConfigSource)]
        assert [s.path for s in sources] == [str(conf)]
    finally:
        GlobalHydra.instance().clear()


def test_header_of_reads_the_package_header():
    assert hydra_compat.header_of("# @package trainer.optim\nname: adam\n")["package"] == "trainer.optim"
    assert hydra_compat.header_of("name: adam\n").get("package") is None


def test_config_file_name_appends_yaml_once():
    assert hydra_compat.config_file_name("buffer/default") == "buffer/default.yaml"
    assert hydra_compat.config_file_name("buffer/default.yaml") == "buffer/default.yaml"


def test_find_config_file_names_the_first_folder_that_holds_it(tmp_path):
    primary = write_tree(tmp_path / "conf", TREE)
    extra = write_tree(tmp_path / "extra", {"optimizer/sgd.yaml": "name: other\n", "optimizer/lamb.yaml": "name: lamb\n"})
    hydra_compat.start_hydra(f"file://{primary}", [f"file://{extra}"])
    try:
        assert hydra_compat.find_config_file(_loader(), "optimizer/sgd") == (0, "optimizer/sgd.yaml")
        assert hydra_compat.find_config_file(_loader(), "optimizer/lamb.yaml") == (1, "optimizer/lamb.yaml")
        assert hydra_compat.find_config_file(_loader(), "optimizer/none") is None
    finally:
        GlobalHydra.instance().clear()


def test_group_exists(tmp_path):
    hydra_compat.start_hydra(f"file://{write_tree(tmp_path, TREE)}")
    try:
        assert hydra_compat.group_exists(_loader(), "optimizer")
        assert not hydra_compat.group_exists(_loader(), "lr")
    finally:
        GlobalHydra.instance().clear()


def test_recording_defaults_lists_sees_the_compose_defaults_list(tmp_path):
    # If Hydra stops calling create_defaults_list through this module attribute, nothing is recorded.
    hydra_compat.start_hydra(f"file://{write_tree(tmp_path, TREE)}")
    try:
        with hydra_compat.recording_defaults_lists() as recorded:
            compose("train", ["optimizer=sgd"])
        assert recorded, "Hydra no longer computes the defaults list through config_loader_impl.create_defaults_list"
        entries = [(d.config_path, d.package) for d in recorded[-1].defaults if d.config_path and not d.config_path.startswith("hydra")]
        assert entries == [("optimizer/sgd", "optimizer"), ("train", "")]
        compose("train")
        assert len(recorded) == 1, "recording must stop when the block ends"
    finally:
        GlobalHydra.instance().clear()


def test_apply_overrides_changes_values_like_compose(tmp_path):
    hydra_compat.start_hydra(f"file://{write_tree(tmp_path, TREE)}")
    try:
        config = compose("train")
        overrides = ["lr=0.5", "+extra.key=1", "~trainer.optim.name"]
        hydra_compat.apply_overrides(OverridesParser.create().parse_overrides(overrides), config)
        assert OmegaConf.to_container(config) == OmegaConf.to_container(compose("train", overrides))
    finally:
        GlobalHydra.instance().clear()


def test_omegaconf_yaml_resolvers_read_scalars_as_omegaconf_does():
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = hydra_compat.omegaconf_yaml_resolvers()
    loaded = yaml.load("a: 1e-6\nb: 2024-01-01\nc: on\n", Loader=Loader)
    assert loaded == OmegaConf.to_container(OmegaConf.create("a: 1e-6\nb: 2024-01-01\nc: on\n"))
    assert isinstance(loaded["a"], float) and isinstance(loaded["b"], str)


def test_reads_as_other_type():
    assert all(hydra_compat.reads_as_other_type(text) for text in ("true", "Off", "12", "1e-6", "0.5", "-3"))
    assert not any(hydra_compat.reads_as_other_type(text) for text in ("qkv", "1.2.3", "v1", ""))


def test_sources_standing_in_serve_a_scheme_and_restore_hydras_own():
    from hydra._internal.sources_registry import SourcesRegistry

    original = SourcesRegistry.instance().resolve("pkg")
    with hydra_compat.sources_standing_in({"pkg": CachedFileConfigSource}):
        assert SourcesRegistry.instance().resolve("pkg") is CachedFileConfigSource
    assert SourcesRegistry.instance().resolve("pkg") is original


def test_resolvers_replaced_stand_in_and_restore_the_table(monkeypatch):
    monkeypatch.setenv("CH_COMPAT_TOKEN", "value")
    config = OmegaConf.create({"a": "${oc.env:CH_COMPAT_TOKEN}", "b": "${made_up:x}"})
    with hydra_compat.resolvers_replaced({"oc.env": lambda *args: "kept", "made_up": lambda *args: "added"}):
        assert OmegaConf.to_container(config, resolve=True) == {"a": "kept", "b": "added"}
    assert config.a == "value" and "made_up" not in hydra_compat.resolver_table()


def test_shared_work_composes_what_hydra_composes_and_restores_hydra(tmp_path):
    import inspect

    from hydra._internal import defaults_list
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    # The functions shared_work stands in for, with the signatures it calls them with.
    assert list(inspect.signature(defaults_list._create_interpolation_map).parameters) == ["overrides", "defaults_list", "self_added"]
    assert list(inspect.signature(ConfigLoaderImpl._compose_config_from_defaults_list).parameters) == ["self", "defaults", "repo"]
    assert {"default", "repo"} <= set(inspect.signature(ConfigLoaderImpl._load_single_config).parameters)
    originals = (defaults_list._create_interpolation_map, ConfigLoaderImpl._compose_config_from_defaults_list)
    hydra_compat.start_hydra(f"file://{write_tree(tmp_path, TREE)}")
    try:
        plain = [OmegaConf.to_yaml(compose("train", overrides)) for overrides in ([], ["optimizer=sgd"], ["lr=2"])]
        heads: dict = {}
        with hydra_compat.shared_work(heads):
            shared = [OmegaConf.to_yaml(compose("train", overrides)) for overrides in ([], ["optimizer=sgd"], ["lr=2"])]
        assert shared == plain and heads, "the merged head of Hydra's own configs is kept once per session"
    finally:
        GlobalHydra.instance().clear()
    assert (defaults_list._create_interpolation_map, ConfigLoaderImpl._compose_config_from_defaults_list) == originals


def test_source_types_and_resolver_table_are_hydras_live_registries():
    types = hydra_compat.source_types()
    assert {"file", "pkg"} <= set(types) and all(issubclass(t, hydra_compat.ConfigSource) for t in types.values())
    assert "oc.env" in hydra_compat.resolver_table() and "oc.select" in hydra_compat.resolver_table()


def test_shared_work_merges_again_a_head_it_cannot_pickle(tmp_path, monkeypatch):
    # An in-process pytest run imports Hydra's structured-config modules twice; their classes then refuse pickling.
    import pickle

    def refuse(*args, **kwargs):
        raise pickle.PicklingError("Can't pickle <class 'BasicLauncherConf'>: it's not the same object")

    hydra_compat.start_hydra(f"file://{write_tree(tmp_path, TREE)}")
    try:
        plain = OmegaConf.to_yaml(compose("train", ["optimizer=sgd"]))
        heads: dict = {}
        monkeypatch.setattr(hydra_compat.pickle, "dumps", refuse)
        with hydra_compat.shared_work(heads):
            shared = [OmegaConf.to_yaml(compose("train", ["optimizer=sgd"])) for _ in range(2)]
        assert shared == [plain, plain] and heads == {}
    finally:
        GlobalHydra.instance().clear()
