"""The Python API: load the settings, run a check, render its report. Three functions over the one engine the
command line and the pytest plugin use, so a script gets the same findings, the same verdict and the same reports.

    >>> import harness
    >>> result = harness.check("harness.toml")          # doctest: +SKIP
    >>> result.ok, harness.report(result, "text")        # doctest: +SKIP

A result is frozen (`MatrixResult`: `cases`, each a `CaseResult` with its `findings`; `orphans`; run-level
`findings`); `result.ok` is exit code 0. Bad input raises `BadInput` (its message is the one line the CLI prints).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.model.findings import MatrixResult
from harness.model.settings import Settings, load_settings
from harness.reporters import reporter
from harness.reporters.base import ReportOptions
from harness.runner.run import RuleSet, Run, Runner

__all__ = ["check", "load", "report"]


def load(settings: str | Path | None = None, start: str | Path | None = None) -> Settings:
    """The settings of a standalone TOML file or a pyproject.toml (`settings`), else of the nearest pyproject.toml
    with a `[tool.config-harness]` table at or above `start` (the working folder by default)."""
    return load_settings(settings, start)


def check(settings: Settings | str | Path | None = None, cases: Sequence[str] = (), strict_waivers: bool = False) -> MatrixResult:
    """`config-harness check`: every case (or those whose id matches one of the `cases` globs) against its golden,
    with the settings' contracts and known findings; nothing is written."""
    chosen = settings if isinstance(settings, Settings) else load(settings)
    run = Run.check(chosen, RuleSet.of(chosen, strict_waivers=strict_waivers))
    return Runner(run, list(cases) or None).run()


def report(result: MatrixResult, format: str = "text", review: bool = False) -> str:
    """The report of a result in one of `--format`'s formats (text, json, markdown, github, sarif, junit, ...)."""
    return reporter(format).render(result, ReportOptions(review=review))
