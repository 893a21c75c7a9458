"""The wheel holds every module: each package folder of `harness/` is listed in pyproject's setuptools packages."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_every_subpackage_is_in_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "harness").rglob("__init__.py")}
    assert found == listed  # a subpackage left out ships a wheel whose CLI dies on import
