"""config-harness: golden-file regression harness for Hydra/OmegaConf config trees.

The public Python API is the names in `__all__`, importable from here (`from harness import check`); every
module path below `harness` is internal and may move. The package is drawn in layers, each a subpackage whose
docstring says what it owns and what it may import (tests/unit/test_layers.py holds the same table):

    gates        untrusted bytes: bounded reads, the project scope, the only writer, escaping, bad input
    model        the values: settings, cases, differences, findings and their grouping
    composition  Hydra's compose API, rendering, resolution, provenance, caches (hydra_compat: the quarantine)
    readers      launch scripts and Python sources, read without running them
    rules        contracts, their changes in a review, known findings, lock
    review       goldens, git bases, fetched releases: what a case is compared with
    engine       engine, check, launches, targets, adopt (modules at the top of the package)
    reporters    one module per report format
    commands     one module per CLI command
    shells       the CLI (cli), the pytest plugin (plugin, snapshot, syrupy_compat, pytest_report)

Names are imported on first use, so `import harness` costs nothing and a layer never imports the whole package.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

# Public name -> the module that defines it: the four functions of the Python API (harness/api.py,
# docs/python-api.md), the values they take and return, and the errors they raise. Nothing else is public.
_PUBLIC = {
    "load": "harness.api",
    "check": "harness.api",
    "generate": "harness.api",
    "report": "harness.api",
    "Settings": "harness.model.settings",
    "MatrixResult": "harness.model.findings",
    "CaseResult": "harness.model.findings",
    "Case": "harness.model.matrix",
    "Finding": "harness.model.findings",
    "Kind": "harness.model.findings",
    "Severity": "harness.model.findings",
    "Status": "harness.model.findings",
    "BadInput": "harness.gates.errors",
    "ArgumentError": "harness.api",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (PEP 562)."""
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'harness' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
