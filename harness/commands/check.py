"""`check`: compare every case with its golden and check its contracts; the report in the chosen format."""

from __future__ import annotations

import argparse

from harness.commands import common
from harness.engine import Engine, Run
from harness.gates.errors import ExitCode

NAME = "check"
HELP = "compare every case with its golden"
GLOBALS = AFTER = common.RUN_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_format_flags(parser)
    common.add_quiet(parser, "text: only errors, plus the verdict")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="text: name every case of each waived warning, list refactors with unchanged values and info findings",
    )
    common.add_case_flag(parser)
    parser.add_argument("--strict-waivers", action="store_true", help="a waiver that excuses no violation is an error")


def run(args: argparse.Namespace) -> int:
    settings = common.settings_from(args)
    run = Run.check(settings, common.rule_set_of(settings, args), sourced=common.sourced(args))
    result = common.run_with_progress(Engine(run, args.case))
    common.print_result(
        result, args.format, verbose=args.verbose, quiet=args.quiet, steps=common.next_steps_for(args, settings), reports=args.report
    )
    return ExitCode.OK if result.ok else ExitCode.FINDINGS
