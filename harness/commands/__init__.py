"""The subcommands, one module each: `NAME`, `HELP` (one line: what it does), `GLOBALS` (the global flags it
uses), `AFTER` (those it also takes after its name), `add_arguments(parser)` and `run(args) -> int`.

`COMMANDS` is the registry, in the order `--help` lists them; harness.cli builds the parser from it.
"""

from __future__ import annotations

from harness.commands import cache, check, comment, diff, explain, fetch, generate, init, known, lock, log
from harness.commands import list as listing
from harness.commands.common import Command

COMMANDS: tuple[Command, ...] = (listing, generate, check, diff, explain, log, lock, known, cache, init, fetch, comment)

__all__ = ["COMMANDS", "Command"]
