"""Adoption as a verl maintainer would do it: verl 0.9.1's tree in a git repository, three commands, plain pytest; and
init's engine-group suggestion taken in one step on real applications (jumanji from PyPI, verl's whole repository)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.adopt.writer import whole_file_by_init
from harness.baselines.releases import fetch_wheel_tree
from tests.conftest import CACHE, verl_tree
from tests.e2e.real_trees import SHARED_DATA, golden_tree, plain_compose

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
    return subprocess.run(list(command), cwd=repo, capture_output=True, text=True, preexec_fn=lambda: os.umask(0o022), check=False)


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


REWROTE = "init wrote it and nobody edited it since (it had no engine group; now engine group {})"


def test_jumanji_takes_init_s_suggestion_in_one_step_and_composes_as_plain_hydra(tmp_path, cli):
    package = fetch_wheel_tree("jumanji==1.1.2", "jumanji", CACHE / "jumanji-1.1.2")
    repo = tmp_path / "repo"
    shutil.copytree(package, repo / "jumanji")
    git(repo, "init", "-q")
    first = cli("init", "--config-dir", "jumanji/training/configs", "--write", "h.toml", cwd=repo)
    assert first.code == 0, first.err
    assert "  candidate     env: " in first.out and "next: config-harness init --engine-group env (or another candidate" in first.out

    again = cli("init", "--config-dir", "jumanji/training/configs", "--write", "h.toml", "--engine-group", "env")
    assert again.code == 0, again.err
    assert again.out.splitlines()[0] == "rewrote h.toml: " + REWROTE.format("env")
    assert "  contracts     config-harness/contracts.yaml (empty, as init wrote it)" in again.out
    settings = tomllib.loads((repo / "h.toml").read_text())
    assert settings["engine_group"] == "env" and settings["version_base"] == "1.1"
    assert cli("--settings", "h.toml", "generate", "--quiet").code == 0
    assert cli("--settings", "h.toml", "check").code == 0
    cases = cli("--settings", "h.toml", "list", "--format", "json").json()["cases"]
    assert len(cases) == len(list((repo / "jumanji/training/configs/env").glob("*.yaml")))  # every env is an engine
    plain = plain_compose(repo / "jumanji/training/configs", cases, "1.1")
    project = type("P", (), {"snapshots": repo / settings["snapshot_dir"]})
    for case in cases:
        assert golden_tree(project, case) == plain[case["id"]], case["id"]


def test_verl_at_pr5848_parent_takes_model_engine_over_critic_in_one_step(tmp_path, cli):
    """On verl init once suggested `critic`; the first init now takes model_engine itself (other defaults interpolate
    it), and writes byte for byte what `init --engine-group model_engine` writes but for the flags its first line
    records; the known file is the same bytes in two checkouts (no host path in it)."""
    bundle = SHARED_DATA / "verl-full.bundle"
    if not bundle.is_file():
        pytest.skip(f"{bundle} is absent (CONFIG_HARNESS_TEST_DATA names its folder)")
    repos = []
    for name in ("verl", "twin"):
        subprocess.run(["git", "clone", "--quiet", str(bundle), str(tmp_path / name)], check=True)
        subprocess.run(["git", "-C", str(tmp_path / name), "checkout", "--quiet", "pr5848-parent"], check=True)
        repos.append(tmp_path / name)
    repo, twin = repos
    first = cli("init", "--config-dir", "verl/trainer/config", cwd=repo)
    assert first.code == 0, first.err
    assert "engine group model_engine, chosen by init: " in first.out and "other defaults interpolate it" in first.out

    assert cli("init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine", cwd=twin).code == 0
    tables = [(folder / "pyproject.toml").read_text().split("# Written by `config-harness init`", 1)[1] for folder in (repo, twin)]
    assert tables[0].split("\n", 1)[1] == tables[1].split("\n", 1)[1]
    assert (repo / "config-harness/contracts.yaml").read_bytes() == (twin / "config-harness/contracts.yaml").read_bytes()
    known = [(folder / "config-harness/known.yaml").read_text() for folder in (repo, twin)]
    assert all(whole_file_by_init(text) for text in known)
    assert known[0] == known[1] and str(tmp_path) not in known[0]
    diff = git(repo, "diff", "--numstat", "--", "pyproject.toml").split()
    assert diff[1] == "0"  # verl's own pyproject.toml lines are all kept: init only appended its table
    # Each entry names its cause, never a case: the config file that sets the key a program-view finding is about.
    assert "\n  source: verl/trainer/config/" in known[0] and "\n  cases:" not in known[0]
