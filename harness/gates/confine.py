"""The project's bounds: which folder a run may read and write, and what in a config may steer a composition.

A pull request controls settings, contracts, goldens, configs and file names, so each check here is a pure
function that says what is wrong (or nothing); callers raise their own error type with the file's name.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omegaconf import ListConfig, OmegaConf

from harness.gates import linear
from harness.gates.errors import BadInput

# A resolver call such as `${oc.env:TOKEN}` or `${now:%H}`: a name, then a colon, inside `${...}`.
RESOLVER_CALL = linear.compile(r"\$\{\s*[\w.\-]+\s*:")


class UnsafeInput(PermissionError, BadInput):
    """Input that would make a run read, write or run something outside the project: refused, exit 2."""


def project_root(start: Path) -> Path:
    """The git top level that holds `start` (a folder), or `start` itself outside any git checkout."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def is_inside(path: str | Path, folder: Path) -> bool:
    """True when `path`, with every symlink followed, lies in `folder` (or is it)."""
    return _real_inside(os.path.realpath(path), folder)


def _real_inside(real: str, folder: Path) -> bool:
    # Compared as text (a real path has no `..`, no link and no doubled separator), not through Path.parents: a
    # check reads thousands of files, each once per folder of the scope.
    inside = str(folder)
    return real == inside or real.startswith(inside.rstrip(os.sep) + os.sep)


# The folders a run may read: the project first, then any folder the settings name for reading.
Scope = tuple[Path, ...]


def within(path: str | Path, scope: Scope) -> bool:
    """True when `path`, with every symlink followed, lies in one of the scope's folders."""
    real = os.path.realpath(path)
    return any(_real_inside(real, folder) for folder in scope)


def outside_problem(path: Path, scope: Scope, what: str) -> str | None:
    """Why `path` may not be used (it leads outside every folder of `scope`), or None."""
    if within(path, scope):
        return None
    # Said relative to the project, never as a host path: the line may be recorded in a committed known file.
    plain = os.path.normpath(Path(path).absolute())
    link = " through a symlink" if os.path.realpath(path) != plain else " through '..'" if plain != str(Path(path).absolute()) else ""
    shown = os.path.relpath(plain, scope[0].absolute())
    return f"{what} {shown} lies outside the project{link}; it is not read"


def git_folder_problem(path: str | Path) -> str | None:
    """Why the harness may not write to `path` (a git repository's own data: refs, hooks, config), or None.

    Writing there lets a pull request choose what `diff --base origin/main` compares against, or plant a hook.
    """
    real = Path(os.path.realpath(path))
    for folder in (real, *real.parents):
        if folder.name == ".git":
            return f"{path} lies inside the git folder {folder}; the harness never writes there"
    return None


def uses_resolver(value: Any) -> bool:
    """True for a string with a resolver call (`${oc.env:...}`, `${now:...}`, any `${name:...}`)."""
    return isinstance(value, str) and RESOLVER_CALL.search(value) is not None


def search_path_problem(entry: Any, scope: Scope) -> str | None:
    """Why a search path entry is refused, or None for a folder inside `scope`.

    `pkg://` would import a package (running its `__init__`), so only packages already imported (Hydra's own),
    the project's own package folders (read as files, see project_package_folder) and packages nothing installed
    provides (skipped as Hydra skips them, see package_is_missing) are allowed; a resolver would let the environment choose the folder; a folder outside the project would
    let a config read host files. Used for `hydra.searchpath` in configs and overrides, and by every source
    a session creates; a settings-level search path checks its entries here too (pkg:// found from metadata
    instead of refused, its folder added to the scope).
    """
    if not isinstance(entry, str):
        return f"search path entry {entry!r} is not a string"
    if "${" in entry:
        return f"search path entry {entry!r} uses an interpolation; the environment must not choose which files are read"
    scheme, separator, location = entry.partition("://")
    if not separator:
        scheme, location = "file", entry
    if scheme == "pkg":
        return (
            None
            if package_is_loaded(location) or project_package_folder(location, scope) is not None or package_is_missing(location)
            else (
                f"search path entry {entry!r} would import the package {location!r} (pkg:// runs its code), and it is not "
                "a folder of the project's own; use a folder inside the project instead"
            )
        )
    if scheme != "file":
        return f"search path entry {entry!r}: only folders inside the project may be searched"
    return outside_problem(Path(location).absolute(), scope, f"search path entry {entry!r}:")


# `${oc.env:NAME}` or `${oc.env:NAME,default}` in a search path entry: the one environment read an entry may make.
ENV_READ = linear.compile(r"\$\{\s*oc\.env\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:,([^${}]*))?\}")


def resolved_search_path(
    entries: list[Any], scope: Scope, read_env: Callable[[str], str | None], allowed_env: frozenset[str] | None = None
) -> list[tuple[str, str]]:
    """A config's `hydra.searchpath` entries with their `${oc.env:NAME}` reads resolved (as Hydra resolves them),
    each then checked as any entry is: (entry to use, entry as written) pairs; UnsafeInput (one line) for an entry
    that may not be used.

    The environment may choose a folder only inside the project, and its value is never shown: a message names
    the entry as written and the variable. An unset variable without a default is an error naming both. A folder
    the environment names that does not exist is left out, as Hydra skips a source that is not available (so the
    value never becomes a source's name, in a message or in the cache). Only the variables in `allowed_env` (the
    settings' `search_path_env`; None: any, as for init on the user's own machine) are read at all: otherwise a
    pull request could name `conf/${oc.env:CI_TOKEN}` and commit a folder named by its guess, and learn from the
    answer whether the guess is the secret.
    """
    resolved = []
    for entry in entries:
        if not isinstance(entry, str):
            raise UnsafeInput(f"search path entry {entry!r} is not a string")
        if "${" in ENV_READ.sub("", entry):
            raise UnsafeInput(
                f"search path entry {entry!r} uses an interpolation other than ${{oc.env:NAME}}; "
                "only an environment variable may choose the folder, inside the project"
            )
        reads = list(ENV_READ.finditer(entry))
        names = sorted({read.group(1) for read in reads})
        refused = [name for name in names if allowed_env is not None and name not in allowed_env]
        if refused:
            raise UnsafeInput(
                f"search path entry {entry!r} reads the environment variable {', '.join(refused)}, which the settings do not "
                "allow; list it in search_path_env to let it choose the folder"
            )
        for name in (read.group(1) for read in reads if read.group(2) is None):
            if read_env(name) is None:
                raise UnsafeInput(
                    f"search path entry {entry!r} reads the environment variable {name}, which is not set; "
                    "set it, or replace the search path in a preset (hydra.searchpath=[...])"
                )
        text = ENV_READ.sub(lambda match: _env_value(match, read_env), entry)
        problem = search_path_problem(text, scope)
        if problem and names:
            # The message must not show the value: name the entry as written and the variables it read.
            problem = (
                f"search path entry {entry!r} names, with the value of {', '.join(names)} (not shown), "
                f"a folder outside the project {scope[0]}; it is not read"
            )
        if problem:
            raise UnsafeInput(problem)
        scheme, separator, location = text.partition("://")
        if names and (scheme if separator else "file") == "file" and not Path(location if separator else text).is_dir():
            continue
        resolved.append((text, entry))
    return resolved


def _env_value(match: linear.Match[str], read_env: Callable[[str], str | None]) -> str:
    found = read_env(match.group(1))
    return found if found is not None else (match.group(2) or "").strip().strip("'\"")


def project_package_folder(name: str, scope: Scope, root: Path | None = None) -> Path | None:
    """The folder of the project's own package `name` (`verl.trainer.config`): below the working folder (or `root`),
    where `python -m` run from the project's root finds it, when it is there and lies inside `scope` (links
    followed). Its files are read as configs; the package is never imported. None otherwise."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    folder = (root or Path.cwd()).joinpath(*parts)
    return folder if folder.is_dir() and within(folder, scope) else None


def package_is_loaded(name: str) -> bool:
    """True when the module `name` is already imported (or is Hydra's own config), so serving it runs no new code."""
    return name in sys.modules or name == "hydra.conf"


def package_is_missing(name: str) -> bool:
    """True when no installed package provides `name`'s top-level package (foundry's `pkg://configs`), found without
    importing anything: plain Hydra finds no such package either, skips the search path entry and warns that it
    "is not available". A top that is installed may hold the package only importing it would tell: not missing."""
    top = name.strip("/").split(".")[0]
    if not top.isidentifier():
        return True  # no module has such a name: Hydra's lookup fails too
    if package_is_loaded(top):
        return False
    try:
        return importlib.util.find_spec(top) is None  # a top-level name: its finders are asked, nothing is imported
    except (ImportError, ValueError):
        return False


def _entry_texts(entry: Any) -> list[str]:
    if isinstance(entry, dict):
        return [str(part) for item in entry.items() for part in item]
    return [str(entry)]


def defaults_problem(defaults: Any) -> str | None:
    """Why a config file's `defaults` list (its node as written, or None) may not be used, or None.

    Hydra resolves interpolations in defaults entries for real (`- backend: ${oc.env:TOKEN}`), so a resolver
    there would let the environment pick the composed file and put its value into error messages.
    """
    entries: Any = OmegaConf.to_container(defaults, resolve=False) if isinstance(defaults, ListConfig) else []
    for entry in entries:
        for text in _entry_texts(entry):
            if uses_resolver(text):
                return f"defaults entry {text!r} calls a resolver; the environment must not choose which file is composed"
    # `hydra.searchpath` is checked where Hydra builds the search path (resolved_search_path), after the overrides:
    # an override replaces the config's entries, which Hydra then never reads.
    return None
