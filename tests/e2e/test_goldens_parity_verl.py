"""On this project's verl tree (13 cases): `pytest --snapshot-update` and `config-harness generate` leave
byte-identical snapshot folders, with --snapshot-no-cleanup keeping orphans (as generate without --prune) and
without it pruning them (as `generate --prune`). The small tree: tests/integration/test_goldens_parity.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.runner.config_writes import RECORD_NAME
from tests.conftest import copy_verl_project
from tests.integration.test_goldens_parity import LEFTOVER, ORPHAN, folder_state
from tests.integration.test_plugin_workflow import run

pytestmark = pytest.mark.e2e


def troubled(root: Path) -> None:
    """verl's committed goldens, then the daily edit (gamma 1.0 -> 0.99 changes every case) and one of each trouble."""
    config = root / "config"
    trainer = config / "ppo_trainer.yaml"
    trainer.write_text(trainer.read_text().replace("  gamma: 1.0\n", "  gamma: 0.99\n"))
    (config / "ppo_megatron_trainer.yaml").write_text("defaults:\n  - ppo_trainer\n  - override model_engine: nope\n  - _self_\n")
    snapshots = root / "snapshots"
    (snapshots / "_generated_ppo_trainer__dp__lora.yaml").unlink()
    reheadered = snapshots / "_generated_ppo_trainer__veomni__default.yaml"
    reheadered.write_text("# written by an older release\n" + reheadered.read_text())
    (snapshots / "_generated_ppo_trainer__torchtitan__grpo.yaml").write_text("actor_rollout_ref: [\n")
    (snapshots / ORPHAN).write_text("a: 1\n")
    (snapshots / LEFTOVER).write_text("half a golden")


def test_verl_snapshot_update_and_generate_leave_the_same_goldens(pytester: pytest.Pytester, tmp_path: Path, capsys) -> None:
    settings = copy_verl_project(pytester.path)
    troubled(pytester.path)
    cli = tmp_path / "cli"
    shutil.copytree(pytester.path, cli, symlinks=True)
    before = folder_state(pytester.path / "snapshots")
    pytest_args = ("--config-harness-settings", str(settings), str(settings), "--snapshot-update")

    assert main(["--settings", str(cli / "harness.toml"), "generate", "--quiet"]) == 1
    assert run(pytester, *pytest_args, "--snapshot-no-cleanup").ret == 1
    after = folder_state(pytester.path / "snapshots")
    assert after == folder_state(cli / "snapshots")
    assert after[ORPHAN] == before[ORPHAN] and LEFTOVER not in after
    for kept in ("_generated_ppo_trainer__torchtitan__grpo.yaml", "_generated_route__ppo_megatron_trainer.yaml"):
        assert after[kept] == before[kept]  # not YAML; a case that no longer composes
    rewritten = [name for name in after if name in before and after[name] != before[name]]
    assert len(rewritten) == 10 and all(b"gamma: 0.99" in after[name][1] for name in rewritten)
    assert b"gamma: 0.99" in after["_generated_ppo_trainer__dp__lora.yaml"][1]

    capsys.readouterr()
    assert main(["--settings", str(cli / "harness.toml"), "generate", "--prune", "--quiet"]) == 1
    assert run(pytester, *pytest_args).ret == 1
    after = folder_state(pytester.path / "snapshots")
    assert after == folder_state(cli / "snapshots") and ORPHAN not in after
    # One golden per case (13) and the code-writes record, which no case claims and pruning keeps, unchanged.
    goldens = [name for name in after if name.startswith("_generated_")]
    assert len(goldens) == 13 and set(after) - set(goldens) == {RECORD_NAME} and after[RECORD_NAME] == before[RECORD_NAME]
