"""The `config-harness` command: the parser built from the command modules (harness.commands), and exit codes."""

from __future__ import annotations

import argparse
import functools
import os
import sys
import traceback
from typing import NoReturn

import yaml
from hydra.errors import HydraException

from harness import __version__
from harness.commands import COMMANDS
from harness.commands.common import EXIT_INTERNAL, EXIT_USAGE, UsageError, add_global_flags, drop_ignored_globals, say
from harness.compose import ComposeError
from harness.contracts import ContractError
from harness.diff import PathError
from harness.fetch import FetchError
from harness.gitrepo import GitError
from harness.session import Session
from harness.settings import SettingsError

EXIT_BROKEN_PIPE = 141  # what a shell reports for a command stopped by SIGPIPE, as `yes | head -1` does
EXIT_INTERRUPTED = 130  # what a shell reports for a command stopped by Ctrl-C (SIGINT)

# Errors caused by what the user gave us (settings, contracts, YAML, a git ref, a wheel): exit 2, one line.
# A composition that fails inside a run is a case finding; one that escapes (a command that needs that one
# case) and Hydra's own errors outside composition name config content, so they are bad input too.
BAD_INPUT: tuple[type[BaseException], ...] = (
    SettingsError, ContractError, UsageError, FetchError, GitError, ComposeError, yaml.YAMLError, HydraException,
    PathError,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, like every other usage error
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


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
    parser = _Parser(prog="config-harness", description="Golden-file regression harness for Hydra config trees.")
    parser.add_argument("--version", action="version", version=version_line())
    add_global_flags(parser)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND",
                                     help="what to do (`config-harness COMMAND --help` says how)")
    for command in COMMANDS:
        # The global flags a command uses may also follow its name (`check --no-cache`); given there, they win.
        # SUPPRESS: absent ones leave the value given before the name alone.
        after = _Parser(add_help=False, argument_default=argparse.SUPPRESS)
        add_global_flags(after, command.AFTER)
        subparser = commands.add_parser(command.NAME, parents=[after], help=command.HELP, description=command.HELP)
        command.add_arguments(subparser)
    return parser


def _usage_message(error: BaseException) -> str:
    """One line for an error caused by input or the environment, naming the file where there is one."""
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    if isinstance(error, yaml.YAMLError):
        from harness.render import describe_yaml_error

        return describe_yaml_error(error, "YAML input")
    return " ".join(str(error).split()) or type(error).__name__


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
    return EXIT_INTERNAL


def _quiet_broken_pipe() -> int:
    """The reader went away (`| head`): stop without a message, and keep Python from complaining at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in tests): nothing to silence
        pass
    return EXIT_BROKEN_PIPE


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
    except BAD_INPUT as error:
        say(f"config-harness: error: {_usage_message(error)}", sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("config-harness: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:  # a path the user gave (or the disk) refused: unusable input, not a bug
        say(f"config-harness: error: {_usage_message(error)}", sys.stderr)
        return EXIT_USAGE
    except Exception as error:
        return _report_internal_error(error)
