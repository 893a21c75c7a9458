"""The Python API: load the settings, run a check, write the goldens, render a report. Four functions over the one
engine the command line and the pytest plugin use, so a script gets the same findings, the same verdict and the same
reports.

    >>> import harness
    >>> result = harness.check("harness.toml")          # doctest: +SKIP
    >>> result.ok, harness.report(result, "text")        # doctest: +SKIP

A result is frozen (`MatrixResult`: `cases`, each a `CaseResult` with its `findings`; `orphans`; run-level
`findings`); `result.ok` is exit code 0. Bad input raises `BadInput` (its message is the one line the CLI prints);
an argument of the wrong type or value raises `ArgumentError`, one of them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.gates.errors import BadInput
from harness.model.findings import MatrixResult
from harness.model.hints import did_you_mean
from harness.model.settings import Settings, load_settings
from harness.reporters import formats_for, reporter
from harness.reporters.base import ReportOptions
from harness.runner.run import RuleSet, Run, Runner

__all__ = ["ArgumentError", "check", "generate", "load", "report"]


class ArgumentError(BadInput, TypeError, ValueError):
    """An argument of the Python API that it cannot use: one line naming the argument, what it was and what it takes.
    It is a TypeError and a ValueError (as Python's own bad arguments are one or the other) and a `BadInput`, so the
    one `except harness.BadInput` of a script catches it with every other input the harness cannot use."""


def load(settings: str | os.PathLike[str] | None = None, start: str | os.PathLike[str] | None = None) -> Settings:
    """The settings of a standalone TOML file or a pyproject.toml (`settings`), else of the nearest pyproject.toml
    with a `[tool.config-harness]` table at or above `start` (the working folder by default)."""
    return load_settings(_path("settings", settings), _path("start", start))


def check(
    settings: Settings | str | os.PathLike[str] | None = None, cases: str | Sequence[str] = (), strict_waivers: bool = False
) -> MatrixResult:
    """`config-harness check`: every case (or those whose id matches the `cases` glob, or one of a list of globs)
    against its golden, with the settings' contracts and known findings; nothing is written."""
    chosen, globs = _settings(settings), _globs(cases)
    run = Run.check(chosen, RuleSet.of(chosen, strict_waivers=_flag("strict_waivers", strict_waivers)))
    return Runner(run, globs).run()


def generate(
    settings: Settings | str | os.PathLike[str] | None = None,
    cases: str | Sequence[str] = (),
    prune: bool = False,
    strict_waivers: bool = False,
) -> MatrixResult:
    """`config-harness generate`: the check, then the golden of every case that composed and differs is written
    (`prune`: goldens that belong to no case are deleted too). The result says which were written (`CaseResult.written`)
    and holds what still blocks: a contract generate also checks, a launch that does not compose."""
    chosen, globs, prune = _settings(settings), _globs(cases), _flag("prune", prune)
    runner = Runner(Run.generate(chosen, RuleSet.of(chosen, strict_waivers=_flag("strict_waivers", strict_waivers))), globs)
    return runner.write(runner.run(), prune=prune)


def report(result: MatrixResult, format: str = "text", review: bool = False) -> str:
    """The report of a result in one of `--format`'s formats (text, json, markdown, github, sarif, junit, ...)."""
    if not isinstance(result, MatrixResult):
        raise ArgumentError(f"result: a MatrixResult (what check or generate returns), not {_type(result)}")
    if not isinstance(format, str) or format not in formats_for():
        shown = repr(format) if isinstance(format, str) else _type(format)
        hint = did_you_mean(format, formats_for()) if isinstance(format, str) else ""
        raise ArgumentError(f"format: {shown} is not a report format{hint} (formats: {', '.join(formats_for())})")
    return reporter(format).render(result, ReportOptions(review=_flag("review", review)))


def _path(name: str, value: Any) -> Path | None:
    if value is None or isinstance(value, Path):
        return value
    if isinstance(value, str | os.PathLike) and isinstance(os.fspath(value), str):
        return Path(value)
    raise ArgumentError(f"{name}: a path (str or pathlib.Path) or None, not {_type(value)}")


def _settings(value: Any) -> Settings:
    if isinstance(value, Settings):
        return value
    if value is None or isinstance(value, str | os.PathLike):
        return load(value)
    raise ArgumentError(f"settings: a Settings (harness.load), a path or None, not {_type(value)}")


def _globs(value: Any) -> str | tuple[str, ...] | None:
    """A glob or a sequence of globs as the Runner takes them (None: every case); a str is one glob, never its letters."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return tuple(value) or None
    wrong = next((item for item in value if not isinstance(item, str)), None) if isinstance(value, Sequence) else None
    found = f"a list holding {_type(wrong)}" if isinstance(value, Sequence) else _type(value)
    raise ArgumentError(f"cases: a case-id glob or a list of them ('train/*' or ['train/*', 'route/*']), not {found}")


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ArgumentError(f"{name}: True or False, not {_type(value)}")


def _type(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]
