"""The upgrade report: every case of the matrix composed from two config trees (say two releases), diffed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness import diff
from harness.render import to_plain
from harness.run import open_matrix
from harness.settings import Settings


@dataclass(frozen=True)
class CaseChange:
    """What one case looks like from the old tree to the new one."""

    case_id: str
    status: str  # "changed", "same", "added" (only in the new tree), "removed" (only in the old), "error"
    changes: tuple[diff.Change, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class ComposeFailure:
    """A case that one of the trees cannot compose."""

    message: str


def is_config_tree(folder: Path, settings: Settings) -> bool:
    """True when `folder` holds the settings' root configs (a Hydra tree), not goldens."""
    return all((folder / f"{root}.yaml").is_file() for root in settings.roots)


def _compose_all(settings: Settings, tree: Path) -> dict[str, Any]:
    """Case id -> plain tree (or the one-line error) for every case of the matrix on `tree`."""
    composed: dict[str, Any] = {}
    with open_matrix(replace(settings, config_dir=tree.resolve())) as (session, cases):
        for result in session.compose_cases(cases):
            config = result.config
            composed[result.case.id] = to_plain(config) if config is not None else ComposeFailure(result.error or "")
    return composed


def compare_trees(settings: Settings, old_tree: Path, new_tree: Path) -> list[CaseChange]:
    """Each case of either tree's matrix, in the new tree's order, with its semantic changes."""
    old, new = _compose_all(settings, old_tree), _compose_all(settings, new_tree)
    report = []
    for case_id in list(new) + [c for c in old if c not in new]:
        before, after = old.get(case_id), new.get(case_id)
        if before is None:
            report.append(CaseChange(case_id, "added"))
        elif after is None:
            report.append(CaseChange(case_id, "removed"))
        elif isinstance(before, ComposeFailure) or isinstance(after, ComposeFailure):
            failure = after if isinstance(after, ComposeFailure) else before
            side = "new" if failure is after else "old"
            report.append(CaseChange(case_id, "error", error=f"{side} tree: {failure.message}"))
        else:
            changes = tuple(diff.diff_trees(before, after))
            report.append(CaseChange(case_id, "changed" if changes else "same", changes))
    return report
