"""Copies of the repository the harness makes, and where their files stand in the repository.

A review composes its base from a copy: a commit's folders extracted from git (kept in the cache folder, or in a
scratch folder), a pinned wheel's tree unpacked in a scratch folder. A report must name such a file as the repository
names it (`conf/db/x.yaml`), never by the copy's own path (`/home/me/.cache/config-harness/trees/5c9d.../conf/db/x.yaml`):
a reader cannot open that, and it shows where the machine keeps its cache. Each copy's top holds a small marker file
that says which folder of the repository the top stands for ("" for the repository's top); `place` reads it. The top
also holds an empty `.git` file: the copy is a project of its own (harness.gates.confine.project_root stops there),
so a composition run inside it reads only inside it and names its files from its top.
"""

from __future__ import annotations

import posixpath
from pathlib import Path, PurePosixPath

from harness.gates.reader import InputLimitError, read_bytes
from harness.gates.writer import write_atomic

MARKER = ".config-harness-copy"
PROJECT = ".git"  # what confine.project_root stops at
MAX_PLACE = 4096  # a folder path of the repository, never more


def mark(top: Path, place: str = "") -> None:
    """Say that the folder `top` (made by the harness) is a copy of the repository's folder `place` ("" its top)."""
    top.mkdir(parents=True, exist_ok=True)
    write_atomic(top / MARKER, place)
    if not (top / PROJECT).exists():
        write_atomic(top / PROJECT, "")


def top_place(folder: Path) -> str:
    """The repository folder a copy's top stands for ("" for the repository's top, and for a folder that is no copy's
    top)."""
    return (_place_of(folder) or "") if (folder / MARKER).is_file() else ""


def _place_of(top: Path) -> str | None:
    """The repository folder a copy's top stands for, when `top` holds a well-formed marker; None otherwise."""
    try:
        written = read_bytes(top / MARKER, limit=MAX_PLACE).decode("utf-8")
    except (OSError, InputLimitError, UnicodeDecodeError):
        return None
    path = PurePosixPath(written)
    if written and (path.is_absolute() or ".." in path.parts or any(ord(ch) < 32 for ch in written)):
        return None  # a marker that would name a place outside the repository is not one
    return written


def place(path: Path) -> str | None:
    """Where a file of one of the harness's copies stands in the repository (`conf/db/x.yaml`); None for a file that
    lies in no copy. The outermost marker above the file decides: the harness writes one at a copy's top only, after
    the copy's files, so one a repository holds (and a pull request could plant) never names its own files."""
    path = Path(path)
    said = None
    for folder in path.parents:
        found = _place_of(folder) if (folder / MARKER).is_file() else None
        if found is not None:
            inside = path.relative_to(folder).as_posix()
            said = posixpath.join(found, inside) if found else inside
    return said
