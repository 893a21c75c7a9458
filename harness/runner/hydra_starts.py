"""How an application starts Hydra, read with `ast` and never run: every `@hydra.main`, `initialize`,
`initialize_config_dir` and `initialize_config_module` call with its arguments, the config folder each names (or,
computed, the folder holding the config it composes, or the one launches name with `--config-path`), the folder
`init` adopts, and the `version_base` and entry file of the start that composes it.

`init` (harness/adopt.py) asks here where the configs are and which Hydra semantics they are composed with.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.composition.hydra_compat import header_of
from harness.gates import linear
from harness.gates.budget import python_tree
from harness.gates.errors import BadInput
from harness.gates.reader import InputLimitError, read_text
from harness.model.settings import VERSION_BASES
from harness.readers.pysource import literal
from harness.runner.config_trees import bounded_walk, candidate_folders, own_settings_flags

# What init says of the Hydra semantics when nothing in the repository tells them.
NO_START = "no @hydra.main or initialize call found and no Hydra 1.0/1.1-style file: this Hydra's semantics"


class AdoptError(BadInput):
    """The repository cannot be adopted as asked (exit 2); the message is one line."""


# Which Hydra semantics an application uses: read from its @hydra.main, else from the style of its files.


# Every way an application starts Hydra, and the positional parameters of each (Hydra 1.3's signatures).
HYDRA_STARTS = MappingProxyType(
    {
        "main": ("config_path", "config_name", "version_base"),
        "initialize": ("config_path", "job_name", "caller_stack_depth", "version_base"),
        "initialize_config_dir": ("config_dir", "job_name", "version_base"),
        "initialize_config_module": ("config_module", "job_name", "version_base"),
    }
)


@dataclass(frozen=True)
class HydraCall:
    """One place an application starts Hydra (`@hydra.main`, `initialize`, `initialize_config_dir`,
    `initialize_config_module`), read with ast: its literal arguments (`...` when computed, absent when not given)."""

    path: Path
    line: int
    kind: str
    arguments: tuple[tuple[str, Any], ...]

    @property
    def keywords(self) -> dict[str, Any]:
        return dict(self.arguments)

    @property
    def shown(self) -> str:
        return "@hydra.main" if self.kind == "main" else self.kind


def _hydra_names(tree: ast.AST) -> tuple[dict[str, str], set[str]]:
    """The names a module binds to Hydra's starts (`from hydra import initialize as init`: init -> initialize)
    and to `compose`, and the names bound to the `hydra` module itself."""
    starts: dict[str, str] = {}
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "hydra":
            for alias in node.names:
                if alias.name in HYDRA_STARTS or alias.name == "compose":
                    starts[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name == "hydra")
    return starts, modules


def _called(func: ast.AST, starts: dict[str, str], modules: set[str]) -> str | None:
    """Which of Hydra's functions a call's target is (`hydra.initialize`, an imported `initialize`), or None."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules:
        return func.attr if func.attr in HYDRA_STARTS or func.attr == "compose" else None
    return starts.get(func.id) if isinstance(func, ast.Name) else None


def _calls_in(tree: ast.AST, path: Path) -> list[HydraCall]:
    from harness.readers.entries import module_constants

    starts, modules = _hydra_names(tree)
    if not starts and not modules:
        return []
    found: list[HydraCall] = []
    # Innermost scopes first (ast.walk goes outward in): a call pairs with the `compose` of its own function.
    scopes = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))]
    for scope in reversed(scopes):
        body = [node for statement in getattr(scope, "body", []) for node in ast.walk(statement)]
        names = [_called(node.func, starts, modules) for node in body if isinstance(node, ast.Call)]
        calls = [node for node in body if isinstance(node, ast.Call)]
        # `compose(config_name=...)` beside an initialize names the config the application composes.
        composed = [
            literal(next((k.value for k in call.keywords if k.arg == "config_name"), call.args[0] if call.args else None))
            for call, name in zip(calls, names, strict=True)
            if name == "compose"
        ]
        for call, name in zip(calls, names, strict=True):
            parameters = HYDRA_STARTS.get(name or "")
            if name is None or parameters is None or any(f.line == call.lineno and f.path == path for f in found):
                continue
            given = [ast.keyword(arg=parameters[position], value=value) for position, value in enumerate(call.args[: len(parameters)])]
            constants = module_constants(tree, call.lineno) if isinstance(tree, ast.Module) else {}
            arguments = {k.arg: _argument(k, path, constants) for k in [*given, *call.keywords] if k.arg}
            if name != "main" and "config_name" not in arguments and composed:
                arguments["config_name"] = composed[0]
            found.append(HydraCall(path, call.lineno, name, tuple(arguments.items())))
    return sorted(found, key=lambda call: call.line)


# Folders no walk of the repository enters: environments, caches, build outputs, other projects' installed packages.
SKIPPED_FOLDERS = frozenset({".git", ".cache", ".venv", "venv", "node_modules", "site-packages", ".tox", "build", "dist", "__pycache__"})


def walked_into(folder: str, subfolders: Iterable[str]) -> list[str]:
    """The subfolders a walk of the repository enters, sorted: not an environment, cache or build output
    (SKIPPED_FOLDERS), not hidden, and not another repository (a checked-out git submodule or a nested clone holds
    `.git`: RAGEN's and VAGEN's `verl/`, whose own entry points and launches are verl's, never the fork's)."""
    return sorted(
        name for name in subfolders if name not in SKIPPED_FOLDERS and not name.startswith(".") and not Path(folder, name, ".git").exists()
    )


def python_files(repository: Path, marker: str, limit: int = 5000) -> Iterator[tuple[Path, ast.Module]]:
    """The repository's Python files that mention `marker`, parsed with ast (never imported), in file order; at most
    `limit` files are read, and one that cannot be read or parsed is passed over."""
    files = 0
    for folder, subfolders, names in os.walk(repository):
        subfolders[:] = walked_into(folder, subfolders)
        for name in sorted(names):
            if not name.endswith(".py") or files >= limit:
                continue
            files += 1
            path = Path(folder, name)
            try:
                text = read_text(path)
                if marker not in text:
                    continue
                tree = python_tree(text, str(path))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError):
                continue
            yield path, tree


def hydra_calls(repository: Path, limit: int = 5000) -> list[HydraCall]:
    """Every place the repository's Python files start Hydra, read with ast, never imported, in file order."""
    return [call for path, tree in python_files(repository, "hydra", limit) for call in _calls_in(tree, path)]


def hydra_mains(repository: Path, limit: int = 5000) -> list[tuple[Path, int, dict[str, Any]]]:
    """Every `@hydra.main(...)` in the repository: (file, line, its arguments as hydra_calls reads them)."""
    return [(call.path, call.line, call.keywords) for call in hydra_calls(repository, limit) if call.kind == "main"]


def _argument(keyword: ast.keyword, path: Path, constants: dict[str, ast.expr] | None = None) -> Any:
    """A keyword's literal value; a config folder computed from `__file__`, a package's folder or the module's
    constants above the call (`_config_path = os.path.join(...)`) evaluated statically (never run)."""
    value = literal(keyword.value)
    if value is ... and keyword.arg in ("config_path", "config_dir"):
        from harness.readers.entries import NotStatic, static_value

        computed = static_value(keyword.value, path, constants)
        return ... if isinstance(computed, NotStatic) else computed
    return value


def is_hydra_main_call(func: ast.AST) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "main" and isinstance(func.value, ast.Name) and func.value.id == "hydra"


def _major_minor(value: Any) -> str | None:
    match = linear.compile(r"(\d+)\.(\d+)").match(value) if isinstance(value, str) else None
    if match is None:
        return None
    version = f"{match.group(1)}.{match.group(2)}"
    return version if version in VERSION_BASES else ("1.1" if version < "1.1" else VERSION_BASES[-1])


def repository_package(module: str, repository: Path) -> Path | Any:
    """The folder of a dotted module inside the repository (at its top level or under `src/`), `...` when none:
    `pkg://litdet.configs` and `initialize_config_module("litdet.configs")` name a package's folder."""
    from harness.readers.entries import package_folder  # the one pkg:// resolver of entry points

    found = package_folder(module.strip("/").replace("/", "."), [repository])
    return found.resolve() if found is not None else ...


def _call_folder(call: HydraCall, repository: Path) -> Path | None | Any:
    """The config folder a call names (`...` when computed, None when it names none)."""
    arguments = call.keywords
    if isinstance(arguments.get("config_path"), str) and arguments["config_path"].startswith("pkg://"):
        return repository_package(arguments["config_path"].removeprefix("pkg://"), repository)
    if call.kind == "initialize_config_module":
        module = arguments.get("config_module")
        return repository_package(module, repository) if isinstance(module, str) else ...
    if call.kind == "initialize_config_dir":
        folder = arguments.get("config_dir")
        return Path(folder).resolve() if isinstance(folder, str) and os.path.isabs(folder) else ...
    config_path = arguments.get("config_path", "." if call.kind == "main" else None)
    if config_path is None or config_path is ...:
        return config_path
    return (call.path.parent / config_path).resolve() if isinstance(config_path, str) else ...


@dataclass(frozen=True)
class ConfigFolder:
    """A config folder the application's Hydra starts name, the calls that name it and the launches that run them.

    `composed` is set when the calls compute their folder (read without running) and this folder is the one that
    holds the config they compose (`compose(config_name="config")` beside `initialize_config_dir(computed)`)."""

    folder: Path
    calls: tuple[HydraCall, ...]
    launches: int = 0
    composed: str | None = None
    flagged: tuple[str, ...] = ()  # the launches that name it with `--config-path` (`SCRIPT:LINE`)

    def evidence(self, base: Path) -> str:
        """The calls that name it (the first three) and the launches that run them, in a few words."""
        if self.flagged and not self.calls:
            more = f" and {len(self.flagged) - 1} more" if len(self.flagged) > 1 else ""
            return f"--config-path in {len(self.flagged)} launch(es) ({self.flagged[0]}{more})"
        where = ", ".join(f"{call.shown} at {shown_relative(call.path, base)}:{call.line}" for call in self.calls[:3])
        more = f" and {len(self.calls) - 3} more" if len(self.calls) > 3 else ""
        runs = f"; {self.launches} launch(es) run them" if self.launches else ""
        return f"{where}{more}{runs}"

    def shown(self, base: Path) -> str:
        if self.composed is not None:
            return (
                f"{shown_relative(self.folder, base)} (holds {self.composed}.yaml, the config {self.evidence(base)} "
                "composes from a folder it computes, read without running)"
            )
        return f"{shown_relative(self.folder, base)} (named by {self.evidence(base)})"


def config_folders(base: Path, repository: Path, launches: Counter[Path] | None = None) -> list[ConfigFolder]:
    """The config folders below `base` that the repository's Hydra starts name (read statically, never run), most
    used first: by the launches that run their entry files, then by the number of calls. The one place init asks
    where an entry point's configs are (`_call_folder`), so a better reader of entry points changes only that."""
    launches = launches or Counter()
    named: dict[Path, list[HydraCall]] = {}
    for call in hydra_calls(repository):
        folder = _call_folder(call, repository)
        if isinstance(folder, Path) and is_within(folder, base) and folder.is_dir() and any(folder.glob("*.yaml")):
            named.setdefault(folder, []).append(call)
    found = [
        ConfigFolder(folder, tuple(calls), sum(launches[path] for path in {call.path.resolve() for call in calls}))
        for folder, calls in named.items()
    ]
    return sorted(found, key=lambda item: (-item.launches, -len(item.calls), item.folder.as_posix()))


def composed_folders(base: Path, repository: Path, launches: Counter[Path] | None = None, limit: int = 5000) -> list[ConfigFolder]:
    """The folders below `base` that hold the config a Hydra start with a computed folder composes (pyteia:
    `initialize_config_dir(config_dir=str(layout.primary.path))` then `compose(config_name="config")`, and one
    folder of the package holds `config.yaml`), most used first as config_folders orders them. The computed
    folder is never evaluated: the config's file name is the evidence, and init says so."""
    launches = launches or Counter()
    wanted: dict[str, list[HydraCall]] = {}
    for call in hydra_calls(repository):
        name = call.keywords.get("config_name")
        if _call_folder(call, repository) is ... and isinstance(name, str) and name and "/" not in name:
            wanted.setdefault(name.removesuffix(".yaml"), []).append(call)
    if not wanted:
        return []
    holding: dict[str, list[Path]] = {}
    for folder, _, names in bounded_walk(base, walked_into, limit):
        for name in wanted:
            if f"{name}.yaml" in names:
                holding.setdefault(name, []).append(Path(folder).resolve())
    named: dict[Path, tuple[str, list[HydraCall]]] = {}
    for name, calls in wanted.items():
        for call in calls:
            # A call composes from the folder nearest its own file (foundry's rf3/cli.py from rf3/configs, never from
            # rfd3/configs, which holds an inference.yaml too).
            nearest = _nearest(call.path.resolve(), holding.get(name, []))
            for near in nearest:
                named.setdefault(near, (name, []))[1].append(call)
    found = [
        ConfigFolder(folder, tuple(calls), sum(launches[path] for path in {call.path.resolve() for call in calls}), name)
        for folder, (name, calls) in named.items()
    ]
    return sorted(found, key=lambda item: (-item.launches, -len(item.calls), item.folder.as_posix()))


def _nearest(file: Path, folders: Sequence[Path]) -> list[Path]:
    """The folders that share the longest leading path with the file (all of them when none shares more)."""

    def shared(folder: Path) -> int:
        return len(os.path.commonpath([file, folder]).split(os.sep))

    most = max((shared(folder) for folder in folders), default=0)
    return [folder for folder in folders if shared(folder) == most]


def find_config_dir(base: Path, repository: Path, launches: Counter[Path], flagged: dict[Path, list[str]] | None = None) -> ConfigFolder:
    """The config folder init adopts without `--config-dir`: the one the entry points name, or the one most launches
    and calls use when that is clear (a folder launches name with `--config-path` counts those launches); else
    AdoptError listing the candidates with the entry points of each."""
    found = config_folders(base, repository, launches) or composed_folders(base, repository, launches)
    found = _with_flagged(found, flagged or {})
    if not found:
        raise AdoptError(_no_folder_named(base, repository))
    if len(found) == 1 or (found[0].launches, len(found[0].calls)) > (found[1].launches, len(found[1].calls)):
        return found[0]
    tied = [item for item in found if (item.launches, len(item.calls)) == (found[0].launches, len(found[0].calls))]
    raise AdoptError(
        f"{base}: {len(tied)} config folders are used as much as each other: "
        + "; ".join(item.shown(base) for item in tied)
        + "; choose one with --config-dir DIR (each other one is a config tree of its own: "
        + f"config-harness init {own_settings_flags(tied[1].folder, base)} adopts it beside)"
    )


def _with_flagged(found: list[ConfigFolder], flagged: dict[Path, list[str]]) -> list[ConfigFolder]:
    """The folders the Hydra starts name, and those launches name with `--config-path` (Hydra reads the flag over
    the decorator's config_path), each launch counted once for the folder it names, most used first."""
    by_folder = {item.folder: item for item in found}
    for folder, where in flagged.items():
        item = by_folder.get(folder, ConfigFolder(folder, ()))
        by_folder[folder] = replace(item, launches=max(item.launches, len(where)), flagged=tuple(where))
    return sorted(by_folder.values(), key=lambda item: (-item.launches, -len(item.calls), item.folder.as_posix()))


def _no_folder_named(base: Path, repository: Path) -> str:
    """The one line init says when no Hydra start names a folder it can read: the starts that compute theirs (read
    without running) and the folders that look like config folders, so the answer is one `--config-dir`."""
    computed = [
        f"{call.shown} at {shown_relative(call.path, base)}:{call.line}"
        for call in hydra_calls(repository)
        if _call_folder(call, repository) is ...
    ]
    looks = candidate_folders(base, walked_into)
    folders = f"; folders that look like config folders: {'; '.join(item.shown(base) for item in looks[:3])}" if looks else ""
    if computed:
        starts = f"{', '.join(computed[:3])}{f' and {len(computed) - 3} more' if len(computed) > 3 else ''}"
        return (
            f"{base}: the Hydra start(s) below compute their config folder at run time ({starts}; read without running), "
            f"so which folder it is cannot be read{folders}; answer with config-harness init --config-dir DIR"
        )
    return f"{base}: no @hydra.main or initialize call below names a config folder that holds YAML files{folders}; give it with --config-dir DIR"


def _shown_version(version: str | None) -> str:
    return "None" if version is None else repr(version)


@dataclass(frozen=True)
class EntryGuess:
    """The Hydra start init read for a config folder: its version_base, the reason in one line, and its file."""

    version_base: str | None
    reason: str
    entry_file: Path | None = None


def read_entry_points(
    config_dir: Path, repository: Path, roots: Sequence[str], launches: Counter[Path] | None = None, flagged: Collection[Path] = ()
) -> EntryGuess:
    """The version_base of the way the application starts Hydra for this folder, and the one-line reason.

    A call matches when its literal config folder is this folder, or (computed folder) its `config_name` is one
    of the roots, or it is the `@hydra.main` of a file that launches run with `--config-path` naming this folder
    (`flagged`: those entry files). Without `version_base=` Hydra assumes 1.1. When calls disagree, the one whose file most launch
    scripts run decides (`launches`: entry file -> launches), then the most calls. Without any call, files in
    Hydra 1.0/1.1 style (`# @package _group_` or `_name_` headers) mean 1.1, anything else this Hydra's semantics.
    """
    names = {root.removesuffix(".yaml") for root in roots}
    launches = launches or Counter()
    matching: list[tuple[HydraCall, str | None]] = []
    for call in hydra_calls(repository):
        folder, config_name = _call_folder(call, repository), call.keywords.get("config_name")
        by_path = isinstance(folder, Path) and folder == config_dir
        by_name = folder is ... and isinstance(config_name, str) and config_name.removesuffix(".yaml") in names
        # An entry point the launches run with `--config-path` naming this folder (VAGEN's vagen/main_ppo.py).
        by_path = by_path or (call.kind == "main" and call.path.resolve() in flagged)
        value = call.keywords.get("version_base", "1.1")
        if (by_path or by_name) and value is not ...:  # a computed version_base: nothing to read here
            matching.append((call, None if value is None else _major_minor(value)))
    computed = not matching
    if not matching:
        # No start names this folder: the starts that compute theirs at run time and name no config of another
        # folder (classy's `initialize_config_dir(config_dir=config_dir)` over a folder it builds) are the ones that
        # compose it, the folder being the one the user answered with.
        for call in hydra_calls(repository):
            config_name = call.keywords.get("config_name")
            value = call.keywords.get("version_base", "1.1")
            if _call_folder(call, repository) is ... and not isinstance(config_name, str) and value is not ...:
                matching.append((call, None if value is None else _major_minor(value)))
    if matching:
        votes = Counter(version for _, version in matching)
        # The call most launches run decides; among equals, the version most calls agree on, then file order.
        call, version = max(matching, key=lambda item: (launches[item[0].path.resolve()], votes[item[1]]))
        used = launches[call.path.resolve()]
        why = f"the entry point {used} launch(es) run; " if used else ""
        kinds = "entry point(s)" if all(c.kind == "main" for c, _ in matching) else "call(s)"
        if len(votes) == 1:
            count = f"{votes[version]} {kinds} agree"
        else:
            first = {v: next(f"{shown_relative(c.path, repository)}:{c.line}" for c, w in matching if w == v) for v in votes}
            count = f"the {kinds} disagree: " + ", ".join(
                f"{n} say {_shown_version(v)}" + ("" if v == version else f" (first at {first[v]})")
                for v, n in sorted(votes.items(), key=lambda item: (item[0] != version, -item[1]))
            )
        if computed:
            count += ", computing the folder they compose from at run time"
        reason = (
            f"version_base {_shown_version(version)} as {call.shown} at {shown_relative(call.path, repository)}:{call.line} ({why}{count})"
        )
        return EntryGuess(version, reason, call.path)
    for path in sorted(config_dir.rglob("*.yaml")):
        try:
            header = header_of(read_text(path)[:512])
        except (OSError, UnicodeDecodeError, InputLimitError):
            continue
        package = header.get("package") or ""
        if "_group_" in package or "_name_" in package:
            return EntryGuess(
                "1.1", f"version_base '1.1': {shown_relative(path, config_dir)} has a Hydra 1.0-style '# @package {package}' header"
            )
    return EntryGuess(None, NO_START)


def shown_relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
