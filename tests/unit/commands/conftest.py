"""A project of two cases for the command tests: each command runs in process on it (the `cli` fixture of
tests/conftest.py), so a test costs a compose of two small configs, not a process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import commit, git

TREE = {
    "train.yaml": """
        defaults:
          - backend: cpu
          - _self_
        trainer:
          lr: 0.1
          steps: 10
          effective_lr: ${trainer.lr}
        """,
    "backend/cpu.yaml": """
        # @package _global_
        device: {kind: cpu, count: 1}
        """,
    "backend/gpu.yaml": """
        # @package _global_
        device: {kind: cuda, count: 8}
        trainer:
          precision: bf16
        """,
}

SETTINGS = """
jobs = 1
config_dir = "conf"
snapshot_dir = "snapshots"
roots = ["train"]
engine_group = "backend"
"""

CASES = ["train/cpu/default", "train/gpu/default"]


@pytest.fixture
def tiny(tmp_path: Path, cli) -> Path:
    """Two cases (`train` with `backend=cpu` and `backend=gpu`), the working directory, no goldens yet."""
    write_tree(tmp_path / "conf", TREE)
    (tmp_path / "harness.toml").write_text(SETTINGS, encoding="utf-8")
    cli.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def generated(tiny: Path, cli) -> Path:
    """The two-case project with its goldens written."""
    assert cli("--settings", "harness.toml", "generate", "--quiet").code == 0
    return tiny


@pytest.fixture
def committed(generated: Path) -> Path:
    """The two-case project with its goldens, committed as `main` in a new git repository."""
    git(generated, "init", "-q", "-b", "main")
    commit(generated, "adopt")
    return generated
