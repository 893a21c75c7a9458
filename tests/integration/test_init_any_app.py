"""init right the first time on applications never seen (issue 54): each layout of foundry, F5-TTS, classy, CARP-S,
vissl and of the verl forks (rllm, deepscaler, VAGEN, RAGEN) as a minimal repository, adopted by a plain `init` or
by the one answer its question names, and `check` green."""

from __future__ import annotations

import subprocess
import tomllib

from tests.conftest import write_tree
from tests.layouts import MAIN, VAGEN_BASE, VERL_CONFIG, vagen_tree, vendored_verl_tree, without_submodule


def repository(folder, tree: dict[str, str]) -> None:
    """The tree in a git repository (the project init adopts is the git top level)."""
    write_tree(folder, tree)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def table(folder) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["config-harness"]


def test_a_pkg_search_path_entry_no_package_provides_is_skipped_as_hydra_skips_it(tmp_path, cli):
    """foundry lists `pkg://configs` in `hydra.searchpath`; nothing installed provides it, so plain Hydra warns that it
    "is not available" and composes: so does init (never importing anything to tell), and the warning is known."""
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/main.py": MAIN.format(path="configs", name="train", base='"1.3"'),
            "app/configs/train.yaml": "hydra:\n  searchpath:\n    - pkg://app.configs\n    - pkg://nowhere_issue54_configs\nlr: 1\n",
        },
    )
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    assert table(tmp_path)["roots"] == ["train"]
    known = (tmp_path / "config-harness/known.yaml").read_text()
    assert "finding: hydra_warning" in known and "path=nowhere_issue54_configs is not available." in known
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0 and "WARNING" not in check.out and "1 known finding" in check.out, check.out


# foundry's rf3/configs: train.yaml leaves `experiment` mandatory, inference.yaml composes alone.
MANDATORY_TREE = {
    "app/__init__.py": "",
    "app/train.py": MAIN.format(path="configs", name="train", base='"1.3"'),
    "app/configs/train.yaml": "defaults:\n  - _self_\n  - experiment: ???\nlr: 1\n",
    "app/configs/inference.yaml": "defaults:\n  - _self_\n  - engine: a\nsteps: 2\n",
    "app/configs/experiment/quick.yaml": "# @package _global_\nlr: 2\n",
    "app/configs/experiment/long.yaml": "# @package _global_\nlr: 3\n",
    "app/configs/engine/a.yaml": "k: a\n",
    "app/configs/engine/b.yaml": "k: b\n",
}


def test_a_mandatory_group_is_the_engine_group_init_takes(tmp_path, cli):
    """A root whose defaults list says `experiment: ???` composes only with an experiment chosen: that group is the
    engine group (its roots compose with no other choice), the other config a route; never a root left out."""
    write_tree(tmp_path, MANDATORY_TREE)
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    settings = table(tmp_path)
    assert settings["engine_group"] == "experiment" and settings["roots"] == ["train"]
    assert [route["name"] for route in settings["routes"]] == ["inference"]
    assert (
        "engine group experiment, chosen by init: 1 root(s) select it; 1 compose only with it chosen (experiment: ??? in train)"
        in result.out
    )
    assert cli("generate", "--quiet").code == 0 and cli("check").code == 0
    assert "lr: 3" in (tmp_path / "config-harness/snapshots/_generated_train__long__default.yaml").read_text()


def test_a_config_another_root_includes_is_a_part_not_a_root(tmp_path, cli):
    """CARP-S's `logger.yaml` is a `# @package _global_` block that `base.yaml` lists in its defaults: a part of base,
    not a root of its own (a config with a defaults list of its own that another builds on stays a root)."""
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/run.py": MAIN.format(path="configs", name="base.yaml", base="None"),
            "app/configs/base.yaml": "defaults:\n  - _self_\n  - logger\n  - optimizer: a\nseed: 1\n",
            "app/configs/logger.yaml": "# @package _global_\nloggers: [file]\n",
            "app/configs/optimizer/a.yaml": "name: a\n",
            "app/configs/optimizer/b.yaml": "name: b\n",
        },
    )
    result = cli("init", "--engine-group", "optimizer", cwd=tmp_path)
    assert result.code == 0, result.err
    assert table(tmp_path)["roots"] == ["base"]
    assert "left out logger: a part of base.yaml (its defaults list includes it), not a root of its own" in result.out.splitlines()


def test_a_mandatory_group_whose_options_lie_in_subfolders_names_the_preset_that_composes(tmp_path, cli):
    """vissl's defaults.yaml says `config: ???` and every option lies below config/pretrain/...: init cannot adopt it
    alone, and its one line names the `--preset` that composes it; that answer adopts it."""
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/utils.py": (
                "from hydra import compose, initialize_config_module\n\n\ndef load(overrides):\n"
                '    with initialize_config_module(config_module="app.config"):\n        return compose("defaults", overrides=overrides)\n'
            ),
            "app/config/__init__.py": "",
            "app/config/defaults.yaml": "defaults:\n  - _self_\n  - config: ???\nconfig:\n  seed: 0\n",
            "app/config/config/pretrain/simclr/broken.yaml": "# @package _global_\ndefaults:\n  - nothing_here\n",
            "app/config/config/pretrain/simclr/simclr_8node.yaml": "# @package _global_\nconfig:\n  seed: 1\n",
            "app/config/config/pretrain/swav/swav_8node.yaml": "# @package _global_\nconfig:\n  seed: 2\n",
        },
    )
    result = cli("init", cwd=tmp_path)
    assert result.code == 2 and len(result.err.splitlines()) == 1 and not (tmp_path / "pyproject.toml").exists()
    suggestion = "config-harness init --preset 'simclr_8node=config=pretrain/simclr/simclr_8node' composes it"
    assert "defaults needs its mandatory group config chosen (3 options): " + suggestion in result.err, result.err
    answer = cli("init", "--preset", "simclr_8node=config=pretrain/simclr/simclr_8node")
    assert answer.code == 0, answer.err
    assert cli("generate", "--quiet").code == 0 and cli("check").code == 0


def test_a_config_folder_built_from_a_package_s_files_is_read_and_its_sources_written(tmp_path, cli):
    """F5-TTS: `@hydra.main(config_path=str(files("f5_tts").joinpath("configs")), config_name=None)` in a package
    without __init__.py: the folder is read from the call's arguments (never run), every config is a root, the
    version_base is the call's and `python_sources` names the package the program imports from."""
    write_tree(
        tmp_path,
        {
            "f5_tts/train/train.py": (
                "from importlib.resources import files\n\nimport hydra\n\nfrom f5_tts.model import CFM\n\n\n"
                '@hydra.main(version_base="1.3", config_path=str(files("f5_tts").joinpath("configs")), config_name=None)\n'
                "def main(cfg):\n    pass\n"
            ),
            "f5_tts/model/cfm.py": "class CFM:\n    def __init__(self, dim: int = 1):\n        self.dim = dim\n",
            "f5_tts/configs/F5TTS_Base.yaml": "model:\n  name: F5TTS_Base\n  dim: 1024\n",
            "f5_tts/configs/F5TTS_Small.yaml": "model:\n  name: F5TTS_Small\n  dim: 768\n",
        },
    )
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    settings = table(tmp_path)
    assert settings["config_dir"] == "f5_tts/configs" and settings["roots"] == ["F5TTS_Base", "F5TTS_Small"]
    assert settings["version_base"] == "1.3" and settings["python_sources"] == ["f5_tts"]
    assert "  config_dir    f5_tts/configs (named by @hydra.main at f5_tts/train/train.py:8)" in result.out.splitlines()
    assert cli("generate", "--quiet").code == 0 and cli("check").code == 0


CLASSY_TRAIN = """import shutil
import tempfile
from pathlib import Path

import hydra

import classy


def main(args):
    with tempfile.TemporaryDirectory() as config_dir:
        shutil.copytree(str(Path(classy.__file__).parent.parent / "configurations"), config_dir, dirs_exist_ok=True)
        with hydra.initialize_config_dir(config_dir=config_dir, job_name="train"):
            return hydra.compose(config_name=args.task, return_hydra_config=True)
"""


def test_a_folder_computed_at_run_time_is_asked_once_with_the_candidates_and_the_answer_takes_the_call_s_semantics(tmp_path, cli):
    """classy copies its `configurations/` into a temporary folder and composes from there: init cannot read which
    folder it is, says so (never "no @hydra.main found") with the folders that look like config folders, and the
    answer adopts it with the semantics of that call (no version_base: Hydra 1.1) and its package's sources."""
    write_tree(
        tmp_path,
        {
            "classy/__init__.py": "",
            "classy/scripts/__init__.py": "",
            "classy/scripts/train.py": CLASSY_TRAIN,
            "configurations/__init__.py": "",
            "configurations/sequence.yaml": "defaults:\n  - data: sequence\n  - _self_\ntask: sequence\n",
            "configurations/token.yaml": "defaults:\n  - data: token\n  - _self_\ntask: token\n",
            "configurations/data/sequence.yaml": "kind: sequence\n",
            "configurations/data/token.yaml": "kind: token\n",
            "configurations/profiles/small.yaml": "size: 1\n",
        },
    )
    first = cli("init", cwd=tmp_path)
    assert first.code == 2 and len(first.err.splitlines()) == 1 and not (tmp_path / "pyproject.toml").exists()
    assert (
        "the Hydra start(s) below compute their config folder at run time (initialize_config_dir at classy/scripts/train.py:13;"
        in first.err
    )
    assert "folders that look like config folders: configurations (2 config(s) with a defaults list, 2 group folder(s))" in first.err
    assert first.err.rstrip().endswith("answer with config-harness init --config-dir DIR")
    answer = cli("init", "--config-dir", "configurations")
    assert answer.code == 0, answer.err
    settings = table(tmp_path)
    assert settings["version_base"] == "1.1" and settings["python_sources"] == ["classy"]
    assert "  hydra         version_base '1.1' as initialize_config_dir at classy/scripts/train.py:13 (1 call(s) agree" in answer.out
    assert cli("generate", "--quiet").code == 0 and cli("check").code == 0


def test_several_config_trees_are_asked_for_and_the_others_named_with_the_command_that_adopts_each(tmp_path, cli):
    """foundry: rf3/, rfd3/ and rfd3na/ each compose `inference` from their own configs/ (a folder computed in each
    cli.py): each start pairs with the folder nearest it; a tie is one question naming, for the others, the flags
    that adopt each beside; the answer adopts one, says which it left, and that command adopts the next."""
    cli_py = (
        "from pathlib import Path\n\nfrom hydra import compose, initialize_config_dir\n\n\ndef run(args):\n"
        "    folder = Path(__file__).parent / 'configs' if args else Path('.')\n"
        '    with initialize_config_dir(config_dir=str(folder), version_base="1.3"):\n'
        '        return compose(config_name="inference", overrides=args)\n'
    )
    tree = {}
    for package in ("rf3", "rfd3"):
        tree |= {
            f"{package}/__init__.py": "",
            f"{package}/cli.py": cli_py,
            f"{package}/configs/inference.yaml": f"defaults:\n  - engine: a\n  - _self_\nname: {package}\n",
            f"{package}/configs/engine/a.yaml": "k: a\n",
            f"{package}/configs/engine/b.yaml": "k: b\n",
        }
    write_tree(tmp_path, tree)
    first = cli("init", cwd=tmp_path)
    assert first.code == 2 and len(first.err.splitlines()) == 1
    assert (
        "2 config folders are used as much as each other: rf3/configs (holds inference.yaml, the config initialize_config_dir at rf3/cli.py:8 composes"
        in first.err
    )
    others = "--config-dir rfd3/configs --write config-harness-rfd3-configs.toml --write-snapshots config-harness/rfd3-configs/snapshots --write-contracts config-harness/rfd3-configs/contracts.yaml"
    assert f"config-harness init {others} adopts it beside" in first.err
    answer = cli("init", "--config-dir", "rf3/configs", "--engine-group", "engine")
    assert answer.code == 0, answer.err
    assert (
        f"note: 1 other config tree(s) the entry points name are not adopted: rfd3/configs; adopt each in a settings file of its own, e.g. config-harness init {others}"
        in answer.out
    )
    second = cli("init", *others.split(), "--engine-group", "engine")
    assert second.code == 0, second.err
    for settings in ([], ["--settings", "config-harness-rfd3-configs.toml"]):
        assert cli(*settings, "generate", "--quiet").code == 0 and cli(*settings, "check").code == 0
    assert "name: rfd3" in (tmp_path / "config-harness/rfd3-configs/snapshots/_generated_inference__b__default.yaml").read_text()
    assert "name: rf3" in (tmp_path / "config-harness/snapshots/_generated_inference__b__default.yaml").read_text()


def test_verl_vendored_in_a_subfolder_is_resolved_as_its_installer_would(tmp_path, cli):
    """rllm and deepscaler vendor verl in `verl/` (setup.py and `verl/verl/`): `python3 -m verl.trainer.main_ppo` runs
    `verl/verl/trainer/main_ppo.py`, so init adopts that entry point's folder (not the example's, named by more calls)
    and every launch composes."""
    write_tree(tmp_path, vendored_verl_tree())
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    settings = table(tmp_path)
    assert settings["config_dir"] == "verl/verl/trainer/config" and settings["python_sources"] == ["verl/verl"]
    assert (
        "  config_dir    verl/verl/trainer/config (named by @hydra.main at verl/verl/trainer/main_ppo.py:4; 3 launch(es) run them)"
        in result.out
    )
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0 and "3 launches checked of 3 found: 3 compose" in check.out, check.out


def test_a_folder_named_like_a_package_is_not_the_package(tmp_path, cli):
    """VAGEN starts its rollout server with `python3 -m sglang.launch_server` from scripts in a folder named
    `sglang/`: that folder holds no Python package, so the launch is another program's, not a failing project launch."""
    write_tree(
        tmp_path,
        {
            **vendored_verl_tree(1),
            "examples/evaluate/sglang/serve.sh": 'cd "$(dirname "$0")/.."\npython3 -m sglang.launch_server --model-path x --port 30000\n',
        },
    )
    assert cli("init", cwd=tmp_path).code == 0
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0 and "checked of 1 found: 1 compose, 0 fail" in check.out, check.out
    assert "sglang" not in (tmp_path / "config-harness/known.yaml").read_text()


def test_the_config_folder_every_launch_names_with_config_path_is_adopted(tmp_path, cli):
    """VAGEN: init adopts the folder its launch scripts name with `--config-path` (the entry point's own config_path
    names none), with that entry point's semantics and sources, and each launch composes."""
    repository(tmp_path, {**vagen_tree(), **VERL_CONFIG})
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    settings = table(tmp_path)
    assert settings["config_dir"] == "vagen/configs" and settings["roots"] == ["vagen_multiturn"]
    assert settings["python_sources"] == ["vagen"]
    assert (
        "  config_dir    vagen/configs (named by --config-path in 3 launch(es) (examples/train/game_0/train_ppo.sh:2 and 2 more))"
        in result.out.splitlines()
    )
    assert "  hydra         version_base None as @hydra.main at vagen/main_ppo.py:4" in result.out
    assert "left out env_registry: a part of vagen_multiturn.yaml (its defaults list includes it), not a root of its own" in result.out
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0 and "launches checked of 3 found: 3 compose, 0 fail" in check.out, check.out


def test_a_search_path_into_a_submodule_not_checked_out_is_named_never_a_configstore_node(tmp_path, cli):
    """VAGEN's and RAGEN's configs build on verl's through a search path into the `verl` submodule: without it, what
    init and check say is that folder (Hydra skipped it), not "probably registered from Python (ConfigStore)"."""
    repository(tmp_path, {**vagen_tree(), "vagen/configs/agent.yaml": "agent:\n  turns: 3\n"})
    without_submodule(tmp_path, "verl")
    result = cli("init", "--verbose", cwd=tmp_path)
    assert result.code == 0, result.err
    said = (
        "Could not load 'ppo_trainer'. ('ppo_trainer' is in no folder the search path reaches: Hydra skipped "
        "'verl/verl/trainer/config', which is not available (verl/ is an empty folder: a git submodule not checked out?))"
    )
    assert f"left out vagen_multiturn: does not compose: In 'vagen_multiturn': {said}" in result.out.splitlines()
    known = (tmp_path / "config-harness/known.yaml").read_text()
    assert "ConfigStore" not in known and "a git submodule not checked out?" in known
    assert cli("generate", "--quiet").code == 0 and cli("check").code == 0

    # RAGEN: its only root builds on verl's: nothing composes, and the one line says why.
    ragen = tmp_path / "ragen"
    repository(ragen, {"train.py": MAIN.format(path="config", name="base", base="None"), "config/base.yaml": VAGEN_BASE})
    without_submodule(ragen, "verl")
    assert "ConfigStore" not in cli("init", cwd=ragen).err
    refused = cli("init", "--verbose")
    assert refused.code == 2 and "ConfigStore" not in refused.err
    assert "Hydra skipped 'verl/verl/trainer/config', which is not available (verl/ is an empty folder" in refused.err
