"""init right the first time on applications never seen (issue 54): each layout of foundry, F5-TTS, classy, CARP-S,
vissl and of the verl forks (rllm, deepscaler, VAGEN, RAGEN) as a minimal repository, adopted by a plain `init` or
by the one answer its question names, and `check` green."""

from __future__ import annotations

import tomllib

from tests.conftest import write_tree

MAIN = 'import hydra\n\n\n@hydra.main(config_path="{path}", config_name="{name}", version_base={base})\ndef main(cfg):\n    pass\n'


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
    assert "engine group experiment, chosen by init: 1 root(s) select it; 1 compose only with it chosen (experiment: ??? in train)" in result.out
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
