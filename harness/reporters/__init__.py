"""Report formats: one module per format, each exposing a `Reporter` as `REPORTER`, registered once below.

`--format` choices, the review JSON and which findings the engine sources all come from this registry, so a
new format is one module plus one line here. Modules are imported on first use: a format's dependencies cost
nothing to the runs that do not ask for it.

Owns: turning a finished result into text. May import: `harness.gates`, `harness.model` (a report reads the
result's data only, never composes or reads a tree).
"""

from __future__ import annotations

from importlib import import_module
from types import MappingProxyType

from harness.model.findings import ERROR, INFO, WARNING, Severity
from harness.reporters.base import CaseList, KeyHistory, NextSteps, Reporter, ReportOptions

__all__ = [
    "ANSWERS",
    "FORMATS",
    "CaseList",
    "KeyHistory",
    "NextSteps",
    "ReportOptions",
    "Reporter",
    "formats_for",
    "render_answer",
    "reporter",
    "sourced_for",
]

# --format name -> the module whose REPORTER renders it; the order is the order `--help` shows.
FORMATS = MappingProxyType(
    {
        "text": "harness.reporters.text",
        "json": "harness.reporters.json",
        "markdown": "harness.reporters.markdown",
        "github": "harness.reporters.github",
        "sarif": "harness.reporters.sarif",
        "junit": "harness.reporters.junit",
        "comment": "harness.reporters.comment_data",  # a review's pull-request comment, as data for `config-harness comment`
    }
)


# The answers other than a run's result (`list`'s case list, `log`'s key history) and the formats that render each:
# such a format's REPORTER has a method of the answer's name. Declared here, so building the parser imports no format.
ANSWERS = MappingProxyType({"cases": ("text", "json"), "log": ("text", "json")})


def formats_for(answer: str | None = None) -> tuple[str, ...]:
    """The formats `--format` and `--report` take for an answer (None: a run's result, which every format renders)."""
    return tuple(FORMATS) if answer is None else ANSWERS[answer]


def render_answer(answer: str, name: str, document: CaseList | KeyHistory, options: ReportOptions) -> str:
    """The whole answer in the format called `name`, ending with a newline."""
    text: str = getattr(reporter(name), answer)(document, options)
    return text


def reporter(name: str) -> Reporter:
    """The registered format called `name`."""
    found: Reporter = import_module(FORMATS[name]).REPORTER
    return found


def sourced_for(*names: str, review: bool = False) -> frozenset[Severity]:
    """Severities whose findings the engine must source for the formats `names` (a run may write several).

    A review's differences are info, and naming the file that changed them is the point of a review.
    """
    if review:
        return frozenset({ERROR, WARNING, INFO})
    return frozenset().union(*(reporter(name).sourced for name in names))
