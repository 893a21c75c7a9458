"""Goldens are the same bytes on another Python (3.12, in a virtual environment of its own) and for verl's real
tree rendered from another directory under another host (the small tree: tests/integration/test_determinism.py)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from importlib import metadata

import pytest

from tests.conftest import ROOT
from tests.integration.test_determinism import HOSTS, generate, goldens

pytestmark = pytest.mark.e2e


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
    venv = tmp_path / "py312-venv"  # never inside the checkout
    python = venv / "bin" / "python"
    subprocess.run([PY312, "-m", "venv", str(venv)], check=True, capture_output=True)
    # What the harness imports whatever it reads (the bash grammar is imported only for launches, none here).
    pins = [f"{name}=={metadata.version(name)}" for name in ("hydra-core", "omegaconf", "PyYAML", "google-re2")]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins], check=True, capture_output=True)
    version = subprocess.run([str(python), "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    assert version.stdout.strip() == "(3, 12)"
    settings = small_project / "harness.toml"
    generate(sys.executable, settings, small_project, HOSTS[0], tmp_path / "py311")
    generate(str(python), settings, small_project, HOSTS[1], tmp_path / "py312", pythonpath=str(ROOT))
    assert goldens(tmp_path / "py311") == goldens(tmp_path / "py312")
