"""The runner of the docs' examples: every fenced block of README.md and docs/*.md, through Sybil.

Sybil finds the blocks (its Markdown lexers) and keeps their order and their skip markers; this module says
what each kind of block means:

- ```` ```console ````: a shell session. A line starting with `$ ` is a command (a trailing `\\` continues it on
  the next line), run with bash in the document's workspace; the lines up to the next `$ ` are its output
  (stdout and stderr as a terminal shows them). `...` alone on a line matches any number of lines, and `...`
  inside a line any text. Paths of the workspace and of the scratch cache folder are normalized (to `...` and
  `~/.cache/config-harness`), and so are timings (`4.7 s`, `120 ms`). A command with the comment `# exit N`
  must exit N.
- `<!-- invisible-code-block: console ... -->` (Sybil's hidden block): a session run like a console block that the
  rendered page does not show, for setup the page only mentions.
- ```` ```yaml title="conf/train.yaml" ```` (any language, with a `title`): a file the reader writes; the runner
  writes it into the workspace (so the console blocks after it run on it), and parses it as below.
- ```` ```python ````, ```` ```toml ````, ```` ```yaml ````: parsed (`ast`, `tomllib`, PyYAML's safe loader).
- `<!-- docs-workspace: verl REF -->`: the console blocks after it run in a clone of verl's whole repository
  (`../shared/data/verl-full.bundle`) at REF, in the e2e tier only (`make test-e2e`); the default workspace is
  an empty scratch folder, in the quick tier (`make test`).
- An untagged, `text`, `shell` or `bash` block whose first line is `$ ...`: a failure (a session the runner would
  miss); tag it `console`, or opt out.
- `<!-- skip: next "why" -->` (Sybil's own marker): the next block is not run, and the reason is reported.
  A skip without a reason is an error: an opt-out says why.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from unittest import SkipTest

import yaml
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, RawFencedCodeBlockLexer

ROOT = Path(__file__).resolve().parents[1]
QUICK, E2E = "quick", "e2e"
COMMAND_TIMEOUT = 900  # seconds; a verl-sized check takes seconds, a review of verl's tree under a minute


def documents() -> list[Path]:
    """The Markdown files whose examples are run: the README and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def verl_bundle() -> Path | None:
    """verl's whole repository at five tagged commits, from the team's shared data folder: beside the checkout
    (`../shared/data`, as CI lays it out), or beside the main checkout of a git worktree."""
    candidates = [Path(os.environ.get("CONFIG_HARNESS_TEST_DATA") or ROOT.parent / "shared" / "data") / "verl-full.bundle"]
    common = subprocess.run(
        ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    if common:
        candidates.append(Path(common).parent.parent / "shared" / "data" / "verl-full.bundle")
    return next((path for path in candidates if path.is_file()), None)


class OtherTier(Exception):
    """The example runs in the other test tier."""


@dataclass
class Outcome:
    """What running one document's examples gave, example by example (`FILE:LINE`)."""

    ran: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (where, the marker's reason)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (where, what differed)
    commands: int = 0  # console commands run

    def report(self) -> str:
        lines = [f"{where}: {why}" for where, why in self.failed]
        return "\n\n".join(lines)


# --- console blocks -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    text: str
    expected: str
    line: int  # of the `$ ` line, counted from the block's first line (0)
    exit_code: int | None


EXIT_COMMENT = re.compile(r"#\s*exit (\d+)\b")
TIMING = re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b")


def commands_of(block: str) -> list[Command]:
    """The commands of a console block with the output each shows."""
    commands: list[Command] = []
    lines = block.splitlines()
    index = 0
    while index < len(lines):
        if not lines[index].startswith("$ "):
            raise ValueError(f"console block line {index + 1}: output before the first `$ ` command: {lines[index]!r}")
        start, text = index, lines[index][2:]
        while text.endswith("\\") and index + 1 < len(lines):
            index += 1
            text += "\n" + lines[index]  # bash reads the backslash-newline as the same command
        index += 1
        output = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        code = EXIT_COMMENT.search(text)
        commands.append(Command(text, "\n".join(output), start, int(code.group(1)) if code else None))
    return commands


def pattern_of(expected: str) -> re.Pattern[str]:
    """The shown output as a pattern: `...` alone on a line is any lines, `...` in a line any text."""
    parts = []
    for line in _normalized(expected).split("\n") if expected.strip() else []:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts), re.DOTALL)


def _normalized(text: str) -> str:
    lines = [TIMING.sub("<time>", line.rstrip()) for line in text.rstrip("\n").split("\n")]
    return "\n".join(lines)


def matches(expected: str, actual: str) -> bool:
    actual = _normalized(actual) + "\n" if actual.strip() else ""
    return pattern_of(expected).fullmatch(actual) is not None


def _environment(workspace: Path, cache: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("CONFIG_HARNESS_", "PYTEST_"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",  # this checkout's config-harness
        CONFIG_HARNESS_CACHE_DIR=str(cache),
        NO_COLOR="1",
        COLUMNS="100",
        LC_ALL="C.UTF-8",
        PWD=str(workspace),
        GIT_AUTHOR_NAME="docs",
        GIT_AUTHOR_EMAIL="docs@example.invalid",
        GIT_COMMITTER_NAME="docs",
        GIT_COMMITTER_EMAIL="docs@example.invalid",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def _shown(actual: str, workspace: Path, cache: Path) -> str:
    """The output as the docs show it: the scratch folders' paths normalized."""
    return actual.replace(str(cache), "~/.cache/config-harness").replace(str(workspace), "...")


def run_console(example: Example) -> str | None:
    workspace = _workspace(example)
    cache = example.namespace["scratch"] / "cache"
    failures = []
    for command in commands_of(example.parsed):
        completed = subprocess.run(
            ["bash", "-c", command.text],
            cwd=workspace,
            env=_environment(workspace, cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
        example.namespace["outcome"].commands += 1
        actual = _shown(completed.stdout, workspace, cache)
        where = f"line {example.line + 1 + command.line}: $ {command.text}"
        if command.exit_code is not None and completed.returncode != command.exit_code:
            failures.append(f"{where}\n  exit {completed.returncode}, the docs say {command.exit_code}; it printed:\n{actual}")
        elif not matches(command.expected, actual):
            failures.append(f"{where}\n--- the docs show\n{command.expected}\n--- it printed (exit {completed.returncode})\n{actual}")
    return "\n".join(failures) or None


# --- workspaces ----------------------------------------------------------------------------------------------


def _workspace(example: Example) -> Path:
    """The folder the document's commands run in and its files are written to, made on first use."""
    namespace = example.namespace
    spec = namespace.get("workspace_spec", ("scratch",))
    tier = E2E if spec[0] == "verl" else QUICK
    if tier != namespace["tier"]:
        raise OtherTier(tier)
    if namespace.get("workspace") is None:
        # Each `docs-workspace` marker of a document starts a folder of its own (a README adopts at two commits).
        namespace["workspaces"] = namespace.get("workspaces", 0) + 1
        folder = namespace["scratch"] / ("workspace" if namespace["workspaces"] == 1 else f"workspace-{namespace['workspaces']}")
        if spec[0] == "verl":
            bundle = verl_bundle()
            if bundle is None:
                raise SkipTest("verl's bundle (../shared/data/verl-full.bundle) is absent: the verl examples cannot run")
            subprocess.run(["git", "clone", "--quiet", str(bundle), str(folder)], check=True)
            subprocess.run(["git", "-C", str(folder), "checkout", "--quiet", spec[1]], check=True)
        else:
            folder.mkdir(parents=True)
        namespace["workspace"] = folder
    return namespace["workspace"]


def set_workspace(example: Example) -> str | None:
    words = example.parsed.split()
    if not words or words[0] not in ("scratch", "verl") or (words[0] == "verl") != (len(words) == 2):
        return f"docs-workspace takes `scratch` or `verl REF`, not {example.parsed!r}"
    namespace = example.namespace
    if tuple(words) != namespace.get("workspace_spec", ("scratch",)):
        namespace["workspace_spec"], namespace["workspace"] = tuple(words), None
    return None


def workspace_parser(document: Document):
    lexer = DirectiveInHTMLCommentLexer(directive="docs-workspace", arguments=".+?")
    for region in lexer(document):
        region.parsed = region.lexemes["arguments"]
        region.evaluator = set_workspace
        yield region


# --- files and parsed blocks ---------------------------------------------------------------------------------


def parse_text(language: str, text: str) -> str | None:
    """None when the block parses as its language, else why not."""
    try:
        if language in ("python", "py"):
            ast.parse(text)
        elif language == "toml":
            tomllib.loads(text)
        elif language == "yaml":
            yaml.safe_load(text)
    except (SyntaxError, tomllib.TOMLDecodeError, yaml.YAMLError) as error:
        return f"a {language} block that does not parse: {' '.join(str(error).split())}"
    return None


def parse_block(example: Example) -> str | None:
    return parse_text(example.region.lexemes["arguments"], example.parsed)


def write_file(example: Example) -> str | None:
    language, title = example.region.lexemes["language"], example.region.lexemes["title"]
    problem = parse_text(language, example.parsed)
    if problem:
        return problem
    workspace = _workspace(example)
    target = (workspace / title).resolve()
    if not target.is_relative_to(workspace.resolve()):
        return f"title {title!r} leads outside the workspace"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(example.parsed, encoding="utf-8")
    return None


TITLED = re.compile(r'(?P<language>\w+) +title="(?P<title>[^"]+)"[^\n]*$\n', re.MULTILINE)


def file_parser(document: Document):
    for region in RawFencedCodeBlockLexer(info_pattern=TITLED)(document):
        region.parsed = region.lexemes["source"]
        region.evaluator = write_file
        yield region


UNTAGGED = re.compile(r"(?P<language>(?:text|shell|sh|bash)?)$\n", re.MULTILINE)


def untagged_session_parser(document: Document):
    """A shell session (a first line `$ ...`) in a block that is not ```console would escape the runner: it fails,
    asking for the tag (or an opt-out)."""
    for region in RawFencedCodeBlockLexer(info_pattern=UNTAGGED)(document):
        if str(region.lexemes["source"]).startswith("$ "):
            region.parsed = region.lexemes["source"]
            region.evaluator = lambda example: (
                'a shell session outside a ```console block is not run: tag the block console, or opt out with <!-- skip: next "why" -->'
            )
            yield region


def skip_parser(document: Document):
    """Sybil's skip marker, with a reason required."""
    for region in SkipParser()(document):
        action, reason = region.parsed
        if action in ("next", "start") and not reason:
            yield Region(
                region.start, region.end, None, lambda example: 'an opt-out marker without a reason: write <!-- skip: next "why" -->'
            )
        else:
            yield region


SYBIL = Sybil(
    parsers=[
        skip_parser,
        workspace_parser,
        file_parser,
        untagged_session_parser,
        CodeBlockParser(language="console", evaluator=run_console),
        *(CodeBlockParser(language=language, evaluator=parse_block) for language in ("python", "toml", "yaml")),
    ],
    path=str(ROOT),
)


def run_document(path: Path, tier: str, scratch: Path) -> Outcome:
    """Run every example of one document that belongs to `tier`, in order, in a scratch folder of its own."""
    document = SYBIL.parse(path)
    outcome = Outcome()
    document.namespace.update(tier=tier, scratch=scratch, outcome=outcome)
    for example in document:
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{example.line}"
        try:
            example.evaluate()
        except OtherTier:
            continue
        except SkipTest as skip:
            outcome.skipped.append((where, str(skip)))
            continue
        except AssertionError as failure:  # Sybil's SybilFailure: the evaluator's message
            outcome.failed.append((where, getattr(failure, "result", str(failure))))
            continue
        except (ValueError, subprocess.SubprocessError, OSError) as error:
            outcome.failed.append((where, f"{type(error).__name__}: {error}"))
            continue
        outcome.ran.append(where)
    for folder in scratch.glob("workspace*"):
        shutil.rmtree(folder, ignore_errors=True)
    return outcome
