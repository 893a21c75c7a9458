"""What the command modules share: exit codes, the usage error, the flags, and the run-and-report helpers."""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, Protocol

from harness.composition.cases import select_cases
from harness.composition.shards import Shard, ShardError
from harness.gates import linear
from harness.gates.confine import UnsafeInput, project_root
from harness.gates.errors import BadInput, ExitCode
from harness.gates.escape import code_span, json_text, markdown_text, no_workflow_commands, printable
from harness.gates.writer import write_atomic
from harness.model.findings import MatrixResult
from harness.model.hints import case_hint, did_you_mean
from harness.model.matrix import Case
from harness.model.settings import Settings, default_cache_dir, display_path, load_settings, with_overrides
from harness.reporters import FORMATS, CaseList, KeyHistory, NextSteps, ReportOptions, formats_for, render_answer, reporter, sourced_for
from harness.reporters.terminal import Progress, wants_color
from harness.rules.contracts import ContractSet
from harness.runner.run import RuleSet, Runner


class UsageError(BadInput):
    """Bad input that ends the run with exit code 2 and one line per problem."""


def say(line: str, stream: Any = None) -> None:
    """Print one line through the text sink: whatever input it holds (names, values, messages, commit subjects)
    stays on that line, shown escaped, so no terminal escape or CI workflow command comes from input."""
    print(printable(line), file=stream or sys.stdout)


class Command(Protocol):
    """A subcommand module: its name, a one-line description (its help), the global flags it uses, its own
    flags, and what it does."""

    @property
    def NAME(self) -> str: ...  # module constants, read-only

    @property
    def HELP(self) -> str: ...

    @property
    def GLOBALS(self) -> tuple[str, ...]: ...  # (the global flags, by dest, whose value it reads)

    @property
    def AFTER(self) -> tuple[str, ...]: ...  # (of those, the ones it also takes after its name)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class Parser(argparse.ArgumentParser):
    """argparse with no prefix matching (`--verbos` is not `--verbose`: a typo must not pick a flag), and its usage
    errors in one line, exit 2, with "did you mean" for an unknown command, choice or flag, as case names and keys
    get it (harness.model.hints)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.flag_names: list[str] = []  # its `--flags`, and its commands' parsers: what "did you mean" chooses from
        self.commands: dict[str, Parser] = {}
        kwargs.setdefault("allow_abbrev", False)  # every parser: the subparsers and the flags' parents too
        super().__init__(*args, **kwargs)
        for parent in kwargs.get("parents", ()):
            self.flag_names += getattr(parent, "flag_names", [])

    def add_argument(self, *args: Any, **kwargs: Any) -> Any:
        action = super().add_argument(*args, **kwargs)
        self.flag_names += [option for option in action.option_strings if option.startswith("--")]
        return action

    def add_subparsers(self, **kwargs: Any) -> Any:
        action = super().add_subparsers(**kwargs)
        add_parser = action.add_parser

        def adding(name: str, **options: Any) -> Any:
            self.commands[name] = parser = add_parser(name, **options)
            return parser

        action.add_parser = adding  # type: ignore[method-assign]
        return action

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        # A flag before the command that no global flag is (`--setings x check`): argparse would take its value for
        # the command's name and name that instead.
        for word in words:
            if word in self.commands or word == "--":
                break
            if word.startswith("--") and word.partition("=")[0] not in self.flag_names:
                self.error(f"unrecognized arguments: {word}{did_you_mean(word.partition('=')[0], self.flag_names)}")
        parsed, unknown = self.parse_known_args(words, namespace)
        if unknown:
            flag = next((word.partition("=")[0] for word in unknown if word.startswith("-")), "")
            command = self.commands.get(getattr(parsed, "command", None) or "")
            flags = self.flag_names + (command.flag_names if command is not None else [])
            self.error(f"unrecognized arguments: {' '.join(unknown)}{did_you_mean(flag, flags) if flag else ''}")
        return parsed

    def error(self, message: str) -> NoReturn:  # one line, exit 2, like every other usage error
        choice = _INVALID_CHOICE.search(message)
        if choice is not None:
            message += did_you_mean(choice.group(1), linear.compile(r"'([^']*)'").findall(choice.group(2)))
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")


# argparse's words for a value outside `choices` (a command, a format): the value, then the choices it lists.
_INVALID_CHOICE = linear.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


GLOBAL_FLAGS = ("settings", "config_dir", "snapshot_dir", "contracts", "no_cache", "cache_dir", "jobs")  # by dest
ALL_GLOBAL_FLAGS = (*GLOBAL_FLAGS, "shard")
SETTINGS_FLAGS = GLOBAL_FLAGS[:4]  # they shape the settings a command loads
CACHE_FLAGS = ("no_cache", "cache_dir")
RUN_FLAGS = GLOBAL_FLAGS  # commands that run the engine over many cases use them all
SHARDED_FLAGS = (*RUN_FLAGS, "shard")  # check, generate and diff --base: their runs can be split (`--shard K/N`)


def add_global_flags(parser: argparse.ArgumentParser, dests: Sequence[str] = ALL_GLOBAL_FLAGS) -> None:
    """The global flags named by `dests`. Every command takes them all before its name (wrappers prepend them);
    after its name it takes only the ones it uses."""

    def add(dest: str, **options: Any) -> None:
        if dest in dests:
            parser.add_argument(flag_of(dest), dest=dest, **options)

    add("settings", metavar="FILE", help="standalone TOML settings (default: [tool.config-harness] in ./pyproject.toml)")
    add("config_dir", metavar="DIR", help="override config_dir for this run")
    add("snapshot_dir", metavar="DIR", help="override snapshot_dir for this run")
    add("contracts", action="append", metavar="FILE", help="override the contracts list (repeatable)")
    add("no_cache", action="store_true", help="do not read or write the parse and composition cache")
    add(
        "cache_dir",
        metavar="DIR",
        help="the cache folder (default: CONFIG_HARNESS_CACHE_DIR, else $XDG_CACHE_HOME/config-harness, else ~/.cache/config-harness)",
    )
    add("jobs", type=int, metavar="N", help="worker processes (default: one per core)")
    add(
        "shard",
        type=shard_flag,
        metavar="K/N",
        help="check, generate, diff --base: only shard K of N of the cases and launches (`merge` joins the shards' JSON)",
    )


def shard_flag(text: str) -> Shard:
    """`--shard K/N`, checked (argparse turns the error into one line and exit 2)."""
    try:
        return Shard.parse(text)
    except ShardError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--shard {text!r}: ")) from None


def flag_of(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def drop_ignored_globals(args: argparse.Namespace, used: Sequence[str], who: str | None = None) -> None:
    """Global flags given before the command's name that it (`who`: or one mode of it) does not use: named on
    stderr, and unset, so that they are ignored indeed (a wrapper may prepend the same global flags to every command)."""
    ignored = [dest for dest in ALL_GLOBAL_FLAGS if dest not in used and getattr(args, dest, None) not in (None, False)]
    for dest in ignored:
        setattr(args, dest, False if dest == "no_cache" else None)
    if ignored:
        flags = ", ".join(flag_of(dest) for dest in ignored)
        warn(f"{who or args.command} does not use {flags}: ignored")


def warn(message: str) -> None:
    """One line on stderr that does not change the outcome."""
    say(f"config-harness: warning: {message}", sys.stderr)


class Deprecated(argparse.Action):
    """An old spelling kept for one release: it does what `replacement` does and says so on stderr."""

    def __init__(self, option_strings: list[str], dest: str, replacement: str = "", append: bool = False, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.replacement, self.append = replacement, append

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None
    ) -> None:
        warn(f"{option_string} is deprecated, use {self.replacement} (the old spelling goes in the next release)")
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values] if self.append else values)


def add_case_flag(parser: argparse.ArgumentParser, what: str = "", one: bool = False) -> None:
    """`--case GLOB`, the same flag in every command: repeatable, the cases whose id matches any of the globs (an
    exact id is a glob that matches itself). A command that answers about `one` case requires it, and its globs
    must select exactly one case (`one_case`)."""
    if one:
        parser.add_argument(
            "--case",
            action="append",
            required=True,
            metavar="GLOB",
            help=f"the case to answer about{what}: its id, or globs that select exactly one case (repeatable: the union of the globs)",
        )
        return
    parser.add_argument(
        "--case", action="append", metavar="GLOB", help=f"only the cases whose id matches{what} (repeatable: the union of the globs)"
    )


def add_quiet(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--quiet", action="store_true", help=what)


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


def next_steps_for(args: argparse.Namespace, settings: Settings) -> NextSteps:
    """What a failing report tells its reader to run: this run's own flags, with `generate` for `check`."""
    words = ["config-harness"]
    for flag in ("settings", "config_dir", "snapshot_dir"):
        if getattr(args, flag, None):
            words += [f"--{flag.replace('_', '-')}", getattr(args, flag)]
    for contracts in args.contracts or ():
        words += ["--contracts", contracts]
    words.append("generate")
    for glob in getattr(args, "case", None) or ():
        words += ["--case", glob]
    # pre-commit sets PRE_COMMIT=1 for its hooks and stashes unstaged files, goldens included.
    command = shlex.join(words)
    return NextSteps(command, display_path(settings.snapshot_dir), in_commit_hook=os.environ.get("PRE_COMMIT") == "1", generate=command)


def rule_set_of(settings: Settings, args: argparse.Namespace, base: ContractSet | None = None) -> RuleSet:
    """The settings' rules for a Run, with the command line's `--strict-waivers` (harness.runner.run.RuleSet.of)."""
    return RuleSet.of(settings, strict_waivers=getattr(args, "strict_waivers", False), base=base)


def add_format_flags(parser: argparse.ArgumentParser, answer: str | None = None) -> None:
    """`--format` for standard output, and `--report FORMAT:FILE` (repeatable) for more reports of the same run, in
    every command that prints a report; both take the formats the registry has for the command's `answer`
    (None: a run's result, harness.reporters.ANSWERS)."""
    names = formats_for(answer)
    parser.add_argument("--format", choices=list(names), default="text", help="the report format on standard output")
    example = "sarif:results.sarif" if "sarif" in names else f"{names[-1]}:{answer}.{names[-1]}"
    parser.add_argument(
        "--report",
        action="append",
        type=functools.partial(report_target, names=names, example=example),
        default=[],
        metavar="FORMAT:FILE",
        help=f"also write the report in FORMAT to FILE, from the same run (repeatable: --report {example})",
    )


def report_target(text: str, names: Sequence[str] = tuple(FORMATS), example: str = "sarif:results.sarif") -> tuple[str, Path]:
    """`FORMAT:FILE` of `--report`, checked against the formats `names`."""
    name, separator, file = text.partition(":")
    if not separator or not file:
        raise argparse.ArgumentTypeError(f"{text!r} is not FORMAT:FILE (for example {example})")
    if name not in names:
        raise argparse.ArgumentTypeError(f"{name!r} is not a report format{did_you_mean(name, names)} (formats: {', '.join(names)})")
    return name, Path(file)


def sourced(args: argparse.Namespace, review: bool = False) -> frozenset[Any]:
    """The severities the engine sources for every report the command line asks for; a shard's, for every format
    (`merge` may print any of them from it)."""
    if getattr(args, "shard", None) is not None:
        return sourced_for(*FORMATS, review=review)
    return sourced_for(args.format, *(name for name, _ in args.report), review=review)


def print_result(
    result: MatrixResult,
    output_format: str | None,
    verbose: bool = False,
    quiet: bool = False,
    title: str | None = None,
    base: str | None = None,
    steps: NextSteps | None = None,
    reports: Sequence[tuple[str, Path]] = (),
    review: bool | None = None,
    shard: dict[str, Any] | None = None,
) -> None:
    """Print a run's result in the chosen format (None: print none), and write each `--report` file from the same
    result, each through its format's sink guard. `review`: differences are news, not failures (a review or a tree
    diff); by default a run with a title is one. `shard`: a sharded run's JSON carries it (what `merge` reads)."""
    for name, file in [*([(output_format, None)] if output_format else []), *reports]:
        options = ReportOptions(
            verbose=verbose,
            quiet=quiet,
            color=file is None and wants_color(sys.stdout),
            title=title or "config-harness",
            review=title is not None if review is None else review,
            base=base,
            steps=steps,
        )
        chosen = reporter(name)
        text = chosen.render(result, options)
        if shard is not None and name == "json":
            text = json_text({**json.loads(text), "shard": shard}) + "\n"
        _emit(name, file, no_workflow_commands(text, chosen.sink))


def print_answer(answer: str, document: CaseList | KeyHistory, args: argparse.Namespace) -> None:
    """Print an answer other than a run's result (`list`, `log`) in `--format`, and write each `--report` file."""
    options = ReportOptions(verbose=getattr(args, "verbose", False), quiet=args.quiet)
    for name, file in [(args.format, None), *args.report]:
        _emit(name, file, no_workflow_commands(render_answer(answer, name, document, options), reporter(name).sink))


def _emit(name: str, file: Path | None, text: str) -> None:
    """A report on standard output (no file), or written to its `--report` file inside the project."""
    if file is None:
        print(text, end="")
        return
    try:
        write_atomic(file, text, folder=_project_holding(file))
    except (OSError, UnsafeInput) as error:
        raise UsageError(f"--report {name}:{file}: cannot write it ({getattr(error, 'strerror', None) or error})") from None


def diff_title(args: argparse.Namespace, old: str, new: str) -> str:
    """The markdown heading of a diff of two things: `--title` (escaped), else `OLD` → `NEW`."""
    return markdown_text(args.title) if args.title else f"{code_span(old, False)} → {code_span(new, False)}"


def _project_holding(file: Path) -> Path | None:
    """The project a report file is named inside (as written, links not followed), or None: a report written there
    must land there, never through a link the project's tree (a pull request) committed to lead elsewhere."""
    written = Path(os.path.abspath(file))
    top = project_root(Path.cwd())
    return top if written.parent == top or top in written.parents else None


def run_with_progress(engine: Runner) -> MatrixResult:
    """The engine over every selected case, drawing a progress bar on stderr at a terminal."""
    progress = Progress(sys.stderr)
    try:
        result = engine.run(on_start=progress.start, on_done=lambda case: progress.advance(case.id))
    finally:
        progress.close()
    if engine.shard is not None:  # the report says this shard's part; the verdict is the merge's
        say(
            f"config-harness: shard {engine.shard}: {len(engine.selected)} of {len(engine.cases)} cases; "
            "`config-harness merge` of every shard's JSON result gives the run's verdict",
            sys.stderr,
        )
    return result


def review_exit(result: MatrixResult) -> int:
    """A review fails only on an unwaived contract error, a contract change without a reason, or a broken case."""
    return ExitCode.OK if result.ok else ExitCode.FINDINGS


def one_case(cases: list[Case], patterns: Sequence[str]) -> Case:
    """The case an id names (or the single case the union of the globs `--case` gave matches)."""
    exact = [case for case in cases if case.id == patterns[0]] if len(patterns) == 1 else []
    matching = exact or select_cases(cases, patterns)
    if len(matching) != 1:
        found = (
            f"no case{case_hint(patterns[0], [c.id for c in cases])}"
            if not matching
            else (f"{len(matching)} cases ({', '.join(c.id for c in matching[:4])}{', ...' if len(matching) > 4 else ''})")
        )
        raise UsageError(f"--case {', '.join(repr(p) for p in patterns)} matches {found}; name exactly one, see `config-harness list`")
    return matching[0]


def one_launch(patterns: Sequence[str]) -> str:
    """The one glob `--case cmd/...` gives for a launch (harness.runner.launches matches it)."""
    if len(patterns) != 1:
        raise UsageError(f"--case {', '.join(repr(p) for p in patterns)}: a launch is named by one --case")
    return patterns[0]
