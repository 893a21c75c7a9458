"""The `config-harness` command: the parser built from the command modules (harness.commands), and exit codes."""

from __future__ import annotations

import argparse
import functools
import os
import sys
import traceback

from harness import __version__
from harness.commands import COMMANDS
from harness.commands.common import Parser, add_global_flags, drop_ignored_globals, say
from harness.composition.session import Session
from harness.gates.errors import ExitCode, bad_input_line


def version_line() -> str:
    """`config-harness X.Y.Z (hydra-core A, omegaconf B, Python C)`: what a bug report needs."""
    from importlib import metadata

    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    python = ".".join(str(part) for part in sys.version_info[:3])
    return f"config-harness {__version__} (hydra-core {installed('hydra-core')}, omegaconf {installed('omegaconf')}, Python {python})"


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """The argument parser: the global flags, then one subparser per command module, each with its own flags.

    Built once per process: it depends on nothing but the code, parsing never changes it, and building it costs
    more than a small check (argparse looks up a translation for every help string).
    """
    parser = Parser(prog="config-harness", description="Golden-file regression harness for Hydra config trees.")
    parser.add_argument("--version", action="version", version=version_line())
    add_global_flags(parser)
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="COMMAND", help="what to do (`config-harness COMMAND --help` says how)"
    )
    for command in COMMANDS:
        # The global flags a command uses may also follow its name (`check --no-cache`); given there, they win.
        # SUPPRESS: absent ones leave the value given before the name alone.
        after = Parser(add_help=False, argument_default=argparse.SUPPRESS)
        add_global_flags(after, command.AFTER)
        subparser = commands.add_parser(command.NAME, parents=[after], help=command.HELP, description=command.HELP)
        command.add_arguments(subparser)
    return parser


def _report_internal_error(error: BaseException) -> int:
    """A bug in the harness: say so, say how to report it, and show the traceback on request."""
    if os.environ.get("CONFIG_HARNESS_DEBUG"):
        traceback.print_exc(file=sys.stderr)
    summary = " ".join(f"{type(error).__name__}: {error}".split())
    say(f"config-harness: internal error (a bug in config-harness {__version__}): {summary}", sys.stderr)
    say(
        "config-harness: please report it with the command you ran and the traceback that "
        "CONFIG_HARNESS_DEBUG=1 prints (see the README's Troubleshooting section)",
        sys.stderr,
    )
    return ExitCode.INTERNAL


def _quiet_broken_pipe() -> int:
    """The reader went away (`| head`): stop without a message, and keep Python from complaining at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in tests): nothing to silence
        pass
    return ExitCode.BROKEN_PIPE


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 findings, 2 bad input, 3 internal error)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_request:  # argparse: --help, --version (0) or a usage error (2)
        return int(exit_request.code or 0)
    command = next(command for command in COMMANDS if command.NAME == args.command)
    try:
        drop_ignored_globals(args, command.GLOBALS)
        # Every cache, recorder and scratch folder of this command, gone when it returns; every resolution in it
        # runs under the one resolver policy (no host value reaches any output or file).
        with Session():
            return command.run(args)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("config-harness: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as error:
        line = bad_input_line(error)
        if line is None:
            return _report_internal_error(error)
        say(f"config-harness: error: {line}", sys.stderr)
        return ExitCode.USAGE
