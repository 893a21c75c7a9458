"""`explain`: which file (or override) set a key's final value in one case, and what the value depends on."""

from __future__ import annotations

import argparse
from typing import Any

from harness.commands.common import (
    CACHE_FLAGS,
    SETTINGS_FLAGS,
    UsageError,
    add_case_flag,
    add_quiet,
    one_case,
    one_launch,
    say,
    settings_from,
)
from harness.composition.cases import open_matrix
from harness.gates.errors import ExitCode
from harness.model.hints import key_hint, key_paths
from harness.model.matrix import LAUNCH_PREFIX, Case
from harness.model.semantic_diff import show_value
from harness.model.settings import Settings, display_path

NAME = "explain"
HELP = "which file set a key's final value"
GLOBALS = AFTER = (*SETTINGS_FLAGS, *CACHE_FLAGS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", help="a dotted key path, e.g. actor_rollout_ref.model.path")
    add_case_flag(parser, one=True)
    add_quiet(parser, "only the line with the final value")


def run(args: argparse.Namespace) -> int:
    from harness.composition.provenance import leaf_sources, override_for, writes_of
    from harness.composition.render import to_plain
    from harness.composition.resolve import MISSING, effective_value, is_interpolation, lookup, referenced_keys

    settings = settings_from(args)
    if args.case[0].startswith(LAUNCH_PREFIX):
        from harness.runner.launches import explain_command

        try:
            lines = explain_command(settings, one_launch(args.case), args.key)
        except ValueError as error:
            raise UsageError(str(error)) from None
        for line in lines[:1] if args.quiet else lines:
            say(line)
        return ExitCode.OK
    with open_matrix(settings) as (session, cases):
        case = one_case(cases, args.case)
        (composed,) = session.compose_cases([case], shared_stems=False)
        if composed.config is None:
            raise UsageError(f"{case.id}: {composed.error}")
        tree = to_plain(composed.config)
        final = lookup(tree, args.key)
        if final is MISSING:
            return explain_python_default(settings, tree, args.key, case, args.quiet)
        writes = writes_of(session, case, args.key)
        depends = referenced_keys(args.key, final) if is_interpolation(final) else []
        sources = leaf_sources(session, case) if depends else {}
    say(f"{args.key} = {show_value(final)}   (case {case.id})")
    if args.quiet:
        return ExitCode.OK
    override = override_for(case, args.key)
    if override:
        say(f"  set by override: {override}")
    for index, write in enumerate(reversed(writes)):
        role = "set by" if index == 0 and not override else "overrode"
        entry = f"{write.package + ': ' if write.package else ''}{write.config_path}"
        where = display_path(write.file or settings.config_dir) + (f":{write.line}" if write.line else "")
        say(f"  {role:<8} {where}  [defaults entry {entry}] = {show_value(write.value)}")
    for key in depends:
        value = lookup(tree, key)
        shown = "missing" if value is MISSING else show_value(value)
        origin = f"  (set by {sources[key]})" if key in sources else ""
        say(f"  depends on {key} = {shown}{origin}")
    if is_interpolation(final):
        say(f"  resolves to: {show_value(effective_value(composed.config, tree, args.key))}")
    for line in code_writes(settings, tree, args.key):
        say(line)
    return ExitCode.OK


def code_writes(settings: Settings, tree: Any, key: str) -> list[str]:
    """After the YAML: the code that writes `key` once the config is composed (an entry point's function and what it
    calls by name, or the `__post_init__` of the class its node builds), read from `python_sources`, never run."""
    from harness.runner.config_writes import class_writes_of, writes_of
    from harness.runner.targets import program_view

    view = program_view(settings)
    if view is None:
        return []
    found = [(owned.owner, owned.write) for owned in writes_of(view, key)] + class_writes_of(view, tree, key)
    return [
        f"  then set by {write.code} at {write.where} ({owner}{', inside open_dict' if write.open_dict else ''})" for owner, write in found
    ]


def explain_python_default(settings: Settings, tree: Any, key: str, case: Case, quiet: bool = False) -> int:
    """A key the YAML lacks: the Python default the program takes for it, when the node's class declares one."""
    from harness.runner.targets import program_view

    view = program_view(settings)
    filled = view.filled(tree, key) if view is not None else None
    if filled is None:
        raise UsageError(f"{key} does not exist in case {case.id}{key_hint(key, set(key_paths(tree)))}")
    value = view.value_at(tree, key) if view is not None else None
    shown = show_value(value) if filled.default.literal else filled.default.describe()
    say(f"{key}: not in the config; the program uses the Python default {shown} ({filled.where})   (case {case.id})")
    if not quiet:
        say(f"  declared by {filled.param.owner}; the node {filled.node.path or '(root)'} builds {filled.signature.qualname}")
        for line in code_writes(settings, tree, key):
            say(line)
    return ExitCode.OK
