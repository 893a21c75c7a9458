"""What init reads of the programs around a config tree: entry points (`@hydra.main`, computed paths), launch scripts
and the programs they run, Python sources, search path plugins and the pytest settings that would hide goldens."""

from __future__ import annotations

import ast
import os
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.adopt.discovery import candidate_roots
from harness.gates.budget import BudgetExceeded, python_tree, toml_document
from harness.gates.reader import InputLimitError, read_bytes, read_text
from harness.readers.pysource import literal
from harness.runner.hydra_starts import (
    SKIPPED_FOLDERS,
    EntryGuess,
    hydra_mains,
    is_hydra_main_call,
    is_within,
    python_files,
    repository_package,
    shown_relative,
    walked_into,
)


def package_around(path: Path, stop: Path) -> Path | None:
    """The outermost folder between `stop` and `path` that is a Python package (has __init__.py), if any."""
    found = None
    for folder in [path, *path.parents]:
        if folder == stop or stop not in folder.parents:
            break
        if (folder / "__init__.py").is_file():
            found = folder
    return found


def command_globs(base: Path, config_dir: Path) -> list[str]:
    """`[[commands]]` globs for the shell scripts below `base` that launch one of its Hydra entry points:
    one `<top folder>/**/*.sh` per top-level folder that holds such a script (scripts are parsed, never run)."""
    from harness.gates.confine import project_root
    from harness.readers.bash import launches_in
    from harness.runner.launches import Project, submodule_paths

    project = Project(base, config_dir, {})
    tops: set[str] = set()
    root = project_root(base)
    submodules = {(root / path).resolve() for path in submodule_paths(root)}
    for folder, subfolders, files in os.walk(base):
        # A submodule's scripts are another repository's launches (RAGEN's verl/): never globbed by default.
        subfolders[:] = sorted(
            d
            for d in subfolders
            if d not in SKIPPED_FOLDERS
            and not d.startswith(".")
            and Path(folder, d).resolve() not in submodules
            and not Path(folder, d, ".git").exists()
        )
        for name in sorted(files):
            path = Path(folder, name)
            relative = path.relative_to(base)
            top = relative.parts[0] if len(relative.parts) > 1 else ""
            if not name.endswith(".sh") or top in tops or path.is_symlink():
                continue
            try:
                data = read_bytes(path, limit=1024 * 1024)
            except (OSError, InputLimitError):
                continue
            launches = (
                launches_in(relative.as_posix(), data, _entry_near(path.parent, base, project))
                if b"-m" in data or b"python" in data
                else []
            )
            # As check counts them: a program that is not the repository's and takes no Hydra argument is no launch.
            if any(not launch.error or launch.hydra_like for launch in launches):
                tops.add(top)
    return sorted(f"{top}/**/*.sh" if top else "*.sh" for top in tops)


def composing_programs(base: Path, config_dir: Path, globs: Sequence[str], limit: int = 5000) -> dict[str, str]:
    """The programs the launch scripts run that have no `@hydra.main` but hand their command line (`sys.argv`) to a
    module of the repository that composes a config of `config_dir` with Hydra's compose API, as vissl's
    `tools/run_distributed_engines.py` does (`BINARY="python tools/run_distributed_engines.py"; $BINARY config=...`):
    each program, as `[commands.modules]` names it, with the config it composes."""
    from harness.readers.bash import launches_in
    from harness.readers.entries import module_file
    from harness.runner.hydra_starts import _call_folder, hydra_calls
    from harness.runner.launches import NOT_HYDRA, Project, Refusal

    composing: dict[Path, str] = {}
    for call in hydra_calls(base, limit):
        name = call.keywords.get("config_name")
        folder = _call_folder(call, base) if call.kind != "main" else None
        if isinstance(name, str) and folder == config_dir and (config_dir / f"{name}.yaml").is_file():
            composing.setdefault(call.path.resolve(), name)
    if not composing:
        return {}
    project = Project(base, config_dir, {})
    scripts = sorted({path for pattern in globs for path in base.glob(pattern) if path.is_file() and not path.is_symlink()})[:limit]
    mapped: dict[str, str] = {}
    for script in scripts:
        try:
            data = read_bytes(script, (base,), limit=1024 * 1024)
        except (OSError, InputLimitError):
            continue
        for launch in launches_in(script.relative_to(base).as_posix(), data, project.is_entry):
            refused = project.entry(launch.program, launch.is_module) if launch.entry and launch.program not in mapped else None
            program = project.entry_file(launch.program, launch.is_module) if isinstance(refused, Refusal) else None
            if program is None or not isinstance(refused, Refusal) or refused.kind != NOT_HYDRA:
                continue
            try:
                passes_argv = "sys.argv" in read_text(program, (base,))
            except (OSError, UnicodeDecodeError, InputLimitError):
                continue
            imported = [module_file(module, base) for module in sorted(_imported_modules(program))]
            found = next((composing[file.resolve()] for file in imported if file is not None and file.resolve() in composing), None)
            if passes_argv and found is not None:
                mapped[launch.program] = found
    return mapped


def _entry_near(folder: Path, base: Path, project: Any) -> Any:
    """`is_entry` for a script in `folder`: an entry point of the project, or one that lies below a folder between the
    script's and `base` (PRIME's `training/examples/run.sh` runs `python -m verl.trainer.main_ppo` from `training/`,
    where `verl/` is): a launch is globbed wherever it lives, and `cd` is followed when the launches are read."""
    from harness.runner.launches import NOT_HYDRA, Refusal

    folders = [folder, *(parent for parent in folder.parents if is_within(parent, base) and parent != base)]

    def is_entry(entry: str, is_module: bool) -> bool:
        # A program without @hydra.main (geoarches' `python -m geoarches.evaluation.eval_multistep`, an argparse
        # script) is no launch: check skips it as "not a Hydra program", so a glob for it would only count zeros.
        if project.is_entry(entry, is_module):
            found = project.entry(entry, is_module)
            return not (isinstance(found, Refusal) and found.kind == NOT_HYDRA)
        relative = entry.replace(".", "/") + ".py" if is_module else entry
        files = [near / relative for near in folders] + ([near / relative[:-3] / "__main__.py" for near in folders] if is_module else [])
        return any(file.is_file() and _has_hydra_main(file) for file in files)

    return is_entry


def _has_hydra_main(file: Path) -> bool:
    """True when a Python file has an `@hydra.main` (read with ast, never imported; False when it cannot be read)."""
    from harness.readers.entries import hydra_main

    try:
        return hydra_main(read_text(file), file) is not None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError, BudgetExceeded):
        return False


def python_sources_of(entry: EntryGuess, base: Path) -> list[str]:
    """`python_sources` for the package that holds the entry point, when it lies below the settings file's folder
    (`verl` for verl/trainer/main_ppo.py): `_target_` paths resolve into it, read with ast, never imported."""
    if entry.entry_file is None or not is_within(entry.entry_file.resolve(), base.resolve()):
        return []
    package = package_around(entry.entry_file.parent, base)
    if package is None:
        # No __init__.py between (F5-TTS's wheel: `f5_tts/` is a namespace package): its imports resolve from the
        # repository's root, as the program runs there (`from f5_tts.model import CFM`), so sources start at the
        # top folder that holds the entry point, or at the root for a script that lies there.
        parts = entry.entry_file.resolve().relative_to(base.resolve()).parts
        return [parts[0] if len(parts) > 1 else "."]
    # A package inside a namespace package (pyteia's `teia/core`: teia/ has no __init__.py) is imported by its
    # dotted name from the folder above the namespace (`from teia.core.config import ...`): sources start there.
    imported = _imported_modules(entry.entry_file)
    top, dotted = package, package.name
    while top.parent != base and is_within(top.parent, base) and not (top.parent / "__init__.py").is_file():
        outer = f"{top.parent.name}.{dotted}"
        if not any(name == outer or name.startswith(f"{outer}.") for name in imported):
            break
        top, dotted = top.parent, outer
    return [shown_relative(package if top == package else top.parent, base)]


def _imported_modules(file: Path) -> set[str]:
    """The absolute module names a Python file imports (read with ast, never run); empty when it cannot be read."""
    try:
        tree = python_tree(read_text(file), str(file))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@dataclass(frozen=True)
class LaunchSurvey:
    """What the launch scripts below a folder run (parsed, never run): launches per entry file, and how often their
    overrides set each key or group (`model_engine=megatron` counts for `model_engine`)."""

    entries: Counter[Path] = field(default_factory=Counter)
    keys: Counter[str] = field(default_factory=Counter)
    # folder -> where the launches that name it with `--config-path` are (`SCRIPT:LINE`): VAGEN's scripts all say
    # `--config-path="$V/vagen/configs"` beside an entry point whose own config_path names no folder.
    flagged: dict[Path, list[str]] = field(default_factory=dict)
    flagged_entries: dict[Path, set[Path]] = field(default_factory=dict)  # folder -> the entry files those launches run


def launch_counts(base: Path, config_dir: Path, limit: int = 5000) -> LaunchSurvey:
    """How many launches the shell scripts below `base` make of each of its Python entry files (parsed, never run):
    the entry point most launches use is the application's own, not a helper beside it; and which keys they set."""
    from harness.readers.bash import launches_in
    from harness.runner.launches import Project, flagged_config_folder

    project = Project(base, config_dir, {})
    counts: Counter[Path] = Counter()
    keys: Counter[str] = Counter()
    flagged: dict[Path, list[str]] = {}
    flagged_entries: dict[Path, set[Path]] = {}
    scripts = 0
    for folder, subfolders, files in os.walk(base):
        subfolders[:] = walked_into(folder, subfolders)
        for name in sorted(files):
            path = Path(folder, name)
            if not name.endswith(".sh") or path.is_symlink() or scripts >= limit:
                continue
            scripts += 1
            try:
                data = read_bytes(path, limit=1024 * 1024)
            except (OSError, InputLimitError):
                continue
            if b"-m" not in data and b"python" not in data:
                continue
            for launch in launches_in(path.relative_to(base).as_posix(), data, project.is_entry):
                entry = project.entry_file(launch.program, launch.is_module)  # `training/verl...` run from a sub-project
                if entry is not None:
                    counts[entry.resolve()] += 1
                keys.update({override.text.partition("=")[0].lstrip("+~") for override in launch.overrides})
                named = flagged_config_folder(project, launch) if entry is not None and not launch.error else None
                if entry is not None and named is not None and is_within(named, base.resolve()) and named.is_dir():
                    flagged.setdefault(named, []).append(launch.where)
                    flagged_entries.setdefault(named, set()).add(entry.resolve())
    return LaunchSurvey(counts, keys, flagged, flagged_entries)


def computed_entry_points(config_dir: Path, repository: Path) -> list[str]:
    """What init says of each `@hydra.main` whose `config_path` is computed: the folder it evaluates to (read with
    ast from `__file__` and `os.path`/`pathlib` joins, never run) when that is this config folder, or which argument
    it cannot evaluate and why."""
    from harness.readers.entries import NotStatic, module_constants, static_value

    said = []
    names = {name.removesuffix(".yaml") for name in candidate_roots(config_dir, ("*.yaml",))}
    for path, line, arguments in hydra_mains(repository):
        config_name = arguments.get("config_name")
        if isinstance(config_name, str) and config_name.removesuffix(".yaml") not in names:
            continue  # the entry point of another folder's config (foundry's rfd3/train.py beside rf3/configs)
        try:
            text = read_text(path)
            node = next((k.value for k in _hydra_main_keywords(text, line) if k.arg == "config_path"), None)
            constants = module_constants(ast.parse(text), line)
        except (OSError, UnicodeDecodeError, InputLimitError, SyntaxError, ValueError):
            continue
        if node is None or literal(node) is not ...:
            continue  # a literal (or no) config_path: nothing computed to say
        value = static_value(node, path, constants)
        where = f"{shown_relative(path, repository)}:{line}"
        if isinstance(value, NotStatic):
            said.append(f"{where}: @hydra.main's config_path cannot be read without running it ({value.why})")
        elif isinstance(value, str) and (path.parent / value).resolve() == config_dir:
            said.append(
                f"{where}: @hydra.main with config_path computed from __file__ (read, never run): {shown_relative(config_dir, repository)}"
            )
    return said


def plugin_search_paths(repository: Path, given: Sequence[Path], limit: int = 5000) -> list[tuple[Path | None, str]]:
    """The folders the repository's SearchPathPlugins add (`hydra_plugins/*.py`: installed, each adds its folder to
    every Hydra run's search path, pyteia's `teia/conf`), read with ast, never imported, each with what init says
    of it; None with why when the folder cannot be read without running. `--search-path` folders are not repeated."""
    from harness.readers.entries import NotStatic, as_shown, dotted_name, static_value

    said: list[tuple[Path | None, str]] = []
    for path, tree in python_files(repository, "SearchPathPlugin", limit):
        for plugin in [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]:
            if not any(dotted_name(base).rsplit(".", 1)[-1] == "SearchPathPlugin" for base in plugin.bases):
                continue
            where = f"{shown_relative(path, repository)}:{plugin.lineno}: the SearchPathPlugin {plugin.name} adds"
            for argument, bound in _search_path_additions(plugin, repository):
                value = static_value(argument, path, bound)
                added = _plugin_folder(value, repository)
                if added is None:
                    why = value.why if isinstance(value, NotStatic) else f"{as_shown(value)!r} is not a folder of the repository"
                    said.append((None, f"{where} a folder it computes ({why}); give it with --search-path DIR"))
                elif added not in given and all(folder != added for folder, _ in said):  # vissl adds configs/ twice
                    shown = shown_relative(added, repository)
                    said.append((added, f"search_path {shown}: {where} it to every run's search path (read, never imported)"))
    return said


def _search_path_additions(plugin: ast.ClassDef, repository: Path) -> list[tuple[ast.expr, dict[str, ast.expr]]]:
    """The path arguments of a plugin's `search_path.append/prepend(provider, path)` calls, each with the names its
    loops bind: `for portion in map(Path, teia.__path__)` binds `portion` to the package's folder in the repository
    (a package's `__path__` lists its folders; pyteia's plugin adds `portion / "conf"`)."""
    from harness.readers.entries import dotted_name

    loops: dict[str, ast.expr] = {}
    for node in ast.walk(plugin):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            iterated = node.iter
            if isinstance(iterated, ast.Call) and dotted_name(iterated.func) == "map" and len(iterated.args) == 2:
                iterated = iterated.args[1]
            if isinstance(iterated, ast.Attribute) and iterated.attr == "__path__":
                folder = repository_package(dotted_name(iterated.value), repository)
                if isinstance(folder, Path):
                    loops[node.target.id] = ast.Call(ast.Name("Path"), [ast.Constant(folder.as_posix())], [])
    found = []
    for node in ast.walk(plugin):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "prepend"):
            path = next((k.value for k in node.keywords if k.arg == "path"), node.args[1] if len(node.args) > 1 else None)
            provider = next((k.value for k in node.keywords if k.arg == "provider"), node.args[0] if node.args else None)
            if path is not None and provider is not None:
                found.append((path, loops))
    return found


def _plugin_folder(value: Any, repository: Path) -> Path | None:
    """The repository's folder a plugin's `file://` or `pkg://` path names, None for any other."""
    if not isinstance(value, str):
        return None
    if value.startswith("pkg://"):
        folder = repository_package(value.removeprefix("pkg://"), repository)
        return folder if isinstance(folder, Path) else None
    relative = value.removeprefix("file://")
    folder = (repository / relative).resolve()
    return folder if value.startswith("file://") and is_within(folder, repository.resolve()) and folder.is_dir() else None


def _hydra_main_keywords(text: str, line: int) -> list[ast.keyword]:
    """The keywords of the `hydra.main(...)` call at `line`."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and node.lineno == line and is_hydra_main_call(node.func):
            return node.keywords
    return []


def pytest_hides_goldens(settings_file: Path, repository: Path) -> str | None:
    """A note when the repository's pytest `testpaths` keep plain `pytest` from collecting the golden tests (they
    are collected from the pyproject.toml that holds the settings), with the one-line fix; None when pytest finds
    them, or when the settings are a file of their own (pytest then needs `--harness-settings FILE` anyway)."""
    pyproject = repository / "pyproject.toml"
    if settings_file.resolve() != pyproject.resolve():
        return None
    try:
        options: Any = toml_document(read_text(pyproject), str(pyproject))
    except (OSError, UnicodeDecodeError, InputLimitError, tomllib.TOMLDecodeError):
        return None
    for key in ("tool", "pytest", "ini_options"):  # `[[tool]]` makes `tool` a list: then there are no such options
        options = options.get(key) if isinstance(options, dict) else None
    if not isinstance(options, dict):
        return None
    paths = options.get("testpaths")
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        return None
    target = settings_file.resolve()
    if any(target == (repository / p).resolve() or (repository / p).resolve() in target.parents for p in paths):
        return None
    fixed = ", ".join(f'"{p}"' for p in [*paths, shown_relative(settings_file, repository)])
    return (
        f"pyproject.toml's [tool.pytest.ini_options] testpaths = {paths!r} keeps plain `pytest` from collecting "
        f"the golden tests in {shown_relative(settings_file, repository)}; write testpaths = [{fixed}]"
    )
