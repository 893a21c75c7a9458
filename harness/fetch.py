"""Fetch a config tree out of a PyPI wheel, without importing or installing the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from harness.settings import SettingsError, Source, check_requirement

STAMP = ".config-harness-source"


class FetchError(Exception):
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
    stamp = into / STAMP
    stamped = f"{wheel} {unpack}" + (f" {python}" if python else "")
    if not force and stamp.is_file() and stamp.read_text().strip() == stamped:
        return into / unpack
    refuse_to_replace(into)
    with tempfile.TemporaryDirectory() as download_dir:
        # The wheel is only unpacked, never installed or imported: the Python it asks for does not matter here.
        command = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--ignore-requires-python", "--quiet",
            "-d", download_dir, "--", wheel,
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
            with zipfile.ZipFile(wheels[0]) as archive:
                members = [
                    m for m in archive.namelist()
                    if (m.startswith(prefix) or (code is not None and m.startswith(code) and m.endswith(".py"))) and not m.endswith("/")
                ]
                if not members:
                    raise FetchError(f"{wheels[0].name} has no {prefix or 'files'}")
                for member in members:
                    if ".." in PurePosixPath(member).parts:
                        raise FetchError(f"{wheels[0].name}: refusing unsafe member {member}")
                    archive.extract(member, staging)
            (staging / STAMP).write_text(stamped + "\n")
            if into.is_symlink():
                into.unlink()  # replace the link itself, never the folder it points at
            elif into.exists():
                shutil.rmtree(into)
            staging.rename(into)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return into / unpack


def refuse_to_replace(into: Path) -> None:
    """FetchError unless `into` is absent, empty, or a folder an earlier fetch made (it holds the stamp file):
    fetch replaces that folder, and must never delete anything else."""
    if into.is_symlink() or not into.exists():
        return
    if not into.is_dir() or (any(into.iterdir()) and not (into / STAMP).is_file()):
        raise FetchError(
            f"{into} exists and was not made by fetch (no {STAMP} in it); refusing to replace it, remove it yourself"
        )


def fetch_source(source: Source, force: bool = False) -> str:
    """Fetch the settings' source and say where it went."""
    tree = fetch_wheel_tree(source.wheel, source.unpack, source.into, force, source.python)
    code = f" (and the Python sources of {source.python}, never imported)" if source.python else ""
    return f"{source.wheel}: {source.unpack} ready at {tree}{code}"
