"""Minimal repositories laid out as the Hydra applications and verl forks of issue 54 are (rllm, deepscaler, VAGEN,
RAGEN, CARP-S): what the integration tests adopt, and what the e2e tests adopt beside the applications' real
distributions. Each mirrors the layout the issue describes, with a few configs of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

MAIN = 'import hydra\n\n\n@hydra.main(config_path="{path}", config_name="{name}", version_base={base})\ndef main(cfg):\n    pass\n'


def vendored_verl_tree(scripts: int = 3) -> dict[str, str]:
    """rllm's and deepscaler's layout: verl vendored as `verl/` (its setup.py and the package `verl/verl/`, installed
    with `pip install -e ./verl`), the fork's package beside it, an example with an entry point of its own (two calls
    on one folder), and launch scripts that run `python3 -m verl.trainer.main_ppo` from the repository's root."""
    tree = {
        "verl/setup.py": "from setuptools import setup\n\nsetup(name='verl')\n",
        "verl/verl/__init__.py": "",
        "verl/verl/trainer/__init__.py": "",
        "verl/verl/trainer/main_ppo.py": MAIN.format(path="config", name="ppo_trainer", base="None"),
        "verl/verl/trainer/config/ppo_trainer.yaml": "defaults:\n  - _self_\ndata:\n  train_batch_size: 8\ntrainer:\n  nnodes: 1\n",
        "deepscaler/__init__.py": "",
        "deepscaler/rewards.py": "def score(text):\n    return 0\n",
        "examples/toy/main_toy.py": MAIN.format(path="config", name="toy", base="None"),
        "examples/toy/eval_toy.py": MAIN.format(path="config", name="toy", base="None"),
        "examples/toy/config/toy.yaml": "steps: 1\n",
    }
    for number in range(scripts):
        tree[f"scripts/train/run_{number}.sh"] = (
            f"python3 -m verl.trainer.main_ppo \\\n    data.train_batch_size={number + 1} \\\n    trainer.nnodes=2\n"
        )
    return tree


def vagen_tree(scripts: int = 3) -> dict[str, str]:
    """VAGEN's layout: `vagen/main_ppo.py` is verl's main with `config_path="config"` (no such folder); every launch
    script names the real one, `--config-path="$V/vagen/configs" --config-name=vagen_multiturn`, $V computed from the
    script's own folder; the configs build on verl's, found through `hydra.searchpath` in the verl submodule."""
    tree = {
        "vagen/__init__.py": "",
        "vagen/main_ppo.py": MAIN.format(path="config", name="ppo_trainer", base="None"),
        "vagen/configs/vagen_multiturn.yaml": (
            "hydra:\n  searchpath:\n    - file://verl/verl/trainer/config\n"
            "defaults:\n  - ppo_trainer\n  - env_registry\n  - _self_\ndata:\n  max_prompt_length: 9000\n"
        ),
        "vagen/configs/env_registry.yaml": "env_registry:\n  sokoban: vagen.envs.sokoban\n",
    }
    for number in range(scripts):
        tree[f"examples/train/game_{number}/train_ppo.sh"] = (
            'V=$(cd "$(dirname "$0")/../../.." && pwd)\n'
            'PYTHONUNBUFFERED=1 python3 -m vagen.main_ppo \\\n    --config-path="$V/vagen/configs" --config-name=vagen_multiturn \\\n'
            f"    data.max_prompt_length={number + 100} \\\n    trainer.nnodes=1\n"
        )
    return tree


VERL_CONFIG = {
    "verl/verl/__init__.py": "",
    "verl/verl/trainer/config/ppo_trainer.yaml": "defaults:\n  - _self_\ndata:\n  max_prompt_length: 512\ntrainer:\n  nnodes: 8\n",
}


def without_submodule(folder, path: str) -> None:
    """`path` a git submodule that is not checked out (its gitlink recorded, its folder empty), as a CI checkout
    without `submodules: true` leaves it."""
    (folder / path).mkdir(parents=True, exist_ok=True)
    (folder / ".gitmodules").write_text(f'[submodule "{path}"]\n\tpath = {path}\n\turl = https://example.com/{path}.git\n')
    subprocess.run(["git", "-C", str(folder), "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},{path}"], check=True)


VAGEN_BASE = "hydra:\n  searchpath:\n    - file://verl/verl/trainer/config\ndefaults:\n  - ppo_trainer\n  - _self_\nmicro_batch_size: 4\n"


def carps_tree() -> dict[str, str]:
    """CARP-S's layout (its PyPI release is an sdist only, never built here): `carps/run.py` composes `base.yaml`,
    whose defaults list includes `logger.yaml` (a `# @package _global_` block, a part of it), and launches pick an
    optimizer and a task from nested groups with `+optimizer/smac20=blackbox +task/BBOB=cfg_2_1_0`."""
    return {
        "carps/__init__.py": "",
        "carps/run.py": MAIN.format(path="configs", name="base.yaml", base="None"),
        "carps/run_from_db.py": MAIN.format(path="configs", name="runfromdb.yaml", base="None"),
        "carps/configs/__init__.py": "",
        "carps/configs/base.yaml": (
            "defaults:\n  - _self_\n  - logger\n\nseed: 1\ntask: ???\nbenchmark_id: ???\noptimizer: ???\noptimizer_id: ???\n"
            "baserundir: runs\noutdir: ${baserundir}/${optimizer_id}/${benchmark_id}/${seed}\n"
        ),
        "carps/configs/logger.yaml": "# @package _global_\nloggers:\n  - _target_: carps.loggers.FileLogger\n    _partial_: true\n",
        "carps/configs/runfromdb.yaml": "defaults:\n  - _self_\njob_nr_dummy: 1\nexperiment_name: carps\n",
        "carps/configs/optimizer/smac20/base.yaml": "# @package _global_\noptimizer_container_id: SMAC3\noptimizer:\n  n_trials: 10\n",
        "carps/configs/optimizer/smac20/blackbox.yaml": "# @package _global_\ndefaults:\n  - base\noptimizer_id: SMAC3-BlackBoxFacade\n",
        "carps/configs/task/BBOB/cfg_2_1_0.yaml": "# @package _global_\nbenchmark_id: BBOB\ntask:\n  name: bbob/2/1/0\n  dimension: 2\n",
        "carps/loggers.py": "class FileLogger:\n    def __init__(self, overwrite: bool = False):\n        self.overwrite = overwrite\n",
        "scripts/run_bbob.sh": (
            "python -m carps.run +optimizer/smac20=blackbox +task/BBOB=cfg_2_1_0 seed=1\n"
            "python -m carps.run +optimizer/smac20=blackbox +task/BBOB=cfg_2_1_0 seed=2 baserundir=other\n"
        ),
    }


def ragen_tree() -> dict[str, str]:
    """RAGEN's layout: `train.py` composes `config/base.yaml`, which builds on verl's `ppo_trainer` through a search
    path into the `verl` submodule and includes its own `envs.yaml`; its scripts pass `--config-name`."""
    return {
        "train.py": MAIN.format(path="config", name="base", base="None"),
        "ragen/__init__.py": "",
        "config/base.yaml": VAGEN_BASE.replace("  - _self_\n", "  - envs\n  - _self_\n"),
        "config/envs.yaml": "custom_envs:\n  SimpleSokoban:\n    max_actions_per_traj: 10\n",
        "scripts/train_sokoban.sh": "python train.py --config-name base micro_batch_size=2 trainer.nnodes=1\n",
    }


def verl_upstream(folder: Path) -> Path:
    """A git repository laid out as verl's (setup.py, `verl/trainer/config`), to be a fork's submodule."""
    files = {
        "setup.py": "from setuptools import setup\n\nsetup(name='verl')\n",
        **{k.removeprefix("verl/"): v for k, v in VERL_CONFIG.items()},
        # verl's own entry point and example launches: another repository's, inside the fork's submodule.
        "verl/trainer/__init__.py": "",
        "verl/trainer/main_ppo.py": MAIN.format(path="config", name="ppo_trainer", base="None"),
        **{f"examples/run_{n}.sh": f"python3 -m verl.trainer.main_ppo trainer.nnodes={n}\n" for n in range(1, 4)},
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "verl")
    return folder


def with_submodule(repo: Path, upstream: Path, path: str) -> None:
    """`upstream` checked out as the git submodule `path` of `repo`, as `git clone --recurse-submodules` leaves it."""
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), path)


def git(folder: Path, *arguments: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *identity, *arguments], cwd=folder, check=True, capture_output=True)
