"""`known`: record the findings that hold now as known entries (what `init` does at adoption), for later adoptions
of a rule: contracts written after `init`, `python_sources` turned on, a new `[[commands]]` glob."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.commands import common
from harness.gates.errors import ExitCode
from harness.model.settings import Settings

NAME = "known"
HELP = "record every finding that holds now as a known entry (appended; existing entries stay)"
GLOBALS = AFTER = common.RUN_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", metavar="FILE", help="the known file (default: the contracts file named known.yaml)")
    common.add_quiet(parser, "print nothing")


def run(args: argparse.Namespace) -> int:
    settings = common.settings_from(args)
    target = Path(args.file) if args.file else next((path for path in settings.contracts if path.name == "known.yaml"), None)
    if target is None:
        raise common.UsageError(
            f"{settings.origin}: no contracts file is named known.yaml; name one with --file "
            "(it must be one of the settings' contracts files)"
        )
    if target.resolve() not in {path.resolve() for path in settings.contracts}:
        raise common.UsageError(f"--file {target}: not one of the settings' contracts files, so it would excuse nothing")
    added = record(settings, target, args)
    if not args.quiet:
        common.say(
            f"{len(added)} finding{'s' * (len(added) != 1)} recorded in {common.display_path(target)}"
            + (" (review it: an entry is a loosening)" if added else "")
        )
    return ExitCode.OK


def record(settings: Settings, target: Path, args: argparse.Namespace, when: str = "known since") -> list[dict]:
    """Run the checks on the settings and append to `target` an entry for every finding no entry excuses yet."""
    from harness.engine import Engine, Run
    from harness.gates.reader import read_text
    from harness.gates.writer import write_atomic
    from harness.rules import known
    from harness.rules.contracts import utc_today

    result = Engine(Run.check(settings, common.rule_set_of(settings, args))).run()
    entries = known.entries_for(result.cases, utc_today(), when) + run_wide_entries(result.findings, utc_today(), when)
    if entries:
        text = read_text(target, settings.read_scope, what=str(target))
        try:
            write_atomic(target, known.appended(text, entries))
        except ValueError as error:
            raise common.UsageError(f"{common.display_path(target)}: {error}") from None
    return entries


def run_wide_entries(findings: Any, today: Any, when: str) -> list[dict]:
    """An entry for each of Hydra's warnings, which a run says once rather than per case (RAGEN's "Defaults list is
    missing `_self_`" on every run): it names the warning's file and words and excuses it on any case."""
    from harness.model.findings import Kind
    from harness.rules import known

    entries = []
    for finding in findings:
        if finding.kind == Kind.HYDRA_WARNING and known.excusable(finding):
            where = f" ({finding.source})" if finding.source is not None else ""
            reason = f"{when} ({today.isoformat()}): {' '.join(finding.message.split())}{where}"
            entries.append({"finding": str(finding.kind), "cases": "*", "path": finding.path, "reason": reason})
    return entries
