"""The package's (and the libraries') Python sources parsed once per test process: eight architecture tests walk
every module of harness/, and each parsing the package again cost the quick tier about ten CPU-seconds (issue 55)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


@cache
def parsed(path: Path) -> ast.Module:
    """A source file's syntax tree, shared: callers walk it and never change it."""
    return ast.parse(path.read_bytes(), filename=str(path))
