"""Goldens are the same bytes across runs, working directories and host environments (Python 3.12 and verl's
real tree: tests/e2e/test_determinism.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
