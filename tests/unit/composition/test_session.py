"""The session owns every piece of process state: nothing else keeps any, and Hydra and OmegaConf are left as found."""

from __future__ import annotations

import ast
import contextvars
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
from harness.composition import hydra_compat
from harness.composition.compose import HydraSession, parse_file
from harness.composition.session import Session, current
from harness.model.matrix import Case
from tests.conftest import SMALL_TREE, write_tree
from tests.sources import parsed

PACKAGE = Path(harness.__file__).parent
MUTABLE = (dict, list, set, bytearray, contextvars.ContextVar)
# The one context variable: the gates import nothing above them, so the reader's record of what a kept run asked
# for cannot live in the session (harness.gates.reader.ASKED, set and reset only by its `recording()`).
CONTEXT_STATE = {"harness.gates.reader.ASKED"}
# Registries PyYAML keeps on each loader and dumper class (filled by its add_constructor/add_representer).
YAML_REGISTRIES = (
    "yaml_constructors",
    "yaml_multi_constructors",
    "yaml_representers",
    "yaml_multi_representers",
    "yaml_implicit_resolvers",
)


def package_modules() -> list:
    """Every module of the package, in every subpackage (commands/, reporters/, rules/, any later one), found by
    walking the package, not from a list."""
    names = [m.name for m in pkgutil.walk_packages([str(PACKAGE)], prefix="harness.") if not m.name.endswith("__main__")]
    return [importlib.import_module(name) for name in sorted(names)]


def package_sources() -> list[Path]:
    """Every source file of the package, subpackages included."""
    return sorted(PACKAGE.rglob("*.py"))


def test_the_walks_reach_every_subpackage():
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert {"commands", "reporters", "rules"} <= subpackages
    assert subpackages <= {module.__name__.split(".")[1] for module in package_modules() if module.__name__.count(".") == 2}
    assert subpackages <= {path.parent.name for path in package_sources() if path.name != "__init__.py"}


def test_no_module_but_the_session_module_keeps_mutable_state():
    found = []
    for module in package_modules():
        if module.__name__ == "harness.composition.session":
            continue
        for name, value in vars(module).items():
            if isinstance(value, MUTABLE) and not name.startswith("__") and f"{module.__name__}.{name}" not in CONTEXT_STATE:
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
    for path in package_sources():
        if path.relative_to(PACKAGE).as_posix() in ("composition/session.py", "composition/hydra_compat.py"):
            continue
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} global {', '.join(node.names)}")
            targets = (
                node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            )
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id[:1].isupper():
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {target.value.id}.{target.attr} = ...")
    assert found == []


def test_no_class_is_made_with_a_namespace_outside_the_hydra_quarantine():
    """`type(name, bases, {"attr": value})` is a class attribute set by plumbing (a folder bound into a syrupy
    extension, a session into a source); only hydra_compat makes classes so (Hydra names its sources by class)."""
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in package_sources()
        if path.name != "hydra_compat.py"
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 3
    ]
    assert found == []


def _hydra_sessions(tree: ast.AST) -> set[str]:
    """Names bound to a HydraSession: `with HydraSession(...) as s`, `with HydraSession.for_settings(...) as s`,
    `with open_matrix(...) as (s, cases)` and parameters annotated `HydraSession`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call):
            called = ast.unparse(node.context_expr.func)
            target = node.optional_vars
            if called in ("HydraSession", "HydraSession.for_settings") and isinstance(target, ast.Name):
                names.add(target.id)
            elif called == "open_matrix" and isinstance(target, ast.Tuple) and isinstance(target.elts[0], ast.Name):
                names.add(target.elts[0].id)
        elif isinstance(node, ast.arg) and node.annotation is not None and "HydraSession" in ast.unparse(node.annotation):
            names.add(node.arg)
    return names


def test_a_hydra_session_gets_what_it_needs_at_construction():
    """No module sets a field of a HydraSession after making it (`session.hydra_subtree = ...`): what a session
    composes is decided where it is made, so every session over the same settings composes the same."""
    found = []
    for path in package_sources():
        if path.name == "compose.py":
            continue  # the class itself
        tree = parsed(path)
        sessions = _hydra_sessions(tree)
        for node in ast.walk(tree):
            targets = (
                node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            )
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in sessions:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {target.value.id}.{target.attr} = ...")
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


def test_each_session_owns_its_content_caches(tmp_path):
    """What one command or pytest run parsed is its own: the next session parses again (the disk cache, when on,
    is what spans processes)."""
    write_tree(tmp_path / "conf", SMALL_TREE)
    config = tmp_path / "conf" / "train.yaml"
    with Session() as first:
        parse_file(str(config), "train.yaml")
    with Session() as second:
        assert second.parsed == {} and current() is second
        parse_file(str(config), "train.yaml")
    assert first.parsed.keys() == second.parsed.keys() and first.parsed is not second.parsed
    assert first.parsed[next(iter(first.parsed))] is not second.parsed[next(iter(second.parsed))]
    with first:  # one session entered again (the plugin's, around each use) keeps its caches
        assert current() is first and first.parsed != {}


def test_every_session_holds_the_resolver_policy(monkeypatch):
    """A CLI command and the pytest plugin both run in a Session, so both resolve under the one policy: a host
    lookup keeps its text; outside every session OmegaConf is as it was."""
    from omegaconf import OmegaConf

    monkeypatch.setenv("CONFIG_HARNESS_PROBE", "secret")
    config = OmegaConf.create({"token": "${oc.env:CONFIG_HARNESS_PROBE}", "same": "${oc.select:token}"})
    with Session():
        assert OmegaConf.to_container(config, resolve=True) == {
            "token": "${oc.env:CONFIG_HARNESS_PROBE}",
            "same": "${oc.env:CONFIG_HARNESS_PROBE}",
        }
    assert config.token == "secret"  # the control: outside a session the resolver runs


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
