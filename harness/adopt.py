"""`config-harness init`: discover a repository's matrix and write its settings, contracts and snapshot folder."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.compose import ComposeError, HydraSession
from harness.matrix import GOLDEN_PREFIX
from harness.reader import InputLimitError, read_bytes
from harness.settings import TABLE, SettingsError, check_name, parse_settings
from harness.writer import write_atomic

DEFAULT_SNAPSHOT_DIR = "config-harness/snapshots"
DEFAULT_CONTRACTS = "config-harness/contracts.yaml"

EMPTY_CONTRACTS = """\
# config-harness contracts: what must hold in every composed case, whatever the goldens say.
# Checked by `config-harness check`, `config-harness generate` and pytest. See the README, "Contracts and waivers".
#
# contracts:
#   - name: my-contract
#     cases: "*"                       # glob over case ids
#     require: [some.key]              # must exist
#     equal: {some.flag: false}        # must have this value
#     forbid: [some.deprecated.key]    # must not exist
#     agree: [[a.alias, b.alias]]      # must be equal
# waivers:
#   - contract: my-contract
#     path: some.key
#     reason: "why this is known and accepted"
#     until: 2027-06-30
contracts: []
waivers: []
"""


class AdoptError(Exception):
    """The repository cannot be adopted as asked (exit 2); the message is one line."""


@dataclass(frozen=True)
class LeftOut:
    """A root config or engine that init did not put in the matrix, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Discovery:
    """What a config folder offers: roots (with the engine group), routes (without it), and what was left out."""

    roots: tuple[str, ...]
    routes: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    all_engines: tuple[str, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    left_out_engines: tuple[LeftOut, ...] = ()


@dataclass(frozen=True)
class Adoption:
    """The result of init: the files it wrote and what it found."""

    settings_file: Path
    table: dict[str, Any]
    discovery: Discovery
    contracts_file: Path
    contracts_created: bool
    snapshot_dir: Path
    notes: tuple[str, ...] = field(default=())


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _selects_group(session: HydraSession, config_name: str, group: str) -> bool:
    """True when the config's defaults list picks an option of `group` (so `group=option` can replace it)."""
    return any(entry.config_path.startswith(f"{group}/") for entry in session.defaults_entries(config_name, []))


def discover(config_dir: Path, engine_group: str | None, cache_dir: Path | None) -> Discovery:
    """Compose every top-level config of the folder (and each engine of the group) to find what works."""
    left_out: list[LeftOut] = []
    composing: list[str] = []
    with HydraSession(config_dir, cache_dir) as session:
        for path in sorted(config_dir.glob("*.yaml")):
            name = path.stem
            if name.startswith(GOLDEN_PREFIX):
                left_out.append(LeftOut(name, f"a generated file ({GOLDEN_PREFIX}*), not a config to compose"))
                continue
            try:
                check_name(name, "root")
            except SettingsError:
                left_out.append(LeftOut(name, "its name has whitespace, so it cannot name a golden file"))
                continue
            try:
                session.compose(name, [])
            except ComposeError as error:
                left_out.append(LeftOut(name, f"does not compose: {_one_line(str(error))}"))
                continue
            composing.append(name)
        if not composing:
            reasons = "; ".join(f"{entry.name}: {entry.reason}" for entry in left_out) or "no *.yaml file at its top"
            raise AdoptError(f"{config_dir}: no root config composes ({reasons})")
        if engine_group is None:
            return Discovery(roots=tuple(composing), left_out=tuple(left_out))
        return _with_engines(session, config_dir, engine_group, composing, left_out)


def _with_engines(
    session: HydraSession, config_dir: Path, group: str, composing: list[str], left_out: list[LeftOut]
) -> Discovery:
    """Split composing configs into roots (they select the group) and routes; keep engines every root composes with."""
    options = tuple(session.group_options(group))
    if not options:
        raise AdoptError(f"{config_dir}: engine group {group!r} has no options (no {group}/*.yaml)")
    roots = [name for name in composing if _selects_group(session, name, group)]
    routes = [name for name in composing if name not in roots]
    if not roots:
        raise AdoptError(f"{config_dir}: no root config selects an option of engine group {group!r} in its defaults list")
    engines: list[str] = []
    left_out_engines: list[LeftOut] = []
    for engine in options:
        try:
            check_name(engine, group)
        except SettingsError:
            left_out_engines.append(LeftOut(engine, "its name has whitespace, so it cannot name a golden file"))
            continue
        failure = None
        for root in roots:
            try:
                session.compose(root, [f"{group}={engine}"])
            except ComposeError as error:
                failure = f"{root} does not compose with {group}={engine}: {_one_line(str(error))}"
                break
        if failure is None:
            engines.append(engine)
        else:
            left_out_engines.append(LeftOut(engine, failure))
    if not engines:
        raise AdoptError(f"{config_dir}: no option of engine group {group!r} composes with every root")
    return Discovery(
        roots=tuple(roots),
        routes=tuple(routes),
        engines=tuple(engines),
        all_engines=options,
        left_out=tuple(left_out),
        left_out_engines=tuple(left_out_engines),
    )


def settings_table(
    discovery: Discovery, config_dir: str, snapshot_dir: str, contracts: str, engine_group: str | None
) -> dict[str, Any]:
    """The settings table for a discovery; paths are already relative to the settings file."""
    table: dict[str, Any] = {
        "config_dir": config_dir,
        "snapshot_dir": snapshot_dir,
        "contracts": [contracts],
        "roots": list(discovery.roots),
    }
    if engine_group is not None:
        table["engine_group"] = engine_group
        if discovery.left_out_engines:  # an explicit list, so the engines that do not compose stay out
            table["engines"] = list(discovery.engines)
    table["presets"] = {"default": []}
    if discovery.routes:
        table["routes"] = [{"name": name, "config_name": name} for name in discovery.routes]
    return table


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"init writes only strings and lists of strings, not {type(value).__name__}")


def _toml_key(key: str) -> str:
    bare = key.replace("-", "").replace("_", "").isascii() and key.replace("-", "").replace("_", "").isalnum()
    return key if bare else toml_string(key)


def toml_text(table: dict[str, Any], prefix: str | None, comments: Iterable[str] = ()) -> str:
    """The settings table as TOML text: under `[prefix]` (pyproject.toml) or at the top level (standalone file)."""
    head = f"{prefix}." if prefix else ""
    lines = [f"# {comment}" for comment in comments]
    if prefix:
        lines.append(f"[{prefix}]")
    for key, value in table.items():
        if not isinstance(value, dict | list) or (isinstance(value, list) and not any(isinstance(v, dict) for v in value)):
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for key, value in table.items():
        if isinstance(value, dict):
            lines += ["", f"[{head}{_toml_key(key)}]"]
            lines += [f"{_toml_key(name)} = {_toml_value(item)}" for name, item in value.items()]
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            for entry in value:
                lines += ["", f"[[{head}{_toml_key(key)}]]"]
                lines += [f"{_toml_key(name)} = {_toml_value(item)}" for name, item in entry.items()]
    return "\n".join(lines) + "\n"


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _package_around(path: Path, stop: Path) -> Path | None:
    """The outermost folder between `stop` and `path` that is a Python package (has __init__.py), if any."""
    found = None
    for folder in [path, *path.parents]:
        if folder == stop or stop not in folder.parents:
            break
        if (folder / "__init__.py").is_file():
            found = folder
    return found


def _existing_document(settings_file: Path, in_pyproject: bool) -> bytes:
    """The settings file's bytes (empty when absent); refuses a file that already holds settings."""
    try:
        data = read_bytes(settings_file)
    except FileNotFoundError:
        return b""
    except (InputLimitError, OSError) as error:
        raise AdoptError(str(error)) from None
    if not in_pyproject:
        if data.strip():
            raise AdoptError(f"{settings_file}: already exists; init writes a new settings file only")
        return data
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise AdoptError(f"{settings_file}: invalid TOML: {_one_line(str(error))}") from None
    if "config-harness" in document.get("tool", {}):
        raise AdoptError(f"{settings_file}: already has a [{TABLE}] table; edit it, or remove it to run init again")
    return data


def _appended(existing: bytes, addition: str, settings_file: Path) -> bytes:
    """The file's bytes with the table appended; the result must still be TOML that reads back as written."""
    separator = b"" if not existing else (b"\n" if existing.endswith(b"\n") else b"\n\n")
    data = existing + separator + addition.encode("utf-8")
    try:
        tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise AdoptError(
            f"{settings_file}: appending [{TABLE}] would make invalid TOML ({_one_line(str(error))}); "
            "use --settings FILE for a standalone settings file"
        ) from None
    return data


def adopt(
    config_dir: Path,
    settings_file: Path,
    engine_group: str | None = None,
    snapshot_dir: Path | None = None,
    contracts_file: Path | None = None,
    cache_dir: Path | None = None,
) -> Adoption:
    """Discover the matrix of `config_dir`, then write the settings, an empty contracts file and the snapshot folder."""
    config_dir = config_dir.resolve()
    settings_file = settings_file.absolute()
    base = settings_file.parent
    if not config_dir.is_dir():
        raise AdoptError(f"{config_dir}: config folder does not exist")
    snapshot_dir = (snapshot_dir or base / DEFAULT_SNAPSHOT_DIR).resolve()
    contracts_file = (contracts_file or base / DEFAULT_CONTRACTS).resolve()
    # Inside the config folder, goldens would ship with the package data and change the tree every run composes.
    for what, path in (("snapshot folder", snapshot_dir), ("contracts file", contracts_file)):
        if _is_within(path, config_dir):
            raise AdoptError(f"{path}: the {what} must be outside the config folder {config_dir}")
    if engine_group is not None and (not engine_group.strip() or any(c.isspace() for c in engine_group)):
        raise AdoptError(f"--engine-group {engine_group!r}: a Hydra group name has no whitespace")
    in_pyproject = settings_file.name == "pyproject.toml"
    existing = _existing_document(settings_file, in_pyproject)

    discovery = discover(config_dir, engine_group, cache_dir)
    table = settings_table(
        discovery, _relative(config_dir, base), _relative(snapshot_dir, base), _relative(contracts_file, base), engine_group
    )
    parse_settings(table, settings_file)  # what init writes must be settings the harness accepts
    comments = ["Written by `config-harness init`; every key is described in config-harness's README (Settings)."]
    comments += [f"Left out {entry.name}: {entry.reason}" for entry in discovery.left_out]
    comments += [f"Left out engine {entry.name}: {entry.reason}" for entry in discovery.left_out_engines]
    text = toml_text(table, TABLE if in_pyproject else None, [_one_line(c) for c in comments])
    data = _appended(existing, text, settings_file)

    notes = []
    package = _package_around(snapshot_dir, base)
    if package is not None:
        notes.append(f"{_relative(snapshot_dir, base)} is inside the Python package {_relative(package, base)}: "
                     "check that its package data does not ship the goldens")
    contracts_created = not contracts_file.exists()
    if contracts_created:
        write_atomic(contracts_file, EMPTY_CONTRACTS)
    snapshot_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(settings_file, data)
    return Adoption(settings_file, table, discovery, contracts_file, contracts_created, snapshot_dir, tuple(notes))


def describe(adoption: Adoption, shown: Any = str) -> list[str]:
    """The lines init prints: what it wrote, what it found, what it left out, and what to run next."""
    table, found = adoption.table, adoption.discovery
    where = f"[{TABLE}] to {shown(adoption.settings_file)}" if adoption.settings_file.name == "pyproject.toml" else shown(adoption.settings_file)
    lines = [f"wrote {where}"]
    lines.append(f"  config_dir    {table['config_dir']}")
    lines.append(f"  roots         {', '.join(found.roots)}")
    if "engine_group" in table:
        lines.append(f"  engines       {', '.join(found.engines)} (options of {table['engine_group']})")
    if found.routes:
        lines.append(f"  routes        {', '.join(found.routes)} (they compose but do not select the engine group)")
    lines.append("  presets       default (no overrides)")
    lines.append(f"  snapshot_dir  {table['snapshot_dir']}")
    contracts_state = "new, empty" if adoption.contracts_created else "kept as it was"
    lines.append(f"  contracts     {table['contracts'][0]} ({contracts_state})")
    for entry in found.left_out:
        lines.append(f"left out {entry.name}: {entry.reason}")
    for entry in found.left_out_engines:
        lines.append(f"left out engine {entry.name}: {entry.reason}")
    lines += [f"note: {note}" for note in adoption.notes]
    settings_flag = "" if adoption.settings_file.name == "pyproject.toml" else f"--settings {shown(adoption.settings_file)} "
    lines.append(f"next: config-harness {settings_flag}generate, then commit {table['snapshot_dir']}; "
                 f"config-harness {settings_flag}check (or pytest) in CI")
    return lines
