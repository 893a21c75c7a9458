"""Private API of hydra, omegaconf and syrupy is used only in the quarantine modules, found by reading the package's AST."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from functools import cache
from pathlib import Path

import harness
from tests.sources import parsed

PACKAGE = Path(harness.__file__).parent
LIBRARIES = ("hydra", "omegaconf", "syrupy")
# The modules that may use private API, each use behind a named function or class with a test of its own.
QUARANTINE = frozenset({"hydra_compat.py", "syrupy_compat.py"})
# Private attributes Python itself puts on classes (ABCMeta's cache on every subclass of an ABC), never our doing.
SET_BY_PYTHON = frozenset({"_abc_impl"})


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _library_of(module: str | None) -> str | None:
    top = (module or "").split(".")[0]
    return top if top in LIBRARIES else None


def _defined_private_names(tree: ast.AST) -> set[str]:
    """The private names a module defines: functions, classes, assigned names and assigned attributes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)  # dataclass fields given by keyword
    return {name for name in names if _is_private(name)}


@cache
def library_private_names() -> frozenset[str]:
    """Every private name hydra, omegaconf and syrupy define in their installed sources."""
    names: set[str] = set()
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        assert spec is not None and spec.submodule_search_locations, library
        for folder in spec.submodule_search_locations:
            for path in Path(folder).rglob("*.py"):
                names |= _defined_private_names(parsed(path))
    return frozenset(names)


def our_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in QUARANTINE)


@cache
def our_private_names() -> frozenset[str]:
    """The private names our own package defines (in any module, the quarantine included)."""
    names: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        names |= _defined_private_names(parsed(path))
    return frozenset(names)


def _is_private_import(node: ast.ImportFrom, alias: ast.alias) -> bool:
    module = node.module or ""
    return bool(_library_of(module)) and (any(_is_private(part) for part in module.split(".")) or _is_private(alias.name))


@cache
def reexported_private_names() -> frozenset[str]:
    """The names the quarantine modules bind by importing them from a library's private module (or a private name
    of a library): `FileConfigSource` from `hydra._internal.core_plugins...`, `is_int` from `omegaconf._utils`."""
    names: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in QUARANTINE:
            for node in ast.walk(parsed(path)):
                if isinstance(node, ast.ImportFrom):
                    names |= {a.asname or a.name for a in node.names if _is_private_import(node, a)}
    return frozenset(names)


def _quarantine_aliases(tree: ast.AST) -> set[str]:
    """The names a module binds to a quarantine module (`from harness.composition import hydra_compat`, `import ... as
    h`), from any subpackage."""
    stems = {name.removesuffix(".py") for name in QUARANTINE}
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == PACKAGE.name:
            aliases |= {a.asname or a.name for a in node.names if a.name in stems}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.asname and a.name.rpartition(".")[2] in stems}
    return aliases


def private_uses(source: str, ours: frozenset[str], theirs: frozenset[str], reexported: frozenset[str] = frozenset()) -> list[str]:
    """`line: what` for each use of a library's private API in one module's source.

    Flagged: importing a private module or name of a library (`from hydra._internal import x`, `import
    omegaconf._utils`, `from syrupy.x import _y`), reading or writing a private attribute (`node._get_node`,
    `BaseContainer._resolvers`, `getattr(x, "_write_mode")`) whose name a library defines and our package does
    not, and any use of a `reexported` name through a quarantine module (`from harness.composition.hydra_compat import
    FileConfigSource`, `hydra_compat.StructuredConfigSource`): a private class reached that way is as private as
    at its source. A name both define is ours only on `self` or `cls` in a class of ours that defines it.
    """
    tree = ast.parse(source)
    found: list[str] = []
    aliases = _quarantine_aliases(tree)
    quarantine_modules = {  # their dotted names, wherever in the package's layers they sit
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) for path in PACKAGE.rglob("*.py") if path.name in QUARANTINE
    }
    class_names: dict[ast.AST, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            defined = _defined_private_names(node)
            for inner in ast.walk(node):
                class_names.setdefault(inner, set()).update(defined)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in quarantine_modules:
            found += [f"{node.lineno}: from {node.module} import {a.name}" for a in node.names if a.name in reexported]
        elif isinstance(node, ast.Attribute) and node.attr in reexported and isinstance(node.value, ast.Name) and node.value.id in aliases:
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and _library_of(node.module):
            module = node.module or ""
            if any(_is_private(part) for part in module.split(".")):
                found.append(f"{node.lineno}: from {module} import ...")
            found += [f"{node.lineno}: from {module} import {a.name}" for a in node.names if _is_private(a.name)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _library_of(alias.name) and any(_is_private(part) for part in alias.name.split(".")):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and _is_private(node.attr) and node.attr in theirs:
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if on_self and node.attr in class_names.get(node, set()):
                continue  # our own class's attribute
            if not on_self and node.attr in ours and node.attr not in _AMBIGUOUS:
                continue
            found.append(f"{node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_private(node.args[1].value)
            and node.args[1].value in theirs - ours
        ):
            found.append(f"{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return sorted(found, key=lambda line: int(line.split(":")[0]))


# Private names our package defines that a library defines too, read on objects other than `self`: such a
# read is flagged anyway, since the object may be the library's. (Empty: every shared name is on `self`.)
_AMBIGUOUS: frozenset[str] = frozenset()


def test_no_private_library_api_outside_the_quarantine():
    ours, theirs, reexported = our_private_names(), library_private_names(), reexported_private_names()
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{use}"
        for path in our_modules()
        for use in private_uses(path.read_text(encoding="utf-8"), ours, theirs, reexported)
    ]
    assert found == []


@cache
def syrupy_option_names() -> frozenset[str]:
    """The `dest` of every command-line option syrupy registers (read from its installed source)."""
    spec = importlib.util.find_spec("syrupy")
    assert spec is not None and spec.origin
    tree = parsed(Path(spec.origin))
    return frozenset(
        k.value.value for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg == "dest" and isinstance(k.value, ast.Constant)
    )


def test_syrupy_option_names_are_read_only_in_syrupy_compat():
    """syrupy documents its flags, not the names they land under: `getoption("update_snapshots")` belongs in
    syrupy_compat, where a test pins each name."""
    names = syrupy_option_names()
    assert {"update_snapshots", "warn_unused_snapshots", "include_snapshot_details"} <= names
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}"
        for path in our_modules()
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.Constant) and node.value in names
    ]
    assert found == []


def test_the_quarantine_hands_out_no_private_name():
    """Its `__all__` holds only names of its own: none it imported from a library's private module."""
    from harness import syrupy_compat
    from harness.composition import hydra_compat

    assert {"FileConfigSource", "StructuredConfigSource", "ConfigLoaderImpl", "is_int"} <= reexported_private_names()
    assert [name for module in (hydra_compat, syrupy_compat) for name in module.__all__ if name in reexported_private_names()] == []


def test_the_walk_flags_each_kind_of_private_use_and_spares_our_own_names():
    theirs = library_private_names()
    ours = frozenset({"_confined", "_note"})
    source = """
from hydra._internal.utils import create_config_search_path
from omegaconf._utils import is_int
from syrupy.extensions.single_file import _private_thing
import omegaconf._utils
from omegaconf.basecontainer import BaseContainer
from harness.composition.hydra_compat import FileConfigSource, header_of
from harness.composition import hydra_compat

class Source(FileConfigSource):
    def _confined(self, path):
        return path

    def is_config(self, path):
        self._confined(path)
        return self._normalize_file_name(path)

def f(node, recorder):
    node._get_node("defaults")
    BaseContainer._resolvers["x"] = None
    recorder._note("a")
    getattr(node, "_write_mode")
    hydra_compat.header_of("")
    return hydra_compat.StructuredConfigSource, node.__class__.__name__
"""
    assert private_uses(source, ours, theirs, reexported_private_names()) == [
        "2: from hydra._internal.utils import ...",
        "3: from omegaconf._utils import ...",
        "4: from syrupy.extensions.single_file import _private_thing",
        "5: import omegaconf._utils",
        "7: from harness.composition.hydra_compat import FileConfigSource",
        "16: ._normalize_file_name",
        "19: ._get_node",
        "20: ._resolvers",
        "22: getattr(..., '_write_mode')",
        "24: hydra_compat.StructuredConfigSource",
    ]


def test_the_library_names_include_the_ones_the_quarantine_wraps():
    assert {"_get_node", "_resolvers", "_normalize_file_name", "_write_mode", "_get_header_dict"} <= library_private_names()


def library_overrides(module: object) -> list[str]:
    """`Class._name` for each private attribute a class of `module` sets that a library base class defines."""
    found = []
    for name, value in sorted(vars(module).items()):
        if not inspect.isclass(value) or value.__module__ != getattr(module, "__name__", None):
            continue
        library_bases = [base for base in value.__mro__[1:] if _library_of(base.__module__)]
        for attribute in sorted(vars(value)):
            if attribute in SET_BY_PYTHON:
                continue
            if _is_private(attribute) and any(attribute in vars(base) for base in library_bases):
                found.append(f"{name}.{attribute}")
    return found


def test_no_class_outside_the_quarantine_overrides_a_private_library_attribute():
    found = []
    for path in our_modules():
        dotted = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if dotted.endswith("__main__"):
            continue
        found += [f"{dotted}.{override}" for override in library_overrides(importlib.import_module(dotted))]
    assert found == []
