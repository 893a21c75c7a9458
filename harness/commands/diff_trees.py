"""`diff OLD_TREE NEW_TREE`: every case of the matrix composed from two config trees, compared on the engine
(the upgrade report)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from harness.baselines import kinds
from harness.commands.common import diff_title, next_steps_for, print_result, review_exit, rule_set_of, run_with_progress
from harness.model.findings import Comparison
from harness.model.settings import Settings
from harness.runner.run import Run, Runner


def run(args: argparse.Namespace, settings: Settings, comparison: Comparison) -> int:
    """Each side has the cases whose root (or route) config it holds: one only the new tree has is `new`, one
    only the old tree has is `gone`."""
    old, new = Path(comparison.old), Path(comparison.new)
    head = tree_side(settings, new)
    run = Run.tree_diff(head, kinds.on_disk(tree_side(settings, old), old), rule_set_of(head, args), comparison)
    result = run_with_progress(Runner(run, args.case))
    print_result(
        result,
        args.format,
        verbose=args.verbose,
        quiet=args.quiet,
        title=diff_title(args, comparison.old, comparison.new),
        steps=next_steps_for(args, head),
        reports=args.report,
    )
    return review_exit(result)


def tree_side(settings: Settings, tree: Path) -> Settings:
    """The settings for one tree of a tree diff: only the roots and routes whose config the tree has."""
    folders = (tree, *settings.search_path)

    def has(name: str) -> bool:
        return any((folder / f"{name}.yaml").is_file() for folder in folders)

    return replace(
        settings,
        config_dir=tree.resolve(),
        roots=tuple(root for root in settings.roots if has(root)),
        routes=tuple(route for route in settings.routes if has(route.config_name)),
    )
