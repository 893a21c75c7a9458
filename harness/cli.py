"""The `config-harness` command: argument parsing, I/O and exit codes."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import traceback
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn, TextIO

import yaml
from hydra.errors import HydraException

from harness import __version__, baselines, diff, gitrepo
from harness.baselines import GoldenFolder
from harness.cache import CacheRefused, key_path, limit_bytes, open_folder
from harness.cache import entries as cache_entries
from harness.cases import open_matrix, select_cases
from harness.compose import ComposeError
from harness.confine import project_root
from harness.contract_changes import read_contract_files
from harness.contracts import ContractError, load_contracts
from harness.engine import Engine, Run
from harness.escape import printable
from harness.fetch import FetchError
from harness.findings import MatrixResult, Status
from harness.gitrepo import GitError
from harness.hints import case_hint, did_you_mean, key_paths
from harness.matrix import GOLDEN_PREFIX, Case
from harness.policy import resolution_policy
from harness.reporters import FORMATS, NextSteps, ReportOptions, reporter, sourced_for
from harness.reporters.common import ABSENT
from harness.reporters.json import SCHEMA_VERSION, to_json
from harness.reporters.markdown import changes_markdown, code_span, markdown_text
from harness.review_rules import rules_for_review
from harness.session import Session
from harness.settings import Settings, SettingsError, default_cache_dir, display_path, load_settings, settings_table, with_overrides
from harness.targets import case_rules
from harness.terminal import Progress, wants_color

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141  # what a shell reports for a command stopped by SIGPIPE, as `yes | head -1` does


class UsageError(Exception):
    """Bad input that ends the run with exit code 2 and one line per problem."""


# Errors caused by what the user gave us (settings, contracts, YAML, a git ref, a wheel): exit 2, one line.
# A composition that fails inside a run is a case finding; one that escapes (a command that needs that one
# case) and Hydra's own errors outside composition name config content, so they are bad input too.
BAD_INPUT: tuple[type[BaseException], ...] = (
    SettingsError, ContractError, UsageError, FetchError, GitError, ComposeError, yaml.YAMLError, HydraException,
    diff.PathError,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, like every other usage error
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def say(line: str, stream: TextIO | None = None) -> None:
    """Print one line through the text sink: whatever input it holds (names, values, messages, commit subjects)
    stays on that line, shown escaped, so no terminal escape or CI workflow command comes from input."""
    print(printable(line), file=stream or sys.stdout)


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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, as fixed by the interface."""
    parser = _Parser(prog="config-harness", description="Golden-file regression harness for Hydra config trees.")
    parser.add_argument("--version", action="version", version=version_line())
    add_global_flags(parser)
    # The same flags after the subcommand (`check --no-cache`); given there, they win. SUPPRESS: absent ones
    # leave the value given before the subcommand alone.
    after = _Parser(add_help=False, argument_default=argparse.SUPPRESS)
    add_global_flags(after)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    listing = commands.add_parser("list", parents=[after], help="list every case")
    listing.add_argument("--format", choices=["text", "json"], default="text")
    listing.add_argument("--case", metavar="GLOB", help="only the cases whose id matches")

    generate = commands.add_parser("generate", parents=[after], help="(re)write every golden")
    generate.add_argument("--case", metavar="GLOB", help="only the cases whose id matches")
    generate.add_argument("--prune", action="store_true", help="also delete goldens that belong to no case")
    generate.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each golden that would change")

    check = commands.add_parser("check", parents=[after], help="compare every case with its golden")
    check.add_argument("--format", choices=list(FORMATS), default="text", help="the report format")
    check.add_argument("--quiet", action="store_true", help="text: only errors, plus the verdict")
    check.add_argument(
        "--verbose", action="store_true",
        help="text: name every case of each waived warning, list refactors with unchanged values and info findings",
    )
    check.add_argument("--case", metavar="GLOB", help="only the cases whose id matches")
    check.add_argument("--strict-waivers", action="store_true", help="a waiver that excuses no violation is an error")

    difference = commands.add_parser(
        "diff", parents=[after], help="semantic diff of two YAML files or snapshot folders, or the goldens at a git ref (--base)"
    )
    difference.add_argument("old", nargs="?")
    difference.add_argument("new", nargs="?")
    difference.add_argument("--base", metavar="REF", help="review report: the working tree against git REF")
    difference.add_argument(
        "--compose-base", action="store_true", help="with --base: compose the tree at REF even where it has goldens"
    )
    difference.add_argument("--format", choices=list(FORMATS), default="text", help="the report format")
    difference.add_argument("--title", help="markdown heading")
    difference.add_argument("--case", metavar="GLOB", help="only the cases whose id matches (reviews and tree diffs)")
    difference.add_argument("--verbose", action="store_true", help="text: also show info findings")
    difference.add_argument("--strict-waivers", action="store_true", help="a waiver that excuses no violation is an error")
    difference.add_argument(
        "--files", action="store_true", help="two folders: compare same-named YAML files, not the cases of two config trees"
    )

    explain = commands.add_parser("explain", parents=[after], help="which file set a key's final value")
    explain.add_argument("key")
    explain.add_argument("--case", required=True, help="a case id (a glob must match exactly one case)")

    log = commands.add_parser("log", parents=[after], help="the commits where a key's composed value changed, oldest first")
    log.add_argument("key")
    log.add_argument("--case", required=True, help="a case id")
    log.add_argument("--since", metavar="REV", help="only commits after REV")
    log.add_argument("--format", choices=["text", "json"], default="text")

    lock = commands.add_parser("lock", parents=[after], help="derive a contract from a known-good tree (engine-specific keys become required)")
    lock.add_argument("--baseline", required=True, help="case id of the baseline engine, e.g. ppo_trainer/dp/default")
    lock.add_argument("--target", required=True, help="case id of the engine to lock, e.g. route/ppo_megatron_trainer")
    lock.add_argument("--name", required=True, help="contract name")
    lock.add_argument("--cases", required=True, help="case glob the contract will cover in the new tree")
    lock.add_argument("--output", help="merge into this contracts file: only the named contract changes (default: print it)")
    lock.add_argument("--reason", help="why terms are dropped or re-pinned; recorded under `changes:` (needed to loosen)")

    cache = commands.add_parser("cache", parents=[after], help="show (or --clear) the parse and composition cache")
    cache.add_argument("--clear", action="store_true")

    init = commands.add_parser(
        "init", help="adopt a repository: write the settings table, an empty contracts file and the snapshot folder"
    )
    init.add_argument("--config-dir", dest="init_config_dir", metavar="DIR", help="the Hydra config folder (required)")
    init.add_argument("--engine-group", metavar="GROUP", help="a Hydra group whose options are the engines")
    init.add_argument("--settings", dest="init_settings", metavar="FILE",
                      help="write a standalone settings TOML instead of [tool.config-harness] in ./pyproject.toml")
    init.add_argument("--snapshot-dir", dest="init_snapshot_dir", metavar="DIR",
                      help="where goldens go (default: config-harness/snapshots next to the settings file)")
    init.add_argument("--contracts", dest="init_contracts", metavar="FILE",
                      help="the contracts file (default: config-harness/contracts.yaml); created empty when absent")
    init.add_argument("--version-base", choices=["1.1", "1.2", "1.3", "none"],
                      help="Hydra's version_base (default: the application's @hydra.main, else guessed from its files)")
    init.add_argument("--roots", action="append", metavar="GLOB",
                      help="which configs may be roots, as globs below the config folder (default: *.yaml; repeatable)")
    init.add_argument("--preset", action="append", metavar="NAME=OVERRIDES",
                      help="a preset, e.g. 'mappo=algorithm=mappo task=vmas/balance', for roots that need overrides (repeatable)")
    init.add_argument("--search-path", action="append", metavar="DIR", help="another config folder, searched after it (repeatable)")
    init.add_argument("--verbose", action="store_true", help="give Hydra's whole message for each config left out")

    fetch = commands.add_parser("fetch", parents=[after], help="download the settings' [source] wheel and unpack its config tree")
    fetch.add_argument("--force", action="store_true")
    fetch.add_argument("--wheel", help="another requirement than the settings' (e.g. verl==0.8.0); needs --into")
    fetch.add_argument("--into", help="where to unpack --wheel")
    fetch.add_argument("--unpack", help="the folder of the wheel to unpack (default: the settings' [source] unpack, else all)")
    return parser


def add_global_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every command takes, before or after the command's name."""
    parser.add_argument("--settings", help="standalone TOML settings (default: [tool.config-harness] in ./pyproject.toml)")
    parser.add_argument("--config-dir", help="override config_dir for this run")
    parser.add_argument("--snapshot-dir", help="override snapshot_dir for this run")
    parser.add_argument("--contracts", action="append", help="override the contracts list (repeatable)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse and composition cache")
    parser.add_argument("--cache-dir", help="the cache folder (default: CONFIG_HARNESS_CACHE_DIR, else ~/.cache/config-harness)")
    parser.add_argument("--jobs", type=int, help="worker processes (default: one per core)")


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings with the command line's path overrides applied."""
    settings = load_settings(args.settings)
    settings = with_overrides(settings, args.config_dir, args.snapshot_dir, args.contracts, args.no_cache, args.jobs)
    return settings if args.no_cache else replace(settings, cache_dir=cache_dir_from(args))


def cache_dir_from(args: argparse.Namespace) -> Path | None:
    """The cache folder chosen by the command line or the environment (never by project files); None: off."""
    if args.no_cache:
        return None
    if args.cache_dir is not None:
        return Path(args.cache_dir).resolve() if args.cache_dir else None
    return default_cache_dir()


def command_list(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    with open_matrix(settings) as (_, all_cases):
        cases = select_cases(all_cases, args.case)
        if not cases and not (settings.command_globs and (args.case or "").startswith("cmd/")):
            raise UsageError(f"--case {args.case!r} matches no case{case_hint(args.case, [c.id for c in all_cases])}")
        rows = [
            {
                "id": case.id,
                "config_name": case.config_name,
                "overrides": list(case.overrides),
                "golden": display_path(settings.snapshot_dir / case.golden_name),
            }
            for case in cases
        ]
    rows += launch_rows(settings, args.case)
    if args.format == "json":
        print(to_json({"schema_version": SCHEMA_VERSION, "cases": rows}))
    else:
        for row in rows:
            where = row.get("golden") or row.get("source")
            say(f"{row['id']:<48} {where}  [{' '.join(row['overrides'])}]" + (f"  not extracted: {row['reason']}" if row.get("reason") else ""))
    return EXIT_OK


def launch_rows(settings: Settings, case_glob: str | None) -> list[dict[str, Any]]:
    """`list` rows of the settings' launch commands (issue 24): one per launch found, extracted or not."""
    from fnmatch import fnmatchcase

    from harness.launches import NOT_EXTRACTED, discover

    rows: list[dict[str, Any]] = []
    for case in discover(settings) if settings.command_globs else []:
        if case_glob is not None and not fnmatchcase(case.id, case_glob):
            continue
        row: dict[str, Any] = {
            "id": case.id, "kind": "command", "source": case.launch.where, "config_name": case.config_name,
            "overrides": list(case.overrides), "extracted": case.problem_kind != NOT_EXTRACTED,
        }
        if case.problem:
            row["reason"] = case.problem
        rows.append(row)
    return rows


def command_check(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    run = Run(settings, GoldenFolder(settings.snapshot_dir), sourced=sourced_for(args.format), **contract_rules(settings, args))
    result = with_launches(settings, args, lambda glob: run_with_progress(Engine(run, glob)))
    print_result(result, args.format, verbose=args.verbose, quiet=args.quiet, steps=next_steps_for(args, settings))
    return EXIT_OK if result.ok else EXIT_FINDINGS


def next_steps_for(args: argparse.Namespace, settings: Settings) -> NextSteps:
    """What a failing report tells its reader to run: this run's own flags, with `generate` for `check`."""
    words = ["config-harness"]
    for flag in ("settings", "config_dir", "snapshot_dir"):
        if getattr(args, flag, None):
            words += [f"--{flag.replace('_', '-')}", getattr(args, flag)]
    for contracts in args.contracts or ():
        words += ["--contracts", contracts]
    words += ["generate"] + (["--case", args.case] if getattr(args, "case", None) else [])
    # pre-commit sets PRE_COMMIT=1 for its hooks and stashes unstaged files, goldens included.
    return NextSteps(shlex.join(words), display_path(settings.snapshot_dir), in_commit_hook=os.environ.get("PRE_COMMIT") == "1")


def with_launches(settings: Settings, args: argparse.Namespace, run_cases: Any, base: str | None = None) -> MatrixResult:
    """The matrix's result plus the settings' launch commands as cases (issue 24), and their count line.

    `--case cmd/...` runs only launches; a review (`base`) tells each launch finding its origin at that ref.
    """
    from harness import launches
    from harness.moves import moved_paths

    glob = args.case
    only_launches = bool(glob) and glob.startswith("cmd/")
    result = MatrixResult(baseline="launch commands") if only_launches else run_cases(glob)
    if not settings.command_globs:
        if only_launches:
            raise UsageError(f"--case {glob!r}: the settings have no [[commands]]")
        return result
    moves = moved_paths(f for r in result.cases for f in r.findings)
    command_glob = glob if only_launches else None
    if base is None:
        cases, counts = launches.check_commands(settings, moves, case_glob=command_glob)
    else:
        try:
            cases, counts = launches.review_commands(settings, base, moves, case_glob=command_glob)
        except GitError as error:
            raise UsageError(str(error)) from None
    result.cases += cases
    if args.format == "text" and not getattr(args, "quiet", False):
        say(counts.line())
    return result


def contract_rules(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    """The settings' contracts (and target checks, with their `python_sources`) as a Run's rules, and for its
    run-level findings (changes, stale waivers). In a review the settings are the base's (harness.review_rules),
    so which Python sources are read is never the pull request's choice."""
    contract_set = load_contracts(settings.contracts, settings.read_scope)
    rules = case_rules(settings, contract_set)
    return {
        "rules": rules.checks,
        "refiners": rules.refiners,
        "contracts": contract_set,
        "strict_waivers": getattr(args, "strict_waivers", False),
    }


def print_result(result: MatrixResult, output_format: str, verbose: bool = False, quiet: bool = False,
                 title: str | None = None, base: str | None = None, steps: NextSteps | None = None) -> None:
    """Print a run's result in the chosen format; a title marks a review (or a tree diff)."""
    options = ReportOptions(verbose=verbose, quiet=quiet, color=wants_color(sys.stdout), title=title or "config-harness",
                            review=title is not None, base=base, steps=steps)
    print(reporter(output_format).render(result, options), end="")


def run_with_progress(engine: Engine) -> MatrixResult:
    """The engine over every selected case, drawing a progress bar on stderr at a terminal."""
    progress = Progress(sys.stderr)
    try:
        return engine.run(on_start=progress.start, on_done=lambda case: progress.advance(case.id))
    finally:
        progress.close()


def command_generate(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    run = Run(settings, GoldenFolder(settings.snapshot_dir), keep_rendered=not args.check, **contract_rules(settings, args))
    engine = Engine(run, args.case)
    result = run_with_progress(engine)
    if args.check:
        stale = [r for r in result.cases if r.status in (Status.CHANGED, Status.NEW)]
        for r in stale:
            say(f"would change: {r.golden} ({r.status})")
        for orphan_name in result.orphans:
            say(f"orphan golden (no case): {orphan_name}")
        say(f"{len(stale)} of {len(result.cases)} goldens would change")
        return EXIT_FINDINGS if stale or not result.ok else EXIT_OK
    # Writing is a step of its own, after checking: only cases that composed and differ are rewritten.
    pending = {r.golden: r.status for r in result.cases}
    written = engine.write(result, prune=args.prune)
    for golden in written:
        say(f"wrote {golden}")
    new = sum(pending[golden] == Status.NEW for golden in written)
    errors = sum(r.status == Status.ERROR and r.golden not in written for r in result.cases)
    unchanged = len(result.cases) - len(written) - errors
    say(f"{len(written)} golden(s) written: {new} new, {len(written) - new} changed; {unchanged} unchanged; {errors} error(s)")
    print_result(result, "text", quiet=True)
    # Orphans are reported but do not fail a generate; --prune removes them.
    return EXIT_FINDINGS if any(r.failed for r in result.cases) else EXIT_OK


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


def command_diff(args: argparse.Namespace) -> int:
    if args.base is not None:
        if args.old or args.new:
            raise UsageError("diff takes either OLD NEW or --base REF, not both")
        return review_report(args)
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
        return tree_report(args, settings, old, new)
    changes = diff_paths(old, new)
    said = {"files": "file diff", "goldens": "golden diff (same-named goldens of two snapshot folders)"}[mode]
    if args.format == "json":
        print(to_json({"schema_version": SCHEMA_VERSION, "mode": mode, "changes": changes}))
    elif args.format == "markdown":
        print(changes_markdown(f"{code_span(args.old, False)} → {code_span(args.new, False)} ({said})", changes), end="")
    else:
        say(f"{said}: {args.old} -> {args.new}")
        for row in changes:
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


def _tree_side(settings: Settings, tree: Path) -> Settings:
    """The settings for one tree of a tree diff: only the roots and routes whose config the tree has."""
    folders = (tree, *settings.search_path)

    def has(name: str) -> bool:
        return any((folder / f"{name}.yaml").is_file() for folder in folders)

    return replace(
        settings, config_dir=tree.resolve(),
        roots=tuple(root for root in settings.roots if has(root)),
        routes=tuple(route for route in settings.routes if has(route.config_name)),
    )


def review_exit(result: MatrixResult) -> int:
    """A review fails only on an unwaived contract error, a contract change without a reason, or a broken case."""
    return EXIT_OK if result.ok else EXIT_FINDINGS


def tree_report(args: argparse.Namespace, settings: Settings, old: Path, new: Path) -> int:
    """Every case of the matrix composed from two config trees, compared on the engine (the upgrade report).

    Each side has the cases whose root (or route) config it holds: one only the new tree has is `new`, one
    only the old tree has is `gone`.
    """
    head = _tree_side(settings, new)
    run = Run(head, baselines.on_disk(_tree_side(settings, old), old), sourced=sourced_for(args.format, review=True), strict=False, **contract_rules(head, args))
    result = run_with_progress(Engine(run, args.case))
    title = markdown_text(args.title) if args.title else f"{code_span(str(old), False)} → {code_span(str(new), False)}"
    print_result(result, args.format, verbose=args.verbose, title=title, steps=next_steps_for(args, head))
    return review_exit(result)


def review_report(args: argparse.Namespace) -> int:
    """The working tree against git REF: its goldens, or its tree composed where it has none, under REF's rules."""
    head = settings_from(args)
    try:
        commit = gitrepo.verify_ref(gitrepo.toplevel(head.origin), args.base)
        base_table, base_settings = baselines.settings_at(head, commit)
        if base_settings is not None:
            base_settings = replace(base_settings, cache_dir=head.cache_dir, jobs=head.jobs)
        rules = rules_for_review(head, base_settings, settings_table(head), base_table, args.base)
        baseline = baselines.at_ref(rules.settings, args.base, compose_base=args.compose_base, base_settings=base_settings)
    except GitError as error:
        raise UsageError(str(error)) from None
    base_texts = baseline.contract_texts()
    base_rules = case_rules(rules.settings, read_contract_files(base_texts)).checks if base_texts is not None else ()
    run = Run(rules.settings, baseline, sourced=sourced_for(args.format, review=True), strict=False, review=rules,
              base_rules=base_rules, **contract_rules(rules.settings, args))
    result = with_launches(rules.settings, args, lambda glob: run_with_progress(Engine(run, glob)), base=args.base)
    title = markdown_text(args.title) if args.title else f"config-harness review against {code_span(args.base, False)}"
    print_result(result, args.format, verbose=args.verbose, title=title, base=args.base, steps=next_steps_for(args, rules.settings))
    return review_exit(result)


def one_case(cases: list[Case], pattern: str) -> Case:
    """The case an id names (or the single case a glob matches)."""
    exact = [case for case in cases if case.id == pattern]
    matching = exact or select_cases(cases, pattern)
    if len(matching) != 1:
        found = f"no case{case_hint(pattern, [c.id for c in cases])}" if not matching else (
            f"{len(matching)} cases ({', '.join(c.id for c in matching[:4])}, ...)")
        raise UsageError(f"--case {pattern!r} matches {found}; name exactly one, see `config-harness list`")
    return matching[0]


def command_log(args: argparse.Namespace) -> int:
    from harness.history import HistoryError, key_history

    settings = settings_from(args)
    try:
        changes = key_history(settings, args.key, args.case, args.since)
    except (GitError, HistoryError) as error:
        raise UsageError(str(error)) from None
    if args.format == "json":
        print(to_json({"schema_version": SCHEMA_VERSION, "key": args.key, "case": args.case, "changes": [vars(c) for c in changes]}))
        return EXIT_OK
    for change in changes:
        old = diff.describe_value(change.old) if change.old_present else ABSENT
        new = diff.describe_value(change.new) if change.new_present else ABSENT
        say(f"{change.commit[:12]} {change.date[:10]} {old} -> {new}  {change.subject}")
    say(f"{len(changes)} change(s) of {args.key} in {args.case}")
    return EXIT_OK


def command_explain(args: argparse.Namespace) -> int:
    from harness.provenance import leaf_sources, override_for, writes_of
    from harness.render import to_plain
    from harness.resolve import MISSING, effective_value, is_interpolation, lookup, referenced_keys

    settings = settings_from(args)
    if args.case.startswith("cmd/"):
        from harness.launches import explain_command

        try:
            for line in explain_command(settings, args.case, args.key):
                say(line)
        except ValueError as error:
            raise UsageError(str(error)) from None
        return EXIT_OK
    with open_matrix(settings) as (session, cases):
        case = one_case(cases, args.case)
        (composed,) = session.compose_cases([case], shared_stems=False)
        if composed.config is None:
            raise UsageError(f"{case.id}: {composed.error}")
        tree = to_plain(composed.config)
        final = lookup(tree, args.key)
        if final is MISSING:
            return explain_python_default(settings, tree, args.key, case)
        writes = writes_of(session, case, args.key)
        depends = referenced_keys(args.key, final) if is_interpolation(final) else []
        sources = leaf_sources(session, case) if depends else {}
    say(f"{args.key} = {diff.describe_value(final)}   (case {case.id})")
    override = override_for(case, args.key)
    if override:
        say(f"  set by override: {override}")
    for index, write in enumerate(reversed(writes)):
        role = "set by" if index == 0 and not override else "overrode"
        entry = f"{write.package + ': ' if write.package else ''}{write.config_path}"
        where = display_path(write.file or settings.config_dir) + (f":{write.line}" if write.line else "")
        say(f"  {role:<8} {where}  [defaults entry {entry}] = {diff.describe_value(write.value)}")
    for key in depends:
        value = lookup(tree, key)
        shown = "missing" if value is MISSING else diff.describe_value(value)
        origin = f"  (set by {sources[key]})" if key in sources else ""
        say(f"  depends on {key} = {shown}{origin}")
    if is_interpolation(final):
        say(f"  resolves to: {diff.describe_value(effective_value(composed.config, tree, args.key))}")
    return EXIT_OK


def explain_python_default(settings: Settings, tree: Any, key: str, case: Case) -> int:
    """A key the YAML lacks: the Python default the program takes for it, when the node's class declares one."""
    from harness.targets import program_view

    view = program_view(settings)
    filled = view.filled(tree, key) if view is not None else None
    if filled is None:
        raise UsageError(f"{key} does not exist in case {case.id}{did_you_mean(key, key_paths(tree))}")
    value = view.value_at(tree, key) if view is not None else None
    shown = diff.describe_value(value) if filled.default.literal else filled.default.describe()
    say(f"{key}: not in the config; the program uses the Python default {shown} ({filled.where})   (case {case.id})")
    say(f"  declared by {filled.param.owner}; the node {filled.node.path or '(root)'} builds {filled.signature.qualname}")
    return EXIT_OK


def command_lock(args: argparse.Namespace) -> int:
    from harness.lock import LockRefused, derive_contract, plan_lock
    from harness.render import dump_yaml, to_plain

    settings = settings_from(args)
    with open_matrix(settings) as (session, cases):
        by_id = {case.id: case for case in cases}
        for wanted in (args.baseline, args.target):
            if wanted not in by_id:
                raise UsageError(f"no case {wanted!r}{case_hint(wanted, by_id)}; see `config-harness list`")
        trees = {}
        for composed in session.compose_cases([by_id[args.baseline], by_id[args.target]], shared_stems=False):
            if composed.config is None:
                raise UsageError(f"{composed.case.id}: {composed.error}")
            trees[composed.case.id] = to_plain(composed.config)
    contract = derive_contract(args.name, args.cases, trees[args.baseline], trees[args.target])
    if not args.output:
        print(
            f"# Derived by `config-harness lock --baseline {args.baseline} --target {args.target}` from {settings.config_dir.name}\n"
            + dump_yaml({"contracts": [contract]}),
            end="",
        )
        return EXIT_OK
    from harness.reader import read_text
    from harness.writer import write_atomic

    output = Path(args.output)
    try:
        existing = read_text(output)
    except FileNotFoundError:
        existing = None
    except UnicodeDecodeError as error:
        raise UsageError(f"{output}: not UTF-8 (offset {error.start})") from None
    try:
        plan = plan_lock(existing, output, contract, by_id, args.reason)
    except LockRefused as refused:
        raise UsageError(f"{output}: {refused}") from None
    write_atomic(output, plan.text)
    for line in plan.summary():
        say(line)
    say(f"wrote {args.output}: {len(contract['require'])} required, {len(contract['equal'])} pinned")
    return EXIT_OK


def command_cache(args: argparse.Namespace) -> int:
    """Show or clear the per-user cache; needs no project (the folder comes from flags or the environment)."""
    folder = cache_dir_from(args)
    if folder is None:
        say("cache: off")
        return EXIT_OK
    if not folder.exists():
        say(f"{folder}: empty (not created yet)")
        return EXIT_OK
    try:
        open_folder(folder)
    except CacheRefused as error:
        raise UsageError(f"cache folder refused: {error}") from None
    found = list(cache_entries(folder))
    if args.clear:
        for entry in found:
            Path(entry.path).unlink(missing_ok=True)
        say(f"cleared {len(found)} entries from {folder}")
    else:
        size = sum(entry.stat(follow_symlinks=False).st_size for entry in found)
        say(f"{folder}: {len(found)} entries, {size // 1024} KiB (cap {limit_bytes() // (1024 * 1024)} MiB), key {key_path(folder)}")
    return EXIT_OK


def command_fetch(args: argparse.Namespace) -> int:
    from harness.fetch import fetch_source
    from harness.settings import Source

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
    say(fetch_source(source, force=args.force), sys.stderr)
    return EXIT_OK


def command_init(args: argparse.Namespace) -> int:
    from harness.adopt import AdoptError, adopt, describe
    from harness.settings import default_cache_dir

    config_dir = args.init_config_dir or args.config_dir
    if not config_dir:
        raise UsageError("init needs --config-dir DIR, the folder that holds the Hydra configs")
    settings_file = args.init_settings or args.settings or "pyproject.toml"
    snapshot_dir = args.init_snapshot_dir or args.snapshot_dir
    contracts = args.init_contracts or (args.contracts[-1] if args.contracts else None)
    try:
        adoption = adopt(
            Path(config_dir),
            Path(settings_file),
            engine_group=args.engine_group,
            snapshot_dir=Path(snapshot_dir) if snapshot_dir else None,
            contracts_file=Path(contracts) if contracts else None,
            cache_dir=None if args.no_cache else default_cache_dir(),
            version_base=args.version_base,
            roots_glob=args.roots or (),
            presets=args.preset or (),
            search_path=[Path(folder) for folder in args.search_path or ()],
            verbose=args.verbose,
        )
    except AdoptError as error:
        raise UsageError(str(error)) from None
    for line in describe(adoption, shown=display_path):
        say(line)
    return EXIT_OK


COMMANDS = MappingProxyType({
    "init": command_init,
    "list": command_list,
    "check": command_check,
    "generate": command_generate,
    "diff": command_diff,
    "explain": command_explain,
    "log": command_log,
    "lock": command_lock,
    "cache": command_cache,
    "fetch": command_fetch,
})


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
    try:
        # Every cache, recorder and scratch folder of this command, gone when it returns; every resolution in it
        # runs under the one resolver policy (no host value reaches any output or file).
        with Session(), resolution_policy():
            return COMMANDS[args.command](args)
    except BAD_INPUT as error:
        say(f"config-harness: error: {_usage_message(error)}", sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("config-harness: interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # a path the user gave (or the disk) refused: unusable input, not a bug
        say(f"config-harness: error: {_usage_message(error)}", sys.stderr)
        return EXIT_USAGE
    except Exception as error:
        return _report_internal_error(error)
