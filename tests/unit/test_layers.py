"""The layers of `harness/` and the one direction imports may point (issue 33).

Each subpackage's docstring says what it owns and what it may import; this test holds the same table as data and
fails on any import, at module level or inside a function, that points up or sideways: data flows one way
(settings -> cases -> composed configs -> findings -> reports), and a reader of scripts never reaches into Hydra.
Imports under `if TYPE_CHECKING:` are annotations only and are left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import harness
from tests.sources import parsed

PACKAGE = Path(harness.__file__).parent

ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
HEADER = "| layer | modules | holds | may import |"


def layer_table() -> tuple[dict[str, str], dict[str, str], dict[str, set[str]]]:
    """docs/architecture.md's layer table, the one statement of the layers: (subpackage -> layer, top module ->
    layer, layer -> the layers it may import, itself included)."""
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    rows = lines[lines.index(HEADER) + 2 :]
    packages: dict[str, str] = {}
    tops: dict[str, str] = {}
    may: dict[str, set[str]] = {}
    for row in rows:
        if not row.startswith("|"):
            break
        name, placed, _, imports = (cell.strip() for cell in row.strip("|").split("|"))
        for entry in re.findall(r"`([^`]+)`", placed):
            if entry.endswith("/"):
                packages[entry.rstrip("/")] = name
            else:
                tops[entry.removesuffix(".py")] = name
        may[name] = {name, *(part.strip() for part in imports.split(","))} - {"nothing"}
    for name, imports in may.items():
        if "everything" in imports:
            may[name] = set(may)
    return packages, tops, may


PACKAGES, TOP, MAY_IMPORT = layer_table()


def layer(module: str) -> str | None:
    """The layer of a dotted module name inside the package; None for the package root (its version and API)."""
    parts = module.split(".")[1:]
    if not parts:
        return None
    return PACKAGES.get(parts[0]) or TOP.get(parts[0], "unplaced")


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """Each harness module a source imports, with its line, wherever the import stands (but TYPE_CHECKING)."""
    found: list[tuple[int, str]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "harness":
            if node.module == "harness":  # `from harness import x`: x is a module or a name of the root
                found += [(node.lineno, f"harness.{alias.name}") for alias in node.names if alias.name != "__version__"]
            else:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "harness"]
        stack.extend(ast.iter_child_nodes(node))
    return found


def modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, path))
    return found


def arrows_up() -> list[str]:
    wrong = []
    for name, path in modules():
        own = layer(name)
        if own is None:
            continue
        for line, target in imported(parsed(path)):
            theirs = layer(target)
            if theirs is not None and theirs not in MAY_IMPORT.get(own, ()):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({own}) imports {target} ({theirs})")
    return wrong


def test_every_module_has_a_layer():
    assert [name for name, _ in modules() if layer(name) == "unplaced"] == []


def test_no_import_points_up_or_sideways():
    assert arrows_up() == []


def test_every_subpackage_says_what_it_owns_and_may_import():
    for package in PACKAGE.iterdir():
        if (package / "__init__.py").is_file() and package.name in PACKAGES:
            doc = ast.get_docstring(parsed(package / "__init__.py")) or ""
            assert "May import" in doc or "may import" in doc, package.name


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from harness.commands.common import x\n", ["commands"]),
        ("def f():\n    from harness import cli\n", ["shells"]),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.runner.run import Run\n", []),
    ],
)
def test_the_walk_sees_every_import_a_module_runs(source, expected):
    assert [layer(target) for _, target in imported(ast.parse(source))] == expected


def test_the_public_api_is_every_name_in_all_and_costs_nothing_to_import():
    import subprocess
    import sys

    for name in harness.__all__:
        assert getattr(harness, name) is not None, name
    # A fresh interpreter: importing the package loads none of its modules (names come on first use).
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, harness; print(sorted(m for m in sys.modules if m.startswith('harness.')))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent,
    ).stdout.strip()
    assert loaded == "[]"
