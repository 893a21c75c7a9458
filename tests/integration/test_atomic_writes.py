"""Nothing lost when writing: a killed `generate` or `pytest --snapshot-update` leaves every golden old or
new, never truncated (concurrent updates under `-n 2`: tests/e2e/test_concurrent_update.py)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT

# Runs a harness entry point with os.fsync made to stop for good right after a golden's bytes reach the
# temporary file and before the rename: the moment a non-atomic writer would leave a half-written golden.
STOP_BEFORE_RENAME = """
import os, sys, time
real_fsync = os.fsync
marker = os.fdopen(os.dup(1), "w")  # pytest captures fd 1 later; this copy still reaches the parent
def fsync_then_stop(fd):
    real_fsync(fd)
    print("STOPPED-IN-WRITE", file=marker, flush=True)
    time.sleep(600)
os.fsync = fsync_then_stop
entry = sys.argv[1]
if entry == "cli":
    from harness.cli import main
    sys.exit(main(sys.argv[2:]))
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


def goldens(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("_generated_*.yaml"))}


def kill_mid_write(project: Path, *arguments: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", STOP_BEFORE_RENAME, *arguments],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    try:
        while True:
            ready, _, _ = select.select([child.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = child.stdout.readline() if ready else ""  # type: ignore[union-attr]
            if "STOPPED-IN-WRITE" in line:
                break
            if not line:
                pytest.fail("the run never reached a golden write")
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path / "conf", SMALL_TREE)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    assert cli("generate", cwd=tmp_path).code == 0
    return tmp_path


def edit_every_case(project: Path) -> None:
    train = project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("epochs: 3", "epochs: 4"))


@pytest.mark.parametrize(
    "entry",
    [("cli", "generate"), ("pytest", "--snapshot-update", "-p", "no:cacheprovider", "-q")],
    ids=["generate", "snapshot-update"],
)
def test_a_process_killed_mid_write_leaves_every_golden_old_or_new(project, cli, entry):
    old = goldens(project / "snapshots")
    edit_every_case(project)
    kill_mid_write(project, *entry)
    after = goldens(project / "snapshots")
    assert set(after) == set(old)  # nothing deleted
    assert after == old  # the interrupted golden was never renamed into place, so it is still whole and old

    assert cli("generate", cwd=project).code == 0
    new = goldens(project / "snapshots")
    assert all(b"epochs: 4" in text for name, text in new.items() if "fast" not in name)
    assert all(new[name] != old[name] for name in new if "fast" not in name)
    check = cli("check", cwd=project)
    assert check.code == 0, check.out  # a leftover temporary file is neither a golden nor an orphan


# `pytest -n 2 --snapshot-update` writes what `generate` writes: tests/e2e/test_concurrent_update.py (three processes).
