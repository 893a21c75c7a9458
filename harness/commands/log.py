"""`log`: the commits where one key's composed value changed in one case, oldest first."""

from __future__ import annotations

import argparse

from harness.cases import open_matrix
from harness.commands.common import SETTINGS_FLAGS, UsageError, add_quiet, one_case, say, settings_from
from harness.errors import ExitCode
from harness.gitrepo import GitError
from harness.reporters.common import ABSENT, show_value
from harness.reporters.json import SCHEMA_VERSION, to_json

NAME = "log"
HELP = "the commits where a key's composed value changed, oldest first"
GLOBALS = AFTER = SETTINGS_FLAGS  # every commit is composed once, in memory: no cache, no workers
GLOB_CHARS = "*?["


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", help="a dotted key path, e.g. actor_rollout_ref.model.path")
    parser.add_argument("--case", required=True, metavar="ID", help="a case id (a glob must match exactly one case of the working tree)")
    parser.add_argument("--since", metavar="REV", help="only commits after REV (from the merge base when REV is not an ancestor, as git's REV..HEAD)")
    parser.add_argument("--format", choices=["text", "json"], default="text", help="the output format")
    add_quiet(parser, "text: the changes without the count line")


def run(args: argparse.Namespace) -> int:
    from harness.history import HistoryError, key_log

    settings = settings_from(args)
    case_id = args.case
    if any(char in case_id for char in GLOB_CHARS):
        with open_matrix(settings) as (_, cases):
            case_id = one_case(cases, case_id).id
    try:
        answer = key_log(settings, args.key, case_id, args.since)
    except (GitError, HistoryError) as error:
        raise UsageError(str(error)) from None
    changes, since = answer.changes, answer.since
    if args.format == "json":
        document = {"schema_version": SCHEMA_VERSION, "key": args.key, "case": case_id, "changes": [vars(c) for c in changes]}
        if since is not None:
            document["since"] = {**vars(since), "note": since.line(args.key, show_value(since.value) if since.present else ABSENT)}
        print(to_json(document))
        return ExitCode.OK
    if since is not None:
        say(since.line(args.key, show_value(since.value) if since.present else ABSENT))
    for change in changes:
        old = show_value(change.old) if change.old_present else ABSENT
        new = show_value(change.new) if change.new_present else ABSENT
        if change.composes_from:
            say(f"{change.commit[:12]} {change.date[:10]} composes from {change.commit[:12]} on: {new} "
                f"(before it, {change.composes_from})  {change.subject}")
            continue
        say(f"{change.commit[:12]} {change.date[:10]} {old} -> {new}  {change.subject}")
    if not args.quiet:
        say(f"{len(changes)} change(s) of {args.key} in {case_id}")
    return ExitCode.OK
