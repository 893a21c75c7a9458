"""`list`: every case of the matrix with its golden, and every launch command with its script line."""

from __future__ import annotations

import argparse
from typing import Any

from harness.commands.common import (
    CACHE_FLAGS,
    SETTINGS_FLAGS,
    UsageError,
    add_case_flag,
    add_format_flags,
    add_quiet,
    print_answer,
    settings_from,
)
from harness.composition.cases import id_matches, open_matrix, select_cases, unmatched_glob
from harness.gates.errors import ExitCode
from harness.model.hints import case_hint
from harness.model.matrix import LAUNCH_PREFIX
from harness.model.settings import Settings, display_path
from harness.reporters import CaseList

NAME = "list"
HELP = "list every case"
GLOBALS = AFTER = (*SETTINGS_FLAGS, *CACHE_FLAGS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_format_flags(parser, "cases")
    add_case_flag(parser)
    add_quiet(parser, "text: only the case ids, one a line")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="also name the commands that run no Hydra application (converters, data scripts, tests), once each with why",
    )


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    # With [[commands]], a glob over `cmd/...` selects launches, not cases of the matrix.
    matrix_globs = [g for g in args.case or () if not (settings.command_globs and g.startswith(LAUNCH_PREFIX))]
    with open_matrix(settings) as (_, all_cases):
        cases = select_cases(all_cases, args.case)
        unmatched = unmatched_glob(all_cases, matrix_globs)
        if unmatched is not None:
            raise UsageError(f"--case {unmatched!r} matches no case{case_hint(unmatched, [c.id for c in all_cases])}")
        if not all_cases:
            raise UsageError(f"{settings.origin}: the settings describe no case in {settings.config_dir}")
        rows = [
            {
                "id": case.id,
                "config_name": case.config_name,
                "overrides": list(case.overrides),
                "golden": display_path(settings.snapshot_dir / case.golden_name),
            }
            for case in cases
        ]
    launch_list, others = launch_rows(settings, args.case)
    print_answer("cases", CaseList(tuple(rows + launch_list), tuple(others)), args)
    return ExitCode.OK


def launch_rows(settings: Settings, case_globs: list[str] | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`list` rows of the settings' launch commands (issue 24): one per launch found, extracted or not; and one
    per program the scripts run that is no Hydra application, with why and every command that runs it."""
    from harness.runner.launches import NOT_EXTRACTED, discover

    rows: list[dict[str, Any]] = []
    others: dict[str, dict[str, Any]] = {}
    for case in discover(settings) if settings.command_globs else []:
        if not id_matches(case.id, case_globs):
            continue
        if case.skipped:
            other = others.setdefault(case.launch.entry, {"program": case.launch.entry, "why": case.problem, "sources": []})
            other["sources"].append(case.launch.where)
            continue
        row: dict[str, Any] = {
            "id": case.id,
            "kind": "command",
            "source": case.launch.where,
            "config_name": case.config_name,
            "overrides": list(case.written),
            "extracted": case.problem_kind != NOT_EXTRACTED,
        }
        if case.launch.when:  # a reading under an environment its script tests (issue 51): the condition
            row["when"] = case.launch.when
        if case.problem or case.never_runs or case.note:  # a launch bash never reaches is composed, and says why it fails
            row["reason"] = "; ".join(r for r in (case.problem, case.never_runs, case.note) if r)
        rows.append(row)
    return rows, list(others.values())
