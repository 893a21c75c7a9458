"""The docs' examples that run in a clone of verl's whole repository (`<!-- docs-workspace: verl REF -->`), from
the team's bundle (../shared/data/verl-full.bundle); the quick tier runs the others
(tests/integration/test_docs_examples.py)."""

from __future__ import annotations

import re

import pytest

from tests.docs_examples import E2E, ROOT, documents, run_document, verl_bundle

pytestmark = pytest.mark.e2e

ON_VERL = [path for path in documents() if re.search(r"^<!-- docs-workspace: verl ", path.read_text(encoding="utf-8"), re.MULTILINE)]


def test_some_page_runs_its_examples_on_verl():
    assert ON_VERL, "no page of the docs runs an example on verl's repository"


@pytest.mark.parametrize("document", ON_VERL, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_verl_examples_of(document, tmp_path):
    if verl_bundle() is None:
        pytest.skip("verl's bundle is absent (../shared/data/verl-full.bundle beside the checkout): its examples cannot run")
    outcome = run_document(document, E2E, tmp_path)
    for where, why in outcome.skipped:
        print(f"opted out: {where}: {why}")
    assert not outcome.failed, outcome.report()
    assert outcome.commands, f"{document.name} names a verl workspace but ran no command there"
