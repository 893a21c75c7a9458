"""`config-harness init`: discover a repository's matrix and write its settings, contracts and snapshot folder.

Rooms by job (issue 55): `programs` finds what the repository runs (entry points, launch scripts, search path plugins),
`discovery` reads the config tree (roots, the engine group, presets, routes), `plan` turns the inputs and what was
found into the table (nothing written), and `writer` owns every byte init writes and when it may rewrite them. This
module runs them in that order and says what it did (`adopt`, `describe`). Part of the runner layer: may import gates,
model, composition, readers, rules, baselines and runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.adopt.discovery import Discovery, Guess
from harness.adopt.plan import Inputs, Plan, plan
from harness.adopt.programs import computed_entry_points, package_around, plugin_search_paths, pytest_hides_goldens
from harness.adopt.writer import existing_document, planned_writes, previous_engines, refuse_rewrite, rewritable, write
from harness.model.settings import TABLE
from harness.runner.hydra_starts import ConfigFolder, shown_relative

# `plugin_search_paths` is here for runner/unverified.py, which imports it from the package.
__all__ = ["Adoption", "adopt", "describe", "plugin_search_paths"]


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
    nested_reason: str | None = None  # why an engine group's nested options became presets
    rewritten: str | None = None  # the table replaced (init wrote it, nobody edited it): what it had, in a few words
    contracts_stub: bool = False  # the contracts file is init's empty stub, as it wrote it
    found_by: ConfigFolder | None = None  # without --config-dir: the folder the entry points name, and which they are


def adopt(
    config_dir: Path | None,
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
    """Discover the matrix of `config_dir` (without it, the folder the entry points name), then write the settings,
    an empty contracts file and the snapshot folder.

    `version_base` is "1.1", "1.2", "1.3" or "none" to say it; without it, it is read from the application's
    @hydra.main or guessed from its files. Nothing is written when anything is refused.
    """
    settings_file = settings_file.absolute()
    inputs = Inputs(
        config_dir, engine_group, snapshot_dir, contracts_file, version_base, tuple(roots_glob), tuple(presets), tuple(search_path), verbose
    )
    in_pyproject = settings_file.name == "pyproject.toml"
    existing, previous = existing_document(settings_file, in_pyproject)
    if previous is not None and engine_group is None:
        refuse_rewrite(settings_file, existing, in_pyproject)
    planned = plan(inputs, settings_file, cache_dir)
    replacing = rewritable(settings_file, existing, previous, in_pyproject, engine_group or "", cache_dir) if previous is not None else None
    writes = planned_writes(planned, settings_file, existing, replacing, engine_group)
    notes = _notes(planned, settings_file)
    contracts_created, stub = write(writes)
    return Adoption(
        settings_file,
        planned.table,
        planned.discovery,
        planned.contracts_file,
        contracts_created,
        planned.snapshot_dir,
        tuple(notes),
        planned.guess,
        writes.known_anew,
        planned.nested_reason,
        previous_engines(previous) if previous is not None else None,
        stub,
        planned.found_by,
    )


def _notes(planned: Plan, settings_file: Path) -> list[str]:
    """What init says it noticed besides the table: computed entry points, plugins, other trees, routes, goldens that
    pytest or a package would hide."""
    from harness.gates.confine import project_root

    base = settings_file.parent
    config_dir, snapshot_dir, switches = planned.config_dir, planned.snapshot_dir, planned.switches
    notes = computed_entry_points(config_dir, project_root(base))
    notes += planned.plugin_notes
    if planned.trees_note is not None:
        notes.append(planned.trees_note)
    if switches.routes:
        notes.append(
            f"routes {', '.join(r['name'] for r in switches.routes)}: each composes a root with one option of a "
            "group it leaves off (`group: null`) that overrides values the root sets"
        )
    notes += [f"left out a route for {entry.name}: {entry.reason}" for entry in switches.left_out]
    hidden = pytest_hides_goldens(settings_file, project_root(base))
    if hidden is not None:
        notes.append(hidden)
    package = package_around(snapshot_dir, base)
    if package is not None:
        notes.append(
            f"{shown_relative(snapshot_dir, base)} is inside the Python package {shown_relative(package, base)}: "
            "check that its package data does not ship the goldens"
        )
    return notes


def describe(adoption: Adoption, shown: Any = str) -> list[str]:
    """The lines init prints: what it wrote, what it found, what it left out, and what to run next."""
    table, found = adoption.table, adoption.discovery
    where = (
        f"[{TABLE}] to {shown(adoption.settings_file)}"
        if adoption.settings_file.name == "pyproject.toml"
        else shown(adoption.settings_file)
    )
    lines = [f"wrote {where}"]
    if adoption.rewritten is not None:
        where = (
            f"[{TABLE}] in {shown(adoption.settings_file)}"
            if adoption.settings_file.name == "pyproject.toml"
            else shown(adoption.settings_file)
        )
        engines = f"engine group {table['engine_group']}" if "engine_group" in table else "presets for its nested options"
        lines = [f"rewrote {where}: init wrote it and nobody edited it since (it had {adoption.rewritten}; now {engines})"]
    lines += _found_lines(adoption)
    for entry in found.left_out:
        lines.append(f"left out {entry.name}: {entry.reason}")
    for entry in found.left_out_engines:
        lines.append(f"left out engine {entry.name}: {entry.reason}")
    if found.chosen is not None:
        lines.append(f"engine group {found.chosen.group}, chosen by init: {found.chosen.evidence()}")
    for entry in found.dropped_presets:
        lines.append(f"left out preset {entry.name}: {entry.reason}")
    if adoption.nested_reason:
        lines.append(f"note: {adoption.nested_reason}")
    lines += [f"note: {note}" for note in adoption.notes]
    return lines + _next_lines(adoption, shown)


def _found_lines(adoption: Adoption) -> list[str]:
    """The table init wrote, key by key, each with where it came from."""
    table, found = adoption.table, adoption.discovery
    lines: list[str] = []
    found_by = adoption.found_by.shown(adoption.settings_file.parent) if adoption.found_by else table["config_dir"]
    lines.append(f"  config_dir    {found_by}")
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
        for program, name in table["commands"][0].get("modules", {}).items():
            lines.append(f"  modules       {program} = {name} (no @hydra.main: it hands its command line to a compose of {name})")
    if table.get("python_sources"):
        lines.append(
            f"  python_sources {', '.join(table['python_sources'])} (the entry point's package: `_target_` classes read with ast, never imported)"
        )
    lines.append(f"  snapshot_dir  {table['snapshot_dir']}")
    contracts_state = (
        "new, empty"
        if adoption.contracts_created
        else "empty, as init wrote it"
        if adoption.contracts_stub and adoption.rewritten
        else "kept as it was"
    )
    lines.append(f"  contracts     {table['contracts'][0]} ({contracts_state})")
    return lines


def _next_lines(adoption: Adoption, shown: Any) -> list[str]:
    """What to run next: generate and commit, or, when the evidence names no engine group, the question which."""
    table, found = adoption.table, adoption.discovery
    lines: list[str] = []
    settings_flag = "" if adoption.settings_file.name == "pyproject.toml" else f"--settings {shown(adoption.settings_file)} "
    if "engine_group" not in table and found.candidates:
        # A question, not "next: generate": after generate init no longer rewrites the table, so taking a
        # candidate then would be refused.
        lines.append("question: which group's options are the engines? The evidence does not decide, so init wrote none:")
        lines += [f"  candidate     {item.shown()}" for item in found.candidates[:3]]
        lines.append(
            f"next: config-harness init --engine-group {found.candidates[0].group} (or another candidate; the same "
            "flags: it rewrites this table), or config-harness "
            f"{settings_flag}generate to keep no engine group"
        )
        return lines
    lines.append(
        f"next: config-harness {settings_flag}generate, then commit {table['snapshot_dir']}; "
        f"config-harness {settings_flag}check (or pytest) in CI"
    )
    return lines
