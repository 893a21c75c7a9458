"""`config-harness init`: discover a repository's matrix and write its settings, contracts and snapshot folder."""

from __future__ import annotations

import ast
import os
import re
import shlex
import tomllib
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from harness.budget import BudgetExceeded, python_tree, toml_document
from harness.compose import ComposeError, HydraSession
from harness.hydra_compat import header_of
from harness.known import render as known_text
from harness.matrix import GOLDEN_PREFIX, build_cases, group_override
from harness.reader import InputLimitError, read_bytes, read_text
from harness.settings import TABLE, VERSION_BASES, SettingsError, check_name, check_root, parse_settings, root_id
from harness.writer import write_atomic

DEFAULT_SNAPSHOT_DIR = "config-harness/snapshots"
DEFAULT_CONTRACTS = "config-harness/contracts.yaml"
KNOWN_NAME = "known.yaml"  # beside the contracts file: the findings the repository already has (harness/known.py)

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
    same_as: tuple[tuple[str, str], ...] = ()  # (route, case id) for roots that are another root plus an engine
    suggested_group: str | None = None  # without --engine-group: the group that looks like the engine


@dataclass(frozen=True)
class Guess:
    """What init found out about the repository before composing, and from where (said in one line each)."""

    version_base: str | None = None
    version_base_reason: str = "no @hydra.main found and no Hydra 1.0/1.1-style file: this Hydra's semantics"
    roots_glob: tuple[str, ...] = ("*.yaml",)
    presets: tuple[tuple[str, tuple[str, ...]], ...] = (("default", ()),)
    search_path: tuple[Path, ...] = ()
    verbose: bool = False


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
    guess: Guess = field(default_factory=Guess)
    known_created: bool = False  # the known file is new (empty): init records what already holds in it


def _one_line(text: str) -> str:
    return " ".join(text.split())


def first_sentence(text: str, limit: int = 160) -> str:
    """Hydra's message shortened to its first sentence (it ends at '. ': quoted names hold dots), at most `limit` characters."""
    text = _one_line(text)
    match = re.search(r"(?<=\.)\s", text)
    text = text[: match.start()] if match else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reason(error: BaseException, verbose: bool) -> str:
    return _one_line(str(error)) if verbose else first_sentence(str(error))


def _selects_group(session: HydraSession, config_name: str, group: str, overrides: Sequence[str] = ()) -> bool:
    """True when the config's defaults list picks an option of `group` (so `group=option` can replace it)."""
    return any(entry.config_path.startswith(f"{group}/") for entry in session.defaults_entries(config_name, list(overrides)))


def candidate_roots(config_dir: Path, globs: Sequence[str]) -> list[str]:
    """Config names (paths below the folder, without `.yaml`) that the `--roots` globs match, sorted."""
    names = set()
    for pattern in globs:
        for path in config_dir.glob(pattern):
            if path.is_file() and path.suffix == ".yaml":
                names.add(path.relative_to(config_dir).with_suffix("").as_posix())
    return sorted(names)


def _composes_with_every_preset(session: HydraSession, name: str, guess: Guess) -> str | None:
    """None when the config composes with every preset; else the one-line reason."""
    for preset, overrides in guess.presets:
        try:
            session.compose(name, list(overrides))
        except ComposeError as error:
            where = f" with preset {preset}" if overrides else ""
            return f"does not compose{where}: {_reason(error, guess.verbose)}"
    return None


def discover(
    config_dir: Path, engine_group: str | None, cache_dir: Path | None, guess: Guess | None = None
) -> Discovery:
    """Compose every candidate root of the folder (and each engine of the group) to find what works."""
    guess = guess or Guess()
    left_out: list[LeftOut] = []
    composing: list[str] = []
    with warnings.catch_warnings(), HydraSession(config_dir, cache_dir, guess.search_path, guess.version_base) as session:
        # Hydra warns about every Hydra 1.0-style file under version_base 1.1: the application chose that style.
        warnings.simplefilter("ignore", UserWarning)
        for name in candidate_roots(config_dir, guess.roots_glob):
            if name.rsplit("/", 1)[-1].startswith(GOLDEN_PREFIX):
                left_out.append(LeftOut(name, f"a generated file ({GOLDEN_PREFIX}*), not a config to compose"))
                continue
            try:
                check_root(name, "root")
            except SettingsError:
                left_out.append(LeftOut(name, "its name cannot name a golden file (whitespace, '__' or '$')"))
                continue
            failure = _composes_with_every_preset(session, name, guess)
            if failure is not None:
                left_out.append(LeftOut(name, failure))
                continue
            composing.append(name)
        if not composing:
            reasons = "; ".join(f"{entry.name}: {entry.reason}" for entry in left_out) or f"no file matches {', '.join(guess.roots_glob)}"
            raise AdoptError(f"{config_dir}: no root config composes ({reasons})")
        if engine_group is None:
            return Discovery(roots=tuple(composing), left_out=tuple(left_out), suggested_group=suggest_group(session, composing, guess))
        return _with_engines(session, config_dir, engine_group, composing, left_out, guess)


def _plain(session: HydraSession, name: str, overrides: Sequence[str]) -> Any:
    return OmegaConf.to_container(session.compose(name, list(overrides)), resolve=False)


def _same_as(session: HydraSession, group: str, roots: list[str], engines: list[str], guess: Guess) -> list[tuple[str, str]]:
    """Roots that are another root plus an engine override (`defaults: [ppo_trainer, override model_engine: megatron]`):
    (that root, the case id it equals) when every preset composes them identically."""
    found = []
    first = guess.presets[0][1]
    for root in roots:
        entries = session.defaults_entries(root, first)
        bases = [other for other in roots if other != root and any(entry.config_path == other for entry in entries)]
        chosen = [entry.config_path.split("/", 1)[1] for entry in entries if entry.config_path.startswith(f"{group}/")]
        for base in bases:
            engine = chosen[-1] if chosen else None
            if engine not in engines:
                continue
            override = group_override(group, engine)
            try:
                same = all(_plain(session, root, overrides) == _plain(session, base, [override, *overrides])
                           for _, overrides in guess.presets)
            except ComposeError:
                same = False
            if same:
                found.append((root, f"{root_id(base)}/{engine}/{guess.presets[0][0]}"))
                break
    return found


def suggest_group(session: HydraSession, roots: list[str], guess: Guess) -> str | None:
    """The group most roots select in their own defaults list, among those whose options all compose with them."""
    counts: Counter[str] = Counter()
    first = guess.presets[0][1]
    for root in roots:
        groups = {entry.config_path.split("/", 1)[0] for entry in session.defaults_entries(root, first)
                  if "/" in entry.config_path and entry.parent == root}
        counts.update(groups)
    for group, _ in counts.most_common(4):
        options = session.group_options(group)
        if len(options) < 2:
            continue
        selecting = [root for root in roots if _selects_group(session, root, group, first)]
        try:
            for root in selecting:
                for option in options:
                    session.compose(root, [group_override(group, option), *guess.presets[0][1]])
        except (ComposeError, SettingsError):
            continue
        return group
    return None


def _with_engines(
    session: HydraSession, config_dir: Path, group: str, composing: list[str], left_out: list[LeftOut], guess: Guess
) -> Discovery:
    """Split composing configs into roots (they select the group) and routes; keep engines every root composes with."""
    options = tuple(session.group_options(group))
    if not options:
        raise AdoptError(f"{config_dir}: engine group {group!r} has no options (no {group}/*.yaml)")
    roots = [name for name in composing if _selects_group(session, name, group, guess.presets[0][1])]
    routes = [name for name in composing if name not in roots]
    if not roots:
        raise AdoptError(f"{config_dir}: no root config selects an option of engine group {group!r} in its defaults list")
    engines: list[str] = []
    left_out_engines: list[LeftOut] = []
    for engine in options:
        try:
            check_name(engine, group)
        except SettingsError:
            left_out_engines.append(LeftOut(engine, "its name cannot name a golden file (whitespace, '__' or '$')"))
            continue
        failure = None
        for root in roots:
            for _, overrides in guess.presets:
                try:
                    session.compose(root, [group_override(group, engine), *overrides])
                except ComposeError as error:
                    failure = f"{root} does not compose with {group}={engine}: {_reason(error, guess.verbose)}"
                    break
            if failure is not None:
                break
        if failure is None:
            engines.append(engine)
        else:
            left_out_engines.append(LeftOut(engine, failure))
    if not engines:
        raise AdoptError(f"{config_dir}: no option of engine group {group!r} composes with every root")
    same_as = _same_as(session, group, roots, engines, guess)
    derived = {root for root, _ in same_as}
    return Discovery(
        roots=tuple(root for root in roots if root not in derived),
        routes=tuple([*routes, *(root for root in roots if root in derived)]),
        engines=tuple(engines),
        all_engines=options,
        left_out=tuple(left_out),
        left_out_engines=tuple(left_out_engines),
        same_as=tuple(same_as),
    )


def settings_table(
    discovery: Discovery, config_dir: str, snapshot_dir: str, contracts: str, engine_group: str | None,
    guess: Guess | None = None, search_path: Sequence[str] = (),
) -> dict[str, Any]:
    """The settings table for a discovery; paths are already relative to the settings file."""
    guess = guess or Guess()
    table: dict[str, Any] = {
        "config_dir": config_dir,
        "snapshot_dir": snapshot_dir,
        "contracts": [contracts, str(Path(contracts).parent / KNOWN_NAME)],
        "roots": list(discovery.roots),
    }
    if guess.version_base is not None:
        table["version_base"] = guess.version_base
    if search_path:
        table["search_path"] = list(search_path)
    if engine_group is not None:
        table["engine_group"] = engine_group
        if discovery.left_out_engines:  # an explicit list, so the engines that do not compose stay out
            table["engines"] = list(discovery.engines)
    table["presets"] = {name: list(overrides) for name, overrides in guess.presets}
    same_as = dict(discovery.same_as)
    routes = []
    for name in discovery.routes:
        route: dict[str, Any] = {"name": root_id(name), "config_name": name}
        if len(guess.presets) == 1 and guess.presets[0][1]:
            route["overrides"] = list(guess.presets[0][1])  # a route composes with what its roots need
        if name in same_as:
            route["same_as"] = same_as[name]
        routes.append(route)
    if routes:
        table["routes"] = routes
    return table


def parse_preset(text: str) -> tuple[str, tuple[str, ...]]:
    """`NAME=OVERRIDES` of `--preset`: a preset name and its Hydra overrides, split as a shell would."""
    name, equals, overrides = text.partition("=")
    if not equals:
        raise AdoptError(f"--preset {text!r}: expected NAME=OVERRIDES, e.g. --preset 'mappo=algorithm=mappo task=vmas/balance'")
    try:
        check_name(name, "--preset")
        return name, tuple(shlex.split(overrides))
    except (SettingsError, ValueError) as error:
        raise AdoptError(str(error)) from None


# Which Hydra semantics an application uses: read from its @hydra.main, else from the style of its files.


def _literal(node: ast.AST | None) -> Any:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return ...  # not a literal: the entry point computes it


def hydra_mains(repository: Path, limit: int = 5000) -> list[tuple[Path, int, dict[str, Any]]]:
    """Every `@hydra.main(...)` (or `hydra.main(...)` call) in the repository's Python files, read with ast, never
    imported: (file, line, {keyword: literal value, or ... when computed, absent when not given})."""
    found = []
    skipped = {".git", ".venv", "venv", "node_modules", "site-packages", ".cache", "__pycache__", ".tox"}
    files = 0
    for folder, subfolders, names in os.walk(repository):
        subfolders[:] = sorted(name for name in subfolders if name not in skipped and not name.startswith("."))
        for name in sorted(names):
            if not name.endswith(".py") or files >= limit:
                continue
            files += 1
            path = Path(folder, name)
            try:
                text = read_text(path)
                if "hydra" not in text:
                    continue
                tree = python_tree(text, str(path))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _is_hydra_main(node.func):
                    found.append((path, node.lineno, {k.arg: _argument(k, path) for k in node.keywords if k.arg}))
    return found


def _argument(keyword: ast.keyword, path: Path) -> Any:
    """A keyword's literal value; a `config_path` computed from `__file__` evaluated statically (never run)."""
    value = _literal(keyword.value)
    if value is ... and keyword.arg == "config_path":
        from harness.launches import NotStatic, static_value

        computed = static_value(keyword.value, path)
        return ... if isinstance(computed, NotStatic) else computed
    return value


def _is_hydra_main(func: ast.AST) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "main" and isinstance(func.value, ast.Name)
            and func.value.id == "hydra")


def _major_minor(value: Any) -> str | None:
    match = re.match(r"(\d+)\.(\d+)", value) if isinstance(value, str) else None
    if match is None:
        return None
    version = f"{match.group(1)}.{match.group(2)}"
    return version if version in VERSION_BASES else ("1.1" if version < "1.1" else VERSION_BASES[-1])


def guess_version_base(config_dir: Path, repository: Path, roots: Sequence[str]) -> tuple[str | None, str]:
    """The version_base the application's @hydra.main uses for this config folder, and the one-line reason.

    An entry point matches when its literal `config_path` is this folder, or (computed path) its `config_name`
    is one of the roots. Without `version_base=` Hydra assumes 1.1. Without an entry point, files in Hydra
    1.0/1.1 style (`# @package _group_` or `_name_` headers) mean 1.1, anything else this Hydra's semantics.
    """
    names = {root.removesuffix(".yaml") for root in roots}
    votes: Counter[str | None] = Counter()
    where: dict[str | None, str] = {}
    for path, line, keywords in hydra_mains(repository):
        config_path, config_name = keywords.get("config_path"), keywords.get("config_name")
        by_path = isinstance(config_path, str) and (path.parent / config_path).resolve() == config_dir
        by_name = config_path is ... and isinstance(config_name, str) and config_name.removesuffix(".yaml") in names
        if not (by_path or by_name):
            continue
        value = keywords.get("version_base", "1.1")
        if value is ...:
            continue  # computed where it runs: nothing to read here
        version = None if value is None else _major_minor(value)
        votes[version] += 1
        where.setdefault(version, f"{_relative(path, repository)}:{line}")
    if votes:
        version, count = votes.most_common(1)[0]
        shown = "None" if version is None else repr(version)
        return version, f"version_base {shown} as @hydra.main at {where[version]} ({count} entry point(s) agree)"
    for path in sorted(config_dir.rglob("*.yaml")):
        try:
            header = header_of(read_text(path)[:512])
        except (OSError, UnicodeDecodeError, InputLimitError):
            continue
        package = header.get("package") or ""
        if "_group_" in package or "_name_" in package:
            return "1.1", f"version_base '1.1': {_relative(path, config_dir)} has a Hydra 1.0-style '# @package {package}' header"
    return None, Guess.version_base_reason


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
        document = toml_document(data.decode("utf-8"), str(settings_file))
    except BudgetExceeded as error:
        raise AdoptError(str(error)) from None
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
        toml_document(data.decode("utf-8"), str(settings_file))
    except (tomllib.TOMLDecodeError, BudgetExceeded) as error:
        raise AdoptError(
            f"{settings_file}: appending [{TABLE}] would make invalid TOML ({_one_line(str(error))}); "
            "use --settings FILE for a standalone settings file"
        ) from None
    return data


SKIPPED_FOLDERS = frozenset({".git", ".cache", ".venv", "venv", "node_modules", "build", "dist", "__pycache__"})


def command_globs(base: Path, config_dir: Path) -> list[str]:
    """`[[commands]]` globs for the shell scripts below `base` that launch one of its Hydra entry points:
    one `<top folder>/**/*.sh` per top-level folder that holds such a script (scripts are parsed, never run)."""
    from harness.launches import Project
    from harness.shell import launches_in

    project = Project(base, config_dir, {})
    tops: set[str] = set()
    for folder, subfolders, files in os.walk(base):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith("."))
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
            if (b"-m" in data or b"python" in data) and launches_in(relative.as_posix(), data, project.is_entry):
                tops.add(top)
    return sorted(f"{top}/**/*.sh" if top else "*.sh" for top in tops)


def adopt(
    config_dir: Path,
    settings_file: Path,
    engine_group: str | None = None,
    snapshot_dir: Path | None = None,
    contracts_file: Path | None = None,
    cache_dir: Path | None = None,
    version_base: str | None = None,
    roots_glob: Sequence[str] = (),
    presets: Sequence[str] = (),
    search_path: Sequence[Path] = (),
    verbose: bool = False,
) -> Adoption:
    """Discover the matrix of `config_dir`, then write the settings, an empty contracts file and the snapshot folder.

    `version_base` is "1.1", "1.2", "1.3" or "none" to say it; without it, it is read from the application's
    @hydra.main or guessed from its files. Nothing is written when anything is refused.
    """
    from harness.confine import project_root

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
    folders = tuple(path.resolve() for path in search_path)
    for folder in folders:
        if not folder.is_dir():
            raise AdoptError(f"--search-path {folder}: no such folder")
    in_pyproject = settings_file.name == "pyproject.toml"
    existing = _existing_document(settings_file, in_pyproject)

    globs = tuple(roots_glob) or ("*.yaml",)
    guess = Guess(roots_glob=globs, search_path=folders, verbose=verbose,
                  presets=tuple(parse_preset(text) for text in presets) or (("default", ()),))
    if version_base is not None:
        chosen = None if version_base.lower() == "none" else version_base
        if chosen is not None and chosen not in VERSION_BASES:
            raise AdoptError(f"--version-base {version_base!r}: expected one of {', '.join(VERSION_BASES)} or none")
        guess = replace(guess, version_base=chosen, version_base_reason=f"version_base {chosen!r} (--version-base)")
    else:
        found, reason = guess_version_base(config_dir, project_root(base), candidate_roots(config_dir, globs))
        guess = replace(guess, version_base=found, version_base_reason=reason)

    discovery = discover(config_dir, engine_group, cache_dir, guess)
    discovery, guess = readable_presets(discovery, guess, bool(presets))
    table = settings_table(
        discovery, _relative(config_dir, base), _relative(snapshot_dir, base), _relative(contracts_file, base), engine_group,
        guess, [_relative(folder, base) for folder in folders],
    )
    switches = switch_routes(config_dir, discovery.roots, guess, cache_dir)
    taken = {route["name"] for route in table.get("routes", [])}
    if switches.routes:
        table["routes"] = [*table.get("routes", []), *(r for r in switches.routes if r["name"] not in taken)]
    script_globs = command_globs(base, config_dir)
    if script_globs:
        table["commands"] = [{"glob": pattern} for pattern in script_globs]
    try:
        # What init writes must be settings the harness accepts, whose cases never share a golden.
        settings = parse_settings(table, settings_file)
        build_cases(settings, discovery.engines or ("base",))
    except SettingsError as error:
        raise AdoptError(f"nothing written: {_one_line(str(error))}") from None
    comments = ["Written by `config-harness init`; every key is described in config-harness's README (Settings)."]
    comments.append(guess.version_base_reason)
    comments += [f"Left out {entry.name}: {entry.reason}" for entry in discovery.left_out]
    comments += [f"Left out engine {entry.name}: {entry.reason}" for entry in discovery.left_out_engines]
    comments += [f"Left out route for {entry.name}: {entry.reason}" for entry in switches.left_out]
    text = toml_text(table, TABLE if in_pyproject else None, [_one_line(c) for c in comments])
    data = _appended(existing, text, settings_file)

    notes = computed_entry_points(config_dir, project_root(base))
    if switches.routes:
        notes.append(f"routes {', '.join(r['name'] for r in switches.routes)}: each composes a root with one option of a "
                     "group it leaves off (`group: null`) that overrides values the root sets")
    notes += [f"left out a route for {entry.name}: {entry.reason}" for entry in switches.left_out]
    hidden = pytest_hides_goldens(settings_file, project_root(base))
    if hidden is not None:
        notes.append(hidden)
    package = _package_around(snapshot_dir, base)
    if package is not None:
        notes.append(f"{_relative(snapshot_dir, base)} is inside the Python package {_relative(package, base)}: "
                     "check that its package data does not ship the goldens")
    contracts_created = not contracts_file.exists()
    if contracts_created:
        write_atomic(contracts_file, EMPTY_CONTRACTS)
    known_file = contracts_file.parent / KNOWN_NAME
    known_created = not known_file.exists()
    if known_created:  # filled by the shell once the settings exist (commands/init.py); never overwritten
        write_atomic(known_file, known_text([]))
    snapshot_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(settings_file, data)
    return Adoption(settings_file, table, discovery, contracts_file, contracts_created, snapshot_dir, tuple(notes), guess, known_created)


def describe(adoption: Adoption, shown: Any = str) -> list[str]:
    """The lines init prints: what it wrote, what it found, what it left out, and what to run next."""
    table, found = adoption.table, adoption.discovery
    where = f"[{TABLE}] to {shown(adoption.settings_file)}" if adoption.settings_file.name == "pyproject.toml" else shown(adoption.settings_file)
    lines = [f"wrote {where}"]
    lines.append(f"  config_dir    {table['config_dir']}")
    lines.append(f"  hydra         {adoption.guess.version_base_reason}")
    lines.append(f"  roots         {', '.join(found.roots)}")
    if "engine_group" in table:
        lines.append(f"  engines       {', '.join(found.engines)} (options of {table['engine_group']})")
    same_as = dict(found.same_as)
    plain_routes = [name for name in found.routes if name not in same_as]
    if plain_routes:
        lines.append(f"  routes        {', '.join(plain_routes)} (they compose but do not select the engine group)")
    for name, case_id in found.same_as:
        lines.append(f"  routes        {name} (same_as {case_id}: it is that root plus an engine override)")
    presets = [f"{name} ({' '.join(overrides) or 'no overrides'})" for name, overrides in adoption.guess.presets]
    lines.append(f"  presets       {', '.join(presets)}")
    if table.get("commands"):
        lines.append(f"  commands      {', '.join(entry['glob'] for entry in table['commands'])} (launch scripts, parsed, never run)")
    lines.append(f"  snapshot_dir  {table['snapshot_dir']}")
    contracts_state = "new, empty" if adoption.contracts_created else "kept as it was"
    lines.append(f"  contracts     {table['contracts'][0]} ({contracts_state})")
    for entry in found.left_out:
        lines.append(f"left out {entry.name}: {entry.reason}")
    for entry in found.left_out_engines:
        lines.append(f"left out engine {entry.name}: {entry.reason}")
    if found.suggested_group is not None:
        lines.append(f"suggestion: group {found.suggested_group!r} looks like the engine: most roots select it and all its "
                     f"options compose; run init again with --engine-group {found.suggested_group}")
    lines += [f"note: {note}" for note in adoption.notes]
    settings_flag = "" if adoption.settings_file.name == "pyproject.toml" else f"--settings {shown(adoption.settings_file)} "
    lines.append(f"next: config-harness {settings_flag}generate, then commit {table['snapshot_dir']}; "
                 f"config-harness {settings_flag}check (or pytest) in CI")
    return lines


# What init adds for any repository (issue 36): the groups a user switches on, entry points with computed paths,
# pytest settings that hide the golden tests, and readable case ids.

PLAIN_PRESET = "plain"  # the preset without overrides when an engine option is itself called `default`


@dataclass(frozen=True)
class Switches:
    """Routes for the options of groups a root leaves off (`debug: null`) that override what the root sets, and
    each option left out with why."""

    routes: tuple[dict[str, Any], ...] = ()
    left_out: tuple[LeftOut, ...] = ()


def switched_groups(root_file: Path) -> list[str]:
    """The groups a root's defaults list leaves off (`- experiment: null`): what a user turns on per run."""
    try:
        document = yaml.safe_load(read_text(root_file))
    except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
        return []
    defaults = document.get("defaults") if isinstance(document, dict) else None
    groups = []
    for entry in defaults if isinstance(defaults, list) else []:
        if isinstance(entry, dict) and len(entry) == 1:
            (key, value), = entry.items()
            if value is None and isinstance(key, str) and not key.startswith(("override ", "optional ", "/")) and "@" not in key:
                groups.append(key)
    return groups


def switch_routes(config_dir: Path, roots: Sequence[str], guess: Guess, cache_dir: Path | None = None) -> Switches:
    """A route `<root>_<group>_<option>` for each option of a group the root leaves off whose composition changes a
    value the root already has (an experiment, a debug mode: they override the root's keys); an option that only
    adds keys, or does not compose, is left out with why."""
    from harness.diff import iter_leaves

    routes: list[dict[str, Any]] = []
    left_out: list[LeftOut] = []
    with HydraSession(config_dir, cache_dir, guess.search_path, guess.version_base) as session:
        for root in roots:
            groups = switched_groups(config_dir / f"{root}.yaml")
            if not groups:
                continue
            try:
                plain = dict(iter_leaves(OmegaConf.to_container(session.compose(root, []), resolve=False)))
            except ComposeError:
                continue
            for group in groups:
                adders = []  # options that only add keys: one line for the group
                for option in session.group_options(group):
                    name = f"{root_id(root)}_{group}_{option}".replace("/", ".")
                    override = f"{group}={option}"
                    try:
                        leaves = dict(iter_leaves(OmegaConf.to_container(session.compose(root, [override]), resolve=False)))
                    except ComposeError as error:
                        left_out.append(LeftOut(f"{root} {override}", _one_line(str(error))))
                        continue
                    if not any(path in plain and plain[path] != value for path, value in leaves.items()):
                        adders.append(option)
                        continue
                    try:
                        check_name(name, "route")
                    except SettingsError as error:
                        left_out.append(LeftOut(f"{root} {override}", _one_line(str(error))))
                        continue
                    routes.append({"name": name, "config_name": root, "overrides": [override]})
                if adders:
                    shown = f"{group}={adders[0]}" if len(adders) == 1 else f"{group} ({len(adders)} options)"
                    left_out.append(LeftOut(f"{root} {shown}", "they only add keys; they override none the root sets"))
    return Switches(tuple(routes), tuple(left_out))


def readable_presets(discovery: Discovery, guess: Guess, explicit: bool) -> tuple[Discovery, Guess]:
    """With an engine option named `default`, init's preset without overrides is `plain`, so a case id reads
    `train/default/plain` rather than `train/default/default` (a preset the user named stays as named)."""
    if explicit or "default" not in discovery.engines or guess.presets != (("default", ()),):
        return discovery, guess
    same_as = tuple((route, case_id.removesuffix("/default") + f"/{PLAIN_PRESET}") for route, case_id in discovery.same_as)
    return replace(discovery, same_as=same_as), replace(guess, presets=((PLAIN_PRESET, ()),))


def computed_entry_points(config_dir: Path, repository: Path) -> list[str]:
    """What init says of each `@hydra.main` whose `config_path` is computed: the folder it evaluates to (read with
    ast from `__file__` and `os.path`/`pathlib` joins, never run) when that is this config folder, or which argument
    it cannot evaluate and why."""
    from harness.launches import NotStatic, static_value

    said = []
    for path, line, _ in hydra_mains(repository):
        try:
            node = next((k.value for k in _hydra_main_keywords(read_text(path), line) if k.arg == "config_path"), None)
        except (OSError, UnicodeDecodeError, InputLimitError, SyntaxError, ValueError):
            continue
        if node is None or _literal(node) is not ...:
            continue  # a literal (or no) config_path: nothing computed to say
        value = static_value(node, path)
        where = f"{_relative(path, repository)}:{line}"
        if isinstance(value, NotStatic):
            said.append(f"{where}: @hydra.main's config_path cannot be read without running it ({value.why})")
        elif isinstance(value, str) and (path.parent / value).resolve() == config_dir:
            said.append(f"{where}: @hydra.main with config_path computed from __file__ (read, never run): "
                        f"{_relative(config_dir, repository)}")
    return said


def _hydra_main_keywords(text: str, line: int) -> list[ast.keyword]:
    """The keywords of the `hydra.main(...)` call at `line`."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and node.lineno == line and _is_hydra_main(node.func):
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
        options = tomllib.loads(read_text(pyproject)).get("tool", {}).get("pytest", {}).get("ini_options", {})
    except (OSError, UnicodeDecodeError, InputLimitError, tomllib.TOMLDecodeError):
        return None
    paths = options.get("testpaths")
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        return None
    target = settings_file.resolve()
    if any(target == (repository / p).resolve() or (repository / p).resolve() in target.parents for p in paths):
        return None
    fixed = ", ".join(f'"{p}"' for p in [*paths, _relative(settings_file, repository)])
    return (f"pyproject.toml's [tool.pytest.ini_options] testpaths = {paths!r} keeps plain `pytest` from collecting "
            f"the golden tests in {_relative(settings_file, repository)}; write testpaths = [{fixed}]")
