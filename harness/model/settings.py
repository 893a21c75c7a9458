"""Read and validate `[tool.config-harness]` settings into a frozen value."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.gates import copies, linear
from harness.gates.budget import toml_document
from harness.gates.confine import git_folder_problem, is_inside, project_package_folder, project_root
from harness.gates.errors import BadInput
from harness.gates.reader import InputLimitError, read_bytes, read_text
from harness.model.schema import ListOf, MapOf, Table, first_problem


class SettingsError(BadInput):
    """Settings that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class Route:
    """An extra entry point that becomes a case of its own."""

    name: str
    config_name: str
    overrides: tuple[str, ...] = ()
    same_as: str | None = None
    became: str | None = None  # the case this route turned into; reviews compare that case with the route at the base


@dataclass(frozen=True)
class Source:
    """Where the config tree comes from when it is not checked in: a wheel on PyPI."""

    wheel: str
    unpack: str
    into: Path
    python: str = ""  # a folder of the wheel whose `.py` files are unpacked too (read with ast, never imported)


@dataclass(frozen=True)
class Settings:
    """Everything one harness run needs to know, with paths made absolute."""

    origin: Path
    config_dir: Path
    snapshot_dir: Path
    contracts: tuple[Path, ...] = ()
    roots: tuple[str, ...] = ()
    engine_group: str | None = None
    engines: tuple[str, ...] | None = None
    presets: tuple[tuple[str, tuple[str, ...]], ...] = (("default", ()),)
    routes: tuple[Route, ...] = ()
    source: Source | None = None
    cache_dir: Path | None = None  # parsed-file cache kept between runs; None turns it off
    jobs: int | None = None  # worker processes; None means one per core
    search_path: tuple[Path, ...] = ()  # more config folders, searched after config_dir (Hydra's search path)
    search_path_env: tuple[str, ...] = ()  # environment variables a config's hydra.searchpath may read (${oc.env:NAME})
    read_outside: tuple[Path, ...] = ()  # folders outside the project that configs may be read from
    version_base: str | None = None  # Hydra's version_base for every composition; None as initialize(version_base=None)
    python_sources: tuple[Path, ...] = ()  # folders `_target_` paths resolve into, read with ast (never imported)
    command_globs: tuple[str, ...] = ()  # [[commands]] glob: scripts whose launches are cases (parsed, never run)
    command_modules: tuple[tuple[str, str], ...] = ()  # [commands.modules]: entry module -> config name
    schemas: tuple[str, ...] = ()  # modules imported before composing (their ConfigStore registrations); trusted
    named: tuple[Path, ...] = ()  # folders and files the command line named (trusted, so readable wherever they are)
    unverified: str = "warn"  # a review: a change it cannot compare warns, or blocks ("block"); the base's value decides

    @property
    def project(self) -> Path:
        """The project: the git top level holding the settings file (its folder outside git)."""
        return project_root(self.origin.parent)

    @property
    def read_scope(self) -> tuple[Path, ...]:
        """Where the harness reads tree data from: the project, the folders `read_outside` names, and what the
        command line named."""
        return (self.project, *self.read_outside, *self.named)


TABLE = "tool.config-harness"
NAMES = ListOf(str)
COMMAND_SHAPE = Table({"glob": str, "modules": MapOf(str)}, required=frozenset({"glob"}))
ROUTE_SHAPE = Table(
    {"name": str, "config_name": str, "overrides": NAMES, "same_as": str, "became": str}, required=frozenset({"name", "config_name"})
)
SOURCE_SHAPE = Table({"wheel": str, "unpack": str, "into": str, "python": str}, required=frozenset({"wheel", "unpack", "into"}))
# The whole `[tool.config-harness]` table: every key, its shape, and which are required (harness/model/schema.py).
SETTINGS_SHAPE = Table(
    {
        "config_dir": str,
        "snapshot_dir": str,
        "contracts": NAMES,
        "roots": NAMES,
        "engine_group": str,
        "engines": NAMES,
        "presets": MapOf(NAMES),
        "routes": ListOf(ROUTE_SHAPE),
        "source": SOURCE_SHAPE,
        "jobs": int,
        "search_path": NAMES,
        "search_path_env": NAMES,
        "version_base": str,
        "read_outside": NAMES,
        "python_sources": NAMES,
        "commands": ListOf(COMMAND_SHAPE),
        "schemas": NAMES,
        "unverified": str,
    },
    required=frozenset({"config_dir"}),
)
UNSAFE_NAME = linear.compile(r"[/\\\s$]|\.\.|__|[\x00-\x1f\x7f\ud800-\udfff]")
VERSION_BASES = ("1.1", "1.2", "1.3")
PACKAGE_SCHEME = "pkg://"


# A pinned requirement from the package index, and nothing pip could read as a path, a URL or an option:
# `verl==0.9.1`, `anemoi-training[extra]>=0.17,<0.18`.
REQUIREMENT = linear.compile(
    r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,-]+\])?"
    r"\s*(?:(?:===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*)(?:,\s*(?:===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*)*"
)


def check_requirement(requirement: str, where: str) -> str:
    """Return `requirement` if it names a released package and its version, or a wheel file (a `.whl` path);
    never a folder (pip would build it, running its code), a URL or an option."""
    if requirement.endswith(".whl") and not requirement.startswith("-") and Path(requirement).is_file():
        return requirement
    if not REQUIREMENT.fullmatch(requirement):
        raise SettingsError(
            f"{where}: {requirement!r} is not a pinned package requirement such as 'verl==0.9.1' (paths, URLs and pip options are refused)"
        )
    return requirement


def check_name(name: str, where: str) -> str:
    """Return `name` if it is safe inside a file name, else raise naming `where`.

    `__` is refused because it separates the parts of a golden's name (two cases must never share a golden),
    `$` because Hydra would resolve `${...}` in an override, and control characters and bytes that are not
    UTF-8 (surrogates) because the name is printed in every report.
    """
    if not name or UNSAFE_NAME.search(name) or name in {".", ".."}:
        raise SettingsError(f"{where}: {name!r} is not a file-name safe name (no '/', '..', '__', '$', whitespace or control characters)")
    return name


def check_config_path(name: str, where: str) -> str:
    """Return `name` if it is a config name inside the config folder (`train_config/config`), else raise naming `where`."""
    parts = name.split("/")
    if not name or "\\" in name or name.startswith("/") or any(part in {"", ".", ".."} for part in parts):
        raise SettingsError(f"{where}: {name!r} is not a config name inside the config folder (no '..', no absolute path)")
    return name


def check_root(name: str, where: str) -> str:
    """Return `name` if it can be a root: a config path whose id (`/` read as `.`) is file-name safe."""
    check_config_path(name, where)
    check_name(name.replace("/", "."), where)
    return name


def root_id(root: str) -> str:
    """A root's part of case ids and golden names: its path with `/` replaced by `.`."""
    return root.replace("/", ".")


def package_folder(entry: str, where: str, root: Path | None = None, scope: tuple[Path, ...] = ()) -> Path:
    """The folder of a `pkg://module.path` search path entry: the project's own package folder below `root` (the
    settings' folder) when it is there inside `scope`, else found in installed distributions' metadata.

    Never imports: importing a package to find its configs would run its code (and its dependencies'). The
    project's own folder comes first: when CI installs the pull request's package, the installed copy holds the
    pull request's files outside the repository, where a review could not read them at its base.
    """
    dotted = entry[len(PACKAGE_SCHEME) :].strip("/").replace("/", ".")
    parts = [part for part in dotted.split(".") if part]
    if not parts or any(not part.isidentifier() for part in parts):
        raise SettingsError(f"{where}: {entry!r} is not a pkg://module.path entry")
    own = project_package_folder(".".join(parts), scope, root) if root is not None and scope else None
    if own is not None:
        return own.resolve()
    for distribution_name in sorted(set(metadata.packages_distributions().get(parts[0], []))):
        folder = Path(str(metadata.distribution(distribution_name).locate_file("/".join(parts))))
        if folder.is_dir():
            return folder.resolve()
    raise SettingsError(
        f"{where}: {entry!r}: no installed distribution has a folder {'/'.join(parts)} "
        "(pkg:// entries are found from installed metadata, never by importing; list the folder's path instead)"
    )


def _search_path(entries: list[str], base: Path, where: str, readable: tuple[Path, ...]) -> tuple[Path, ...]:
    # A folder must lie inside the project (or read_outside); pkg:// is an installed package, found without importing.
    folders = []
    for index, entry in enumerate(entries):
        entry_where = f"{where}[{index}]"
        if entry.startswith(PACKAGE_SCHEME):
            folders.append(package_folder(entry, entry_where, base, readable))
        elif "://" in entry and not entry.startswith("file://"):
            raise SettingsError(f"{entry_where}: {entry!r}: only folders, file:// and pkg:// entries are supported")
        else:
            folders.append(_confined(base / entry.removeprefix("file://"), readable, entry_where))
    return tuple(folders)


def _variables(names: list[str], where: str) -> tuple[str, ...]:
    for name in names:
        if not linear.compile(r"[A-Za-z_][A-Za-z0-9_]*").fullmatch(name):
            raise SettingsError(f"{where}: {name!r} is not an environment variable's name")
    return tuple(names)


def _version_base(value: str | None, where: str) -> str | None:
    if value is not None and value not in VERSION_BASES:
        raise SettingsError(f"{where}: version_base {value!r} is not one of {', '.join(VERSION_BASES)}")
    return value


def _schemas(value: list[str], where: str) -> tuple[str, ...]:
    modules = tuple(value)
    for module in modules:
        if not all(part.isidentifier() for part in module.split(".")):
            raise SettingsError(f"{where}: {module!r} is not a module name such as 'benchmarl.conf'")
    return modules


def _engine_group(value: str | None, where: str) -> str | None:
    group = (value or "").partition("@")[0]
    if value is not None and (not group or group.startswith("/") or ".." in group or linear.compile(r"\s").search(value)):
        raise SettingsError(f"{where}: engine_group {value!r} is not a Hydra group (`group` or `group@package`)")
    return value


def default_cache_dir() -> Path | None:
    """The per-user cache (outside the project, so a run writes nothing there but goldens); "" turns it off."""
    configured = os.environ.get("CONFIG_HARNESS_CACHE_DIR")
    if configured is not None:
        return Path(configured).resolve() if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "config-harness").resolve()


def _refuse_cache_dir(table: dict[str, Any], where: str) -> None:
    # A pull request controls the settings; letting them pick the folder pickles are read from runs its code.
    if "cache_dir" in table:
        raise SettingsError(
            f"{where}: cache_dir is not a setting (settings are project files a pull request can change);"
            " use --cache-dir or CONFIG_HARNESS_CACHE_DIR, or --no-cache"
        )


def _positive(value: int | None, where: str) -> int | None:
    if value is not None and (isinstance(value, bool) or value < 1):
        raise SettingsError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _confined_folders(table: dict[str, Any], base: Path, where: str) -> tuple[Path, ...]:
    """The project (the git top level holding the settings), then every folder `read_outside` allows reading."""
    extra = table.get("read_outside", [])
    return (project_root(base), *((base / folder).resolve() for folder in extra))


def _confined(path: Path, allowed: tuple[Path, ...], where: str, reading: bool = True) -> Path:
    """`path` resolved (symlinks followed), or SettingsError when it leads outside every allowed folder.

    `read_outside` widens only reads; what the harness writes (goldens, fetched trees) stays inside the project.
    """
    resolved = path.resolve()
    if not any(is_inside(resolved, folder) for folder in (allowed if reading else allowed[:1])):
        hint = "list its folder in read_outside to read it" if reading else "the harness writes only inside the project"
        raise SettingsError(f"{where}: {path} leads outside the project {allowed[0]}; {hint}")
    problem = None if reading else git_folder_problem(resolved)
    if problem:
        raise SettingsError(f"{where}: {problem}")
    return resolved


def parse_settings(table: Any, origin: Path) -> Settings:
    """Validate a settings table read from `origin` and return absolute-path Settings."""
    where = f"{origin}: [{TABLE}]" if origin.name == "pyproject.toml" else f"{origin}"
    if isinstance(table, dict):
        _refuse_cache_dir(table, where)
    problem = first_problem(table, SETTINGS_SHAPE)
    if problem is not None:
        raise SettingsError(f"{where} {problem.at()}: {problem.message}" if problem.path else f"{where}: {problem.message}")
    # From here on every key has its shape; what is left to check is what the values mean.
    base = origin.parent
    roots = tuple(table.get("roots", []))
    if not roots:
        raise SettingsError(f"{where}: 'roots' must name at least one root config")
    for root in roots:
        check_root(root, f"{where} roots")
    ids = [root_id(root) for root in roots]
    clashes = sorted({i for i in ids if ids.count(i) > 1})
    if clashes:
        raise SettingsError(f"{where} roots: more than one root has the id {', '.join(clashes)}")

    engines = None
    if "engines" in table:
        engines = tuple(check_name(e, f"{where} engines") for e in table["engines"])
        if not engines:
            raise SettingsError(f"{where}: 'engines' is empty; name at least one engine, or drop the key")

    presets: list[tuple[str, tuple[str, ...]]] = []
    for name, overrides in table.get("presets", {"default": []}).items():
        presets.append((check_name(name, f"{where} presets"), tuple(overrides)))
    if not presets:
        raise SettingsError(f"{where}: [presets] is empty; define at least one preset")

    routes = []
    for index, route in enumerate(table.get("routes", [])):
        route_where = f"{where} routes[{index}]"
        routes.append(
            Route(
                name=check_name(route["name"], f"{route_where}.name"),
                config_name=check_config_path(route["config_name"], f"{route_where}.config_name"),
                overrides=tuple(route.get("overrides", [])),
                same_as=route.get("same_as"),
                became=route.get("became"),
            )
        )
    names = [r.name for r in routes]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SettingsError(f"{where} routes: duplicate route name(s) {', '.join(duplicates)}")

    source = None
    if "source" in table:
        raw_source = table["source"]
        into = _confined(base / raw_source["into"], (project_root(base),), f"{where} source.into", reading=False)
        if into == project_root(base) or into in origin.parents:
            raise SettingsError(f"{where} source.into: {raw_source['into']!r} would replace the project's own folder")
        wheel = raw_source["wheel"]
        if wheel.endswith(".whl") and not wheel.startswith("-"):
            # A wheel file committed in the project: pip copies a wheel, it never builds or runs one.
            wheel = str(_confined(base / wheel, (project_root(base),), f"{where} source.wheel"))
        else:
            wheel = check_requirement(wheel, f"{where} source.wheel")
        python = raw_source.get("python", "")
        if python and (python.startswith("/") or ".." in python.split("/")):
            raise SettingsError(f"{where} source.python: {python!r} is not a folder inside the wheel")
        source = Source(wheel=wheel, unpack=raw_source["unpack"], into=into, python=python)

    globs, modules = _commands(table.get("commands", []), f"{where} commands")
    readable = _confined_folders(table, base, where)
    return Settings(
        origin=origin,
        config_dir=_confined(base / table["config_dir"], readable, f"{where} config_dir"),
        snapshot_dir=_confined(base / table.get("snapshot_dir", "snapshots"), readable, f"{where} snapshot_dir", reading=False),
        contracts=tuple(_confined(base / c, readable, f"{where} contracts") for c in table.get("contracts", [])),
        roots=roots,
        engine_group=_engine_group(table.get("engine_group"), where),
        engines=engines,
        presets=tuple(presets),
        routes=tuple(routes),
        source=source,
        cache_dir=default_cache_dir(),
        jobs=_positive(table.get("jobs"), f"{where} jobs"),
        search_path=_search_path(table.get("search_path", []), base, f"{where} search_path", readable),
        search_path_env=_variables(table.get("search_path_env", []), f"{where} search_path_env"),
        version_base=_version_base(table.get("version_base"), where),
        read_outside=readable[1:],
        python_sources=tuple(_confined(base / folder, readable, f"{where} python_sources") for folder in table.get("python_sources", [])),
        command_globs=globs,
        command_modules=modules,
        schemas=_schemas(table.get("schemas", []), f"{where} schemas"),
        unverified=_unverified(table.get("unverified", "warn"), where),
    )


UNVERIFIED_MODES = ("warn", "block")


def _unverified(value: str, where: str) -> str:
    """What a review does with a change it cannot compare: `warn` (the default) or `block`."""
    if value not in UNVERIFIED_MODES:
        raise SettingsError(f"{where} unverified: {value!r} must be one of {', '.join(repr(m) for m in UNVERIFIED_MODES)}")
    return value


def _commands(entries: list[dict[str, Any]], where: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The `[[commands]]` globs (relative, inside the project) and the union of their `modules` tables."""
    globs: list[str] = []
    modules: dict[str, str] = {}
    for index, entry in enumerate(entries):
        entry_where = f"{where}[{index}]"
        pattern = entry["glob"]
        if not pattern or pattern.startswith(("/", "\\")) or ".." in pattern.split("/") or linear.compile(r"[A-Za-z]:").match(pattern):
            raise SettingsError(f"{entry_where}.glob: {pattern!r} must be a relative glob inside the project (no '..', no absolute path)")
        globs.append(pattern)
        for module, config_name in entry.get("modules", {}).items():
            if not (_is_dotted(module) or _is_script_path(module)):
                raise SettingsError(
                    f'{entry_where}.modules: {module!r} = {config_name!r} is neither `dotted.module = "config_name"` '
                    f'nor `"path/to/script.py" = "config_name"` (a script relative to the project, no \'..\')'
                )
            modules[module] = check_config_path(config_name, f"{entry_where}.modules.{module}")
    return tuple(globs), tuple(sorted(modules.items()))


def _is_dotted(module: str) -> bool:
    return all(part.isidentifier() for part in module.split("."))


def _is_script_path(entry: str) -> bool:
    """A Python script's path relative to the project, as a launch runs it (`3D-Diffusion-Policy/train.py`)."""
    parts = entry.split("/")
    return entry.endswith(".py") and not entry.startswith("/") and all(part not in ("", ".", "..") for part in parts) and "\\" not in entry


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file through the one reader (bounded, regular files only), turning every failure into a
    one-line SettingsError."""
    try:
        return toml_document(read_text(path), str(path))
    except FileNotFoundError:
        raise SettingsError(f"{path}: settings file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(f"{path}: invalid TOML: {error}") from None
    except InputLimitError as error:
        raise SettingsError(str(error)) from None
    except OSError as error:
        raise SettingsError(f"{path}: cannot read settings: {error.strerror or error}") from None


def find_pyproject(start: Path) -> Path:
    """The nearest pyproject.toml with a [tool.config-harness] table at or above `start`, as git finds its folder
    (else `start`'s own pyproject.toml, for the error message)."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            mentions = b"config-harness" in read_bytes(candidate)
        except (OSError, InputLimitError):
            return candidate  # unreadable (a FIFO, a link out, too big): reported by read_toml, not skipped
        if mentions:
            try:
                if "config-harness" in read_toml(candidate).get("tool", {}):
                    return candidate
            except SettingsError:
                return candidate  # a broken file on the way up is reported, not skipped
    return start / "pyproject.toml"


def load_settings(settings_file: str | Path | None = None, start: str | Path | None = None) -> Settings:
    """Load a standalone settings TOML, or `[tool.config-harness]` from a pyproject.toml (default ./pyproject.toml)."""
    if settings_file is not None and Path(settings_file).name != "pyproject.toml":
        path = Path(settings_file).absolute()
        return parse_settings(read_toml(path), path)
    path = Path(settings_file).absolute() if settings_file else find_pyproject(Path(start or Path.cwd()).absolute())
    table = table_of(read_toml(path), path)
    if table is None:
        raise SettingsError(f"{path}: no [{TABLE}] table")
    return parse_settings(table, path)


def table_of(document: dict[str, Any], path: Path) -> Any:
    """The settings table of a TOML document read from `path`: `[tool.config-harness]` in a pyproject.toml, the
    whole document in a standalone file; None when a pyproject.toml has no such table."""
    if path.name != "pyproject.toml":
        return document
    tool = document.get("tool", {})
    return tool.get("config-harness") if isinstance(tool, dict) else None


def settings_table(settings: Settings) -> Any:
    """The raw settings table the settings were read from (what a review compares key by key)."""
    return table_of(read_toml(settings.origin), settings.origin)


def with_overrides(
    settings: Settings,
    config_dir: str | None = None,
    snapshot_dir: str | None = None,
    contracts: list[str] | None = None,
    no_cache: bool = False,
    jobs: int | None = None,
) -> Settings:
    """Apply command-line overrides; paths are relative to the working directory."""
    changes: dict[str, Any] = {}
    named = [Path(p).resolve() for p in (config_dir, snapshot_dir, *(contracts or ())) if p is not None]
    if named:
        changes["named"] = settings.named + tuple(named)
    if no_cache:
        changes["cache_dir"] = None
    if jobs is not None:
        changes["jobs"] = _positive(jobs, "--jobs")
    if config_dir is not None:
        changes["config_dir"] = Path(config_dir).resolve()
    if snapshot_dir is not None:
        changes["snapshot_dir"] = Path(snapshot_dir).resolve()
    if contracts is not None:
        changes["contracts"] = tuple(Path(c).resolve() for c in contracts)
    return replace(settings, **changes)


def display_path(path: Path) -> str:
    """A file as reports name it: relative to the repository that holds the working folder (its git top level; the
    working folder outside any), whatever folder of it the command runs in, as GitHub's annotations and SARIF read
    it; a file of a copy of the repository the harness made (a review's base, kept in the cache or in a scratch
    folder) as the repository names it, never by where the copy lies (harness.gates.copies). A relative path is
    shown as it is; a file outside the repository and every copy keeps its absolute path."""
    if not path.is_absolute():
        return str(path)
    top = project_root(Path.cwd())  # the repository, or the copy of it a base composes in
    if path.is_relative_to(top):
        inside = path.relative_to(top)
        prefix = copies.top_place(top)  # a copy of a folder of the repository (a pinned wheel's tree): where it stands
        return f"{prefix}/{inside.as_posix()}" if prefix else str(inside)
    in_repository = copies.place(path)
    return in_repository if in_repository is not None else str(path)
