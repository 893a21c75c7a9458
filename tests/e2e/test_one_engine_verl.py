"""tests/integration/test_one_engine.py on verl's real tree: the CLI and the plugin report the same findings for
one changed default (all 13 cases composed by each shell)."""

from __future__ import annotations

import pytest

from tests.integration.test_one_engine import test_cli_and_plugin_report_the_same_findings_for_the_same_edit as same_findings
from tests.integration.test_one_engine import verl_project

pytestmark = pytest.mark.e2e


def test_cli_and_plugin_report_the_same_findings_for_the_same_edit_on_verl(pytester, capsys):
    same_findings(pytester, capsys, verl_project)
