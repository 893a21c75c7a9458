"""Hydra entry points read as Python reads them, with `ast` and never run: `@hydra.main(...)`'s arguments.

A value is static when the source spells it: a literal, a module-level constant (`ROOT = "ppo"`, `CONFIG: Final =
"conf"`) assigned above the decorator, a path built from `__file__` or from a package's folder through a few
assignments (`os.path.join(os.path.dirname(__file__), "config")`, `Path(__file__).parent / "conf"`, `HERE / "conf"`,
`files("f5_tts").joinpath("configs")`), a sum or f-string of static strings, and `pkg://package.path` config paths
(the package's folder in the repository).
Anything else is `NotStatic`, a value type that names why and shows as text wherever a value is shown
(`str()`, and `as_shown` for JSON), so no report has to know it.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from harness.gates.budget import python_tree

# Names followed from a decorator's argument to the literals they are built from: a real entry point takes one
# or two (`CONFIG_DIR = HERE / "conf"`, `HERE = Path(__file__).parent`).
MAX_NAME_STEPS = 16
PKG = "pkg://"
MAIN_ARGUMENTS = ("config_path", "config_name", "version_base")


@dataclass(frozen=True)
class NotStatic:
    """A value the reader cannot evaluate without running the program, and why; shown as that text everywhere."""

    why: str

    def __str__(self) -> str:
        return f"not static: {self.why}"


def as_shown(value: Any) -> Any:
    """A value as reports hold it: a NotStatic as its text (JSON has no other way to say it), anything else as is."""
    return str(value) if isinstance(value, NotStatic) else value


class _Dynamic(Exception):
    pass


PATH_FUNCTIONS = frozenset(
    {
        "os.path.join",
        "os.path.dirname",
        "os.path.abspath",
        "os.path.realpath",
        "os.path.normpath",
        "os.fspath",
        "str",
        "pathlib.Path",
        "Path",
        "pathlib.PurePath",
        "PurePath",
    }
)
PATH_METHODS = frozenset({"joinpath", "resolve", "absolute", "as_posix"})
# `importlib.resources.files("pkg")`: a package's folder (F5-TTS's `files("f5_tts").joinpath("configs")`).
PACKAGE_FILES = frozenset({"files", "resources.files", "importlib.resources.files", "importlib_resources.files"})


def module_constants(tree: ast.Module, before: int | None = None) -> dict[str, ast.expr]:
    """Each module-level name's last assignment above line `before` (all when None): `X = ...`, `X: Final = ...`,
    `X: str = ...`, opened through `if`/`try` (the last written wins, as when the branch that assigns last runs)."""
    names: dict[str, ast.expr] = {}

    def visit(body: Sequence[ast.stmt]) -> None:
        for statement in body:
            if before is not None and statement.lineno >= before:
                return
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                names[statement.targets[0].id] = statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
                names[statement.target.id] = statement.value
            elif isinstance(statement, ast.If):
                visit(statement.body)
                visit(statement.orelse)
            elif isinstance(statement, ast.Try):
                visit(statement.body)

    visit(tree.body)
    return names


def static_value(node: ast.AST, file: Path | None, names: Mapping[str, ast.expr] | None = None) -> Any:
    """An argument's value without running code: a literal, a module-level constant, a sum or f-string of static
    strings, or a path built from `__file__` with `os.path`/`pathlib`; NotStatic naming what it met otherwise."""
    try:
        value = _Evaluator(file, names or {}).evaluate(node)
    except _Dynamic as error:
        return NotStatic(str(error))
    except RecursionError:
        return NotStatic("an expression nested too deeply to evaluate")
    return str(value) if isinstance(value, PurePosixPath) else value


class _Evaluator:
    def __init__(self, file: Path | None, names: Mapping[str, ast.expr]) -> None:
        self.file = file
        self.names = names
        self.steps = 0
        self.active: set[str] = set()

    def evaluate(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.JoinedStr):
            return "".join(self.text(part) for part in node.values)
        if isinstance(node, ast.FormattedValue) and node.format_spec is None and node.conversion in (-1, 115):
            return str(self.evaluate(node.value))
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            return _as_path(self.evaluate(node.value), node).parent
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            index = self.evaluate(node.slice)
            parents = _as_path(self.evaluate(node.value.value), node).parents
            if not isinstance(index, int) or not 0 <= index < len(parents):
                raise _Dynamic(f"`{_text(node)}` is not a parent the path has")
            return parents[index]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return _as_path(self.evaluate(node.left), node) / _as_text(self.evaluate(node.right), node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.evaluate(node.left), self.evaluate(node.right)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            raise _Dynamic(f"`{_text(node)}` adds values that are not text")
        if isinstance(node, ast.Call) and not node.keywords:
            function = dotted_name(node.func)
            arguments = [self.evaluate(argument) for argument in node.args]
            if function in PACKAGE_FILES:
                return self.package(arguments, node)
            if function in PATH_FUNCTIONS:
                return _path_function(function, arguments, node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in PATH_METHODS:
                path = _as_path(self.evaluate(node.func.value), node)
                if node.func.attr == "joinpath":
                    return path.joinpath(*(_as_text(a, node) for a in arguments))
                return path.as_posix() if node.func.attr == "as_posix" else PurePosixPath(posixpath.normpath(path))
        raise _Dynamic(f"`{_text(node)}` is neither a literal nor a path built from __file__")

    def package(self, arguments: list[Any], node: ast.AST) -> PurePosixPath:
        """`files("f5_tts")`: the package's folder, where Python finds it from the program's file (the nearest folder
        above it that holds the package, as running from the repository's root does), never imported."""
        if len(arguments) != 1 or not isinstance(arguments[0], str) or self.file is None:
            raise _Dynamic(f"`{_text(node)}` names no package the reader can find")
        found = package_folder(arguments[0], self.file.parents)
        if found is None:
            raise _Dynamic(f"`{_text(node)}` names a package that is not a folder above the file")
        return PurePosixPath(found.as_posix())

    def text(self, part: ast.AST) -> str:
        value = self.evaluate(part)
        return value if isinstance(value, str) else str(value)

    def name(self, node: ast.Name) -> Any:
        if node.id == "__file__":
            if self.file is None:
                raise _Dynamic("__file__ is not known here")
            return PurePosixPath(self.file.as_posix())
        bound = self.names.get(node.id)
        if bound is None:
            raise _Dynamic(f"`{node.id}` is not a module-level constant")
        self.steps += 1
        if node.id in self.active or self.steps > MAX_NAME_STEPS:
            raise _Dynamic(f"`{node.id}` takes more than {MAX_NAME_STEPS} names to reach a value")
        self.active.add(node.id)
        try:
            return self.evaluate(bound)
        finally:
            self.active.discard(node.id)


def _text(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (RecursionError, MemoryError):
        return "an expression nested too deeply to show"
    return text if len(text) <= 80 else text[:79] + "…"


def _path_function(function: str, arguments: list[Any], node: ast.AST) -> Any:
    if function in ("str", "os.fspath") and len(arguments) == 1:
        return str(_as_path(arguments[0], node)) if not isinstance(arguments[0], str) else arguments[0]
    if function.endswith("Path"):
        return PurePosixPath(*(_as_text(a, node) for a in arguments)) if arguments else PurePosixPath(".")
    texts = [_as_text(a, node) for a in arguments]
    if function == "os.path.join" and texts:
        return posixpath.join(*texts)
    if len(texts) == 1 and function == "os.path.dirname":
        return posixpath.dirname(texts[0])
    if len(texts) == 1 and (function == "os.path.normpath" or texts[0].startswith("/")):
        # abspath and realpath of a path from `__file__` (absolute): normalized, as the program sees it
        return posixpath.normpath(texts[0])
    if len(texts) == 1:
        raise _Dynamic(f"`{_text(node)}` depends on the folder the program runs in")
    raise _Dynamic(f"`{_text(node)}` takes other arguments than the reader follows")


def _as_path(value: Any, node: ast.AST) -> PurePosixPath:
    if isinstance(value, str | PurePosixPath):
        return PurePosixPath(value)
    raise _Dynamic(f"`{_text(node)}` is not a path")


def _as_text(value: Any, node: ast.AST) -> str:
    if isinstance(value, str | PurePosixPath):
        return str(value)
    raise _Dynamic(f"`{_text(node)}` joins a value that is not a path")


def dotted_name(node: ast.AST) -> str:
    """`a.b.c` for a name or an attribute chain, "" for any other expression."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted_name(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def is_hydra_main(decorator: ast.expr) -> bool:
    """`@hydra.main(...)` or `@main(...)` (imported from hydra)."""
    return isinstance(decorator, ast.Call) and dotted_name(decorator.func) in ("hydra.main", "main")


def main_arguments(tree: ast.Module, file: Path | None) -> tuple[dict[str, Any], int] | None:
    """The first `@hydra.main(...)`'s arguments (static values, NotStatic otherwise) and its line; None without one."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            if not is_hydra_main(decorator):
                continue
            assert isinstance(decorator, ast.Call)
            names = module_constants(tree, decorator.lineno)
            arguments: dict[str, Any] = {}
            for position, value in enumerate(decorator.args[:3]):
                arguments[MAIN_ARGUMENTS[position]] = static_value(value, file, names)
            for keyword in decorator.keywords:
                if keyword.arg:
                    arguments[keyword.arg] = static_value(keyword.value, file, names)
            return arguments, decorator.lineno
    return None


def hydra_main(source: str, file: Path | None = None, where: str = "<entry>") -> dict[str, Any] | None:
    """The arguments of a `@hydra.main(...)` decorator in Python source, read with `ast` and never run. None without
    a decorator. BudgetExceeded for source nested past the Python budget (`where` names it)."""
    try:
        tree = python_tree(source, where)
    except (SyntaxError, ValueError):
        return None
    found = main_arguments(tree, file)
    return found[0] if found is not None else None


def package_folder(dotted: str, roots: Iterable[Path]) -> Path | None:
    """The folder of a `pkg://a.b` package inside the repository: `a/b` below the first of `roots` that holds it
    (the repository, its `src/`, the settings' `python_sources` and their parents), never imported."""
    parts = dotted.split(".")
    if not dotted or not all(part.isidentifier() for part in parts):
        return None
    for root in roots:
        for base in (root, root / "src"):
            candidate = base.joinpath(*parts)
            if candidate.is_dir():
                return candidate
    return None


def config_folder(config_path: Any, entry_file: Path, roots: Iterable[Path]) -> Path | NotStatic | None:
    """The folder an entry's `config_path` names: relative to the entry's file, absolute (computed from `__file__`),
    or `pkg://` (its package's folder). None without a config_path; NotStatic for a value not static or a package
    not in the repository."""
    if config_path is None:
        return None
    if isinstance(config_path, NotStatic):
        return config_path
    if not isinstance(config_path, str):
        return NotStatic(f"config_path {config_path!r} is not a path")
    if config_path.startswith(PKG):
        found = package_folder(config_path[len(PKG) :].strip("/").replace("/", "."), roots)
        return found.resolve() if found is not None else NotStatic(f"{config_path} names no package folder of the repository")
    return (entry_file.parent / config_path).resolve()


@dataclass(frozen=True)
class EntryConfig:
    """What one `@hydra.main` starts: its module (dotted, from the repository's root), the config folder it names
    (resolved; NotStatic when the source does not say), its config name (NotStatic likewise, None when not given),
    and the decorator's file and line."""

    module: str
    config_dir: Path | NotStatic | None
    config_name: str | NotStatic | None
    file: Path
    line: int


def entry_configs(files: Iterable[Path], root: Path, roots: Sequence[Path] = (), read: Any = None) -> list[EntryConfig]:
    """For init: each file's `@hydra.main` as (module, config folder resolved, config name). `files` are Python
    files below `root` (init's bounded walk); `roots` where `pkg://` packages are looked for besides `root`;
    `read(path) -> str` the bounded reader (default: harness.gates.reader.read_text)."""
    from harness.gates.budget import BudgetExceeded
    from harness.gates.reader import InputLimitError, read_text

    reader = read or read_text
    found = []
    for file in files:
        try:
            text = reader(file)
            if "main" not in text:
                continue
            tree = python_tree(text, str(file))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError, BudgetExceeded):
            continue
        arguments = main_arguments(tree, file)
        if arguments is None:
            continue
        values, line = arguments
        relative = file.relative_to(root) if file.is_relative_to(root) else Path(file.name)
        parts = list(relative.with_suffix("").parts)
        if parts and parts[0] == "src":
            parts = parts[1:]
        module = ".".join(parts)
        folder = config_folder(values.get("config_path"), file, [root, *roots])
        name = values.get("config_name")
        found.append(EntryConfig(module, folder, name if isinstance(name, str | NotStatic) else None, file, line))
    return found


# What makes a folder a project an installer installs (`pip install -e ./verl`): rllm and deepscaler vendor verl as
# `verl/` holding setup.py and the package `verl/verl/`.
PROJECT_FILES = ("setup.py", "pyproject.toml", "setup.cfg")


def install_roots(root: Path) -> list[Path]:
    """Where Python finds a repository's modules, run from `root` with its projects installed as their installers
    would: the root and its `src/`, then each folder right below the root that is a project of its own (it holds a
    setup.py, pyproject.toml or setup.cfg) and that project's `src/`."""
    roots = [root, root / "src"]
    try:
        children = sorted(child for child in root.iterdir() if child.is_dir() and not child.name.startswith("."))
    except OSError:
        children = []
    for child in children:
        if any((child / name).is_file() for name in PROJECT_FILES):
            roots += [child, child / "src"]
    return roots


def _module_files(base: Path, parts: Sequence[str]) -> tuple[Path, Path]:
    return base.joinpath(*parts[:-1], f"{parts[-1]}.py"), base.joinpath(*parts, "__main__.py")


def module_file(module: str, root: Path, roots: Sequence[Path] | None = None) -> Path | None:
    """The file `python -m module` runs from `root` (never imported): a regular package (one with __init__.py) wins
    wherever it lies among install_roots, as Python's import system prefers it to a namespace portion (rllm's `verl/`
    at the root holds setup.py, not __init__.py: `verl.trainer.main_ppo` is `verl/verl/trainer/main_ppo.py`); else
    the first root that holds the file. None when no root does. `roots`: install_roots(root), when the caller
    keeps them (a repository's launches ask hundreds of times)."""
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    roots = install_roots(root) if roots is None else roots
    regular = [base for base in roots if (base / parts[0] / "__init__.py").is_file()] if len(parts) > 1 else []
    for base in regular or roots:
        for candidate in _module_files(base, parts):
            if candidate.is_file():
                return candidate
    return None


def is_package_of(module: str, root: Path, roots: Sequence[Path] | None = None) -> bool:
    """True when the top of `module` is a Python package of the repository run from `root`: a folder with
    __init__.py, one that holds Python files or the module's file (a namespace package), or one that holds the
    module's own package folders (`verl/trainer/` for `verl.trainer.main_ppo_sync`: a module missing from the
    repository's package is the repository's, and missing). A folder that merely has the name (VAGEN's
    `examples/evaluate/frozenlake/sglang/`, holding the scripts that start `python3 -m sglang.launch_server`) is not."""
    parts = module.split(".")
    if not parts[0].isidentifier():
        return False
    for base in install_roots(root) if roots is None else roots:
        top = base / parts[0]
        if not top.is_dir():
            continue
        if (top / "__init__.py").is_file() or any(top.glob("*.py")) or any(f.is_file() for f in _module_files(base, parts)):
            return True
        if len(parts) > 2 and base.joinpath(*parts[:-1]).is_dir():
            return True
    return False
