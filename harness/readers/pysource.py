"""Python source read with `ast` only: which class a dotted `_target_` names, and what its constructor takes.

Nothing here imports or executes the sources it reads: a pull request controls them, and importing verl
would run its code (and need its dependencies). Modules are parsed lazily, once per index, through the
same bounded reader as every config file, and a file that leads outside the readable folders is not read.
What cannot be known from source (a base class outside the sources, a default computed by code) is said,
never guessed.
"""

from __future__ import annotations

import ast
import builtins
import difflib
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.gates.budget import MAX_PYTHON_BASES, MAX_PYTHON_CHAIN, NOT_READ, BudgetExceeded, python_tree
from harness.gates.confine import within
from harness.gates.reader import InputLimitError, read_bytes
from harness.model.semantic_diff import describe_value
from harness.model.settings import display_path

# Bases whose constructors take no config keys and add no fields: a class built only on them is fully known.
KNOWN_EMPTY_BASES = frozenset({"object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing.NamedTuple", "enum.Enum"})
KNOWN_EMPTY_PREFIXES = ("collections.abc.", "typing.")
DATACLASS_DECORATORS = frozenset({"dataclass", "dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
# default_factory=dict and friends: the empty value the program gets (a tuple reads as a list, as in a config).
FACTORIES: Mapping[str, type] = MappingProxyType({"dict": dict, "list": list, "tuple": list})
MAX_TEXT = 80  # an expression's source, shown for a default that is not a literal
# Bytes of Python the call-site readers keep in memory at once: verl's whole package is 4.6 MB.
MAX_SCANNED_BYTES = 64 * 1024 * 1024
MAX_FILES = 20_000  # `.py` files a view reads; past it the view is cut short (and nothing is kept by its digest)


@dataclass(frozen=True)
class Default:
    """A parameter's default: its value when the source writes a literal, else the expression as written."""

    value: Any = None
    literal: bool = True
    text: str = ""
    factory: str = ""  # `default_factory=ServerConfig`: the class named, whose fields' defaults make the value
    # A nested dataclass's default: each leaf (`timeout`, `inner.depth`) with the field that declares its own default
    # (`app.ServerConfig.timeout`), its FILE and line.
    leaves: tuple[tuple[str, str, str, int], ...] = ()

    def describe(self) -> str:
        """The default as a report shows it: the value, or the expression marked "not literal"."""
        return describe_value(self.value) if self.literal else f"not literal: {self.text}"


@dataclass(frozen=True)
class Param:
    """One keyword a class (or function) accepts; `default` None means the caller must give it."""

    name: str
    default: Default | None
    file: str
    line: int
    owner: str  # the class (or function) that declares it
    annotation: str = ""  # the type as written (`int`, `Optional[str]`), "" when none


@dataclass(frozen=True)
class Signature:
    """What building a `_target_` accepts: its keywords, whether `**kwargs` takes the rest, and whether every
    base was readable (when not, an unknown key may still be accepted: undeclared keys are not reported)."""

    qualname: str
    file: str
    line: int
    params: tuple[Param, ...] = ()
    var_kwargs: bool = False
    complete: bool = True

    def param(self, name: str) -> Param | None:
        """The parameter called `name`, or None."""
        return next((p for p in self.params if p.name == name), None)

    def closest(self, name: str, given: Collection[str] = ()) -> Param | None:
        """The parameter whose name is closest to `name` among those not `given`, or None when none is close: a key
        the class does not declare is a field renamed in its declaring class (maybe a base), or a misspelt key."""
        names = [p.name for p in self.params if p.name not in given]
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        return self.param(close[0]) if close else None


@dataclass(frozen=True)
class Missing:
    """A dotted name that resolves to nothing in the sources, and why."""

    reason: str


@dataclass(frozen=True)
class Outside:
    """A dotted name whose package is not among the sources: nothing can be said about it."""

    name: str


@dataclass(frozen=True)
class _Module:
    name: str
    file: Path
    tree: ast.Module | None  # None: a namespace package (a folder without __init__.py)
    is_package: bool
    problem: str = ""  # why the file could not be read or parsed


@dataclass(frozen=True)
class _Def:
    module: _Module
    node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef

    @cached_property
    def qualname(self) -> str:
        return f"{self.module.name}.{self.node.name}"


Resolved = _Def | _Module | Missing | Outside


def literal(node: ast.AST | None) -> Any:
    """The value a literal expression of the source holds (`ast.literal_eval`, never run), None for no expression,
    `...` when it is not a literal (the program computes it) or one Python refuses to build (`{[1]: 2}`: TypeError;
    nesting too deep): the one reader of literals, so no caller meets an error another caller catches."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ...


def _literal(node: ast.expr) -> Default:
    """A default written in the source: a JSON-like literal, or the expression's text marked not literal."""
    text = _unparse(node)
    shown = text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"
    value = literal(node)
    if value is ...:
        return Default(None, False, shown)
    if not _json_like(value):
        return Default(None, False, shown)
    return Default(_plain(value), True, shown)


def _unparse(node: ast.AST) -> str:
    """The source of an expression; the tree's depth is within the budget (`python_tree`), and a deep call stack
    around it must not turn a long expression into an internal error either."""
    try:
        return ast.unparse(node)
    except (RecursionError, MemoryError):
        return "an expression nested too deeply to show"


def _json_like(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str | int | float | bool) and _json_like(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_json_like(item) for item in value)
    return value is None or isinstance(value, str | int | float | bool)


def _plain(value: Any) -> Any:
    # Tuples become lists: a composed config (and JSON) has no tuples, so equal values compare equal.
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a Name or an Attribute chain; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Top-level statements, with the bodies of `if`, `try` and `with` opened (guarded imports), in source order."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _statements(statement.body)
            yield from _statements(statement.orelse)
        elif isinstance(statement, ast.Try | ast.TryStar):
            yield from _statements(statement.body)
            yield from _statements(statement.orelse)
            for handler in statement.handlers:
                yield from _statements(handler.body)
            yield from _statements(statement.finalbody)
        elif isinstance(statement, ast.With):
            yield from _statements(statement.body)
        else:
            yield statement


def _absolute(module: _Module, level: int, name: str | None) -> str:
    """The absolute module name of a `from .x import y` inside `module`."""
    if level == 0:
        return name or ""
    package = module.name.split(".")
    package = package if module.is_package else package[:-1]
    base = package[: len(package) - (level - 1)] if level > 1 else package
    return ".".join([*base, name] if name else base)


class SourceIndex:
    """The Python sources of some folders, parsed on demand: a folder with `__init__.py` is the package named
    after it (`.cache/verl/verl` is `verl`); any other folder holds top-level modules and packages."""

    def __init__(self, folders: Sequence[Path], scope: Sequence[Path] = (), read: Callable[[Path], bytes] = read_bytes) -> None:
        self.folders = tuple(Path(folder) for folder in folders)
        self.scope = tuple(scope)
        self._read = read
        self._modules: dict[str, _Module | None] = {}
        self._signatures: dict[str, Signature | Missing] = {}
        self._expanding: set[str] = set()  # dataclasses whose default is being read as a nested default (a cycle stops)
        self._linearized: dict[str, tuple[list[_Def], tuple[str, ...]]] = {}  # qualname -> (MRO, its problems)
        self._exported: dict[str, frozenset[str]] = {}  # module -> what `from module import *` binds
        self._exporting: set[str] = set()  # modules whose exports are being read (each waits for the next)
        self._all_of: dict[str, frozenset[str] | None] = {}  # module -> its `__all__`, resolved once
        self._module_names: dict[str, tuple[dict[str, tuple[ast.stmt, ast.alias | None]], tuple[str, ...]]] = {}
        self.roots: dict[str, Path] = {}
        self._files: list[tuple[str, Path, bytes]] | None = None
        for folder in self.folders:
            if (folder / "__init__.py").is_file():
                self.roots.setdefault(folder.name, folder)
            elif folder.is_dir():
                for child in sorted(folder.iterdir()):
                    name = child.name.removesuffix(".py")
                    if name.isidentifier() and (child.is_dir() or child.suffix == ".py"):
                        self.roots.setdefault(name, child)

    def files(self, limit: int = MAX_FILES) -> list[tuple[str, Path, bytes]]:
        """Every Python file of the sources as (its module name, its path, its bytes), read once per index through
        the bounded reader, at most `limit` files, none outside the readable folders: the call-site readers
        (config writes, who builds a node) scan these instead of reading the tree again."""
        if self._files is None:
            found: list[tuple[str, Path, bytes]] = []
            total = 0
            for top, root in sorted(self.roots.items()):
                for file in [root] if root.is_file() else sorted(root.rglob("*.py")):
                    if len(found) >= limit or total > MAX_SCANNED_BYTES:
                        break
                    if self.scope and not within(file, self.scope):
                        continue
                    try:
                        data = self._read(file)
                    except (OSError, InputLimitError):
                        continue
                    total += len(data)
                    parts = [] if root.is_file() else list(file.relative_to(root).with_suffix("").parts)
                    if parts and parts[-1] == "__init__":
                        parts.pop()
                    if all(part.isidentifier() for part in parts):
                        found.append((".".join([top, *parts]), file, data))
            self._files = found
        return self._files

    def covers(self, dotted: str) -> bool:
        """True when the first part of `dotted` is a top-level package or module of the sources."""
        return dotted.split(".", 1)[0] in self.roots

    def module(self, name: str) -> _Module | None:
        """The module `name` (parsed once), or None when no file or folder of the sources is that module."""
        if name not in self._modules:
            self._modules[name] = self._load(name)
        return self._modules[name]

    def _load(self, name: str) -> _Module | None:
        first, *rest = name.split(".")
        root = self.roots.get(first)
        if root is None:
            return None
        if root.is_file():  # a top-level module file: it has no submodules
            return None if rest else self._parse(name, root, False)
        path = root.joinpath(*rest)
        if (path / "__init__.py").is_file():
            return self._parse(name, path / "__init__.py", True)
        if rest and path.with_name(path.name + ".py").is_file():
            return self._parse(name, path.with_name(path.name + ".py"), False)
        if path.is_dir():
            return _Module(name, path, None, True)  # a namespace package
        return None

    def _parse(self, name: str, file: Path, is_package: bool) -> _Module:
        shown = display_path(file)
        if self.scope and not within(file, self.scope):
            return _Module(name, file, None, is_package, f"{shown} leads outside the project; it is not read")
        try:
            source = self._read(file)
            tree = python_tree(source, shown)
        except BudgetExceeded as error:
            return _Module(name, file, None, is_package, str(error))
        except InputLimitError as error:
            return _Module(name, file, None, is_package, f"{shown}: {error}")
        except SyntaxError as error:
            return _Module(name, file, None, is_package, f"{shown}:{error.lineno}: not valid Python ({error.msg})")
        except (ValueError, RecursionError, MemoryError) as error:
            return _Module(name, file, None, is_package, f"{shown}: cannot be parsed ({type(error).__name__})")
        except OSError as error:
            return _Module(name, file, None, is_package, f"{shown}: {error.strerror or error}")
        return _Module(name, file, tree, is_package)

    def locate(self, dotted: str) -> Resolved:
        """What a dotted path names, as Hydra's `_locate` walks it: a package, then attributes or submodules."""
        parts = dotted.split(".")
        if not dotted or not all(part.isidentifier() for part in parts):
            return Missing(f"{dotted!r} is not a dotted Python name")
        if not self.covers(dotted):
            return Outside(dotted)
        current: Resolved | None = self.module(parts[0])
        if current is None:
            return Missing(f"no module {parts[0]}")
        for index, part in enumerate(parts[1:], start=1):
            if isinstance(current, _Module):
                current = self.attribute(current, part, set())
            elif isinstance(current, _Def) and isinstance(current.node, ast.ClassDef):
                current = self._member(current, part)
            else:
                current = None
            if current is None:
                return Missing(f"{'.'.join(parts[:index])} has no attribute or submodule {part}")
            if isinstance(current, Missing | Outside):
                return current
        return current

    def attribute(self, module: _Module, name: str, seen: set[tuple[str, str]]) -> Resolved | None:
        """What `module.name` is: a binding in the module (class, def, import, star import), else a submodule."""
        key = (module.name, name)
        if key in seen:
            # `from . import sub` inside the package itself names the submodule; any other cycle fails in Python too.
            return self.module(f"{module.name}.{name}") if module.is_package else None
        seen = seen | {key}
        if module.problem:
            return Missing(module.problem)
        found = self._binding(module, name, seen) if module.tree is not None else None
        if found is None and module.is_package:
            found = self.module(f"{module.name}.{name}")
        return found

    def _binding(self, module: _Module, name: str, seen: set[tuple[str, str]]) -> Resolved | None:
        over = len(seen) > MAX_PYTHON_CHAIN  # `seen` holds every step taken to reach this name
        bindings, stars = self._bindings(module)
        found = bindings.get(name)
        if found is not None:
            statement, alias = found
            if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                return _Def(module, statement)
            if isinstance(statement, ast.ImportFrom) and alias is not None:
                source = _absolute(module, statement.level, statement.module)
                return _too_long(module, statement) if over else self._import_from(source, alias.name, seen)
            if isinstance(statement, ast.Import) and alias is not None:
                return self._module_or_outside(alias.name if alias.asname == name else name)
            if isinstance(statement, ast.Assign):
                dotted = _dotted(statement.value)
                if dotted is None:
                    return Missing(f"{module.name}.{name} is computed by code ({_unparse(statement.value)[:MAX_TEXT]})")
                return _too_long(module, statement) if over else self._expression(module, dotted, seen)
        for source in stars:
            if over:
                return Missing(str(BudgetExceeded(CHAIN_BUDGET, display_path(module.file))))
            star_module = self.module(source)
            if star_module is not None and name in self.exported(star_module):
                return self.attribute(star_module, name, seen)
        return None

    def _bindings(self, module: _Module) -> tuple[dict[str, tuple[ast.stmt, ast.alias | None]], tuple[str, ...]]:
        """Each name the module binds with the last statement that binds it (and the import's alias), and the
        modules it star-imports, last first: read once per module, so resolving n names is linear, not n^2."""
        assert module.tree is not None
        if module.name not in self._module_names:
            bindings: dict[str, tuple[ast.stmt, ast.alias | None]] = {}
            stars: list[str] = []
            for statement in _statements(module.tree.body):
                here: dict[str, tuple[ast.stmt, ast.alias | None]] = {}
                if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    here[statement.name] = (statement, None)
                elif isinstance(statement, ast.ImportFrom):
                    for alias in statement.names:
                        if alias.name == "*":
                            stars.append(_absolute(module, statement.level, statement.module))
                        else:
                            here.setdefault(alias.asname or alias.name, (statement, alias))
                elif isinstance(statement, ast.Import):
                    for alias in statement.names:
                        here.setdefault(alias.asname or alias.name.split(".")[0], (statement, alias))
                elif isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if isinstance(target, ast.Name):
                            here.setdefault(target.id, (statement, None))
                bindings.update(here)
            self._module_names[module.name] = (bindings, tuple(reversed(stars)))
        return self._module_names[module.name]

    def _import_from(self, source: str, name: str, seen: set[tuple[str, str]]) -> Resolved | None:
        if not self.covers(source):
            return Outside(f"{source}.{name}")
        module = self.module(source)
        if module is None:
            return Missing(f"no module {source}")
        return self.attribute(module, name, seen) or Missing(f"{source} has no attribute or submodule {name}")

    def _module_or_outside(self, name: str) -> Resolved:
        if not self.covers(name):
            return Outside(name)
        return self.module(name) or Missing(f"no module {name}")

    def _expression(self, module: _Module, dotted: str, seen: set[tuple[str, str]]) -> Resolved | None:
        """A dotted name as seen from inside `module` (an alias `X = pkg.Y`, a base class, a decorator)."""
        head, *rest = dotted.split(".")
        current: Resolved | None = self.attribute(module, head, seen)
        if current is None:
            return Outside(dotted) if hasattr(builtins, head) else None
        for index, part in enumerate(rest):
            if isinstance(current, Outside):
                return Outside(".".join([current.name, *rest[index:]]))
            if isinstance(current, _Module):
                current = self.attribute(current, part, seen)
            elif isinstance(current, _Def) and isinstance(current.node, ast.ClassDef):
                current = self._member(current, part)
            else:
                return None
            if current is None or isinstance(current, Missing):
                return current
        return current

    def exported(self, module: _Module) -> frozenset[str]:
        """The names `from module import *` binds: `__all__` when the source spells it, else every public binding."""
        if module.tree is None:
            return frozenset()
        if module.name not in self._exported:
            if len(self._exporting) > MAX_PYTHON_CHAIN:  # a chain of star imports past the budget: nothing known
                return frozenset()
            self._exported[module.name] = frozenset()  # meanwhile: modules that star-import each other end here
            self._exporting.add(module.name)
            try:
                self._exported[module.name] = frozenset(self._exports(module))
            finally:
                self._exporting.discard(module.name)
        return self._exported[module.name]

    def _exports(self, module: _Module) -> set[str]:
        assert module.tree is not None
        declared = _all_names(self, module)
        if declared is not None:
            return declared
        names = set()
        for statement in _statements(module.tree.body):
            if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(statement.name)
            elif isinstance(statement, ast.ImportFrom | ast.Import):
                names.update((a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*")
            elif isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
        return {name for name in names if not name.startswith("_")}

    def signature(self, dotted: str) -> Signature | Missing | Outside:
        """What building `dotted` accepts (a class or a function of the sources), or why that cannot be said."""
        if dotted not in self._signatures:
            located = self.locate(dotted)
            if isinstance(located, Outside):
                return located
            self._signatures[dotted] = self._signature_of(located)
        return self._signatures[dotted]

    def _signature_of(self, located: Resolved) -> Signature | Missing:
        if isinstance(located, Missing):
            return located
        if isinstance(located, Outside):
            return Missing(f"{located.name} lies outside the sources")
        if isinstance(located, _Module):
            return Missing(f"{located.name} is a module, not a class or a function")
        file = str(located.module.file)
        if not isinstance(located.node, ast.ClassDef):
            # A classmethod (`from_file`) is called on its class: its first parameter is bound, never a config key.
            bound = any(_dotted(decorator) == "classmethod" for decorator in located.node.decorator_list)
            return _function_signature(located.qualname, file, located.node, skip_self=bound)
        mro, problems = self._mro(located)
        over = next((problem for problem in problems if NOT_READ in problem), None)
        if over is not None:  # the hierarchy past a budget: what the class takes is not known at all
            return Missing(over)
        for klass in mro:
            init = _method(klass.node, "__init__")
            if _is_dataclass(klass) and _dataclass_init(klass):
                return self._dataclass_signature(located, mro[mro.index(klass) :], problems)
            if init is not None:
                signature = _function_signature(located.qualname, file, init, skip_self=True)
                return Signature(located.qualname, file, located.node.lineno, signature.params, signature.var_kwargs, not problems)
        return Signature(located.qualname, file, located.node.lineno, (), False, not problems)

    def _dataclass_signature(self, located: _Def, mro: list[_Def], problems: list[str]) -> Signature:
        fields: dict[str, Param] = {}
        # Fields accumulate from the most basic dataclass up; a subclass redefining one replaces its default.
        for klass in reversed(mro):
            if _is_dataclass(klass):
                for param in _dataclass_fields(klass):
                    if param.default is _NOT_INIT:
                        fields.pop(param.name, None)
                    elif param.default is not None and param.default.factory:
                        fields[param.name] = replace(param, default=self._nested_default(klass.module, param.default))
                    else:
                        fields[param.name] = param
        return Signature(
            located.qualname,
            str(located.module.file),
            located.node.lineno,
            tuple(fields.values()),
            False,
            not problems,
        )

    def _nested_default(self, module: _Module, default: Default) -> Default:
        """`field(default_factory=ServerConfig)` with a dataclass of the sources whose every field has a literal
        default: that mapping, a value like the others (a changed `ServerConfig.timeout` changes it); else as written."""
        found = self._expression(module, default.factory, set())
        if not isinstance(found, _Def) or not isinstance(found.node, ast.ClassDef) or found.qualname in self._expanding:
            return default
        self._expanding.add(found.qualname)
        try:
            signature = self.signature(found.qualname)
        finally:
            self._expanding.discard(found.qualname)
        if not isinstance(signature, Signature) or not signature.complete or signature.var_kwargs:
            return default
        value: dict[str, Any] = {}
        leaves: list[tuple[str, str, str, int]] = []
        for param in signature.params:
            if param.default is None or not param.default.literal:
                return default
            value[param.name] = param.default.value
            inner = param.default.leaves
            own = (param.name, f"{param.owner}.{param.name}", param.file, param.line)
            leaves += [(f"{param.name}.{leaf}", field, file, line) for leaf, field, file, line in inner] if inner else [own]
        return replace(default, value=value, literal=True, leaves=tuple(leaves))

    def _member(self, klass: _Def, name: str) -> Resolved | None:
        """A class's attribute as Python finds it: in its body, else along its bases in method resolution order
        (classy's `HFQADataset.from_file`, a classmethod its base defines); Outside when a base is not in the
        sources (it may define the name), None when no class of the order does."""
        found = _nested(klass, name)
        if found is not None:
            return found
        order, unknown = self._mro(klass)
        for base in order[1:]:
            found = _nested(base, name)
            if found is not None:
                return found
        return Outside(f"{klass.qualname}.{name}") if unknown else None

    def _mro(self, located: _Def) -> tuple[list[_Def], list[str]]:
        """The class's method resolution order among classes of the sources (C3), and the bases that are unknown.

        Each class is linearized once per index (a lattice of classes reaches the same base through many paths),
        and a chain of bases deeper than the budget, or a class with more bases, stops with a problem said.
        """
        problems: list[str] = []
        cycles = [0]  # how many times a class was met inside itself: an order cut short there is not kept

        def linearize(klass: _Def, stack: tuple[str, ...]) -> list[_Def]:
            known = self._linearized.get(klass.qualname)
            if known is not None:
                problems.extend(known[1])
                return known[0]
            if klass.qualname in stack:
                problems.append(f"{klass.qualname} inherits from itself")
                cycles[0] += 1
                return [klass]
            assert isinstance(klass.node, ast.ClassDef)
            where = f"{display_path(klass.module.file)}:{klass.node.lineno}"
            if len(stack) >= MAX_PYTHON_CHAIN or len(klass.node.bases) > MAX_PYTHON_BASES:
                budget = (
                    f"the budget of {MAX_PYTHON_CHAIN} classes inherited through"
                    if len(stack) >= MAX_PYTHON_CHAIN
                    else f"the budget of {MAX_PYTHON_BASES} bases"
                )
                problems.append(f"bases of {klass.qualname}: {BudgetExceeded(budget, where)}")
                return [klass]
            start, cycles_before = len(problems), cycles[0]
            bases = []
            for base in klass.node.bases:
                if isinstance(base, ast.Subscript):
                    base = base.value  # Generic[T], Base[Config]
                dotted = _dotted(base)
                found = self._expression(klass.module, dotted, set()) if dotted else None
                if isinstance(found, _Def) and isinstance(found.node, ast.ClassDef):
                    bases.append(linearize(found, (*stack, klass.qualname)))
                elif isinstance(found, Outside) and _known_empty(found.name):
                    continue
                elif dotted in KNOWN_EMPTY_BASES or dotted in {"ABC", "Generic", "Protocol", "Mapping"}:
                    continue
                else:
                    shown = dotted or _unparse(base)
                    problems.append(f"base {shown} of {klass.qualname} is not in the sources")
            result = [klass, *_linear_merge(bases)]
            # Said once each: a base reached through two paths brings its problems twice.
            problems[start:] = list(dict.fromkeys(problems[start:]))
            if cycles[0] == cycles_before:
                self._linearized[klass.qualname] = (result, tuple(problems[start:]))
            return result

        return linearize(located, ()), list(dict.fromkeys(problems))


CHAIN_BUDGET = f"the budget of {MAX_PYTHON_CHAIN} steps from a name to its class"


def _too_long(module: _Module, statement: ast.stmt) -> Missing:
    return Missing(str(BudgetExceeded(CHAIN_BUDGET, f"{display_path(module.file)}:{statement.lineno}")))


_NOT_INIT = Default(None, False, "init=False")


def _known_empty(name: str) -> bool:
    return name in KNOWN_EMPTY_BASES or name.startswith(KNOWN_EMPTY_PREFIXES) or name.startswith("abc.")


_NODE = attrgetter("node")


def _linear_merge(bases: list[list[_Def]]) -> list[_Def]:
    """C3 of a class's bases' orders, where the usual shapes take time linear in the result: one base (a chain)
    follows it as it is, and bases whose orders go on alike after their first class (a diamond, a lattice) come
    first, in order, before that shared rest. Any other shape takes the full merge."""
    if len(bases) == 1:
        return list(bases[0])
    if bases:
        rest = bases[0][1:]
        nodes = list(map(_NODE, rest))  # compared by identity: each class statement is one object
        heads = [order[0] for order in bases]
        if all(list(map(_NODE, order[1:])) == nodes for order in bases[1:]) and not set(map(_NODE, heads)) & set(nodes):
            return [*heads, *rest]
    return _merge([*bases, [order[0] for order in bases]])


def _merge(sequences: list[list[_Def]]) -> list[_Def]:
    """C3 merge; an inconsistent hierarchy (which Python refuses) keeps the first order it can.

    Linear in the sequences' length times their count: each sequence keeps a position instead of being rebuilt,
    and a count of the tails each class is in replaces searching every tail for each candidate.
    """
    sequences = [s for s in sequences if s]
    positions = [0] * len(sequences)
    tails = Counter(d.qualname for s in sequences for d in s[1:])
    placed: set[str] = set()
    result: list[_Def] = []
    while True:
        live = [i for i, s in enumerate(sequences) if positions[i] < len(s)]
        if not live:
            return result
        head = next(
            (sequences[i][positions[i]] for i in live if not tails[sequences[i][positions[i]].qualname]),
            sequences[live[0]][positions[live[0]]],
        )
        result.append(head)
        placed.add(head.qualname)
        for i in live:
            sequence = sequences[i]
            while positions[i] < len(sequence) and sequence[positions[i]].qualname in placed:
                positions[i] += 1
                if positions[i] < len(sequence):
                    tails[sequence[positions[i]].qualname] -= 1  # now a head, no longer in a tail


def _nested(klass: _Def, name: str) -> _Def | None:
    assert isinstance(klass.node, ast.ClassDef)
    for statement in klass.node.body:
        if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
            return _Def(klass.module, statement)
    return None


def _method(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if not isinstance(node, ast.ClassDef):
        return None
    found = None
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
            found = statement
    return found


def _decorator(klass: _Def) -> ast.expr | None:
    for decorator in klass.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if _dotted(target) in DATACLASS_DECORATORS:
            return decorator
    return None


def _is_dataclass(klass: _Def) -> bool:
    return _decorator(klass) is not None


def _dataclass_init(klass: _Def) -> bool:
    """False for `@dataclass(init=False)`, whose constructor is the class's own `__init__`."""
    decorator = _decorator(klass)
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "init" and isinstance(keyword.value, ast.Constant) and keyword.value.value is False:
                return False
    return True


def _is_classvar(annotation: ast.expr) -> bool:
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.startswith(("ClassVar", "typing.ClassVar"))
    dotted = _dotted(annotation) or ""
    return dotted.rsplit(".", 1)[-1] in {"ClassVar", "KW_ONLY"}


def _dataclass_fields(klass: _Def) -> Iterator[Param]:
    """The init fields a dataclass body declares, with their defaults as written."""
    assert isinstance(klass.node, ast.ClassDef)
    file = str(klass.module.file)
    for statement in klass.node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        if _is_classvar(statement.annotation):
            continue
        yield Param(
            statement.target.id, _field_default(statement.value), file, statement.lineno, klass.qualname, _unparse(statement.annotation)
        )


def _field_default(value: ast.expr | None) -> Default | None:
    """A dataclass field's default: None when it has none (or omegaconf's MISSING), `_NOT_INIT` for init=False."""
    if value is None:
        return None
    if isinstance(value, ast.Call) and (_dotted(value.func) or "").rsplit(".", 1)[-1] == "field":
        keywords = {keyword.arg: keyword.value for keyword in value.keywords if keyword.arg}
        init = keywords.get("init")
        if isinstance(init, ast.Constant) and init.value is False:
            return _NOT_INIT
        if "default" in keywords:
            return _field_default(keywords["default"])
        if "default_factory" in keywords:
            return _factory(keywords["default_factory"])
        return None
    if (_dotted(value) or "").rsplit(".", 1)[-1] == "MISSING":
        return None  # omegaconf's "???": building the node without a value fails
    return _literal(value)


def _factory(factory: ast.expr) -> Default:
    name = _dotted(factory)
    if name is not None and name in FACTORIES:
        return Default(FACTORIES[name](), True, f"{name}()")
    if isinstance(factory, ast.Lambda):
        body = _literal(factory.body)
        if body.literal:
            return body
        return Default(None, False, body.text)
    return Default(None, False, f"{_unparse(factory)[:MAX_TEXT]}()", name or "")


def _annotation(argument: ast.arg) -> str:
    return _unparse(argument.annotation) if argument.annotation is not None else ""


def _function_signature(qualname: str, file: str, node: ast.FunctionDef | ast.AsyncFunctionDef, skip_self: bool) -> Signature:
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    params = []
    for index, (argument, default) in enumerate(zip(positional, defaults)):
        if skip_self and index == 0:
            continue
        if argument in arguments.posonlyargs:
            continue  # cannot be given by keyword
        params.append(
            Param(argument.arg, None if default is None else _literal(default), file, argument.lineno, qualname, _annotation(argument))
        )
    for argument, kw_default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        params.append(
            Param(
                argument.arg, None if kw_default is None else _literal(kw_default), file, argument.lineno, qualname, _annotation(argument)
            )
        )
    return Signature(qualname, file, node.lineno, tuple(params), arguments.kwarg is not None)


def _all_names(index: SourceIndex, module: _Module, seen: frozenset[str] = frozenset()) -> set[str] | None:
    """`__all__` when the module spells it as literal lists and `other.__all__` sums; None otherwise (also for
    modules whose `__all__` refer to each other, or a chain of them past the budget).

    Each module's `__all__` is resolved once per index: `m.__all__ + m.__all__` chained through n modules would
    otherwise read the last one 2^n times. A cycle gives None wherever it is entered (Python fails on it too); a
    module met past the chain budget is kept as not known, so the walk stays linear in the modules."""
    assert module.tree is not None
    if module.name in index._all_of:
        known = index._all_of[module.name]
        return set(known) if known is not None else None
    if module.name in seen or len(seen) > MAX_PYTHON_CHAIN:
        return None
    seen = seen | {module.name}
    names: set[str] | None = None
    for statement in _statements(module.tree.body):
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
            names = _sum_of_names(index, module, statement.value, seen)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and statement.target.id == "__all__":
            extra = _sum_of_names(index, module, statement.value, seen)
            names = None if names is None or extra is None else names | extra
    index._all_of[module.name] = frozenset(names) if names is not None else None
    return names


def _sum_of_names(index: SourceIndex, module: _Module, node: ast.expr, seen: frozenset[str]) -> set[str] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _sum_of_names(index, module, node.left, seen), _sum_of_names(index, module, node.right, seen)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Attribute) and node.attr == "__all__" and isinstance(node.value, ast.Name):
        other = index.attribute(module, node.value.id, set())
        if isinstance(other, _Module) and other.tree is not None and other.name != module.name:
            return _all_names(index, other, seen)
        return None
    value = literal(node)
    return {item for item in value if isinstance(item, str)} if isinstance(value, list | tuple) else None
