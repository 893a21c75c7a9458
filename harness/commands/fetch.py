"""`fetch`: download the settings' [source] wheel (or another one) and unpack its config tree; it never imports it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands.common import UsageError, add_quiet, say, settings_from
from harness.gates.errors import ExitCode
from harness.model.settings import SettingsError

NAME = "fetch"
HELP = "download the settings' [source] wheel and unpack its config tree"
GLOBALS = AFTER = ("settings",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="download and unpack again even when the tree is there")
    parser.add_argument("--wheel", metavar="REQ", help="another requirement than the settings' (e.g. verl==0.8.0); needs --into")
    parser.add_argument("--into", metavar="DIR", help="where to unpack --wheel")
    parser.add_argument(
        "--unpack", metavar="DIR", help="the folder of the wheel to unpack (default: the settings' [source] unpack, else all)"
    )
    add_quiet(parser, "print nothing when it worked")


def run(args: argparse.Namespace) -> int:
    from harness.baselines.releases import fetch_source
    from harness.model.settings import Source

    if args.wheel or args.into or args.unpack:
        if not (args.wheel and args.into):
            raise UsageError("fetch --wheel and --into go together")
        # Fetching another wheel needs no settings; a [source] table only lends its `unpack`.
        configured = None
        try:
            configured = settings_from(args).source
        except SettingsError:
            if args.settings:
                raise
        unpack = args.unpack if args.unpack is not None else (configured.unpack if configured else "")
        source = Source(wheel=args.wheel, unpack=unpack, into=Path(args.into).resolve())
    else:
        settings = settings_from(args)
        if settings.source is None:
            raise UsageError(f"{settings.origin}: no [source] table to fetch (or give --wheel REQ --into DIR)")
        source = settings.source
    # Progress goes to stderr, so a report piped from the same make target stays clean.
    said = fetch_source(source, force=args.force)
    if not args.quiet:
        say(said, sys.stderr)
    return ExitCode.OK
