"""Report formats: one module per format, each exposing a `Reporter` as `REPORTER`, registered once below.

`--format` choices, the review JSON and which findings the engine sources all come from this registry, so a
new format is one module plus one line here. Modules are imported on first use: a format's dependencies cost
nothing to the runs that do not ask for it.
"""

from __future__ import annotations

from importlib import import_module
from types import MappingProxyType

from harness.findings import ERROR, INFO, WARNING, Severity
from harness.reporters.base import NextSteps, Reporter, ReportOptions

__all__ = ["FORMATS", "NextSteps", "ReportOptions", "Reporter", "reporter", "sourced_for"]

# --format name -> the module whose REPORTER renders it; the order is the order `--help` shows.
FORMATS = MappingProxyType({
    "text": "harness.reporters.text",
    "json": "harness.reporters.json",
    "markdown": "harness.reporters.markdown",
    "github": "harness.reporters.github",
    "sarif": "harness.reporters.sarif",
    "junit": "harness.reporters.junit",
    "comment": "harness.reporters.comment",  # a review's pull-request comment, as data for `config-harness comment`
})


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
