"""The differential property tests of the readers (bash's and Python's, issue 51) run in the e2e tier with the thorough
hypothesis profile: the Makefile's `test-e2e` sets `CONFIG_HARNESS_HYPOTHESIS=thorough` (tests/conftest.py loads the
profile it names) and runs the files its PROPERTY_TESTS lists. A file dropped from the list, or the variable from the
recipe, would leave them to the quick tier's few examples with CI green."""

from __future__ import annotations

import re

from tests.conftest import ROOT

DIFFERENTIAL = ("tests/unit/readers/test_bash_semantics.py", "tests/unit/readers/test_writes_semantics.py")


def _variable(makefile: str, name: str) -> list[str]:
    """The words a `NAME := ...` assignment of the Makefile holds, its continuation lines joined."""
    found = re.search(rf"^{name} :=((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    assert found is not None, name
    return found.group(1).replace("\\\n", " ").split()


def test_the_differential_property_tests_run_in_the_e2e_tier_with_the_thorough_profile():
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^test-e2e:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None
    assert "CONFIG_HARNESS_HYPOTHESIS=thorough " in recipe.group(1) and "$(PROPERTY_TESTS)" in recipe.group(1), recipe.group(1)
    listed = _variable(makefile, "PROPERTY_TESTS")
    assert set(DIFFERENTIAL) <= set(listed), listed
    assert all((ROOT / path).is_file() for path in listed), listed
    conftest = (ROOT / "tests/conftest.py").read_text()
    assert 'load_profile(os.environ.get("CONFIG_HARNESS_HYPOTHESIS", "quick"))' in conftest
