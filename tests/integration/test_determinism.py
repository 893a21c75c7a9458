"""Goldens are the same bytes across runs, working directories, host environments and Python versions."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import CACHE, ROOT

HOSTS = [
    {"PYTHONHASHSEED": "0", "HOME": "/tmp/home-a", "USER": "alice", "TZ": "UTC", "LANG": "C"},
    {"PYTHONHASHSEED": "4242", "HOME": "/tmp/home-b", "USER": "bob", "TZ": "Asia/Tokyo", "LANG": "de_DE.UTF-8"},
    {"PYTHONHASHSEED": "random", "HOME": "/nonexistent", "USER": "root", "TZ": "America/St_Johns", "LANG": "tr_TR.UTF-8"},
]


def generate(python: str, settings: Path, cwd: Path, host: dict[str, str], snapshot_dir: Path, pythonpath: str = "") -> None:
    env = {**os.environ, **host}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    command = [python, "-m", "harness", "--settings", str(settings), "--snapshot-dir", str(snapshot_dir), "generate"]
    completed = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def goldens(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_goldens_are_identical_across_runs_directories_and_hosts(small_project, tmp_path):
    settings = small_project / "harness.toml"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outputs = []
    for index, (cwd, host) in enumerate([(small_project, HOSTS[0]), (elsewhere, HOSTS[1]), (small_project, HOSTS[2])]):
        generate(sys.executable, settings, cwd, host, tmp_path / f"run{index}")
        outputs.append(goldens(tmp_path / f"run{index}"))
    assert outputs[0] == outputs[1] == outputs[2] and len(outputs[0]) == 7
    text = b"".join(outputs[0].values())
    for host_value in (str(small_project).encode(), str(tmp_path).encode(), b"alice", b"bob", b"/tmp/home", b"Tokyo"):
        assert host_value not in text
    assert b"${oc.env:USER}" in text


def test_verl_goldens_match_from_another_directory_and_host(tmp_path):
    """The committed verl goldens, re-rendered from elsewhere under another host, are byte-identical."""
    command = [sys.executable, "-m", "harness", "--settings", str(ROOT / "pyproject.toml"), "generate", "--check"]
    completed = subprocess.run(command, cwd=tmp_path, env={**os.environ, **HOSTS[1]}, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.strip().endswith("0 of 13 goldens would change")


def find_python_3_12() -> str | None:
    """A working python3.12: on PATH, or installed by pyenv (whose shim may refuse without a pyenv version)."""
    candidates = [shutil.which("python3.12"), *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12")))]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
            return candidate
    return None


PY312 = find_python_3_12()


@pytest.mark.skipif(PY312 is None, reason="python3.12 is not installed on this machine")
def test_goldens_are_identical_on_python_3_12(small_project, tmp_path):
    venv = CACHE / "py312-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([PY312, "-m", "venv", str(venv)], check=True, capture_output=True)
        pins = [f"{name}=={metadata.version(name)}" for name in ("hydra-core", "omegaconf", "PyYAML")]
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins], check=True, capture_output=True)
    version = subprocess.run([str(python), "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    assert version.stdout.strip() == "(3, 12)"
    settings = small_project / "harness.toml"
    generate(sys.executable, settings, small_project, HOSTS[0], tmp_path / "py311")
    generate(str(python), settings, small_project, HOSTS[1], tmp_path / "py312", pythonpath=str(ROOT))
    assert goldens(tmp_path / "py311") == goldens(tmp_path / "py312")
