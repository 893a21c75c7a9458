"""The subcommands, one module each: `NAME`, `HELP` (one line: what it does), `GLOBALS` (the global flags it
uses), `AFTER` (those it also takes after its name), `add_arguments(parser)` and `run(args) -> int`.

`COMMANDS` is the registry, in the order `--help` lists them; harness.cli builds the parser from it.

Owns: arguments in, one exit code out. May import: every layer but the shells (harness.cli, harness.plugin);
a command is thin: it builds a `Run`, hands it to the engine and gives the result to a reporter.
"""

from __future__ import annotations

from harness.commands import cache, check, comment, diff, explain, fetch, generate, init, known, lock, log, merge
from harness.commands import list as listing
from harness.commands.common import Command

COMMANDS: tuple[Command, ...] = (listing, generate, check, merge, diff, explain, log, lock, known, cache, init, fetch, comment)

__all__ = ["COMMANDS", "Command"]
