"""Config trees at git commits, kept in the cache folder so that a review of the same base composes from the cache.

A review extracts the base's config tree from git. In a fresh scratch folder every time, the tree's path is new,
so none of its compositions is ever found in the composition cache (the key holds the search path). Kept under
the cache folder at a name given by the commit and the folder, the same base is the same path, and a repeated
review (a developer's loop, CI with a restored cache) composes its base from the cache.

A kept tree is used only when it holds exactly what git holds: the same folders, and regular files whose git blob
ids match the commit's (a cache folder restored in CI may come from anywhere). Anything else is extracted again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from harness.baselines import gitrepo
from harness.composition.store import CacheRefused, open_folder
from harness.gates import copies
from harness.gates.reader import InputLimitError, read_bytes
from harness.readers.pysource import MAX_FILES

TREES = "trees"
# An empty `.git` file at the top of each kept copy: the copy is a project of its own, so a base composed there may
# read only inside it (confine.project_root stops there, not at a git checkout the cache folder lies in).
MARKER = ".git"
KEEP = 16  # trees kept; the least recently used go first
REGULAR_MODES = ("100644", "100755")


def tree_at_commit(top: Path, commit: str, folder: str, cache_dir: Path | None, scratch: Path) -> Path:
    """`folder` as it is at `commit`: a kept copy in the cache folder when there is one, else in `scratch`."""
    listing = _listing(top, commit, folder) if cache_dir is not None and folder not in ("", ".") else None
    if cache_dir is None or listing is None:
        return _in_scratch(top, commit, folder, scratch)
    try:
        trees = open_folder(Path(cache_dir) / TREES, project=top)
    except CacheRefused:
        return _in_scratch(top, commit, folder, scratch)
    kept = trees / hashlib.blake2b(f"{commit}\0{folder}".encode(), digest_size=12).hexdigest()
    if kept.is_dir() and not kept.is_symlink() and _holds(kept, listing):
        os.utime(kept)
        return kept / folder
    fresh = Path(tempfile.mkdtemp(prefix=".partial-", dir=trees))
    gitrepo.extract_folder(top, commit, folder, fresh)
    (fresh / MARKER).touch()
    shutil.rmtree(kept, ignore_errors=True)
    try:
        os.rename(fresh, kept)  # whole or not at all: a killed run leaves a `.partial-` folder, never a kept tree
    except OSError:  # another run kept the same tree a moment ago: use this copy for this run
        return fresh / folder
    _prune(trees)
    return kept / folder


def _in_scratch(top: Path, commit: str, folder: str, scratch: Path) -> Path:
    """`folder` extracted below `scratch`, a project of its own as a kept copy is (its MARKER): a link in it that leads
    elsewhere in the copy (into a submodule's files) is read there, never beyond it."""
    copy = gitrepo.extract_folder(top, commit, folder, scratch)
    (scratch / MARKER).touch()
    return copy


def _listing(top: Path, commit: str, folder: str) -> dict[str, bytes] | None:
    """The files below `folder` at `commit` (a submodule's, for a folder inside one) with their blob ids; None when
    it holds anything but regular files, or nothing."""
    files = {}
    for mode, kind, blob, path in gitrepo.tree_entries(top, commit, folder):
        if kind != "blob" or mode not in REGULAR_MODES:
            return None  # a symlink or a submodule: extracted each time
        files[path] = blob.encode()
    return files or None


def _holds(kept: Path, listing: dict[str, bytes]) -> bool:
    """True when `kept` holds exactly the listed regular files with their blobs, the folders they lie in, the empty
    MARKER file and the copy's marker (harness.gates.copies: the repository's top, said by an empty file): no other
    file, folder or link (a cache restored in CI may have been planted)."""
    folders = {str(parent) for path in listing for parent in Path(path).parents if str(parent) != "."}
    seen_files: set[str] = set()
    seen_folders: set[str] = set()
    for current, names, files in os.walk(kept):
        relative = Path(current).relative_to(kept)
        if str(relative) != ".":
            seen_folders.add(str(relative))
        for name in names + files:
            mode = os.lstat(Path(current) / name).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                return False  # a link or a device
        seen_files.update(str(relative / name) for name in files)
    markers = {MARKER, copies.MARKER}
    if seen_files != set(listing) | markers or seen_folders != folders or any((kept / marker).stat().st_size for marker in markers):
        return False
    for path, blob in listing.items():
        try:
            data = read_bytes(kept / path)
        except (OSError, InputLimitError):
            return False  # planted too big to be a config, or unreadable: extract again
        digest = hashlib.sha1 if len(blob) == 40 else hashlib.sha256
        if digest(b"blob %d\0" % len(data) + data).hexdigest().encode() != blob:
            return False
    return True


def kept_count(cache_dir: Path) -> int:
    """How many base trees the cache folder keeps."""
    trees = cache_dir / TREES
    return sum(1 for entry in trees.iterdir() if not entry.name.startswith(".")) if trees.is_dir() else 0


def _prune(trees: Path) -> None:
    """Keep the KEEP most recently used trees, and no leftover of an extraction killed an hour ago or more."""
    now = time.time()
    entries = sorted(trees.iterdir(), key=lambda entry: entry.lstat().st_mtime)
    kept = [entry for entry in entries if not entry.name.startswith(".")]
    stale = [entry for entry in entries if entry.name.startswith(".partial-") and now - entry.lstat().st_mtime > 3600]
    for old in kept[:-KEEP] + stale:
        shutil.rmtree(old, ignore_errors=True)


MAX_COMPARED_FILES = MAX_FILES  # as many Python files as a program view reads
SKIPPED_FOLDERS = frozenset({"__pycache__"})  # bytecode Python writes beside the sources; no reader looks inside


def same_python_sources(one: Sequence[Path], other: Sequence[Path]) -> bool:
    """True when two lists of Python source folders hold the same thing for a reader of `.py` files: folders of the
    same names in the same order, the same sub-folders and the same `.py` files with the same bytes. A review whose
    base has the working tree's sources reads them once (one program view for both sides). False on any link,
    anything unreadable or past the budget: each side is then read on its own, as before."""
    if len(one) != len(other) or any(a.name != b.name for a, b in zip(one, other)):
        return False
    for a, b in zip(one, other):
        listed = _python_files(a), _python_files(b)
        if listed[0] is None or listed[0] != listed[1]:
            return False
    return True


def _python_files(folder: Path) -> tuple[frozenset[str], dict[str, bytes]] | None:
    """A folder's sub-folders and its `.py` files with their bytes; None when it holds a link or too much."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    folders: set[str] = set()
    files: dict[str, bytes] = {}
    for current, names, found in os.walk(folder):
        names[:] = sorted(name for name in names if name not in SKIPPED_FOLDERS)
        relative = Path(current).relative_to(folder)
        for name in [*names, *found]:
            if (Path(current) / name).is_symlink():
                return None
        folders.update(str(relative / name) for name in names)
        for name in found:
            if not name.endswith(".py"):
                continue
            if len(files) >= MAX_COMPARED_FILES:
                return None
            try:
                files[str(relative / name)] = read_bytes(Path(current) / name)
            except (OSError, InputLimitError):
                return None
    return frozenset(folders), files
