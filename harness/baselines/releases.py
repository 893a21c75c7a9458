"""Fetch a config tree out of a PyPI wheel, without importing or installing the package."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from harness.gates.confine import git_folder_problem
from harness.gates.errors import BadInput
from harness.gates.reader import MAX_ARCHIVE_BYTES, InputLimitError, read_bytes, read_limited, read_text
from harness.gates.writer import held, write_new
from harness.model.settings import SettingsError, Source, check_requirement

STAMP = ".config-harness-source"


class FetchError(BadInput):
    """The wheel could not be downloaded or unpacked."""


def fetch_wheel_tree(wheel: str, unpack: str, into: Path, force: bool = False, python: str = "") -> Path:
    """Unpack only `unpack/` of the wheel `wheel` (a pip requirement) into `into`, and the `.py` files below
    `python/` when given (for `python_sources`: read with ast, never installed or imported); idempotent via a
    stamp file."""
    try:
        check_requirement(wheel, "wheel")
    except SettingsError as error:
        raise FetchError(str(error)) from None
    into = Path(into)
    problem = git_folder_problem(into)
    if problem:
        raise FetchError(f"fetch into {problem}")
    stamped = f"{wheel} {unpack}" + (f" {python}" if python else "")
    if not force and _stamp(into) == stamped:
        return into / unpack
    refuse_to_replace(into)
    with held(into.parent):
        # Another process may have unpacked it while this one waited: then it is not replaced under its readers.
        if not force and _stamp(into) == stamped:
            return into / unpack
        _unpack_wheel_into(wheel, unpack, into, stamped, python)
    return into / unpack


def _unpack_wheel_into(wheel: str, unpack: str, into: Path, stamped: str, python: str) -> None:
    with tempfile.TemporaryDirectory() as download_dir:
        # The wheel is only unpacked, never installed or imported: the Python it asks for does not matter here.
        # `-I`: the working folder is the pull request's checkout, where `-m pip` would import a `pip/` it commits.
        command = [
            sys.executable,
            "-I",
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--ignore-requires-python",
            "--quiet",
            "-d",
            download_dir,
            "--",
            wheel,
        ]
        completed = subprocess.run(command, capture_output=True, text=True)
        wheels = list(Path(download_dir).glob("*.whl"))
        if completed.returncode != 0 or len(wheels) != 1:
            last = (completed.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
            raise FetchError(f"pip download {wheel} failed: {last}")
        into.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=into.parent))
        try:
            # An empty `unpack` takes the whole wheel.
            prefix = unpack.strip("/") + "/" if unpack.strip("/") else ""
            code = python.strip("/") + "/" if python.strip("/") else None
            unpack_wheel(wheels[0], prefix, staging, code)
            write_new(staging / STAMP, f"{stamped}\n".encode())
            if into.is_symlink():
                into.unlink()  # replace the link itself, never the folder it points at
            elif into.exists():
                shutil.rmtree(into)
            staging.rename(into)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _stamp(into: Path) -> str | None:
    """What the stamp file of an earlier fetch says (`wheel unpack`), or None when there is none to read."""
    try:
        return read_text(into / STAMP, limit=4096).strip()
    except (OSError, UnicodeDecodeError, InputLimitError):
        return None


def unpack_wheel(wheel: Path, prefix: str, staging: Path, code: str | None = None) -> None:
    """Write the wheel's files below `prefix` (and its `.py` files below `code`, when given) into `staging`, a
    fresh folder of ours, each through the one writer.

    The wheel is read through the one reader (bounded as an archive), and every member is bounded while it is
    unpacked: a member's declared size cannot be trusted, and a small wheel can inflate to gigabytes.
    """
    try:
        data = read_bytes(wheel, limit=MAX_ARCHIVE_BYTES)
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (InputLimitError, zipfile.BadZipFile, OSError) as error:
        raise FetchError(f"{wheel.name}: {error}") from None
    with archive:
        members = [
            m
            for m in archive.infolist()
            if (m.filename.startswith(prefix) or (code is not None and m.filename.startswith(code) and m.filename.endswith(".py")))
            and not m.is_dir()
        ]
        if not members:
            raise FetchError(f"{wheel.name} has no {prefix or 'files'}")
        budget = MAX_ARCHIVE_BYTES
        for member in members:
            parts = PurePosixPath(member.filename).parts
            if ".." in parts or member.filename.startswith("/") or "\\" in member.filename:
                raise FetchError(f"{wheel.name}: refusing unsafe member {member.filename}")
            try:
                with archive.open(member) as stream:
                    content = read_limited(stream, budget)
            except InputLimitError as error:
                raise FetchError(f"{wheel.name}: {member.filename}: {error}") from None
            except (zipfile.BadZipFile, OSError) as error:
                raise FetchError(f"{wheel.name}: {member.filename}: {error}") from None
            budget -= len(content)
            write_new(staging.joinpath(*parts), content, inside=staging)


def refuse_to_replace(into: Path) -> None:
    """FetchError unless `into` is absent, empty, or a folder an earlier fetch made (it holds the stamp file):
    fetch replaces that folder, and must never delete anything else."""
    if into.is_symlink() or not into.exists():
        return
    if not into.is_dir() or (any(into.iterdir()) and not (into / STAMP).is_file()):
        raise FetchError(f"{into} exists and was not made by fetch (no {STAMP} in it); refusing to replace it, remove it yourself")


def fetch_source(source: Source, force: bool = False) -> str:
    """Fetch the settings' source and say where it went."""
    tree = fetch_wheel_tree(source.wheel, source.unpack, source.into, force, source.python)
    code = f" (and the Python sources of {source.python}, never imported)" if source.python else ""
    return f"{source.wheel}: {source.unpack} ready at {tree}{code}"
