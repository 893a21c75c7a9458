"""The session owns every piece of process state: nothing else keeps any, and Hydra and OmegaConf are left as found."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

from hydra._internal import defaults_list as defaults_module
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra._internal.sources_registry import SourcesRegistry
from hydra.core.global_hydra import GlobalHydra
from hydra.version import VersionBase
from omegaconf.basecontainer import BaseContainer

import harness
from harness import hydra_compat
from harness.compose import HydraSession, parse_file
from harness.matrix import Case
from harness.session import Session, current
from tests.conftest import SMALL_TREE, write_tree

PACKAGE = Path(harness.__file__).parent
MUTABLE = (dict, list, set, bytearray)
# Registries PyYAML keeps on each loader and dumper class (filled by its add_constructor/add_representer).
YAML_REGISTRIES = ("yaml_constructors", "yaml_multi_constructors", "yaml_representers", "yaml_multi_representers", "yaml_implicit_resolvers")


def package_modules() -> list:
    names = [m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if m.name != "__main__"]
    return [importlib.import_module(f"harness.{name}") for name in sorted(names)]


def test_no_module_but_the_session_module_keeps_mutable_state():
    found = []
    for module in package_modules():
        if module.__name__ == "harness.session":
            continue
        for name, value in vars(module).items():
            if isinstance(value, MUTABLE) and not name.startswith("__"):
                found.append(f"{module.__name__}.{name}")
            if inspect.isclass(value) and value.__module__ == module.__name__:
                for attribute, held in vars(value).items():
                    if isinstance(held, MUTABLE) and not attribute.startswith("_") and attribute not in YAML_REGISTRIES:
                        found.append(f"{module.__name__}.{name}.{attribute}")
    assert found == []


def test_no_code_rebinds_globals_or_class_attributes_outside_the_session():
    """`global` statements and `SomeClass.attr = ...` are how state hides in a module; only the session module
    (and hydra_compat, which swaps Hydra's private functions inside context managers that restore them) may."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name in ("session.py", "hydra_compat.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{path.name}:{node.lineno} global {', '.join(node.names)}")
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id[:1].isupper():
                    found.append(f"{path.name}:{node.lineno} {target.value.id}.{target.attr} = ...")
    assert found == []


def hydra_and_omegaconf_state() -> dict:
    hydra_compat.source_types()  # Hydra's own one-time plugin discovery, which any use of Hydra performs
    return {
        "sources": dict(SourcesRegistry.instance().types),
        "resolvers": dict(BaseContainer._resolvers),
        "version_base": VersionBase.instance().getbase(),
        "initialized": GlobalHydra.instance().is_initialized(),
        "functions": (defaults_module._create_interpolation_map, ConfigLoaderImpl._compose_config_from_defaults_list),
    }


def test_after_a_session_hydra_and_omegaconf_are_exactly_as_they_were(tmp_path):
    write_tree(tmp_path / "conf", SMALL_TREE)
    before = hydra_and_omegaconf_state()
    with Session() as session:
        assert hydra_and_omegaconf_state() != before  # recording sources and resolvers stand in while it is open
        with HydraSession(tmp_path / "conf", version_base="1.1") as hydra:
            composed = next(hydra.compose_cases([Case("train/gpu/default", "train", ("backend=gpu",))]))
            assert composed.config is not None and session.parsed
        folder = session.scratch_folder()
        assert folder.is_dir()
    assert hydra_and_omegaconf_state() == before
    assert not folder.exists()  # scratch folders go with their session


def test_a_hydra_session_outside_every_session_opens_and_closes_its_own(tmp_path):
    write_tree(tmp_path / "conf", SMALL_TREE)
    before = hydra_and_omegaconf_state()
    with HydraSession(tmp_path / "conf") as hydra:
        assert current().installed and current().scope
        assert next(hydra.compose_cases([Case("train/cpu/default", "train", ("backend=cpu",))])).config is not None
    assert hydra_and_omegaconf_state() == before and not current().installed


def test_a_nested_session_shares_the_caches_and_installs_nothing(tmp_path):
    write_tree(tmp_path / "conf", SMALL_TREE)
    config = tmp_path / "conf" / "train.yaml"
    with Session() as outer:
        installed = hydra_and_omegaconf_state()
        with Session() as inner:
            assert current() is inner and hydra_and_omegaconf_state() == installed
            parse_file(str(config), "train.yaml")
        assert current() is outer and outer.parsed == inner.parsed != {}
        assert hydra_and_omegaconf_state() == installed
