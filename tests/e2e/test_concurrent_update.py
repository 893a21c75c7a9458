"""`pytest -n 2 --snapshot-update` (a controller and two worker processes, so this tier) rewrites the goldens
atomically and writes exactly what `generate` writes (a killed update: tests/integration/test_atomic_writes.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.integration.test_atomic_writes import edit_every_case, goldens, project  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e


def test_concurrent_snapshot_update_writes_what_generate_writes(project, cli):  # noqa: F811
    edit_every_case(project)
    expected_dir = project / "expected"
    assert cli("--snapshot-dir", str(expected_dir), "generate", cwd=project).code == 0
    # Its own process (three: a controller and two workers), none of which needs hypothesis's pytest plugin.
    update = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q", "-n", "2", "--snapshot-update"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert update.returncode == 0, update.stdout[-2000:]
    assert goldens(project / "snapshots") == goldens(expected_dir) and len(goldens(expected_dir)) == 7
    assert not [p for p in (project / "snapshots").iterdir() if p.name.endswith(".tmp")]
