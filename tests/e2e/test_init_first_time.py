"""Plain `config-harness init` (no flags) right the first time on verl forks with their history (issue 42): the
config folder every @hydra.main names, verl's `model_engine` as the engine group, then `check` green and quiet."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.e2e.adoption import clone

pytestmark = pytest.mark.e2e


def adopt_plainly(cli, repo: Path) -> tuple[dict, str]:
    """Plain init, then the next step it printed (generate), then check: green and quiet (no warning line)."""
    init = cli("init", cwd=repo)
    assert init.code == 0, init.err
    assert init.out.splitlines()[-1].startswith("next: config-harness generate"), init.out
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0, check.out[-3000:]
    assert "warning" not in check.err.lower() and "warning" not in check.out.lower(), check.out[-3000:] + check.err[-3000:]
    return tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["config-harness"], init.out


def test_search_r1_at_its_tip_is_adopted_by_plain_init(tmp_path, cli):
    repo = clone("verl-forks.bundle", tmp_path / "search-r1", "search-r1")
    settings, said = adopt_plainly(cli, repo)
    assert settings["config_dir"] == "verl/trainer/config"
    assert "ppo_trainer" in settings["roots"]
    assert {"glob": "*.sh"} in settings["commands"]  # train_grpo.sh at the repository's root
    assert "  config_dir    verl/trainer/config (named by @hydra.main at verl/trainer/" in said


@pytest.mark.parametrize("ref", ["main-2026-08-22", "pr5848-parent"])
def test_verl_is_adopted_by_plain_init_with_model_engine(tmp_path, cli, ref):
    repo = clone("verl-full.bundle", tmp_path / "verl", ref)
    settings, said = adopt_plainly(cli, repo)
    assert settings["config_dir"] == "verl/trainer/config" and settings["engine_group"] == "model_engine"
    assert "engine group model_engine, chosen by init: " in said and "other defaults interpolate it" in said
    assert not any(glob["glob"].startswith("recipe/") for glob in settings.get("commands", []))  # a submodule


def test_schnetpack_takes_its_representation_as_the_engine_group_dropping_the_presets_that_do_not_compose(tmp_path, cli, monkeypatch):
    """Bar 32: `init --engine-group model/representation` with schnetpack's experiments as presets exits 0; the
    presets without an experiment (`model: null`) are left out with why, not the group."""
    import shutil

    from harness.baselines.releases import fetch_wheel_tree
    from tests.conftest import CACHE

    package = fetch_wheel_tree("schnetpack==2.1.1", "schnetpack", CACHE / "schnetpack-2.1.1")
    repo = tmp_path / "repo"
    shutil.copytree(package, repo / "schnetpack")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    monkeypatch.setenv("PWD", str(repo))
    experiments = ("md17", "qm9_atomwise", "qm9_dipole", "response", "rmd17")
    presets = [f"--preset={name}=experiment={name}" for name in experiments]
    init = cli(
        "init", "--config-dir", "schnetpack/configs", "--write", "h.toml", "--engine-group", "model/representation",
        "--preset", "default=", *presets, cwd=repo,
    )  # fmt: skip
    assert init.code == 0, init.err
    assert "left out preset default: does not compose with engine group model/representation: train does not compose" in init.out
    settings = tomllib.loads((repo / "h.toml").read_text())
    assert settings["engine_group"] == "model/representation" and sorted(settings["presets"]) == sorted(experiments)
    # Issue 42 item 9: what init left out stays visible as known: recorded with its flag, counted by every check.
    known = (repo / "config-harness" / "known.yaml").read_text()
    assert "  source: --preset default=\n  what: preset\n" in known and "  what: root\n" in known, known
    assert cli("--settings", "h.toml", "generate", "--quiet").code == 0
    check = cli("--settings", "h.toml", "check", "--format", "json")
    assert check.code == 0
    left_out = [f["detail"] for f in check.json()["findings"] if f["kind"] == "error" and f["status"] == "known"]
    assert sorted(left_out) == [["preset"], ["root"]], check.out[-2000:]
