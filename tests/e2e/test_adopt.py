"""Adoption as a verl maintainer would do it: verl 0.9.1's tree in a git repository, three commands, plain pytest."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import verl_tree

pytestmark = pytest.mark.e2e

VERL_PYPROJECT = b"""[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "verl"
version = "0.9.1"

[tool.setuptools.package-data]
verl = ["trainer/config/*.yaml", "trainer/config/*/*.yaml"]  # what the wheel ships

[tool.ruff]
line-length = 120
"""


def run(repo: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """A command in the repository under umask 022, as on a developer's machine."""
    return subprocess.run(
        list(command), cwd=repo, capture_output=True, text=True, preexec_fn=lambda: os.umask(0o022), check=False
    )


def git(repo: Path, *arguments: str) -> str:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *identity, *arguments], cwd=repo, capture_output=True, text=True, check=True).stdout


def test_verl_adopts_the_harness_with_init_generate_check(tmp_path):
    repo = tmp_path / "verl"
    shutil.copytree(verl_tree("0.9.1"), repo / "verl" / "trainer" / "config")
    (repo / "pyproject.toml").write_bytes(VERL_PYPROJECT)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "verl 0.9.1")

    harness = [sys.executable, "-m", "harness"]
    init = run(repo, *harness, "init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine")
    assert init.returncode == 0, init.stderr
    assert "left out _generated_ppo_trainer: a generated file" in init.stdout  # verl's own generated file, said why
    for command in ("generate", "check"):
        completed = run(repo, *harness, command)
        assert completed.returncode == 0, f"{command}: {completed.stdout[-2000:]} {completed.stderr[-2000:]}"

    settings = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["config-harness"]
    assert (repo / "pyproject.toml").read_bytes().startswith(VERL_PYPROJECT)
    assert "ppo_trainer" in settings["roots"] and settings["engine_group"] == "model_engine"
    goldens = sorted((repo / settings["snapshot_dir"]).glob("_generated_*.yaml"))
    assert "_generated_ppo_trainer__megatron__default.yaml" in {p.name for p in goldens}
    config_dir = (repo / "verl" / "trainer" / "config").resolve()
    assert all(config_dir not in p.resolve().parents for p in goldens)  # never shipped as package data
    assert {stat.S_IMODE(p.stat().st_mode) for p in goldens} == {0o644}
    assert stat.S_IMODE((repo / settings["contracts"][0]).stat().st_mode) == 0o644
    assert git(repo, "status", "--porcelain", "--", "verl") == ""  # the config package is untouched

    tests = run(repo, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v")
    assert tests.returncode == 0, tests.stdout[-3000:]
    for golden in goldens:
        case_id = golden.name.removeprefix("_generated_").removesuffix(".yaml").replace("__", "/")
        assert f"pyproject.toml::golden[{case_id}] PASSED" in tests.stdout
