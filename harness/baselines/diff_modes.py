"""Which mode `diff OLD NEW` runs in, and the flags that mean nothing there: refused, never ignored.

Two files, or two folders with `--files`, are compared file by file; two snapshot folders golden by golden; any
other two folders are config trees, compared case by case. A folder of goldens beside one that is not is
neither: it is refused, so a diff never becomes another kind of diff behind its user's back.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.composition.documents import DocumentError, is_snapshot_folder
from harness.model.findings import Comparison, Mode

# A flag (by dest) that means nothing in a mode, and why; a documents mode compares YAML as it is written.
_NOT_FOR_DOCUMENTS = MappingProxyType(
    {
        "case": "--case selects cases, and {what} compares YAML files as they are, not composed cases",
        "strict_waivers": "--strict-waivers is about contract waivers, and {what} checks no contracts",
    }
)
REFUSED: Mapping[Mode, Mapping[str, str]] = MappingProxyType(
    {
        Mode.FILES: _NOT_FOR_DOCUMENTS,
        Mode.GOLDENS: _NOT_FOR_DOCUMENTS,
        Mode.TREES: MappingProxyType({}),
    }
)


def detect(old: Path, new: Path, files: bool) -> Comparison:
    """The comparison `diff OLD NEW` makes; DocumentError when the two are not of one kind."""
    for path in (old, new):
        if not path.exists():
            raise DocumentError(f"{path}: no such file or folder")
    if old.is_dir() != new.is_dir():
        folder, file = (old, new) if old.is_dir() else (new, old)
        raise DocumentError(f"diff needs two files or two folders: {folder} is a folder and {file} is not")
    folders = old.is_dir()
    if files or not folders:
        return Comparison(Mode.FILES, str(old), str(new), folders)
    snapshots = {folder: is_snapshot_folder(folder) for folder in (old, new)}
    if all(snapshots.values()):
        return Comparison(Mode.GOLDENS, str(old), str(new), folders)
    if any(snapshots.values()):
        goldens, other = (old, new) if snapshots[old] else (new, old)
        raise DocumentError(
            f"{goldens} holds only goldens and {other} does not: give two snapshot folders, two config trees, "
            "or --files to compare their same-named YAML files"
        )
    return Comparison(Mode.TREES, str(old), str(new), folders)


def refused_flag(comparison: Comparison, given: Mapping[str, Any]) -> str | None:
    """Why the first flag given (by dest, as argparse keeps them) means nothing in this comparison, or None."""
    for dest, reason in REFUSED[comparison.mode].items():
        if given.get(dest) not in (None, False, [], ()):
            return reason.format(what=f"a diff of {comparison.what}")
    return None
