"""`comment`: the commenting workflow's one step of its own: check the artifact a pull request's job uploaded, find
the pull request it is for, write the comment's markdown, and print that pull request's number (harness.reporters.pr_comment).

It reads only the files it is given, needs no settings and composes nothing: it runs in the `workflow_run`
workflow, which never checks out or runs the pull request's code.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.common import UsageError, add_quiet, say
from harness.gates.errors import ExitCode
from harness.gates.writer import write_atomic

NAME = "comment"
HELP = "check a review's comment artifact (untrusted) and write the pull-request comment it may post"
GLOBALS = AFTER = ()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("artifact", metavar="DIR", help="the downloaded artifact: comment.json (--format comment) and pull-request")
    parser.add_argument("--event", required=True, metavar="FILE", help="the workflow_run event ($GITHUB_EVENT_PATH)")
    parser.add_argument(
        "--pull",
        metavar="FILE",
        help="GitHub's answer for the pull request the artifact names (`gh api repos/R/pulls/N`): "
        "how a fork's pull request, absent from the event, is checked against the run's head commit",
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write the comment's markdown")
    add_quiet(parser, "do not print the pull request's number")


def run(args: argparse.Namespace) -> int:
    from harness.reporters.pr_comment import MAX_EVENT_BYTES, Refused, pull_request_number, read_artifact, read_json, render

    try:
        comment, claimed = read_artifact(Path(args.artifact))
        event = read_json(Path(args.event), MAX_EVENT_BYTES, "the event")
        pull = read_json(Path(args.pull), MAX_EVENT_BYTES, "the pull request") if args.pull else None
        number = pull_request_number(event, claimed, pull)
    except Refused as refused:
        raise UsageError(f"comment refused: {refused}") from None
    write_atomic(Path(args.out), render(comment, event))
    if not args.quiet:
        say(str(number))
    return ExitCode.OK
