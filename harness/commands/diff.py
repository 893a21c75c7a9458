"""`diff`: the one command with several modes. Two YAML files or two snapshot folders are compared here, file by
file; two config trees (`diff_trees`) and the working tree against a git ref (`diff_review`) run the engine."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from harness import diff
from harness.commands import diff_review, diff_trees
from harness.commands.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    RUN_FLAGS,
    UsageError,
    add_case_flag,
    add_format_flags,
    add_quiet,
    say,
    settings_from,
)
from harness.confine import project_root
from harness.matrix import GOLDEN_PREFIX
from harness.reporters.json import SCHEMA_VERSION, to_json
from harness.reporters.markdown import changes_markdown, code_span
from harness.settings import SettingsError

NAME = "diff"
HELP = "semantic diff of two YAML files or snapshot folders, or the goldens at a git ref (--base)"
GLOBALS = AFTER = RUN_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", nargs="?", help="the old YAML file, snapshot folder or config tree")
    parser.add_argument("new", nargs="?", help="the new one, of the same kind")
    parser.add_argument("--base", metavar="REF", help="review report: the working tree against git REF")
    parser.add_argument(
        "--compose-base", action="store_true", help="with --base: compose the tree at REF even where it has goldens"
    )
    add_format_flags(parser)
    parser.add_argument("--title", metavar="TEXT", help="markdown heading")
    add_case_flag(parser, " (reviews and tree diffs)")
    parser.add_argument("--verbose", action="store_true", help="text: also show info findings")
    add_quiet(parser, "text: only errors and the verdict (reviews and tree diffs), only the count line (file diffs)")
    parser.add_argument("--strict-waivers", action="store_true", help="a waiver that excuses no violation is an error")
    parser.add_argument(
        "--files", action="store_true", help="two folders: compare same-named YAML files, not the cases of two config trees"
    )


def run(args: argparse.Namespace) -> int:
    if args.base is not None:
        if args.old or args.new:
            raise UsageError("diff takes either OLD NEW or --base REF, not both")
        return diff_review.run(args)
    if args.compose_base:
        raise UsageError("--compose-base goes with --base REF")
    if not (args.old and args.new):
        raise UsageError("diff needs OLD and NEW (two files or two folders), or --base REF")
    old, new = Path(args.old), Path(args.new)
    mode = diff_mode(old, new, args.files)
    if mode == "trees":
        try:
            settings = settings_from(args)
        except SettingsError as error:
            raise UsageError(
                f"{old} and {new} are config trees: a tree diff composes the cases of the settings ({error}); "
                "give --settings FILE, or --files to compare same-named files instead"
            ) from None
        return diff_trees.run(args, settings, old, new)
    if args.report:
        raise UsageError("--report goes with --base REF or two config trees; a file diff prints its one report")
    changes = diff_paths(old, new)
    said = {"files": "file diff", "goldens": "golden diff (same-named goldens of two snapshot folders)"}[mode]
    if args.format == "json":
        print(to_json({"schema_version": SCHEMA_VERSION, "mode": mode, "changes": changes}))
    elif args.format == "markdown":
        print(changes_markdown(f"{code_span(args.old, False)} → {code_span(args.new, False)} ({said})", changes), end="")
    else:
        if not args.quiet:
            say(f"{said}: {args.old} -> {args.new}")
        for row in changes if not args.quiet else ():
            prefix = f"{row['file']}: " if "file" in row else ""
            say(prefix + diff.describe_change(diff.Change(row["kind"], row["path"], row["old"], row["new"], tuple(row.get("detail", ())))))
        say(f"{len(changes)} change(s)")
    return EXIT_FINDINGS if changes else EXIT_OK


def diff_mode(old: Path, new: Path, files: bool) -> str:
    """`files` (two files, or --files), `goldens` (two snapshot folders) or `trees` (two config trees).

    Two folders that are not both snapshot folders are config trees: compared case by case, never silently
    as files (a root only one side has is `new` or `gone`, not a reason to fall back).
    """
    if old.is_dir() != new.is_dir():
        raise UsageError(f"diff needs two files or two folders: {old} and {new}")
    if files or not old.is_dir():
        return "files"
    return "goldens" if is_snapshot_folder(old) and is_snapshot_folder(new) else "trees"


def is_snapshot_folder(folder: Path) -> bool:
    """True when every YAML file of the folder is a golden (`_generated_*.yaml`), and it has one."""
    names = [path.name for path in folder.glob("*.yaml")]
    return bool(names) and all(name.startswith(GOLDEN_PREFIX) for name in names)


def diff_paths(old: Path, new: Path) -> list[dict[str, Any]]:
    """Changes between two YAML files, or between same-named goldens of two folders."""
    if old.is_dir() != new.is_dir():
        raise UsageError(f"diff needs two files or two folders: {old} and {new}")
    if not old.is_dir():
        return [diff.change_row(c) for c in diff.diff_trees(_load_yaml_file(old), _load_yaml_file(new))]
    names = sorted({p.name for p in old.glob("*.yaml")} | {p.name for p in new.glob("*.yaml")})
    rows: list[dict[str, Any]] = []
    # The folders were named on the command line; the files in them were not: none may lead out of its project.
    scopes = {folder: (project_root(folder),) for folder in (old, new)}
    for name in names:
        old_tree = _load_yaml_file(old / name, scopes[old]) if (old / name).exists() else {}
        new_tree = _load_yaml_file(new / name, scopes[new]) if (new / name).exists() else {}
        rows.extend({**diff.change_row(c), "file": name} for c in diff.diff_trees(old_tree, new_tree))
    return rows


def _load_yaml_file(path: Path, scope: tuple[Path, ...] | None = None) -> Any:
    from harness.reader import read_text
    from harness.render import describe_yaml_error, parse_yaml

    try:
        return parse_yaml(read_text(path, scope))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{path}: not UTF-8 (offset {error.start})") from None
    except yaml.YAMLError as error:
        raise UsageError(describe_yaml_error(error, str(path))) from None
