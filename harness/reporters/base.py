"""What a report format is: the `Reporter` protocol and the options every format reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from harness.model.findings import MatrixResult, Severity


@dataclass(frozen=True)
class NextSteps:
    """What a failing run should tell its reader to do next, from facts only the shell knows."""

    regenerate: str = "config-harness generate"  # the exact command that rewrites the goldens of this run
    goldens: str = "snapshots"  # the snapshot folder, as the reader's shell would name it
    in_commit_hook: bool = False  # pre-commit checks the staged files: goldens written but not staged still differ
    generate: str = "config-harness generate"  # `generate` with this run's settings: it also writes the record of config writes


@dataclass(frozen=True)
class ReportOptions:
    """How one report is rendered; every format reads what it needs and ignores the rest."""

    verbose: bool = False  # list what is folded or counted (waived warnings, refactors, subtrees, info)
    quiet: bool = False  # only errors, the next step and the verdict
    color: bool = False  # ANSI colors, for a terminal
    title: str = "config-harness"  # a markdown heading, already markdown (the caller escapes input in it)
    review: bool = False  # differences are news (a review or a tree diff), not failures; info is the content
    base: str | None = None  # the git ref a review compared with, for formats that carry it
    steps: NextSteps | None = None  # without it a failing report names no next step


@dataclass(frozen=True)
class CaseList:
    """`list`'s answer: a row per case and launch (the interface's fields), and each program the scripts run that is
    no Hydra application, with why and the commands that run it."""

    rows: tuple[Mapping[str, Any], ...]
    not_launches: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class KeyHistory:
    """`log`'s answer: the commits where one key's composed value changed in one case (a `harness.baselines.history.KeyLog`)."""

    key: str
    case: str
    log: Any


class Reporter(Protocol):
    """One report format: a name for `--format`, what the engine must find out for it, and the rendering."""

    name: str
    # Severities whose findings must say which file sets their value (it costs a provenance pass per case).
    sourced: frozenset[Severity]
    # How the whole output is guarded before it is printed: text, markdown, json, xml or github (escape.py).
    sink: str

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The whole report, ending with a newline."""
        ...
