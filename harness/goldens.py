"""Golden files on disk: where they live, atomic writes, and orphans."""

from __future__ import annotations

import fcntl
from dataclasses import replace
from pathlib import Path

from harness.confine import UnsafeInput, project_root
from harness.findings import MatrixResult, Status
from harness.matrix import GOLDEN_PREFIX, Case, is_golden_name
from harness.reader import InputLimitError, read_bytes
from harness.writer import write_atomic


def golden_path(snapshot_dir: Path, case: Case) -> Path:
    """The golden file of a case."""
    return snapshot_dir / case.golden_name


def read_golden(path: Path) -> str | None:
    """A golden's text, or None when it does not exist; undecodable bytes show up as differences.

    A golden that leads outside the project (a symlink), is not a regular file or is beyond the size bound is
    never read: UnsafeInput.
    """
    try:
        return read_bytes(path, (project_root(path.parent),), what=f"golden {path}").decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except InputLimitError as error:
        raise UnsafeInput(str(error)) from None


def is_leftover(path: Path) -> bool:
    """True for a temporary file of write_atomic whose writer is gone (killed mid-write): nothing holds its lock."""
    if not (path.name.startswith(f".{GOLDEN_PREFIX}") and path.name.endswith(".tmp")) or path.is_symlink() or not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, FileNotFoundError):
        return False  # a write in progress, or one that just finished
    return True


def find_orphans(snapshot_dir: Path, cases: list[Case]) -> list[Path]:
    """Golden-named files in the snapshot folder that belong to no case, and temporary files left by killed writes."""
    if not snapshot_dir.is_dir():
        return []
    claimed = {case.golden_name for case in cases}
    return sorted(
        p for p in snapshot_dir.iterdir()
        if (is_golden_name(p.name) and p.name not in claimed)
        or is_leftover(p)
    )


def write_goldens(result: MatrixResult, snapshot_dir: Path) -> MatrixResult:
    """Rewrite the golden of every case that composed and differs from it; return the run with those cases `written`."""
    cases = []
    for case_result in result.cases:
        if case_result.rendered is not None and case_result.status in (Status.CHANGED, Status.NEW):
            write_atomic(golden_path(snapshot_dir, case_result.case), case_result.rendered, folder=snapshot_dir)
            case_result = case_result.written_out()
        cases.append(case_result)
    return replace(result, cases=tuple(cases))


def prune_orphans(snapshot_dir: Path, cases: list[Case], every_orphan: bool) -> list[Path]:
    """Delete golden-named files that no case of the whole matrix claims (only with `every_orphan`) and the
    temporary files of killed writes (always); return what was deleted."""
    pruned = [path for path in find_orphans(snapshot_dir, cases) if every_orphan or is_leftover(path)]
    for path in pruned:
        path.unlink()
    return pruned
