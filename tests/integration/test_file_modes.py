"""Goldens and written contracts are files like any committed file: a new one gets `0666 & ~umask`, a
rewritten one keeps its mode (never the temporary file's 0600)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.gates.writer import write_atomic


@contextmanager
def umask(mask: int) -> Iterator[None]:
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_follow_the_umask_and_rewritten_files_keep_their_mode(tmp_path):
    with umask(0o022):
        write_atomic(tmp_path / "a.yaml", "a: 1\n")
    with umask(0o077):
        write_atomic(tmp_path / "b.yaml", "b: 1\n")
        os.chmod(tmp_path / "a.yaml", 0o640)
        write_atomic(tmp_path / "a.yaml", "a: 2\n")
    assert mode(tmp_path / "a.yaml") == 0o640 and (tmp_path / "a.yaml").read_text() == "a: 2\n"
    assert mode(tmp_path / "b.yaml") == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_goldens_and_lock_output_are_0644_under_umask_022(small_project, cli):
    with umask(0o022):
        assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
        locked = cli(
            "--settings",
            "harness.toml",
            "lock",
            "--baseline",
            "train/cpu/default",
            "--target",
            "train/gpu/default",
            "--name",
            "gpu",
            "--cases",
            "train/gpu/*",
            "--output",
            "contracts.yaml",
        )
    assert locked.code == 0
    goldens = sorted((small_project / "snapshots").iterdir())
    assert goldens and {mode(p) for p in goldens} == {0o644}
    assert mode(small_project / "contracts.yaml") == 0o644

    golden = goldens[0]
    os.chmod(golden, 0o664)  # a group-writable checkout
    golden.write_text(golden.read_text() + "stale: true\n")
    with umask(0o077):
        assert cli("--settings", "harness.toml", "generate").code == 0
    assert mode(golden) == 0o664 and "stale" not in golden.read_text()
