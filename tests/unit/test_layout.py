"""tests/unit mirrors the package (issue 44 item 5): every module of `harness/` with logic has its unit test module at
the mirrored path, `harness/<sub>/<module>.py` -> `tests/unit/<sub>/test_<module>.py` (a top-level module's at
`tests/unit/test_<module>.py`), or is named, with why, in docs/contributing.md's list of modules without one; and
every test module under tests/unit names a module that exists, so a test cannot stray from what it tests.

A test module is `test_<module>.py` or, for one aspect of a module that has several, `test_<module>_<aspect>.py`;
`<module>` may be the subpackage itself (`tests/unit/gates/test_gates.py` for `harness/gates/`). At the top of
tests/unit, the tests of the package as a whole (its layers, its packaging, ...) are in the same docs list.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harness

PACKAGE = Path(harness.__file__).parent
UNIT = Path(__file__).parent
CONTRIBUTING = PACKAGE.parent / "docs" / "contributing.md"
HEADING = "## Modules without a unit test module"
ENTRY = re.compile(r"^- `((?:harness|tests/unit)/[\w/]+\.py)`: (\S.*)$")


def documented(text: str) -> dict[str, str]:
    """The list under HEADING in docs/contributing.md: path -> why (each entry one line, `- `PATH`: why`)."""
    lines = text.splitlines()
    start = lines.index(HEADING) + 1
    entries: dict[str, str] = {}
    for line in lines[start:]:
        if line.startswith("## "):
            break
        match = ENTRY.match(line)
        if match:
            assert match.group(1) not in entries, f"{match.group(1)} is listed twice"
            entries[match.group(1)] = match.group(2)
        elif line.startswith("- "):
            raise AssertionError(f"docs/contributing.md: not `- `PATH`: why`: {line}")
    return entries


def modules(package: Path) -> list[str]:
    """The package's modules as paths from the repository (`harness/runner/run.py`), package doors left out."""
    return sorted(
        str(path.relative_to(package.parent))
        for path in package.rglob("*.py")
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    )


def unit_module(module: str) -> str:
    """Where a module's unit test module is: `harness/a/b.py` -> `tests/unit/a/test_b.py`."""
    parts = Path(module).parts[1:]
    return str(Path("tests/unit", *parts[:-1], f"test_{parts[-1]}"))


def named_module(test: str, package: Path) -> str | None:
    """The module a test module names (`tests/unit/a/test_b_c.py` -> `harness/a/b.py` when it exists, else
    `harness/a/b_c.py`, the longest name first), the subpackage's door for `test_a*.py`; None: it names none."""
    path = Path(test)
    folders, words = path.parts[2:-1], path.stem.removeprefix("test_").split("_")
    for end in range(len(words), 0, -1):
        name = "_".join(words[:end])
        candidates = [Path(package.name, *folders, f"{name}.py")]
        if folders and name == folders[-1]:
            candidates.append(Path(package.name, *folders, "__init__.py"))
        for candidate in candidates:
            if (package.parent / candidate).is_file():
                return str(candidate)
    return None


def unit_test_modules(unit: Path) -> list[str]:
    root = unit.parents[1]
    return sorted(str(path.relative_to(root)) for path in unit.rglob("test_*.py"))


def mirror_problems(package: Path, unit: Path, listed: dict[str, str]) -> list[str]:
    """Each module with neither a unit test module nor an entry, each test module that names no module, each entry
    that is stale (its module is gone or has its unit module now)."""
    root = package.parent
    have = set(unit_test_modules(unit))
    problems = [
        f"{module}: no {unit_module(module)} (write it, or list the module in docs/contributing.md with why it needs none)"
        for module in modules(package)
        if unit_module(module) not in have and module not in listed
    ]
    for test in sorted(have):
        if named_module(test, package) is None and test not in listed:
            problems.append(f"{test}: names no module of {package.name}/ (test_<module>.py or test_<module>_<aspect>.py)")
    for entry in sorted(listed):
        if not (root / entry).is_file():
            problems.append(f"docs/contributing.md lists {entry}, which does not exist")
        elif entry.startswith(f"{package.name}/") and unit_module(entry) in have:
            problems.append(f"docs/contributing.md lists {entry}, which has {unit_module(entry)}: drop the entry")
    return problems


def test_tests_unit_mirrors_the_package():
    assert mirror_problems(PACKAGE, UNIT, documented(CONTRIBUTING.read_text(encoding="utf-8"))) == []


@pytest.fixture
def house(tmp_path: Path) -> tuple[Path, Path]:
    """A package of two modules in a subpackage and one at the top, with a unit tree that mirrors it."""
    for name in ("pkg/__init__.py", "pkg/top.py", "pkg/sub/__init__.py", "pkg/sub/alpha.py", "pkg/sub/beta_gamma.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    for name in ("test_top.py", "sub/test_alpha.py", "sub/test_alpha_edges.py", "sub/test_beta_gamma.py", "sub/test_sub.py"):
        (tmp_path / "tests/unit" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests/unit" / name).write_text("")
    return tmp_path / "pkg", tmp_path / "tests/unit"


def test_a_mirrored_tree_passes_and_each_kind_of_stray_fails(house):
    package, unit = house
    assert mirror_problems(package, unit, {}) == []
    (unit / "sub" / "test_alpha.py").unlink()
    assert mirror_problems(package, unit, {}) == [
        "pkg/sub/alpha.py: no tests/unit/sub/test_alpha.py (write it, or list the module in docs/contributing.md with why it needs none)"
    ]
    assert mirror_problems(package, unit, {"pkg/sub/alpha.py": "glue"}) == []
    (unit / "sub" / "test_delta.py").write_text("")  # names no module
    (unit / "test_alpha.py").write_text("")  # alpha is in sub/, not at the top
    assert mirror_problems(package, unit, {"pkg/sub/alpha.py": "glue"}) == [
        "tests/unit/sub/test_delta.py: names no module of pkg/ (test_<module>.py or test_<module>_<aspect>.py)",
        "tests/unit/test_alpha.py: names no module of pkg/ (test_<module>.py or test_<module>_<aspect>.py)",
    ]


def test_a_stale_entry_fails(house):
    package, unit = house
    assert mirror_problems(package, unit, {"pkg/sub/alpha.py": "glue", "pkg/gone.py": "glue"}) == [
        "docs/contributing.md lists pkg/gone.py, which does not exist",
        "docs/contributing.md lists pkg/sub/alpha.py, which has tests/unit/sub/test_alpha.py: drop the entry",
    ]


def test_the_list_is_one_line_per_path_with_why():
    text = f"{HEADING}\n\nWhy.\n\n- `harness/a.py`: glue\n- `tests/unit/test_x.py`: the whole package\n\n## Next\n- `harness/b.py`: x\n"
    assert documented(text) == {"harness/a.py": "glue", "tests/unit/test_x.py": "the whole package"}
    with pytest.raises(AssertionError, match="not `- `PATH`: why`"):
        documented(f"{HEADING}\n- `harness/a.py`\n")
    with pytest.raises(AssertionError, match="listed twice"):
        documented(f"{HEADING}\n- `harness/a.py`: x\n- `harness/a.py`: y\n")
