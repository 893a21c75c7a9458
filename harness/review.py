"""The pull-request review report: goldens at a git ref against a fresh composition of the working tree."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from harness.findings import DIFFERENCE_KINDS, INFO, CaseChecker, CaseResult, MatrixResult
from harness.matrix import GOLDEN_PREFIX, GOLDEN_SUFFIX
from harness.run import run_matrix
from harness.settings import Settings



class GitError(Exception):
    """The base ref or the repository cannot be read; the message is one line."""


def _git(repository: Path, *arguments: str) -> bytes:
    try:
        completed = subprocess.run(["git", "-C", str(repository), *arguments], capture_output=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {' '.join(arguments)}: {message[-1] if message else 'failed'}")
    return completed.stdout


def goldens_at(ref: str, snapshot_dir: Path) -> tuple[str, dict[str, str]]:
    """The snapshot folder as it was at `ref`: its path inside the repository, and golden name -> text."""
    snapshot_dir = snapshot_dir.resolve()
    probe = snapshot_dir if snapshot_dir.is_dir() else snapshot_dir.parent
    top = Path(_git(probe, "rev-parse", "--show-toplevel").decode().strip()).resolve()
    try:
        _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except GitError:
        raise GitError(f"unknown git ref {ref!r}") from None
    inside = snapshot_dir.relative_to(top).as_posix()
    listing = _git(top, "ls-tree", "-z", "--name-only", ref, "--", f"{inside}/").decode("utf-8", "replace")
    goldens = {}
    for entry in filter(None, listing.split("\0")):
        name = entry.rsplit("/", 1)[-1]
        if name.startswith(GOLDEN_PREFIX) and name.endswith(GOLDEN_SUFFIX):
            goldens[name] = _git(top, "show", f"{ref}:{entry}").decode("utf-8", "replace")
    return inside, goldens


def _as_review(result: CaseResult) -> CaseResult:
    # Info that was already true at the base (known fallbacks) is not news; differences become the news.
    findings = tuple(
        replace(f, severity=INFO) if f.kind in DIFFERENCE_KINDS else f for f in result.findings if f.severity != INFO
    )
    return replace(result, findings=findings)


def review(settings: Settings, ref: str, extra_checks: list[CaseChecker]) -> tuple[MatrixResult, list[str]]:
    """Every case of the working tree against its golden at `ref`, and the goldens of cases that are gone.

    Differences are info (they are what the pull request changes); contract and parity findings keep their
    severity, so an unwaived contract violation still fails.
    """
    inside, goldens = goldens_at(ref, settings.snapshot_dir)

    def read_base(path: Path) -> str | None:
        return goldens.get(path.name)

    def show_base(path: Path) -> str:
        return f"{ref}:{inside}/{path.name}"

    result = run_matrix(settings, extra_checks, read=read_base, show=show_base, orphans=False)
    result.cases = [_as_review(case_result) for case_result in result.cases]
    current = {case_result.case.golden_name for case_result in result.cases}
    gone = [f"{ref}:{inside}/{name}" for name in sorted(goldens) if name not in current]
    return result, gone
