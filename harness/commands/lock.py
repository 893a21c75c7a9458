"""`lock`: derive a contract from a known-good case (the keys and values it has that another case lacks) and
print it, or merge it into a contracts file recording what the merge loosens."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.commands.common import CACHE_FLAGS, SETTINGS_FLAGS, Deprecated, UsageError, add_quiet, say, settings_from
from harness.composition.cases import open_matrix
from harness.gates.errors import ExitCode
from harness.model.hints import case_hint

NAME = "lock"
HELP = "derive a contract from a known-good tree (engine-specific keys become required)"
GLOBALS = AFTER = (*SETTINGS_FLAGS, *CACHE_FLAGS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    spellings: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
        (
            "--from",
            "--target",
            "locked",
            {"metavar": "ID", "help": "case id of the known-good case to lock, e.g. route/ppo_megatron_trainer"},
        ),
        (
            "--against",
            "--baseline",
            "against",
            {"metavar": "ID", "help": "case id it is compared with: what only --from has becomes required, e.g. ppo_trainer/dp/default"},
        ),
        ("--case", "--cases", "case", {"metavar": "GLOB", "action": "append", "help": "the case glob the contract will cover (one)"}),
    )
    for new, old, dest, options in spellings:
        either = parser.add_mutually_exclusive_group(required=True)
        either.add_argument(new, dest=dest, **options)
        either.add_argument(
            old,
            dest=dest,
            action=Deprecated,
            replacement=new,
            append=options.get("action") == "append",
            metavar=options["metavar"],
            help=f"deprecated spelling of {new}",
        )
    parser.add_argument("--name", required=True, help="the contract's name (the contract of that name is replaced)")
    parser.add_argument(
        "--output", metavar="FILE", help="merge into this contracts file: only the named contract changes (default: print it)"
    )
    parser.add_argument("--reason", metavar="TEXT", help="why terms are dropped or re-pinned; recorded under `changes:` (needed to loosen)")
    add_quiet(parser, "with --output: only the line naming the file written")


def run(args: argparse.Namespace) -> int:
    from harness.composition.render import dump_yaml, to_plain
    from harness.rules.derive import LockRefused, derive_contract, plan_lock

    if len(args.case) != 1:
        raise UsageError("lock --case: a contract covers one glob; give --case once")
    settings = settings_from(args)
    with open_matrix(settings) as (session, cases):
        by_id = {case.id: case for case in cases}
        for wanted in (args.against, args.locked):
            if wanted not in by_id:
                raise UsageError(f"no case {wanted!r}{case_hint(wanted, by_id)}; see `config-harness list`")
        trees = {}
        for composed in session.compose_cases([by_id[args.against], by_id[args.locked]], shared_stems=False):
            if composed.config is None:
                raise UsageError(f"{composed.case.id}: {composed.error}")
            trees[composed.case.id] = to_plain(composed.config)
    contract = derive_contract(args.name, args.case[0], trees[args.against], trees[args.locked])
    if not args.output:
        print(
            f"# Derived by `config-harness lock --from {args.locked} --against {args.against}` from {settings.config_dir.name}\n"
            + dump_yaml({"contracts": [contract]}),
            end="",
        )
        return ExitCode.OK
    from harness.gates.reader import read_text
    from harness.gates.writer import write_atomic

    output = Path(args.output)
    try:
        existing = read_text(output)
    except FileNotFoundError:
        existing = None
    except UnicodeDecodeError as error:
        raise UsageError(f"{output}: not UTF-8 (offset {error.start})") from None
    try:
        plan = plan_lock(existing, output, contract, by_id, args.reason)
    except LockRefused as refused:
        raise UsageError(f"{output}: {refused}") from None
    write_atomic(output, plan.text)
    if not args.quiet:
        for line in plan.summary():
            say(line)
    say(f"wrote {args.output}: {len(contract['require'])} required, {len(contract['equal'])} pinned")
    return ExitCode.OK
