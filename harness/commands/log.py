"""`log`: the commits where one key's composed value changed in one case, oldest first."""

from __future__ import annotations

import argparse

from harness.commands.common import SETTINGS_FLAGS, add_case_flag, add_format_flags, add_quiet, one_case, print_answer, settings_from
from harness.composition.cases import open_matrix
from harness.gates.errors import ExitCode
from harness.reporters import KeyHistory

NAME = "log"
HELP = "the commits where a key's composed value changed, oldest first"
GLOBALS = AFTER = SETTINGS_FLAGS  # every commit is composed once, in memory: no cache, no workers
GLOB_CHARS = "*?["


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", help="a dotted key path, e.g. actor_rollout_ref.model.path")
    add_case_flag(parser, " (globs: of the working tree)", one=True)
    parser.add_argument(
        "--since", metavar="REV", help="only commits after REV (from the merge base when REV is not an ancestor, as git's REV..HEAD)"
    )
    add_format_flags(parser, "log")
    add_quiet(parser, "text: the changes without the count line")


def run(args: argparse.Namespace) -> int:
    from harness.baselines.history import key_log

    settings = settings_from(args)
    # An exact id goes to the history as given (each commit has its own matrix); globs select in the working tree.
    case_id = args.case[0]
    if len(args.case) > 1 or any(char in case_id for char in GLOB_CHARS):
        with open_matrix(settings) as (_, cases):
            case_id = one_case(cases, args.case).id
    answer = key_log(settings, args.key, case_id, args.since)  # a bad ref or key: HistoryError, GitError (bad input)
    print_answer("log", KeyHistory(args.key, case_id, answer), args)
    return ExitCode.OK
