"""The plan: init's inputs (its flags, recorded as the table's first line) and the table it writes for them on the
tree as it is, checked to be settings the harness accepts. Read-only: composes, writes nothing."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.adopt.discovery import (
    Discovery,
    Guess,
    Switches,
    candidate_roots,
    discover,
    nested_presets,
    one_line,
    readable_presets,
    search_path_variables,
    switch_routes,
)
from harness.adopt.programs import LaunchSurvey, command_globs, composing_programs, launch_counts, plugin_search_paths, python_sources_of
from harness.gates import linear
from harness.model.matrix import build_cases
from harness.model.settings import TABLE, VERSION_BASES, SettingsError, check_name, parse_settings, root_id
from harness.runner.config_trees import other_trees_note
from harness.runner.hydra_starts import (
    AdoptError,
    ConfigFolder,
    EntryGuess,
    composed_folders,
    config_folders,
    find_config_dir,
    is_within,
    read_entry_points,
    shown_relative,
)

DEFAULT_SNAPSHOT_DIR = "config-harness/snapshots"


DEFAULT_CONTRACTS = "config-harness/contracts.yaml"


KNOWN_NAME = "known.yaml"  # beside the contracts file: the findings the repository already has (harness/rules/known_entries.py)


def settings_table(
    discovery: Discovery,
    config_dir: str,
    snapshot_dir: str,
    contracts: str,
    engine_group: str | None,
    guess: Guess | None = None,
    search_path: Sequence[str] = (),
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


def toml_text(table: dict[str, Any], prefix: str | None, comments: Iterable[str] = ()) -> str:
    """The settings table as TOML text, written by tomlkit: under `[prefix]` (pyproject.toml) or at the top level
    (standalone file), each comment on a line of its own above it. Plain keys first, then sub-tables."""
    import tomlkit

    document = tomlkit.document()
    for comment in comments:
        document.add(tomlkit.comment(comment))
    body = tomlkit.table() if prefix else document
    for key, value in sorted(table.items(), key=lambda item: isinstance(item[1], dict) or _is_array_of_tables(item[1])):
        if isinstance(value, dict):
            sub = tomlkit.table()
            sub.update(value)
            body.add(key, sub)
        elif _is_array_of_tables(value):
            array = tomlkit.aot()
            for entry in value:
                row = tomlkit.table()
                row.update(entry)
                array.append(row)
            body.add(key, array)
        else:
            body.add(key, value)
    if prefix:
        *outer, last = prefix.split(".")
        for name in reversed(outer):  # `[tool.config-harness]`: `tool` is a super table, written in the header only
            holder = tomlkit.table(is_super_table=True)
            holder.add(last, body)
            body, last = holder, name
        document.add(last, body)
    return tomlkit.dumps(document)


def _is_array_of_tables(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(item, dict) for item in value)


@dataclass(frozen=True)
class Inputs:
    """What init was asked, as its flags say it (paths as given): with the tree, all its table depends on. The
    table's first line records them, so a rewrite can write the table again and compare it byte for byte."""

    config_dir: Path | None = None
    engine_group: str | None = None
    snapshot_dir: Path | None = None
    contracts_file: Path | None = None
    version_base: str | None = None
    roots_glob: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()
    search_path: tuple[Path, ...] = ()
    verbose: bool = False

    def flags(self, base: Path) -> list[str]:
        """The flags that ask for these inputs again from the settings file's folder (paths relative to it)."""
        words: list[str] = []
        for flag, path in (
            ("--config-dir", self.config_dir),
            ("--write-snapshots", self.snapshot_dir),
            ("--write-contracts", self.contracts_file),
        ):
            if path is not None:
                words += [flag, shown_relative(path.resolve(), base)]
        if self.engine_group is not None:
            words += ["--engine-group", self.engine_group]
        if self.version_base is not None:
            words += ["--version-base", self.version_base]
        for flag, values in (("--roots", self.roots_glob), ("--preset", self.presets)):
            for value in values:
                words += [flag, value]
        for folder in self.search_path:
            words += ["--search-path", shown_relative(folder.resolve(), base)]
        return [*words, "--verbose"] if self.verbose else words


RECORDED = linear.compile(r"^# Written by `config-harness init` from `config-harness init(?P<flags>[^`\n]*)`: ", linear.M)


def recorded_line(inputs: Inputs, base: Path) -> str:
    """The table's first line: the flags init was run with, which write this table again while nothing changed. A
    flag holding a backtick or a control character is not recorded (the table is then never rewritten)."""
    words = inputs.flags(base)
    if any("`" in word or any(ord(c) < 0x20 or ord(c) == 0x7F for c in word) for word in words):
        return (
            "# Written by `config-harness init` with flags it cannot record; every key is described in config-harness's docs/settings.md."
        )
    flags = "".join(f" {shlex.quote(word)}" for word in words)
    return (
        f"# Written by `config-harness init` from `config-harness init{flags}`: init rewrites it only while it is exactly "
        "what those flags write; every key is described in config-harness's docs/settings.md."
    )


def recorded_inputs(flags: str, base: Path) -> Inputs | None:
    """The inputs a recorded line names; None when its flags do not read as init's (then nothing is rewritten)."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False, allow_abbrev=False)
    for flag in ("--config-dir", "--engine-group", "--write-snapshots", "--write-contracts", "--version-base"):
        parser.add_argument(flag)
    for flag in ("--roots", "--preset", "--search-path"):
        parser.add_argument(flag, action="append", default=[])
    parser.add_argument("--verbose", action="store_true")
    try:
        args, rest = parser.parse_known_args(shlex.split(flags))
    except (ValueError, argparse.ArgumentError):
        return None
    if rest:
        return None
    # A recorded line is text a pull request may have written: its paths never lead init outside the project.
    from harness.gates.confine import project_root

    project = project_root(base)
    named = [args.config_dir, args.write_snapshots, args.write_contracts, *args.search_path]
    if any(value is not None and not is_within((base / value).resolve(), project) for value in named):
        return None

    def path(value: str | None) -> Path | None:
        return base / value if value is not None else None

    return Inputs(
        path(args.config_dir),
        args.engine_group,
        path(args.write_snapshots),
        path(args.write_contracts),
        args.version_base,
        tuple(args.roots),
        tuple(args.preset),
        tuple(base / folder for folder in args.search_path),
        args.verbose,
    )


@dataclass(frozen=True)
class Plan:
    """What init would write for a set of inputs on the tree as it is, and what it found; nothing written yet."""

    text: str  # the table's text, its recorded first line included
    table: dict[str, Any]
    discovery: Discovery
    guess: Guess
    config_dir: Path
    snapshot_dir: Path
    contracts_file: Path
    switches: Switches
    nested_reason: str | None = None
    found_by: ConfigFolder | None = None
    plugin_notes: tuple[str, ...] = ()
    trees_note: str | None = None  # the config trees the entry points name besides this one, not adopted


def plan(inputs: Inputs, settings_file: Path, cache_dir: Path | None) -> Plan:
    """The table init writes for these inputs (read-only: the tree is composed, nothing is written): the inputs
    checked, the tree's matrix discovered, then the table built and checked to be settings the harness accepts."""
    checked = _checked(inputs, settings_file)
    found = _discovered(checked, inputs, cache_dir)
    table, switches = _table(checked, found, settings_file, cache_dir)
    discovery, guess, nested = found.discovery, found.guess, found.nested_reason
    comments = [guess.version_base_reason]
    if nested is not None:
        comments.append(nested)
    comments += [f"Left out {entry.name}: {entry.reason}" for entry in discovery.left_out]
    comments += [f"Left out engine {entry.name}: {entry.reason}" for entry in discovery.left_out_engines]
    comments += [f"Left out preset {entry.name}: {entry.reason}" for entry in discovery.dropped_presets]
    comments += [f"Left out route for {entry.name}: {entry.reason}" for entry in switches.left_out]
    in_pyproject = settings_file.name == "pyproject.toml"
    text = recorded_line(inputs, checked.base) + "\n" + toml_text(table, TABLE if in_pyproject else None, [one_line(c) for c in comments])
    return Plan(
        text,
        table,
        discovery,
        guess,
        checked.config_dir,
        checked.snapshot_dir,
        checked.contracts_file,
        switches,
        nested,
        checked.found_by,
        tuple(note for _, note in checked.plugins),
        checked.trees_note,
    )


@dataclass(frozen=True)
class _Checked:
    """The inputs checked against the tree: the folders they name (resolved), what the launch scripts and entry points
    say, and the guess init starts from."""

    base: Path
    config_dir: Path
    snapshot_dir: Path
    contracts_file: Path
    guess: Guess
    launches: LaunchSurvey
    entry: EntryGuess
    plugins: list[tuple[Path | None, str]]
    found_by: ConfigFolder | None
    trees_note: str | None


def _checked(inputs: Inputs, settings_file: Path) -> _Checked:
    """Each input checked, in the order a user reads the refusals (AdoptError: one line, nothing written)."""
    from harness.gates.confine import project_root

    base = settings_file.parent
    launches = launch_counts(base, base)
    found_by = None
    config_dir = inputs.config_dir
    if config_dir is None:  # the folder the entry points name
        found_by = find_config_dir(base, project_root(base), launches.entries, launches.flagged)
        config_dir = found_by.folder
    config_dir = config_dir.resolve()
    named = config_folders(base, project_root(base), launches.entries) or composed_folders(base, project_root(base), launches.entries)
    trees_note = other_trees_note(config_dir, [item.folder for item in named], base)
    if not config_dir.is_dir():
        raise AdoptError(f"{config_dir}: config folder does not exist")
    snapshot_dir = (inputs.snapshot_dir or base / DEFAULT_SNAPSHOT_DIR).resolve()
    contracts_file = (inputs.contracts_file or base / DEFAULT_CONTRACTS).resolve()
    # Inside the config folder, goldens would ship with the package data and change the tree every run composes.
    for what, path in (("snapshot folder", snapshot_dir), ("contracts file", contracts_file)):
        if is_within(path, config_dir):
            raise AdoptError(f"{path}: the {what} must be outside the config folder {config_dir}")
    engine_group = inputs.engine_group
    if engine_group is not None and (not engine_group.strip() or any(c.isspace() for c in engine_group)):
        raise AdoptError(f"--engine-group {engine_group!r}: a Hydra group name has no whitespace")
    folders = tuple(path.resolve() for path in inputs.search_path)
    for folder in folders:
        if not folder.is_dir():
            raise AdoptError(f"--search-path {folder}: no such folder")
    # An installed SearchPathPlugin of the repository adds its folder to every run's search path: so do the cases.
    plugins = plugin_search_paths(project_root(base), folders)
    folders += tuple(dict.fromkeys(folder for folder, _ in plugins if folder is not None))
    globs = tuple(inputs.roots_glob) or ("*.yaml",)
    guess = Guess(
        roots_glob=globs,
        search_path=folders,
        verbose=inputs.verbose,
        presets=tuple(parse_preset(text) for text in inputs.presets) or (("default", ()),),
    )
    version_base = inputs.version_base
    if version_base is not None:
        chosen = None if version_base.lower() == "none" else version_base
        if chosen is not None and chosen not in VERSION_BASES:
            raise AdoptError(f"--version-base {version_base!r}: expected one of {', '.join(VERSION_BASES)} or none")
        guess = replace(guess, version_base=chosen, version_base_reason=f"version_base {chosen!r} (--version-base)")
    candidates = candidate_roots(config_dir, globs)
    entry = read_entry_points(config_dir, project_root(base), candidates, launches.entries, launches.flagged_entries.get(config_dir, set()))
    if version_base is None:
        guess = replace(guess, version_base=entry.version_base, version_base_reason=entry.reason)
    return _Checked(base, config_dir, snapshot_dir, contracts_file, guess, launches, entry, plugins, found_by, trees_note)


@dataclass(frozen=True)
class _Found:
    """The tree's matrix as discovered: the roots and engines (or nested presets), and the guess they refined."""

    discovery: Discovery
    guess: Guess
    engine_group: str | None
    nested_reason: str | None  # why the group's nested options are presets, when they are


def _discovered(checked: _Checked, inputs: Inputs, cache_dir: Path | None) -> _Found:
    """The roots, the engine group (asked or chosen) or nested presets, and the presets that read."""
    guess, engine_group, config_dir = checked.guess, inputs.engine_group, checked.config_dir
    nested = nested_presets(config_dir, engine_group, cache_dir, guess) if engine_group is not None else None
    if nested is not None:
        # Presets instead of engines, as asked for this group.
        guess, engine_group = replace(guess, presets=nested[0]), None
    # With nested options as presets (what was asked), no other group is looked for.
    discovery = discover(config_dir, engine_group, cache_dir, guess, checked.launches.keys, rank=nested is None)
    if discovery.chosen is not None:
        engine_group = discovery.chosen.group
    if discovery.dropped_presets:
        dropped = {entry.name for entry in discovery.dropped_presets}
        guess = replace(guess, presets=tuple(preset for preset in guess.presets if preset[0] not in dropped))
    discovery, guess = readable_presets(discovery, guess, bool(inputs.presets))
    return _Found(discovery, guess, engine_group, nested[1] if nested is not None else None)


def _table(checked: _Checked, found: _Found, settings_file: Path, cache_dir: Path | None) -> tuple[dict[str, Any], Switches]:
    """The settings table for what was found, with the routes it switches on; AdoptError when the harness would
    refuse it (init writes only settings whose cases never share a golden)."""
    base, config_dir, discovery, guess = checked.base, checked.config_dir, found.discovery, found.guess
    table = settings_table(
        discovery,
        shown_relative(config_dir, base),
        shown_relative(checked.snapshot_dir, base),
        shown_relative(checked.contracts_file, base),
        found.engine_group,
        guess,
        [shown_relative(folder, base) for folder in checked.guess.search_path],
    )
    sources = python_sources_of(checked.entry, base)
    if sources:
        table["python_sources"] = sources
    variables = search_path_variables(config_dir, discovery.roots)
    if variables:  # what the roots' own search paths read (schnetpack's `file://${oc.env:PWD}`); nothing else may be
        table["search_path_env"] = variables
    switches = switch_routes(config_dir, discovery.roots, guess, cache_dir)
    taken = {route["name"] for route in table.get("routes", [])}
    if switches.routes:
        table["routes"] = [*table.get("routes", []), *(r for r in switches.routes if r["name"] not in taken)]
    script_globs = command_globs(base, config_dir)
    if script_globs:
        table["commands"] = [{"glob": pattern} for pattern in script_globs]
        programs = composing_programs(base, config_dir, script_globs)
        if programs:  # launches of a program that composes through a function it imports: checked as any launch
            table["commands"][0]["modules"] = programs
    try:
        # What init writes must be settings the harness accepts, whose cases never share a golden.
        settings = parse_settings(table, settings_file)
        build_cases(settings, discovery.engines or ("base",))
    except SettingsError as error:
        raise AdoptError(f"nothing written: {one_line(str(error))}") from None
    return table, switches
