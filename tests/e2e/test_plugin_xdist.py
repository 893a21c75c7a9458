"""The five-step golden workflow of tests/integration/test_plugin_workflow.py under `pytest -n 2`: six sessions,
each with two worker processes, so it runs in this tier (`make test-e2e`) rather than in `make test`."""

from __future__ import annotations

import pytest

from tests.integration.test_plugin_workflow import five_steps, project  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e


def test_workflow_fail_create_pass_edit_update_pass_with_xdist(project: pytest.Pytester) -> None:  # noqa: F811
    five_steps(project, ["-n", "2"])
