"""One test per private Hydra API in harness/composition/hydra_compat.py: each fails by name when a Hydra release changes it."""

from __future__ import annotations

import enum
import textwrap
import warnings
from dataclasses import dataclass, field

import omegaconf
import pytest
from hydra import compose
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hypothesis import given
from hypothesis import strategies as st
from omegaconf import OmegaConf

from harness.composition import hydra_compat
from harness.composition.compose import SCHEME, CachedFileConfigSource
from harness.gates.errors import error_chain
from harness.model.semantic_diff import same_value
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


def test_start_hydra_and_file_source_folders_put_the_primary_folder_then_the_extra_folders_on_the_search_path(tmp_path):
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
            with warnings.catch_warnings(record=True) as caught:  # Hydra's own warning, asserted, not printed
                warnings.simplefilter("always")
                assert OmegaConf.to_container(compose("c")) == expected, version_base
        finally:
            GlobalHydra.instance().clear()
        said = " ".join(str(w.message) for w in caught)
        assert ("deprecated keyword in package header" in said) == (version_base == "1.1"), said


def test_search_path_resolved_hands_over_the_primary_configs_entries_unless_an_override_replaces_them(tmp_path):
    conf = write_tree(tmp_path, {"c.yaml": "hydra:\n  searchpath: ['file://${oc.env:SP_DIR}']\nx: 1\n", "extra/g/a.yaml": "y: 2\n"})
    asked = []

    def resolve(config_name, entries):
        asked.append((config_name, entries))
        return [f"file://{conf / 'extra'}"], {}

    hydra_compat.start_hydra(f"file://{conf}")
    try:
        with hydra_compat.search_path_resolved(resolve):
            assert OmegaConf.to_container(compose("c", ["+g=a"])) == {"x": 1, "g": {"y": 2}}  # found in the resolved folder
            assert asked == [("c", ["file://${oc.env:SP_DIR}"])]  # as written: never resolved by OmegaConf here
            assert OmegaConf.to_container(compose("c", ["hydra.searchpath=[]"])) == {"x": 1}
            assert len(asked) == 1  # the override replaced the entries: they were never read
    finally:
        GlobalHydra.instance().clear()


def test_register_source_serves_its_scheme(tmp_path):
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


def test_child_node_returns_a_container_as_written_without_running_its_resolvers():
    calls = []
    with hydra_compat.resolvers_replaced({"probe": lambda: calls.append(1) or "picked"}):
        config = OmegaConf.create({"defaults": ["${probe:}", {"backend": "cpu"}], "hydra": {"searchpath": []}})
        node = hydra_compat.child_node(config, "defaults")
        assert OmegaConf.to_container(node, resolve=False) == ["${probe:}", {"backend": "cpu"}]
        assert hydra_compat.child_node(config, "hydra") is not None and hydra_compat.child_node(config, "absent") is None
    assert calls == []


def test_source_subclass_keeps_the_class_name_hydra_tells_its_schema_source_by(tmp_path):
    class Mixin:
        pass

    conf = write_tree(tmp_path, TREE)
    structured = hydra_compat.source_types()["structured"]
    renamed = type("RenamedSource", (Mixin, structured), {})
    for stand_in, composes in ((hydra_compat.source_subclass(Mixin, structured), True), (renamed, False)):
        with hydra_compat.sources_standing_in({"structured": stand_in}):
            hydra_compat.start_hydra(f"file://{conf}")
            try:
                if composes:
                    assert compose("train").trainer.optim.name == "adam"
                else:  # the control: Hydra asserts its schema source is a StructuredConfigSource, by name
                    with pytest.raises(AssertionError, match="schema config source must be last"):
                        compose("train")
            finally:
                GlobalHydra.instance().clear()
    assert hydra_compat.source_subclass(Mixin, structured).__mro__[1:3] == (Mixin, structured)


def test_file_group_options_and_is_file_source_see_only_config_folders(tmp_path):
    primary = write_tree(tmp_path / "conf", TREE)
    extra = write_tree(tmp_path / "extra", {"optimizer/lamb.yaml": "name: lamb\n"})
    hydra_compat.start_hydra(f"file://{primary}", [f"file://{extra}"])
    try:
        assert hydra_compat.file_group_options(_loader(), "optimizer") == ["adam", "lamb", "sgd"]
        assert hydra_compat.file_group_options(_loader(), "none") == []
        kinds = {source.scheme(): hydra_compat.is_file_source(source) for source in _loader().get_sources()}
        assert kinds == {"file": True, "pkg": False, "structured": False}
    finally:
        GlobalHydra.instance().clear()


def test_file_source_package_source_and_structured_source_put_a_mixin_before_hydras_own_and_copy_shallowly():
    import copy

    from hydra._internal.core_plugins.file_config_source import FileConfigSource
    from hydra._internal.core_plugins.importlib_resources_config_source import ImportlibResourcesConfigSource
    from hydra._internal.core_plugins.structured_config_source import StructuredConfigSource
    from hydra.plugins.config_source import ConfigSource

    class Probe(ConfigSource):
        """A mixin: the hooks the harness's sources override, reached on Hydra's class through super()."""

    built = {
        hydra_compat.file_source(Probe): FileConfigSource,
        hydra_compat.package_source(Probe): ImportlibResourcesConfigSource,
        hydra_compat.structured_source(Probe): StructuredConfigSource,
    }
    for source_type, hydras in built.items():
        # By name: Hydra's plugin scan may load a second copy of its own source modules (see is_file_source).
        assert [(c.__module__, c.__qualname__) for c in source_type.__mro__[2:3]] == [(hydras.__module__, hydras.__qualname__)]
        assert source_type.__mro__[1] is Probe
        for hook in ("is_group", "is_config", "list", "load_config", "available", "scheme"):
            assert callable(getattr(hydras, hook, None)), f"{hydras.__name__}.{hook}"
    assert [t.__name__ for t in built] == ["Probe", "Probe", "StructuredConfigSource"]  # Hydra's schema source by name
    source = hydra_compat.file_source(Probe)("harness", "file:///nowhere")
    assert source.path == "/nowhere"
    # Hydra deep-copies its repository in every composition: the sources come through as shallow copies.
    clone = copy.deepcopy({"sources": [source]})["sources"][0]
    assert clone is not source and clone.__dict__ == source.__dict__
    assert all(clone.__dict__[key] is value for key, value in source.__dict__.items())


def test_resolvers_replaced_adds_and_replaces_then_restores_the_table():
    before = dict(hydra_compat.resolver_table())
    # Entries of the table take OmegaConf's internal arguments (config, parent, node, args, args_str).
    replacements = {"oc.env": lambda *internal: "stand-in", "config_harness_probe": lambda *internal: 1}
    with hydra_compat.resolvers_replaced(replacements):
        config = OmegaConf.create({"a": "${oc.env:HOME}", "b": "${config_harness_probe:}"})
        assert OmegaConf.to_container(config, resolve=True) == {"a": "stand-in", "b": 1}
    assert hydra_compat.resolver_table() == before


def test_saved_state_restores_registries_version_base_and_global_hydra(tmp_path):
    restore = hydra_compat.saved_state()
    before = (dict(hydra_compat.source_types()), dict(hydra_compat.resolver_table()), GlobalHydra.instance().is_initialized())
    hydra_compat.start_hydra(f"file://{write_tree(tmp_path, TREE)}", version_base="1.1")
    hydra_compat.source_types()["config-harness-probe"] = CachedFileConfigSource
    hydra_compat.resolver_table()["config_harness_probe"] = lambda *internal: 1
    with hydra_compat.shared_work({}):
        restore()
    after = (dict(hydra_compat.source_types()), dict(hydra_compat.resolver_table()), GlobalHydra.instance().is_initialized())
    assert after == before


# syrupy's private API (harness/syrupy_compat.py) and the public hooks the golden extension overrides.


def test_the_golden_extension_sets_no_private_syrupy_attribute():
    """Only syrupy's public hooks: no class of ours between GoldenExtension and syrupy's sets a name syrupy keeps private."""
    from harness.snapshot import GoldenExtension
    from tests.unit.test_private_api import library_private_names

    ours = [cls for cls in GoldenExtension.__mro__ if cls.__module__.startswith("harness.")]
    private = sorted(f"{cls.__name__}.{name}" for cls in ours for name in vars(cls) if name in library_private_names())
    assert private == []


def test_the_golden_extension_reads_and_writes_goldens_as_utf8_text(tmp_path):
    from harness.snapshot import GoldenExtension

    extension = GoldenExtension()
    assert extension.serialize("a: é\n") == "a: é\n"
    with pytest.raises(TypeError, match="a golden is text"):
        extension.serialize(b"a: 1\n")
    path = tmp_path / "_generated_case.yaml"
    path.write_text("a: é\n", encoding="utf-8")
    read = extension.read_snapshot_data_from_location(snapshot_location=str(path), snapshot_name="golden", session_id="")
    assert read == "a: é\n"


def test_every_hook_the_golden_extension_overrides_exists_in_syrupy():
    """A hook syrupy renamed (as 5.0 renamed `_file_extension` to `file_extension`) would silently go unused."""
    from syrupy.extensions.single_file import SingleFileSnapshotExtension

    from harness.snapshot import GoldenExtension

    overridden = {name for name in vars(GoldenExtension) if not name.startswith("__")}
    assert overridden and "file_extension" in overridden
    missing = sorted(name for name in overridden if not hasattr(SingleFileSnapshotExtension, name))
    assert missing == []


def test_snapshot_options_reads_syrupys_options_by_the_names_syrupy_registers(pytestconfig):
    """syrupy is loaded in this run: each name must be one of its options (pytest raises ValueError on any other)."""
    from harness.syrupy_compat import OPTION_NAMES, SnapshotOptions, snapshot_options

    for name in OPTION_NAMES.values():
        assert pytestconfig.getoption(name) is False  # this run updates nothing, warns nothing extra
    assert snapshot_options(pytestconfig) == SnapshotOptions()
    with pytest.raises(ValueError):
        pytestconfig.getoption("snapshot_update")  # the control: a name syrupy does not register


def test_every_compat_name_has_a_test_named_after_it():
    import inspect
    import re
    import sys

    from harness import syrupy_compat

    tests = " ".join(name for name, _ in inspect.getmembers(sys.modules[__name__], inspect.isfunction) if name.startswith("test_"))
    names = [*hydra_compat.__all__, *syrupy_compat.__all__]
    snake = {name: re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() for name in names}
    assert [name for name in names if snake[name] not in tests] == []


def test_nesting_depth_counts_mappings_and_lists_without_recursion():
    config = OmegaConf.create({"a": {"b": [1, {"c": 2}]}, "d": 3})
    assert hydra_compat.nesting_depth(config, 40) == 4  # the root, a, b's list, the mapping in it
    deep: dict = {}
    node = deep
    for _ in range(60):
        node["x"] = {}
        node = node["x"]
    assert hydra_compat.nesting_depth(OmegaConf.create(deep), 10) == 11  # stops counting past the limit


def test_stored_config_is_configstores_own_node_and_structured_config_source_is_hydras_schema_source(tmp_path):
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="compat_probe", node={"a": 1}, group="compat_group")
    try:
        node = hydra_compat.stored_config("compat_group/compat_probe.yaml")
        assert node is hydra_compat.stored_config("compat_group/compat_probe.yaml")  # not a copy
        assert node.node == {"a": 1} and node.package is None
        assert hydra_compat.stored_config("compat_group/absent.yaml") is None
        from hydra._internal.core_plugins.structured_config_source import StructuredConfigSource

        loaded = StructuredConfigSource("probe", "structured://").load_config("compat_group/compat_probe")
        assert loaded.config == node.node and loaded.config is not node.node
    finally:
        del ConfigStore.instance().repo["compat_group"]


@dataclass
class Optim:
    """A structured config node: typed leaves that refuse values of another type."""

    lr: float = 0.1
    steps: int = 3
    betas: list = field(default_factory=lambda: [0.9, 0.99])


def _lent_base():
    """A composed-like config in struct mode: plain and typed leaves, a list, a None and a `???` value, an
    interpolation to a mapping, and a typed (structured) mapping."""
    config = OmegaConf.create(
        {
            "trainer": {
                "lr": 0.1,
                "name": "x",
                "flag": True,
                "layers": ["a", "b"],
                "extra": {},
                "nothing": None,
                "model": {"path": "m", "dims": {"h": 4}},
                "ref": "${trainer.model}",
                "missing": "???",
            },
            "optim": OmegaConf.structured(Optim),
            "none_map": None,
            "alias": "${trainer}",
        }
    )
    OmegaConf.set_struct(config, True)
    return config


LENT_OVERRIDES = [
    ["trainer.lr=0.5", "trainer.name=y", "trainer.flag=false", "trainer.nothing=1", "trainer.missing=2"],
    ["trainer.lr=${trainer.model.path}", "trainer.name=???", "trainer.lr=null"],
    ["optim.steps=abc", "optim.steps=7", "optim.lr=null", "optim.nope=1", "optim.betas=[0.5]"],
    ["trainer.layers=[c]", "trainer.layers=x", "+trainer.layers2=[d]", "trainer.extra={k: 1}", "trainer.model.dims={w: 2}"],
    ["+trainer.new=1", "+trainer.new=2", "++trainer.new=3", "++trainer.other.deep=4", "+trainer.model.dims.x=1"],
    ["~trainer.name", "~trainer.nope", "~trainer.flag=false", "~trainer.lr=9", "~trainer.model.dims"],
    ["trainer.ref.path=z", "alias.lr=3", "none_map.x=1", "trainer.lr.x=1", "trainer.layers.0=q", "nope=1"],
    ["trainer.name.sub=1", "+none_map.k=1", "++trainer.lr=${oc.select:nope,1}", "trainer.missing.x=1"],
    ["trainer.model={path: n}", "trainer.model=null", "trainer.model.path=p", "optim={lr: 1.0}", "optim=null"],
    ["trainer.model={dims: {h: 9}}", "trainer.model.path=q", "++trainer.model.dims.h=5", "trainer.model.dims={w: 1}"],
]


def _nodes(node, path=""):
    """Every node of a config: its path, class, metadata (type hints, flags, key) and value, in order."""
    state = dict(node.__dict__)
    content = state.pop("_content", state.pop("_val", None))
    rows = [(path, type(node).__name__, repr(state["_metadata"]))]
    if isinstance(content, dict):
        for key, child in content.items():
            rows += _nodes(child, f"{path}.{key}")
    elif isinstance(content, list):
        for index, child in enumerate(content):
            rows += _nodes(child, f"{path}[{index}]")
    else:
        rows.append((path, repr(content)))
    return rows


def _outcome(apply, parsed_list, config):
    outcomes = []
    for parsed in parsed_list:
        try:
            apply(parsed, config)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 - the errors themselves are compared
            outcomes.append([(type(cause).__name__, str(cause)) for cause in error_chain(error, causes_only=True)])
    return outcomes


@pytest.mark.parametrize("overrides", LENT_OVERRIDES, ids=lambda o: o[0])
def test_lent_config_applies_overrides_as_apply_overrides_does_and_gives_the_config_back_unchanged(overrides):
    import pickle

    parser = OverridesParser.create()
    base = pickle.dumps(_lent_base(), protocol=pickle.HIGHEST_PROTOCOL)
    fresh = pickle.loads(base)
    expected = _outcome(lambda p, c: hydra_compat.apply_overrides([p], c), parser.parse_overrides(overrides), fresh)
    lent = hydra_compat.LentConfig(pickle.loads(base))
    as_lent = hydra_compat.plain_tree(lent.config)
    for round_ in range(2):  # the second round starts from the config the first gave back
        with hydra_compat.errors_without_copies():
            got = _outcome(lambda p, _c: lent.apply(p), parser.parse_overrides(overrides), lent.config)
        assert got == expected, round_
        assert _nodes(lent.config) == _nodes(fresh)
        _assert_same_plain(lent.plain(as_lent), hydra_compat.plain_tree(fresh))
        if not lent.give_back():
            assert round_ == 0 and any(o.startswith(("trainer.ref.", "alias.", "none_map.")) for o in overrides)
            return
        assert pickle.dumps(lent.config, protocol=pickle.HIGHEST_PROTOCOL) == base


def _assert_same_plain(got, expected):
    # The same keys in the same order with values of the same types: the digest a review keeps comparisons by.
    from harness.composition.store import tree_digest

    assert got == expected
    assert tree_digest(got) == tree_digest(expected)


LENT_POOL = sorted({override for overrides in LENT_OVERRIDES for override in overrides})


@given(st.lists(st.sampled_from(LENT_POOL), max_size=6), st.lists(st.sampled_from(LENT_POOL), max_size=6))
def test_a_lent_config_s_plain_tree_converts_only_what_its_overrides_changed_and_equals_plain_tree(first, second):
    # Two launches of one base in a row (the second gets the config the first gave back, or a fresh copy), each
    # plain tree built from the base's: what a review keeps for every launch, without converting it whole.
    import pickle

    parser = OverridesParser.create()
    base = pickle.dumps(_lent_base(), protocol=pickle.HIGHEST_PROTOCOL)
    lent = hydra_compat.LentConfig(pickle.loads(base))
    as_lent = hydra_compat.plain_tree(lent.config)
    for overrides in (first, second):
        with hydra_compat.errors_without_copies():
            _outcome(lambda p, _c, lent=lent: lent.apply(p), parser.parse_overrides(overrides), lent.config)
        tree = lent.plain(as_lent)
        _assert_same_plain(tree, hydra_compat.plain_tree(lent.config))
        if not lent.give_back():
            lent = hydra_compat.LentConfig(pickle.loads(base))
    assert hydra_compat.plain_tree(_lent_base()) == as_lent  # the base's tree is shared, never changed


def test_lent_config_is_not_given_back_when_a_resolver_cached_a_value():
    counter = iter(range(100))
    OmegaConf.register_new_resolver("harness_test_counter", lambda: next(counter), use_cache=True)
    try:
        config = OmegaConf.create({"a": "${harness_test_counter:}", "b": 1})
        lent = hydra_compat.LentConfig(config)
        lent.apply(OverridesParser.create().parse_overrides(["~a"])[0])  # reads `a` first: the resolver caches
        assert not lent.give_back()
    finally:
        OmegaConf.clear_resolver("harness_test_counter")


def test_errors_without_copies_raise_the_same_error_without_copying_the_config():
    import copy

    config = _lent_base()
    calls = []
    original = copy.deepcopy

    def counting(value, memo=None):
        calls.append(type(value).__name__)
        return original(value, memo)

    def failure():
        try:
            hydra_compat.apply_overrides(OverridesParser.create().parse_overrides(["trainer.model.nope.x=1"]), config)
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error), type(error.__cause__).__name__, str(error.__cause__)
        raise AssertionError("the override applied")

    expected = failure()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(copy, "deepcopy", counting)
        with hydra_compat.errors_without_copies():
            assert failure() == expected
    assert calls == []
    assert failure() == expected  # OmegaConf's own formatting is back


def test_written_at_gives_the_value_as_to_container_writes_it():
    from enum import Enum

    class Color(Enum):
        RED = 1

    config = _lent_base()
    plain = OmegaConf.to_container(config, resolve=False, enum_to_str=True)
    for path in (
        "trainer.lr",
        "trainer.ref",
        "trainer.missing",
        "trainer.nothing",
        "trainer.layers",
        "trainer.layers.1",
        "trainer.model",
        "none_map",
        "alias",
        "optim.betas.0",
    ):
        node = plain
        for part in path.split("."):
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert hydra_compat.written_at(config, path.split(".")) == (True, node), path
    for path in ("trainer.nope", "trainer.lr.x", "trainer.layers.5", "none_map.x", "alias.lr"):
        assert hydra_compat.written_at(config, path.split(".")) == (False, None), path
    assert hydra_compat.written_at(OmegaConf.create({"c": Color.RED}), ["c"]) == (True, "RED")


class Color(enum.Enum):
    RED = 1
    BLUE = 2


@dataclass
class Node:
    """A structured config with enum keys and values, a missing field and a None mapping (plain_tree's test)."""

    color: Color = Color.RED
    by_color: dict[Color, int] = field(default_factory=lambda: {Color.BLUE: 3})
    missing: int = omegaconf.MISSING
    nothing: dict[str, int] | None = None


def test_plain_tree_is_to_container_unresolved_with_enums_as_names():
    config = OmegaConf.create(
        {
            "a": {"b": [1, "${a.c}", {"d": None}, [True, 1.5, b"x"]], "c": "???", "e": "${oc.env:HOME}"},
            "empty": {},
            "none": None,
            "lists": [[], {}, "${a}"],
            1: {"2": 3},
            "typed": Node,
        }
    )
    OmegaConf.update(config, "inter", "${a}", force_add=True)  # a whole mapping that is an interpolation
    config.a.f = OmegaConf.create({"g": 1})
    config.missing_node = OmegaConf.create("???")  # a mapping that is ??? itself
    expected = OmegaConf.to_container(config, resolve=False, enum_to_str=True)
    assert hydra_compat.plain_tree(config) == expected and repr(hydra_compat.plain_tree(config)) == repr(expected)
    assert hydra_compat.plain_tree(config.a) == OmegaConf.to_container(config.a, resolve=False, enum_to_str=True)
    assert hydra_compat.plain_tree(OmegaConf.create([1, {"x": "???"}])) == [1, {"x": "???"}]


@dataclass
class WithUnion:
    """benchmarl's SAC schemas: `target_entropy: float | str = "auto"` (OmegaConf wraps the value's node in a
    UnionNode, whose own value is that node)."""

    target_entropy: float | str = "auto"
    scale: float | str = 0.5
    chosen: float | str | None = None
    later: float | str = "${scale}"


@pytest.mark.skipif(not hasattr(omegaconf.base, "UnionNode"), reason="this OmegaConf has no Union-typed fields")
def test_plain_tree_unwraps_a_union_typed_field_as_to_container_does():
    config = OmegaConf.create({"algorithm": WithUnion})
    expected = OmegaConf.to_container(config, resolve=False, enum_to_str=True)
    plain = hydra_compat.plain_tree(config)
    # A node compares and prints as its value: the types tell them apart (PyYAML refused the node: exit 3 on benchmarl).
    assert plain == expected and repr(plain) == repr(expected)
    assert {key: type(value) for key, value in plain["algorithm"].items()} == {
        key: type(value) for key, value in expected["algorithm"].items()
    }


def test_basic_sweep_gives_the_basic_sweeper_s_points_and_is_basic_sweeper_knows_its_target():
    parsed = OverridesParser.create().parse_overrides(["b=x", "a=1,2", "c=range(2)", "b=y"])
    # By key as first written (a key written twice keeps its place and takes the last value), the product in that order.
    assert hydra_compat.basic_sweep(parsed) == [
        ["b=y", "a=1", "c=0"],
        ["b=y", "a=1", "c=1"],
        ["b=y", "a=2", "c=0"],
        ["b=y", "a=2", "c=1"],
    ]
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeperConf

    assert hydra_compat.is_basic_sweeper(BasicSweeperConf._target_)
    assert not hydra_compat.is_basic_sweeper("hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper")


# What OmegaConf's merge does with one value (harness.composition.carry builds on it).


def _node(text: str):
    return OmegaConf.create(textwrap.dedent(text))


def test_a_changed_plain_value_is_an_edit_with_its_old_and_new_nodes():
    edits = hydra_compat.value_edits(_node("a: {b: 1, c: x}\nd: true\ne: 1"), _node("a: {b: 2, c: x}\nd: false\ne: true"), same_value)
    assert edits is not None
    got = {path: (old._value(), new._value()) for path, (old, new) in edits.items()}
    assert got == {("a", "b"): (1, 2), ("d",): (True, False), ("e",): (1, True)}  # 1 == True in Python; an edit here


@pytest.mark.parametrize(
    "old, new",
    [
        ("a: 1", "a: 1\nb: 2"),  # a key added
        ("a: 1\nb: 2", "b: 2\na: 1"),  # the order changed
        ("a: [1]", "a: [2]"),  # a list
        ("a: 1", "a: null"),
        ("a: 1", "a: ???"),
        ("a: 1", "a: ${b}"),
        ("a: 1", "a: {b: 1}"),
        ("defaults: [x]\na: 1", "defaults: [y]\na: 1"),
    ],
)
def test_anything_but_a_plain_value_change_is_no_edit(old, new):
    assert hydra_compat.value_edits(_node(old), _node(new), same_value) is None


def test_values_that_python_calls_equal_but_a_program_tells_apart_are_edits():
    edits = hydra_compat.value_edits(_node("a: 0.0\nb: 1"), _node("a: -0.0\nb: 1.0"), same_value)
    assert edits is not None and set(edits) == {("a",), ("b",)}


def test_what_decides_a_value_at_a_path():
    path = ("trainer", "epochs")
    assert hydra_compat.decides(_node("trainer: {epochs: 1}"), (), path) is True
    assert hydra_compat.decides(_node("epochs: 1"), ("trainer",), path) is True
    assert hydra_compat.decides(_node("lr: 1"), ("trainer",), path) is False
    assert hydra_compat.decides(_node("trainer: null"), (), path) is True  # replaces the whole subtree
    assert hydra_compat.decides(_node("trainer:\n  epochs: ???"), (), path) is None  # keeps what was there: depends on it
    assert hydra_compat.decides(_node("x: 1"), ("trainer", "epochs"), path) is True
    assert hydra_compat.decides(_node("x: 1"), ("model",), path) is False
