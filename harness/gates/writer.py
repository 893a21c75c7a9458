"""The one writer: every file the harness writes (goldens, a fetched tree, a review's scratch tree, what `init`
and `lock` write) goes through here.

The harness writes only into the snapshot folder, its own cache, scratch folders it made, and files and folders
named on the command line. Whatever the destination, it never writes inside a `.git` folder (a pull request
could choose the ref a review compares against, or plant a hook), and into a folder the tree controls it never
writes through a symlink: the real folder must be the one the write was meant for.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.gates.confine import UnsafeInput, git_folder_problem, is_inside


def write_problem(path: Path, folder: Path | None = None) -> str | None:
    """Why the harness may not write `path`, or None. `folder` is the folder the write must land in, when the
    tree under test (not the command line) decided the file's name: then a symlink anywhere on the way is refused."""
    problem = git_folder_problem(path.parent)
    if problem:
        return problem
    if folder is None:
        return None
    if path.is_symlink():
        return f"{path} is a symlink; the harness never writes through one (remove it, and run again)"
    if not is_inside(path.parent, Path(os.path.realpath(folder))):
        return f"{path} leads out of {folder} (through a symlink or '..'); it is not written"
    return None


def refuse(path: Path, folder: Path | None = None) -> None:
    """UnsafeInput when the harness may not write `path` (see write_problem)."""
    problem = write_problem(path, folder)
    if problem:
        raise UnsafeInput(problem)


def current_umask() -> int:
    """The process's umask (reading it means setting it; the harness writes files from one thread only)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def mode_for(path: Path) -> int:
    """The permission bits a rewritten file keeps: the old file's, or those of a new file (`0666 & ~umask`)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def write_atomic(path: Path, content: str | bytes, mode: int | None = None, folder: Path | None = None) -> None:
    """Write via a temporary file in the same folder and a rename: readers see old or new, never half.

    The file ends with `mode`, or else the mode a plain write would give it (the temporary file alone is 0600).
    `folder` is the folder the file must land in when the tree chose its name (the snapshot folder).
    """
    refuse(path, folder)  # before any folder is made: a link on the way must not get one made behind it
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    mode = mode_for(path) if mode is None else mode
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            # Locked until renamed: a temporary file nobody holds is a leftover of a killed write (find_orphans).
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
            os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


@contextmanager
def held(folder: Path) -> Iterator[None]:
    """An exclusive lock on `folder` (made if missing; the folder itself, so no lock file is left beside what it
    holds) while the block runs: two processes filling the same cache folder (two pytest-xdist workers, two
    `fetch` commands) take turns."""
    folder.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def write_new(path: Path, data: bytes, inside: Path | None = None) -> None:
    """Create `path` (it must not exist) below `inside`, a folder the harness made: never through a symlink."""
    inside = path.parent if inside is None else inside
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse(path, inside)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(path, flags, 0o666), "wb") as handle:
        handle.write(data)


def replace_file(path: Path, data: bytes, inside: Path) -> None:
    """Put `data` at `path` below `inside` (a scratch folder of ours): whatever stood there, a link included, is
    removed first, so the write never lands in the file a link points at."""
    path.unlink(missing_ok=True)
    write_new(path, data, inside)
