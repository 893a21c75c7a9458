"""Sweeps are launches (issue 54 item 2) on lightning-hydra-template (../shared/data/other-repos.bundle): the multiruns
its README documents, put in a script as its users run them, are adopted by a plain `init` with no false known entry,
each point is the job Hydra's own multirun starts (compared with a real `--multirun` of a stand-in task on the same
configs), and a pull request that renames a key the sweep sets blocks on every point that sets it.

Its `scripts/schedule.sh` runs no multirun, hence the script here; hydra-colorlog's config folder is fetched from its
wheel as tests/e2e/test_other_repos.py does. hydra-optuna-sweeper is not installed: the README's optuna search is
recorded as known at adoption, naming the plugin.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_other_repos import checkout, colorlog_configs, commit_all

pytestmark = pytest.mark.e2e

# README.md's multiruns (lines 364, 377, 390 and 401), with the key of the learning rate this version's model config has.
SWEEPS = """#!/bin/bash
# The multiruns README.md documents, run from the root folder
python src/train.py -m data.batch_size=32,64,128 model.optimizer.lr=0.001,0.0005
python src/train.py -m hparams_search=mnist_optuna experiment=example
python src/train.py -m 'experiment=glob(*)'
python src/train.py -m seed=1,2,3,4,5 trainer.deterministic=True logger=csv tags=["benchmark"]
"""
INIT = ("init", "--config-dir", "configs", "--search-path", "plugin-conf", "--engine-group", "trainer", "--write", "harness.toml")
# A stand-in for src/train.py (which imports lightning): the same @hydra.main, a task that writes the overrides each job
# of a multirun gets. Run by Hydra itself with --multirun: what its basic sweeper starts.
STAND_IN = """
import json, sys
import hydra
from hydra.core.hydra_config import HydraConfig

@hydra.main(version_base="1.3", config_path=sys.argv.pop(1), config_name="train")
def main(cfg):
    with open(sys.argv[0] + ".jobs", "a") as out:
        out.write(json.dumps(list(HydraConfig.get().overrides.task)) + "\\n")

main()
"""


def hydra_jobs(repo: Path, tmp_path: Path, arguments: list[str]) -> list[list[str]]:
    """The task overrides of every job Hydra's own `--multirun` starts for these arguments (its basic sweeper and launcher)."""
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    jobs = Path(str(script) + ".jobs")
    jobs.unlink(missing_ok=True)
    extra = [
        f"hydra.searchpath=[file://{repo / 'plugin-conf'}]",
        f"hydra.sweep.dir={tmp_path / 'multirun'}",
        "hydra/job_logging=default",
        "hydra/hydra_logging=default",
    ]
    run = subprocess.run(
        [sys.executable, str(script), str(repo / "configs"), "--multirun", *arguments, *extra], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return [json.loads(line) for line in jobs.read_text().splitlines()]


def test_lightning_hydra_template_s_readme_multiruns_are_one_launch_per_hydra_job_and_a_rename_blocks_each(tmp_path, cli):
    repo = checkout(tmp_path, "lightning-hydra-template")
    shutil.copytree(colorlog_configs(), repo / "plugin-conf")
    (repo / "scripts" / "sweeps.sh").write_text(SWEEPS)
    init = cli(*INIT, cwd=repo)
    assert init.code == 0, init.err
    known = (repo / "config-harness" / "known.yaml").read_text()
    assert "multirun" not in known and "Ambiguous" not in known  # every sweep passes -m: none is known to fail
    # The optuna search cannot run here (its plugin is not installed): recorded, naming the plugin.
    assert known.count("- finding:") == 1 and "scripts/sweeps.sh:4" in known and "hydra-optuna-sweeper" in known

    assert cli("--settings", "harness.toml", "generate").code == 0
    check = cli("--settings", "harness.toml", "check", "--format", "json")
    assert check.code == 0, check.out[-2000:]
    launches = [c for c in check.json()["cases"] if c["id"].startswith("cmd/scripts/sweeps.sh")]
    assert {c["status"] for c in launches} == {"ok"}  # the optuna search's failure is known
    assert [c["id"] for c in launches] == [
        *(f"cmd/scripts/sweeps.sh#1(data.batch_size={b},model.optimizer.lr={lr})" for b in (32, 64, 128) for lr in ("0.001", "0.0005")),
        "cmd/scripts/sweeps.sh#2",
        "cmd/scripts/sweeps.sh#3(experiment=example)",
        *(f"cmd/scripts/sweeps.sh#4(seed={seed})" for seed in range(1, 6)),
    ]
    # Each launch's points are the jobs Hydra's own multirun starts, with the same overrides in the same order.
    listed = cli("--settings", "harness.toml", "list", "--format", "json", "--case", "cmd/scripts/sweeps.sh*").json()["cases"]
    for number, arguments in ((1, ["data.batch_size=32,64,128", "model.optimizer.lr=0.001,0.0005"]), (3, ["experiment=glob(*)"])):
        points = [row["overrides"] for row in listed if row["id"].startswith(f"cmd/scripts/sweeps.sh#{number}(")]
        assert points == hydra_jobs(repo, tmp_path, arguments), number
    said = cli(
        "--settings",
        "harness.toml",
        "explain",
        "data.batch_size",
        "--case",
        "cmd/scripts/sweeps.sh#1(data.batch_size=64,model.optimizer.lr=0.001)",
    )
    assert said.code == 0 and said.out.startswith("data.batch_size = 64")
    commit_all(repo, "adopt config-harness")

    # The pull request renames the key the first sweep sets (and the example experiment's), goldens regenerated.
    for name in ("configs/data/mnist.yaml", "configs/experiment/example.yaml"):
        path = repo / name
        path.write_text(path.read_text().replace("batch_size:", "train_batch_size:"))
    cli("--settings", "harness.toml", "generate")
    review = cli("--settings", "harness.toml", "diff", "--base", "adopted", "--format", "json")
    assert review.code == 1, review.out[-2000:]
    errors = sorted(
        (c["id"], f["new"], f["fix"], f["origin"])
        for c in review.json()["cases"]
        for f in c["findings"]
        if f["kind"] == "launch" and f["severity"] == "error"
    )
    assert errors == sorted(
        (
            f"cmd/scripts/sweeps.sh#1(data.batch_size={b},model.optimizer.lr={lr})",
            f"data.batch_size={b}",
            f"data.train_batch_size={b}",
            "introduced",
        )
        for b in (32, 64, 128)
        for lr in ("0.001", "0.0005")
    )
