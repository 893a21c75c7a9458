"""The one reader: every byte the harness reads from the tree under test (configs, goldens, contracts, settings,
provenance, git blobs at a ref, wheels) comes through here.

A pull request controls every file and every name in the tree, so a read resolves the real path once, checks
that real path against the scope (the project and the folders the trusted side allows), opens exactly that
path without following a link swapped in since, refuses anything that is not a regular file (a device, a FIFO,
a socket would hang or never end), and stops reading past the size bound: a file is never read whole and then
measured. `tests/unit/gates/test_gates.py` walks the package and fails on any other read of tree data.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import IO

from harness.gates.budget import MAX_ARCHIVE_BYTES, MAX_FILE_BYTES, InputLimitError
from harness.gates.confine import Scope, UnsafeInput, within

__all__ = ["MAX_ARCHIVE_BYTES", "MAX_FILE_BYTES", "InputLimitError"]  # the budgets' home is harness.gates.budget
CHUNK = 1024 * 1024
# The path of each file asked for while a kept run records (harness.runner.kept_runs): what it read, and what it
# found absent, checked again before that run's result is taken; forked workers send theirs back (parallel). A
# context variable, not the session's: the gates import nothing above them, and every read comes through here.
ASKED: ContextVar[set[str] | None] = ContextVar("asked", default=None)


@contextlib.contextmanager
def recording() -> Iterator[set[str]]:
    """While the block runs, the path of every file asked for here (found or not) is added to the set."""
    outer, mine = ASKED.get(), set[str]()
    token = ASKED.set(mine)
    try:
        yield mine
    finally:
        ASKED.reset(token)
        if outer is not None:
            outer.update(mine)


def asked() -> frozenset[str]:
    """What this process recorded so far (empty when nothing records): a forked worker sends it back."""
    return frozenset(ASKED.get() or ())


def note_asked(paths: Iterable[str]) -> None:
    """Add what a worker recorded to this process's record (nothing when nothing records)."""
    record = ASKED.get()
    if record is not None:
        record.update(paths)


class NotAFile(UnsafeInput):
    """A path that is a device, a FIFO, a socket or a folder where a file was expected: refused, never opened for reading."""


def too_large(limit: int) -> InputLimitError:
    """The error for input past `limit` bytes, said in the unit a person reads."""
    shown = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit:,} bytes"
    return InputLimitError(f"larger than {shown}; refused")


def read_limited(stream: IO[bytes], limit: int) -> bytes:
    """At most `limit` bytes of a stream, read in chunks; InputLimitError as soon as there is one byte more."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise too_large(limit)


def real_path(path: str | Path, scope: Scope | None, what: str | None = None) -> str:
    """`path` with every symlink followed, or UnsafeInput when that real path lies outside `scope` (None: the
    trusted side named the file, so no confinement). `what` names the file in messages (default: its path)."""
    real = os.path.realpath(path)
    if scope and not within(real, scope):
        link = " through a symlink or '..'" if real != os.path.abspath(path) else ""
        raise UnsafeInput(f"{what or path}: leads outside the project {scope[0]}{link}; it is not read")
    return real


def read_bytes(path: str | Path, scope: Scope | None = None, limit: int = MAX_FILE_BYTES, what: str | None = None) -> bytes:
    """A regular file's bytes, read through its real path once confined to `scope`; never more than `limit`.

    FileNotFoundError when it does not exist; NotAFile for a device, FIFO, socket or folder; InputLimitError past
    the bound; UnsafeInput outside the scope.
    """
    record = ASKED.get()
    if record is not None:  # the path asked for: a link swapped later leads elsewhere, checked again as asked
        record.add(os.path.abspath(path))
    real = real_path(path, scope, what)
    # O_NOFOLLOW: the real path has no link in it, so a link there now was swapped in after the check.
    # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(real, flags)
    except FileNotFoundError:
        raise FileNotFoundError(2, "No such file or directory", str(path)) from None
    except IsADirectoryError:
        raise NotAFile(f"{what or path}: a folder, not a file; it is not read") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a device, FIFO or socket"
            raise NotAFile(f"{what or path}: {kind}, not a regular file; it is not read")
        handle = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with handle:
        try:
            return read_limited(handle, limit)
        except InputLimitError as error:
            raise InputLimitError(f"{what or path}: {error}") from None


def read_text(path: str | Path, scope: Scope | None = None, limit: int = MAX_FILE_BYTES, what: str | None = None) -> str:
    """A regular file's text (UTF-8; UnicodeDecodeError otherwise), read as `read_bytes` reads it."""
    return read_bytes(path, scope, limit, what).decode("utf-8")


def git_output(arguments: list[str], limit: int = MAX_FILE_BYTES, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    """Run git and read at most `limit` bytes of its output (a blob that packs small can be huge unpacked): the
    exit code, stdout and the start of stderr; InputLimitError, with git stopped, past the bound. `stdin` is what
    git reads on its standard input."""
    # stderr (and stdin) are files of their own, so git never blocks on them while stdout is read.
    with tempfile.TemporaryFile() as errors, tempfile.TemporaryFile() as given:
        given.write(stdin)
        given.seek(0)
        process = subprocess.Popen(arguments, stdin=given, stdout=subprocess.PIPE, stderr=errors)
        assert process.stdout is not None
        with process.stdout:
            try:
                out = read_limited(process.stdout, limit)
            except InputLimitError:
                process.kill()
                process.wait()
                raise
        code = process.wait()
        errors.seek(0)
        return code, out, errors.read(64 * 1024)


MAX_SUBJECT = 72  # characters of a commit's subject a message quotes


def git_deletion(path: Path) -> str:
    """How git knows that `path`, a file the working tree lacks, was deleted: `was deleted (the last commit has it)`,
    `was deleted by commit abc1234 (its subject)`, or "" when git never had it there (or there is no repository).

    Asked in the file's nearest existing folder with its name relative to there (git reads a pathspec relative to its
    working folder), as a literal pathspec: a config name a pull request writes is never read as git's pattern magic.
    """
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    git = ["git", "-C", str(folder), "--literal-pathspecs"]
    relative = path.relative_to(folder).as_posix()
    try:
        code, out, _ = git_output([*git, "ls-tree", "--name-only", "HEAD", "--", relative])
        if code == 0 and out.strip():
            return "was deleted (the last commit has it)"
        code, out, _ = git_output([*git, "log", "-1", "--diff-filter=D", "--format=%h%x00%s", "HEAD", "--", relative])
    except (OSError, InputLimitError):  # no git, or an answer past the bound: nothing is known
        return ""
    commit, _, subject = out.decode("utf-8", "replace").strip().partition("\0")
    if code != 0 or not commit:
        return ""
    subject = subject if len(subject) <= MAX_SUBJECT else subject[: MAX_SUBJECT - 1] + "…"
    return f"was deleted by commit {commit} ({subject})"
