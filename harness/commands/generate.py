"""`generate`: write the golden of every case that composed and differs (or, with --check, name them)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from harness.commands import common, shard_results
from harness.commands.common import say
from harness.gates.errors import ExitCode
from harness.model.findings import Judged, MatrixResult, Status, blocks
from harness.model.matrix import LAUNCH_PREFIX
from harness.model.settings import Settings
from harness.runner.run import Run, Runner

NAME = "generate"
HELP = "(re)write every golden"
GLOBALS = AFTER = common.SHARDED_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_case_flag(parser)
    parser.add_argument("--prune", action="store_true", help="also delete goldens that belong to no case")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each golden that would change")
    common.add_quiet(parser, "no line per golden: only the count line, the errors and the verdict")
    common.add_format_flags(parser)


def run(args: argparse.Namespace) -> int:
    settings = common.settings_from(args)
    engine = Runner(
        Run.generate(settings, common.rule_set_of(settings, args), write=not args.check, sourced=common.sourced(args)),
        args.case,
        shard=args.shard,
    )
    result = common.run_with_progress(engine)
    shard = shard_results.shard_document(args, NAME, engine, settings)
    # The lines of what was (or would be) written go to standard output with the text report; with another format
    # on standard output, to stderr, so that it stays that format's document.
    lines = sys.stdout if args.format == "text" else sys.stderr
    if args.check:
        stale = [r for r in result.cases if r.status in (Status.CHANGED, Status.NEW)]
        for r in stale if not args.quiet else ():
            say(f"would change: {r.golden} ({r.status})", lines)
        for orphan_name in result.orphans if not args.quiet else ():
            say(f"orphan golden (no case): {orphan_name}", lines)
        say(f"{len(stale)} of {len(result.cases)} goldens would change", lines)
        # The text answer of --check is the lines above; another format, and every --report, is the run's report.
        common.print_result(result, None if args.format == "text" else args.format, quiet=args.quiet, reports=args.report, shard=shard)
        return ExitCode.FINDINGS if stale or not result.ok else ExitCode.OK
    # Writing is a step of its own, after checking: only cases that composed and differ are rewritten.
    pending = {r.golden: r.status for r in result.cases}
    result = engine.write(result, prune=args.prune)
    written = [r.golden for r in result.cases if r.written]
    for golden in written if not args.quiet else ():
        say(f"wrote {golden}", lines)
    new = sum(pending[golden] == Status.NEW for golden in written)
    goldens = [r for r in result.cases if not r.case.id.startswith(LAUNCH_PREFIX)]
    errors = sum(r.status == Status.ERROR and r.golden not in written for r in goldens)
    unchanged = len(goldens) - len(written) - errors
    say(f"{len(written)} golden(s) written: {new} new, {len(written) - new} changed; {unchanged} unchanged; {errors} error(s)", lines)
    # The goldens are written: what is left to do about the rest (a launch, a contract) is said as `check` says it.
    steps = common.next_steps_for(args, settings)
    common.print_result(result, args.format, quiet=args.format == "text" or args.quiet, steps=steps, reports=args.report, shard=shard)
    # What blocks is the verdict table's, as `check` judges the goldens just written (a launch that no longer
    # composes, a stale known entry); orphans are reported but do not fail a generate (--prune removes them).
    findings = [f for r in result.cases for f in r.findings] + list(result.findings)
    return ExitCode.FINDINGS if any(blocks(f, Judged.GENERATE) for f in findings) else ExitCode.OK


def merged(args: argparse.Namespace) -> tuple[Runner, Settings, Callable[..., int]]:
    """`merge` of `generate --shard` results: the run checked against the goldens, nothing written (each shard wrote
    its own); reported as `generate --check` reports in a format other than text, with `check`'s exit codes."""
    settings = common.settings_from(args)
    engine = Runner(Run.generate(settings, common.rule_set_of(settings, args), write=False, sourced=common.sourced(args)), args.case)

    def report(result: MatrixResult, shard: dict[str, Any] | None = None) -> int:
        common.print_result(result, args.format, quiet=args.quiet, reports=args.report)
        return ExitCode.OK if result.ok else ExitCode.FINDINGS

    return engine, settings, report
