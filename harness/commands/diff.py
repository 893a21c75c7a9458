"""`diff`: the one command with several modes, each a module that runs the engine. `diff OLD NEW` compares two
YAML files or two snapshot folders as written (`diff_documents`), or two config trees case by case
(`diff_trees`); `diff --base REF` reviews the working tree against a git ref (`diff_review`). Which mode runs is
decided once (harness.baselines.diff_modes) and stated by every format; a flag that means nothing there is refused."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.baselines import diff_modes
from harness.commands import diff_documents, diff_review, diff_trees
from harness.commands.common import (
    SHARDED_FLAGS,
    UsageError,
    add_case_flag,
    add_format_flags,
    add_quiet,
    drop_ignored_globals,
    settings_from,
)
from harness.model.findings import Comparison, Mode
from harness.model.settings import Settings, SettingsError

NAME = "diff"
HELP = "semantic diff of two YAML files, two snapshot folders or two config trees, or of the working tree against a git ref (--base)"
GLOBALS = AFTER = SHARDED_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", nargs="?", help="the old YAML file, snapshot folder or config tree")
    parser.add_argument("new", nargs="?", help="the new one, of the same kind")
    parser.add_argument("--base", metavar="REF", help="review report: the working tree against git REF")
    parser.add_argument("--compose-base", action="store_true", help="with --base: compose the tree at REF even where it has goldens")
    add_format_flags(parser)
    parser.add_argument("--title", metavar="TEXT", help="markdown heading")
    add_case_flag(parser, " (reviews and tree diffs)")
    parser.add_argument("--verbose", action="store_true", help="text: also list info findings, refactors and folded keys")
    add_quiet(parser, "text: only errors and the verdict")
    parser.add_argument(
        "--strict-waivers", action="store_true", help="reviews and tree diffs: a waiver that excuses no violation is an error"
    )
    parser.add_argument(
        "--files", action="store_true", help="two folders: compare same-named YAML files, not the cases of two config trees"
    )


def run(args: argparse.Namespace) -> int:
    if args.base is not None:
        if args.old or args.new:
            raise UsageError("diff takes either OLD NEW or --base REF, not both")
        if args.files:
            raise UsageError("--files compares two folders file by file; a review (--base REF) compares cases")
        return diff_review.run(args)
    if args.compose_base:
        raise UsageError("--compose-base goes with --base REF")
    if args.shard is not None:
        raise UsageError("--shard goes with diff --base REF (and check, generate); a diff of two trees runs whole")
    if not (args.old and args.new):
        raise UsageError("diff needs OLD and NEW (two files or two folders), or --base REF")
    comparison = diff_modes.detect(Path(args.old), Path(args.new), args.files)
    refused = diff_modes.refused_flag(comparison, vars(args))
    if refused is not None:
        raise UsageError(refused)
    if comparison.mode == Mode.TREES:
        return diff_trees.run(args, tree_settings(args, comparison), comparison)
    drop_ignored_globals(args, (), f"a diff of {comparison.what}")
    return diff_documents.run(args, comparison)


def tree_settings(args: argparse.Namespace, comparison: Comparison) -> Settings:
    """The settings whose cases a tree diff composes from each tree; without usable ones, one line saying so."""
    try:
        return settings_from(args)
    except SettingsError as error:
        raise UsageError(
            f"{comparison.old} and {comparison.new} are config trees: a tree diff composes the cases of the settings "
            f"({error}); give --settings FILE, or --files to compare same-named files instead"
        ) from None
