"""`init`: adopt a repository. It finds the roots, engines, routes and presets of a Hydra config folder and writes
the settings table, an empty contracts file and the snapshot folder."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.commands.common import CACHE_FLAGS, SETTINGS_FLAGS, Deprecated, add_quiet, cache_dir_from, say, warn
from harness.gates.errors import ExitCode
from harness.model.settings import display_path

NAME = "init"
HELP = "adopt a repository: write the settings table, an empty contracts file and the snapshot folder"
GLOBALS = (*SETTINGS_FLAGS, *CACHE_FLAGS)
AFTER = CACHE_FLAGS  # the settings flags of its own are outputs: they say where things go


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`init`'s options. Over 60 lines: a flat list of argparse declarations, one per option in the order `--help`
    lists them, with no logic between them; split, the help's order would be spread over functions."""
    parser.add_argument(
        "--config-dir",
        dest="init_config_dir",
        metavar="DIR",
        help="the Hydra config folder (default: the one the application's @hydra.main and initialize calls, or its launch "
        "scripts' --config-path, name)",
    )
    parser.add_argument(
        "--engine-group",
        metavar="GROUP",
        help="a Hydra group whose options are the engines (without it, init takes the group the evidence decides, "
        "or asks; with it, init rewrites a table that is exactly what its recorded flags write)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--write", metavar="FILE", help="write a standalone settings TOML instead of [tool.config-harness] in ./pyproject.toml"
    )
    output.add_argument(
        "--settings",
        dest="write",
        metavar="FILE",
        action=Deprecated,
        replacement="--write",
        help="deprecated spelling of --write (everywhere else --settings is the file read)",
    )
    # What init writes is named as an output (`--write*`); the old spellings, which elsewhere name what a run
    # reads, keep working (also before the command's name).
    parser.add_argument(
        "--write-snapshots",
        "--snapshot-dir",
        dest="init_snapshot_dir",
        metavar="DIR",
        help="the snapshot folder init creates, where goldens go (default: config-harness/snapshots next to "
        "the settings file; --snapshot-dir is the old spelling)",
    )
    parser.add_argument(
        "--write-contracts",
        "--contracts",
        dest="init_contracts",
        metavar="FILE",
        help="the contracts file init writes (default: config-harness/contracts.yaml), created empty when "
        "absent; --contracts is the old spelling",
    )
    parser.add_argument(
        "--version-base",
        choices=["1.1", "1.2", "1.3", "none"],
        help="Hydra's version_base (default: the application's @hydra.main, else guessed from its files)",
    )
    parser.add_argument(
        "--roots",
        action="append",
        metavar="GLOB",
        help="which configs may be roots, as globs below the config folder (default: *.yaml; repeatable)",
    )
    parser.add_argument(
        "--preset",
        action="append",
        metavar="NAME=OVERRIDES",
        help="a preset, e.g. 'mappo=algorithm=mappo task=vmas/balance', for roots that need overrides (repeatable; "
        "the presets written are exactly these: add --preset default= for one without overrides)",
    )
    parser.add_argument("--search-path", action="append", metavar="DIR", help="another config folder, searched after it (repeatable)")
    parser.add_argument("--verbose", action="store_true", help="give Hydra's whole message for each config left out")
    add_quiet(parser, "only the line naming the settings file written")


def run(args: argparse.Namespace) -> int:
    from harness.adopt import adopt, describe

    config_dir = args.init_config_dir or args.config_dir  # without it, the folder the entry points name
    if args.settings and not args.write:
        warn("`--settings FILE init` is deprecated for the file init writes, use `init --write FILE`")
    settings_file = args.write or args.settings or "pyproject.toml"
    snapshot_dir = args.init_snapshot_dir or args.snapshot_dir
    contracts = args.init_contracts or (args.contracts[-1] if args.contracts else None)
    adoption = adopt(  # a folder it cannot adopt: AdoptError, bad input
        Path(config_dir) if config_dir else None,
        Path(settings_file),
        engine_group=args.engine_group,
        snapshot_dir=Path(snapshot_dir) if snapshot_dir else None,
        contracts_file=Path(contracts) if contracts else None,
        cache_dir=cache_dir_from(args),
        version_base=args.version_base,
        roots_glob=args.roots or (),
        presets=args.preset or (),
        search_path=[Path(folder) for folder in args.search_path or ()],
        verbose=args.verbose,
    )
    lines = describe(adoption, shown=display_path)
    lines[-1:-1] = _record_known(adoption, args)
    standalone = (
        "" if adoption.settings_file.name == "pyproject.toml" else f" --config-harness-settings {display_path(adoption.settings_file)}"
    )
    lines[-1:-1] = [f"pytest: `pytest --config-harness{standalone}` runs only these tests, none of the repository's own"]
    for line in lines[:1] if args.quiet else lines:
        say(line)
    return ExitCode.OK


def _record_known(adoption: Any, args: argparse.Namespace) -> list[str]:
    """Run the checks once on the adopted settings and record every finding that already holds (a broken launch, a
    class the program cannot build, a contract the tree breaks) as a known entry: the next `check` counts them and
    fails only on new ones. A known file that was there before is kept as it was."""
    from harness.adopt.writer import stamp_known
    from harness.commands.known import record
    from harness.model.settings import load_settings

    files = adoption.table["contracts"]
    if not adoption.known_created:
        return [f"  known         {files[-1]} (kept as it was)"]
    settings = replace(load_settings(adoption.settings_file), cache_dir=cache_dir_from(args))
    target = adoption.settings_file.parent / files[-1]
    entries = record(settings, target, argparse.Namespace(), "known at adoption", left_out_entries(adoption, settings))
    stamp_known(target)
    return [
        # Entries, named as such: `check` counts the findings they excuse (an entry can excuse several).
        f"  known         {files[-1]} ({len(entries)} known entr{'ies' if len(entries) != 1 else 'y'} for what the repository already has: "
        "counted, not failed; remove an entry once it is fixed)",
        *_not_read(entries),
    ]


def _not_read(entries: list[dict[str, Any]]) -> list[str]:
    """A line per launch script past a reading budget (a generated 880 KB script): known, so adoption goes on, but
    none of its launches is checked, which the maintainer is told here rather than left to find in the known file."""
    from harness.gates.budget import NOT_READ

    return [
        f"  not read      {entry['source'].rpartition(':')[0]}: {entry['message'].partition(NOT_READ)[2].strip()}; its launches are "
        "not checked (known; split the script, or leave it out of [[commands]])"
        for entry in entries
        if entry.get("finding") == "launch" and NOT_READ in str(entry.get("message", ""))
    ]


def left_out_entries(adoption: Any, settings: Any) -> list[dict[str, Any]]:
    """A known entry for each root and preset init left out because it does not compose (not for a generated file or
    a name no golden can carry): `check` composes them again, counts them while they fail, says when they compose."""
    from harness.rules import known_entries
    from harness.rules.contracts import utc_today

    today, found = utc_today(), adoption.discovery
    roots = [
        known_entries.left_out_entry(
            known_entries.ROOT, known_entries.root_source(settings, e.name), f"root {e.name} left out: {e.reason}", today
        )
        for e in found.left_out
        if e.reason.startswith("does not compose")
    ]
    presets = [
        known_entries.left_out_entry(
            known_entries.PRESET, known_entries.preset_source(e.name, e.overrides), f"preset {e.name} left out: {e.reason}", today
        )
        for e in found.dropped_presets
    ]
    return roots + presets
