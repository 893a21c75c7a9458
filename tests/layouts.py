"""Minimal repositories laid out as the Hydra applications and verl forks of issue 54 are (rllm, deepscaler, VAGEN,
RAGEN, CARP-S): what the integration tests adopt, and what the e2e tests adopt beside the applications' real
distributions. Each mirrors the layout the issue describes, with a few configs of its own."""

from __future__ import annotations

import subprocess

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
