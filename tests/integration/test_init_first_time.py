"""init right the first time (issue 42): the config folder from the entry points, the engine group the evidence
decides (else a question), nested folders as groups, presets dropped with why, no scripts of a submodule; and its
rewrite, which trusts only what it can write again byte for byte (issue 41 item 5), keeps a user's text."""

from __future__ import annotations

import tomllib

from tests.conftest import write_tree

MAIN = 'import hydra\n\n\n@hydra.main(config_path="{path}", config_name="{name}", version_base=None)\ndef main(cfg):\n    pass\n'

ENGINE_TREE = {
    # `engine` is interpolated by another defaults entry (verl's `${model_engine}_actor`); `optim` leads nothing.
    "conf/train.yaml": "defaults:\n  - engine: dp\n  - optim: sgd\n  - actor: ${engine}_actor\n  - _self_\nname: run\n",
    "conf/engine/dp.yaml": "kind: dp\n",
    "conf/engine/megatron.yaml": "kind: megatron\n",
    "conf/actor/dp_actor.yaml": "size: 1\n",
    "conf/actor/megatron_actor.yaml": "size: 2\n",
    "conf/optim/sgd.yaml": "lr: 1\n",
    "conf/optim/adam.yaml": "lr: 2\n",
    "conf/optim/rms.yaml": "lr: 3\n",
    "app/__init__.py": "",
    "app/main.py": MAIN.format(path="../conf", name="train"),
}


def test_plain_init_finds_the_config_folder_and_the_interpolated_engine_group(tmp_path, cli):
    write_tree(tmp_path, ENGINE_TREE)
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    table = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["config-harness"]
    assert table["config_dir"] == "conf" and table["engine_group"] == "engine"
    assert "  config_dir    conf (named by @hydra.main at app/main.py:4)" in result.out
    assert (
        "engine group engine, chosen by init: 1 root(s) select it; 2 options; other defaults interpolate it "
        "(train.yaml: actor: ${engine}_actor); every option composes with every root"
    ) in result.out
    assert result.out.splitlines()[-1].startswith("next: config-harness generate")
    assert cli("generate").code == 0 and cli("check").code == 0


# pyteia's start (issue 42): the folder is computed from an imported package, the config it composes is literal.
COMPUTED_START = """from pathlib import Path

from hydra import compose, initialize_config_dir


def primary():
    import app
    return Path(app.__file__).parent / "conf"


def run():
    with initialize_config_dir(config_dir=str(primary()), version_base="1.3"):
        return compose(config_name="config")
"""


def test_init_adopts_the_one_folder_holding_the_config_a_computed_start_composes(tmp_path, cli):
    """pyteia computes its config folder (`initialize_config_dir(str(...))`): the folder that holds the config its
    `compose` names is the config folder; two such folders are a question, each listed with the start."""
    tree = {"app/__init__.py": "", "app/runtime.py": COMPUTED_START, "app/conf/config.yaml": "a: 1\n", "docs/x.yaml": "b: 1\n"}
    write_tree(tmp_path / "one", tree)
    result = cli("init", cwd=tmp_path / "one")
    assert result.code == 0, result.err
    assert (
        "  config_dir    app/conf (holds config.yaml, the config initialize_config_dir at app/runtime.py:12 composes "
        "from a folder it computes, read without running)"
    ) in result.out.splitlines()
    assert "  hydra         version_base '1.3' as initialize_config_dir at app/runtime.py:12 (1 call(s) agree)" in result.out

    # A folder farther from the start (docs/demo beside app/) is not the one it composes from (issue 54: foundry's
    # rf3/cli.py and rf3/configs, beside rfd3/configs): the nearest holds it.
    write_tree(tmp_path / "near", {**tree, "demo/config.yaml": "c: 1\n"})
    result = cli("init", cwd=tmp_path / "near")
    assert result.code == 0 and "  config_dir    app/conf (holds config.yaml" in result.out, result.err
    write_tree(tmp_path / "two", {**tree, "app/demo/config.yaml": "c: 1\n"})
    result = cli("init", cwd=tmp_path / "two")
    assert result.code == 2 and len(result.err.splitlines()) == 1 and not (tmp_path / "two/pyproject.toml").exists()
    assert "2 config folders are used as much as each other: app/conf (holds config.yaml" in result.err
    assert "; app/demo (holds config.yaml, the config initialize_config_dir at app/runtime.py:12 composes" in result.err


# pyteia's hydra_plugins/teia_searchpath.py: installed, it adds each folder of the package's `__path__` + conf/.
PLUGIN = """from pathlib import Path

import app
from hydra.plugins.search_path_plugin import SearchPathPlugin


class AppSearchPath(SearchPathPlugin):
    def manipulate_search_path(self, search_path):
        for portion in map(Path, app.__path__):
            search_path.append(provider="app", path=f"file://{portion / 'extra'}")


class Elsewhere(SearchPathPlugin):
    def manipulate_search_path(self, search_path):
        search_path.append("else", f"file://{Path.home()}/conf")
"""


def test_init_puts_the_folder_a_search_path_plugin_of_the_repository_adds_on_the_search_path(tmp_path, cli):
    """A SearchPathPlugin in the repository adds its folder to every run's search path: init reads the folder
    (never imports the plugin) and writes it, so the groups it holds are composed, and says which it cannot read."""
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/main.py": MAIN.format(path="conf", name="train"),
            "app/conf/train.yaml": "defaults:\n  - optional engine: null\n  - _self_\nname: run\n",
            "app/extra/engine/dp.yaml": "kind: dp\n",
            "app/extra/engine/fsdp.yaml": "kind: fsdp\n",
            "hydra_plugins/app_searchpath.py": PLUGIN,
        },
    )
    result = cli("init", "--engine-group", "engine", cwd=tmp_path)
    assert result.code == 0, result.err
    table = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["config-harness"]
    assert table["search_path"] == ["app/extra"] and table["engine_group"] == "engine"
    assert (
        "note: search_path app/extra: hydra_plugins/app_searchpath.py:7: the SearchPathPlugin AppSearchPath adds it to "
        "every run's search path (read, never imported)"
    ) in result.out.splitlines()
    assert (
        "note: hydra_plugins/app_searchpath.py:13: the SearchPathPlugin Elsewhere adds a folder it computes "
        "(`Path.home()` is neither a literal nor a path built from __file__); give it with --search-path DIR"
    ) in result.out.splitlines()
    assert cli("generate", "--quiet").code == 0
    assert "kind: fsdp" in (tmp_path / "config-harness/snapshots/_generated_train__fsdp__default.yaml").read_text()


def test_init_lists_the_config_folders_it_cannot_choose_between(tmp_path, cli):
    write_tree(
        tmp_path,
        {
            "a/conf/x.yaml": "a: 1\n",
            "a/main.py": MAIN.format(path="conf", name="x"),
            "b/conf/y.yaml": "b: 1\n",
            "b/main.py": MAIN.format(path="conf", name="y"),
        },
    )
    result = cli("init", cwd=tmp_path)
    assert result.code == 2 and len(result.err.splitlines()) == 1 and not (tmp_path / "pyproject.toml").exists()
    assert "2 config folders are used as much as each other: a/conf (named by @hydra.main at a/main.py:4); b/conf" in result.err
    assert cli("init", "--config-dir", "b/conf").code == 0  # the flag still says it


def test_a_pkg_config_path_names_the_package_s_folder(tmp_path, cli):
    write_tree(tmp_path, {"src/app/configs/run.yaml": "a: 1\n", "src/app/main.py": MAIN.format(path="pkg://app.configs", name="run")})
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    assert tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["config-harness"]["config_dir"] == "src/app/configs"


def test_an_optional_null_group_is_a_candidate_and_an_engine_group(tmp_path, cli):
    write_tree(
        tmp_path / "conf",
        {"config.yaml": "defaults:\n  - _self_\n  - optional task: null\nname: app\n", "task/a.yaml": "k: a\n", "task/b.yaml": "k: b\n"},
    )
    first = cli("init", "--config-dir", "conf", "--write", "h.toml", cwd=tmp_path)
    assert first.code == 0 and "  candidate     task: 1 root(s) select it; 2 options" in first.out
    again = cli("init", "--config-dir", "conf", "--write", "h.toml", "--engine-group", "task")
    assert again.code == 0, again.err
    assert "engines       a, b (options of task)" in again.out


def test_a_nested_folder_a_defaults_list_selects_is_a_group_not_options(tmp_path, cli):
    write_tree(
        tmp_path / "conf",
        {
            "train.yaml": "defaults:\n  - task: det\n  - _self_\n",
            "task/det.yaml": "defaults:\n  - model: ssd\nkind: det\n",
            "task/seg.yaml": "kind: seg\n",
            "task/model/ssd.yaml": "depth: 3\n",
            "task/model/yolo.yaml": "depth: 5\n",
        },
    )
    result = cli("init", "--config-dir", "conf", "--write", "h.toml", "--engine-group", "task", cwd=tmp_path)
    assert result.code == 0, result.err
    table = tomllib.loads((tmp_path / "h.toml").read_text())
    assert table["engine_group"] == "task" and table["presets"] == {"default": []}  # never `task=model/ssd`


def test_init_drops_a_preset_that_does_not_compose_with_the_engine_group_and_says_why(tmp_path, cli):
    write_tree(
        tmp_path / "conf",
        {
            "train.yaml": "defaults:\n  - model: null\n  - experiment: null\n  - _self_\n",
            "model/nnp.yaml": "defaults:\n  - representation: painn\nkind: nnp\n",
            "model/representation/painn.yaml": "r: painn\n",
            "model/representation/schnet.yaml": "r: schnet\n",
            "experiment/md17.yaml": "# @package _global_\ndefaults:\n  - override /model: nnp\nmolecule: md17\n",
        },
    )
    result = cli(
        "init", "--config-dir", "conf", "--write", "h.toml", "--engine-group", "model/representation",
        "--preset", "default=", "--preset", "md17=experiment=md17", cwd=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert tomllib.loads((tmp_path / "h.toml").read_text())["presets"] == {"md17": ["experiment=md17"]}
    assert (
        "left out preset default: does not compose with engine group model/representation: train does not compose "
        "with model/representation=painn: Could not override 'model/representation'."
    ) in result.out.splitlines()


def test_init_globs_no_script_inside_a_submodule(tmp_path, cli):
    launch = "python -m app.main engine=dp\n"
    write_tree(tmp_path, {**ENGINE_TREE, "run.sh": launch, "sub/scripts/run.sh": launch, "sub/app/main.py": ""})
    write_tree(tmp_path, {".gitmodules": '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n'})
    result = cli("init", "--config-dir", "conf", cwd=tmp_path)
    assert result.code == 0, result.err
    assert tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["config-harness"]["commands"] == [{"glob": "*.sh"}]


HAND_WRITTEN = '[project]\nname = "demo"  # mine\n\n# my notes about the harness, above its table\n'


def test_a_rewrite_keeps_hand_written_comments_and_a_forged_first_line_deletes_nothing(tmp_path, cli):
    tree = {k: v for k, v in ENGINE_TREE.items() if not k.startswith("app/")}
    write_tree(tmp_path / "one", tree)
    (tmp_path / "one/pyproject.toml").write_text(HAND_WRITTEN)
    assert cli("init", "--config-dir", "conf", cwd=tmp_path / "one").code == 0
    written = (tmp_path / "one/pyproject.toml").read_text()
    again = cli("init", "--config-dir", "conf", "--engine-group", "engine")
    assert again.code == 0, again.err
    text = (tmp_path / "one/pyproject.toml").read_text()
    assert text.startswith(HAND_WRITTEN) and 'engine_group = "engine"' in text

    # A table whose first line is init's but whose body reaches over a later [project] (as a forged fingerprint
    # covering it did): init rewrites nothing, and [project] stays.
    forged = written + '\n[project.urls]\nhome = "https://example.com"\n'
    (tmp_path / "one/pyproject.toml").write_text(forged.replace('roots = ["train"]', 'roots = ["train"]\n'))
    refused = cli("init", "--config-dir", "conf", "--engine-group", "engine")
    assert refused.code == 2 and "edited since init wrote it" in refused.err
    assert (tmp_path / "one/pyproject.toml").read_text() == forged.replace('roots = ["train"]', 'roots = ["train"]\n')


def test_a_forged_checksum_over_a_later_section_makes_init_delete_nothing(tmp_path, cli):
    from harness.adopt.writer import fingerprinted

    write_tree(tmp_path, {k: v for k, v in ENGINE_TREE.items() if not k.startswith("app/")})
    assert cli("init", "--config-dir", "conf", "--write", "h.toml", cwd=tmp_path).code == 0
    body = (tmp_path / "h.toml").read_text().split("\n", 1)[1] + '\n[project]\nname = "kept"\n'
    forged = fingerprinted(body, "; every key is described in config-harness's docs/settings.md.")
    (tmp_path / "h.toml").write_text(forged)
    result = cli("init", "--config-dir", "conf", "--write", "h.toml", "--engine-group", "engine")
    assert result.code == 2 and (tmp_path / "h.toml").read_text() == forged


def test_init_globs_a_launch_run_from_the_folder_that_holds_its_entry_point(tmp_path, cli):
    write_tree(
        tmp_path,
        {
            "training/verl/__init__.py": "",
            "training/verl/trainer/__init__.py": "",
            "training/verl/trainer/main_ppo.py": MAIN.format(path="config", name="ppo"),
            "training/verl/trainer/config/ppo.yaml": "lr: 1\n",
            "training/examples/run_prime_main.sh": "cd training\npython -m verl.trainer.main_ppo lr=2\n",
        },
    )
    result = cli("init", "--config-dir", "training/verl/trainer/config", cwd=tmp_path)
    assert result.code == 0, result.err
    assert tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["config-harness"]["commands"] == [{"glob": "training/**/*.sh"}]


def test_hydra_s_warnings_at_adoption_are_known_and_check_stays_quiet(tmp_path, cli):
    write_tree(
        tmp_path,
        {
            "conf/train.yaml": "defaults:\n  - db: a\nx: 1\n",  # no `_self_`: Hydra 1.1 warns on every composition
            "conf/db/a.yaml": "k: 1\n",
            "app/__init__.py": "",
            "app/main.py": MAIN.format(path="../conf", name="train").replace("version_base=None", 'version_base="1.1"'),
        },
    )
    assert cli("init", "--config-dir", "conf", cwd=tmp_path).code == 0
    assert "finding: hydra_warning" in (tmp_path / "config-harness/known.yaml").read_text()
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0 and "WARNING" not in check.out and "1 known finding" in check.out, check.out


def test_a_config_path_python_refuses_to_build_is_one_note_not_an_internal_error(tmp_path, cli):
    """`{[1]: 2}` parses but is no value (`ast.literal_eval` raises TypeError, not ValueError): one reader of literals
    for the whole package (issue 55), so init says the path cannot be read and adopts from the layout (it was exit 3)."""
    tree = dict(ENGINE_TREE)
    tree["app/main.py"] = MAIN.replace('"{path}"', "{{[1]: 2}}").format(name="train")
    write_tree(tmp_path, tree)
    result = cli("init", cwd=tmp_path)
    assert result.code == 0, result.err
    assert "note: app/main.py:4: @hydra.main's config_path cannot be read without running it (`{[1]: 2}`" in result.out
    assert "internal error" not in result.err
