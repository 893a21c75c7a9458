"""No import circle in the package, counting the imports inside functions (which hide a circle until one call runs)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import harness
from tests.sources import parsed

PACKAGE = Path(harness.__file__).parent
# No circle is allowed: the last two (the rules registry, and the run, its launches and their review) were removed
# when the layers became one table (issue 44 item 2); the allow-list is gone with them.
KNOWN: tuple[frozenset[str], ...] = ()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, modules: frozenset[str], package: str = "harness") -> set[str]:
    """The package's modules one module's source imports, anywhere in it (module level or inside a function)."""
    return imports_in(ast.parse(source), modules, package)


def imports_in(tree: ast.AST, modules: frozenset[str], package: str = "harness") -> set[str]:
    """`imports_of` a parsed module; an import only type checkers run (`if TYPE_CHECKING:`) counts too: a circle a
    checker needs is a circle in the design (issue 55)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == package:
            for alias in node.names:  # `from harness import trace` imports the module harness.composition.trace
                named = f"{node.module}.{alias.name}"
                found.add(named if named in modules else node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == package}
    return {name for name in found if name in modules and name != package}


@cache
def import_graph() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports (built once per test process: read only)."""
    paths = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    modules = frozenset(paths)
    return {name: imports_in(parsed(path), modules) - {name} for name, path in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def test_no_import_circle_in_the_package():
    found = circles(import_graph())
    assert [sorted(group) for group in found if group not in KNOWN] == []
    assert [sorted(group) for group in KNOWN if group not in found] == []  # broken since: take it off the list


def test_the_state_and_quarantine_modules_import_downwards_only():
    """hydra_compat imports no module of the package, confine only harness.gates.errors (the bottom, which imports none:
    every module may raise BadInput) and the pattern engine (a bottom too: only its Unicode tables); the session only
    the quarantine and the policy."""
    graph = import_graph()
    assert graph["harness.gates.errors"] == set() and graph["harness.gates.linear"] == {"harness.gates.unicode_classes"}
    assert graph["harness.composition.hydra_compat"] == set()
    assert graph["harness.gates.confine"] == {"harness.gates.errors", "harness.gates.linear"}
    assert graph["harness.composition.policy"] == {"harness.composition.hydra_compat"}
    assert graph["harness.composition.session"] == {"harness.composition.hydra_compat", "harness.composition.policy"}


def test_imports_inside_functions_and_for_type_checkers_count():
    modules = frozenset({"harness.a", "harness.b", "harness.c", "harness.d"})
    source = """
from typing import TYPE_CHECKING
from harness import a
if TYPE_CHECKING:
    from harness.d import Thing

def late():
    from harness.b import thing
    import harness.c
"""
    assert imports_of(source, modules) == {"harness.a", "harness.b", "harness.c", "harness.d"}
    assert circles({"x": {"y"}, "y": {"z"}, "z": {"x"}, "w": {"x"}}) == [frozenset({"x", "y", "z"})]
    assert circles({"x": {"y"}, "y": set()}) == []
