"""`check`: compare every case with its golden and check its contracts; the report in the chosen format."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from harness.commands import common, shard_results
from harness.gates.errors import ExitCode
from harness.model.findings import MatrixResult
from harness.model.settings import Settings
from harness.runner.run import Run, Runner

NAME = "check"
HELP = "compare every case with its golden"
GLOBALS = AFTER = common.SHARDED_FLAGS


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
    engine, settings, report = merged(args)
    result = common.run_with_progress(engine)
    return report(result, shard_results.shard_document(args, NAME, engine, settings))


def merged(args: argparse.Namespace) -> tuple[Runner, Settings, Callable[..., int]]:
    """The run `check` makes of its arguments, and how it reports a result (`merge` rebuilds a sharded one)."""
    settings = common.settings_from(args)
    run = Run.check(settings, common.rule_set_of(settings, args), sourced=common.sourced(args))

    def report(result: MatrixResult, shard: dict[str, Any] | None = None) -> int:
        steps = common.next_steps_for(args, settings)
        common.print_result(result, args.format, verbose=args.verbose, quiet=args.quiet, steps=steps, reports=args.report, shard=shard)
        return ExitCode.OK if result.ok else ExitCode.FINDINGS

    return Runner(run, args.case, shard=args.shard), settings, report
