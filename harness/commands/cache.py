"""`cache`: show or clear the per-user parse and composition cache; it needs no project (the folder comes from
--cache-dir, --no-cache or the environment)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from harness.baselines.kept_trees import TREES, kept_count
from harness.commands.common import CACHE_FLAGS, UsageError, add_quiet, cache_dir_from, say
from harness.composition.session import forget_content
from harness.composition.store import CacheRefused, key_path, limit_bytes, open_folder
from harness.composition.store import entries as cache_entries
from harness.gates.errors import ExitCode

NAME = "cache"
HELP = "show (or --clear) the parse and composition cache"
GLOBALS = AFTER = CACHE_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clear", action="store_true", help="delete every entry of the cache folder")
    add_quiet(parser, "with --clear: print nothing")


def run(args: argparse.Namespace) -> int:
    folder = cache_dir_from(args)
    if folder is None:
        say("cache: off")
        return ExitCode.OK
    if not folder.exists():
        say(f"{folder}: empty (not created yet)")
        return ExitCode.OK
    try:
        open_folder(folder)
    except CacheRefused as error:
        raise UsageError(f"cache folder refused: {error}") from None
    found = list(cache_entries(folder))
    if args.clear:
        forget_content()  # what this process parsed already goes too (the CLI in process, as in tests)
        for entry in found:
            Path(entry.path).unlink(missing_ok=True)
        trees = kept_count(folder)
        shutil.rmtree(folder / TREES, ignore_errors=True)  # the config trees reviews kept (harness.baselines.kept_trees)
        if not args.quiet:
            say(f"cleared {len(found)} entries and {trees} kept base trees from {folder}")
    else:
        size = sum(entry.stat(follow_symlinks=False).st_size for entry in found)
        say(
            f"{folder}: {len(found)} entries, {size // 1024} KiB (cap {limit_bytes() // (1024 * 1024)} MiB), "
            f"{kept_count(folder)} kept base trees, key {key_path(folder)}"
        )
    return ExitCode.OK
