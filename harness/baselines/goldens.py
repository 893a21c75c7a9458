"""The one owner of goldens: where they live, how one is compared with a rendering, which are written and how,
which are orphans and when they go. `generate` (through the engine) and `pytest --snapshot-update` (through the
syrupy extension) both ask `Goldens`, so they leave the same snapshot folder.

The rules are generate's. A golden is written when its case composed and differs from it or has none (`pending`);
it is left as it is when the case did not compose, when the golden cannot be read as YAML, or when its path may
not be written (`kept`). Orphans (golden-named files no case of the whole matrix claims) go only when pruning is
asked for; a killed write's temporary file goes whenever goldens are pruned.
"""

from __future__ import annotations

import fcntl
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from harness.composition.render import golden_body
from harness.gates.confine import UnsafeInput, project_root
from harness.gates.reader import InputLimitError, read_bytes
from harness.gates.writer import write_atomic, write_problem
from harness.model.findings import CaseResult, Kind, MatrixResult, Status
from harness.model.matrix import GOLDEN_PREFIX, Case, is_golden_name

WRITTEN = (Status.CHANGED, Status.NEW)  # the statuses whose golden generate rewrites


def golden_path(snapshot_dir: Path, case: Case) -> Path:
    """The golden file of a case."""
    return snapshot_dir / case.golden_name


def same_golden(golden: str, rendered: str) -> bool:
    """True when a golden says what a fresh rendering says: the same bytes, or the same body under another comment
    header (its wording may change between releases). The one comparison of a golden, for check and syrupy alike."""
    return golden == rendered or golden_body(golden) == golden_body(rendered)


def read_golden(path: Path, project: Path | None = None) -> str | None:
    """A golden's text, or None when it does not exist; undecodable bytes show up as differences.

    A golden that leads outside the project (a symlink), is not a regular file or is beyond the size bound is
    never read: UnsafeInput. `project`: the project holding its folder, when the caller found it already.
    """
    try:
        scope = (project or project_root(path.parent),)
        return read_bytes(path, scope, what=f"golden {path}").decode("utf-8", errors="replace")
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


def find_orphans(snapshot_dir: Path, cases: Sequence[Case]) -> list[Path]:
    """Golden-named files in the snapshot folder that belong to no case, and temporary files left by killed writes."""
    if not snapshot_dir.is_dir():
        return []
    claimed = {case.golden_name for case in cases}
    return sorted(p for p in snapshot_dir.iterdir() if (is_golden_name(p.name) and p.name not in claimed) or is_leftover(p))


def pending(result: CaseResult) -> bool:
    """True when generate rewrites the case's golden: the case composed, and differs from its golden or has none."""
    return result.rendered is not None and result.status in WRITTEN


def write_golden(path: Path, text: str, folder: Path) -> None:
    """The one write of a golden: atomic, keeping the file's mode, never through a symlink or out of `folder`."""
    write_atomic(path, text, folder=folder)


def write_goldens(result: MatrixResult, snapshot_dir: Path) -> MatrixResult:
    """Rewrite the golden of every pending case; return the run with those cases marked written."""
    cases = []
    for case_result in result.cases:
        if pending(case_result):
            assert case_result.rendered is not None  # pending says so; mypy cannot see it
            write_golden(golden_path(snapshot_dir, case_result.case), case_result.rendered, snapshot_dir)
            case_result = case_result.written_out()
        cases.append(case_result)
    return replace(result, cases=tuple(cases))


def remove_golden(path: Path) -> bool:
    """The one deletion: a golden-named file or a killed write's temporary file (a symlink goes, never its target);
    anything else is refused. False when it was already gone (another process pruned it first)."""
    if not (is_golden_name(path.name) or is_leftover(path)):
        raise UnsafeInput(f"{path} is neither a golden nor a leftover of a golden's write; it is not deleted")
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def prune_orphans(snapshot_dir: Path, cases: Sequence[Case], every_orphan: bool) -> list[Path]:
    """Delete golden-named files that no case of the whole matrix claims (only with `every_orphan`) and the
    temporary files of killed writes (always); return what was deleted."""
    doomed = [path for path in find_orphans(snapshot_dir, cases) if every_orphan or is_leftover(path)]
    return [path for path in doomed if remove_golden(path)]


@dataclass(frozen=True)
class Goldens:
    """The goldens of one matrix in one snapshot folder: what `generate` and `pytest --snapshot-update` write and prune."""

    folder: Path
    cases: tuple[Case, ...]  # every case of the matrix (not only those selected): a golden none claims is an orphan

    def path(self, case: Case) -> Path:
        return golden_path(self.folder, case)

    def read(self, case: Case) -> str | None:
        return read_golden(self.path(case))

    def kept(self, result: CaseResult) -> str | None:
        """Why generate leaves this case's golden as it is although it is not current, or None (it writes the golden,
        or the golden is current): the case did not compose, its golden is not YAML, or its path may not be written."""
        errors = " ".join(f.message for f in result.findings if f.kind == Kind.ERROR)
        if result.rendered is None:
            return errors or "compose failed"
        if pending(result):
            return write_problem(self.path(result.case), self.folder)
        if result.status == Status.ERROR:  # a contract error beside a current golden, or a golden that is not YAML
            golden = self.read(result.case)
            if golden is not None and not same_golden(golden, result.rendered):
                return errors or f"{self.path(result.case)} cannot be compared; it is left as it is"
        return None

    def write(self, result: MatrixResult) -> MatrixResult:
        """Rewrite the golden of every pending case of a finished run; return the run with those cases written."""
        return write_goldens(result, self.folder)

    def orphans(self) -> list[Path]:
        """Golden-named files no case claims (temporary files of killed writes are not goldens: see `prune`)."""
        return [path for path in find_orphans(self.folder, self.cases) if is_golden_name(path.name)]

    def prune(self, every_orphan: bool) -> list[Path]:
        """Delete the temporary files of killed writes, and every orphan with `every_orphan`; return what went."""
        return prune_orphans(self.folder, self.cases, every_orphan)
