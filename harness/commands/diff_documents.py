"""`diff OLD NEW` of two YAML files, or of the same-named YAML files of two folders (two snapshot folders, or any
two with `--files`): each pair compared on the engine as written, never composed. The old side is the baseline
and a difference is an error, so the exit is 1 exactly when they differ."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.common import diff_title, print_result
from harness.composition.documents import file_pair, folder_pairs
from harness.gates.errors import ExitCode
from harness.model.findings import Comparison
from harness.runner.run import compare_documents


def run(args: argparse.Namespace, comparison: Comparison) -> int:
    old, new = Path(comparison.old), Path(comparison.new)
    pairs = folder_pairs(old, new) if comparison.folders else file_pair(old, new)
    result = compare_documents(pairs, comparison)
    print_result(
        result,
        args.format,
        verbose=args.verbose,
        quiet=args.quiet,
        title=diff_title(args, comparison.old, comparison.new),
        reports=args.report,
        review=False,
    )
    return ExitCode.OK if result.ok else ExitCode.FINDINGS
