from pathlib import Path

import pytest

from harness.model.matrix import build_cases, golden_name, select_engines
from harness.model.settings import SettingsError, load_settings, parse_settings


def settings(**table):
    return parse_settings({"config_dir": "conf", "roots": ["train"], **table}, Path("/p/harness.toml"))


def test_unknown_key_is_named():
    with pytest.raises(SettingsError, match="unknown key 'colour'"):
        settings(colour="blue")


def test_wrong_type_is_named():
    with pytest.raises(SettingsError, match=r"roots: expected list, got str"):
        parse_settings({"config_dir": "conf", "roots": "train"}, Path("/p/h.toml"))


@pytest.mark.parametrize("name", ["a/b", "..", "x..y", "has space", ""])
def test_unsafe_preset_and_engine_names(name):
    with pytest.raises(SettingsError, match="file-name safe"):
        settings(presets={name: []})
    with pytest.raises(SettingsError, match="file-name safe"):
        settings(engines=[name])


def test_unknown_route_key():
    with pytest.raises(SettingsError, match=r"routes\[0\]: unknown key 'config'"):
        settings(routes=[{"name": "r", "config": "x"}])


def test_paths_are_relative_to_the_settings_file():
    loaded = settings(snapshot_dir="goldens")
    assert loaded.config_dir == Path("/p/conf")
    assert loaded.snapshot_dir == Path("/p/goldens")


def test_single_base_engine_without_group_or_list():
    loaded = settings(presets={"default": [], "fast": ["a=1"]})
    cases = build_cases(loaded, select_engines(loaded, None))
    assert [c.id for c in cases] == ["train/base/default", "train/base/fast"]
    assert cases[1].overrides == ("a=1",)


def test_engine_group_override_comes_before_preset():
    loaded = settings(engine_group="backend", presets={"fast": ["a=1"]})
    (case,) = build_cases(loaded, select_engines(loaded, ["gpu"]))
    assert case.id == "train/gpu/fast"
    assert case.overrides == ("backend=gpu", "a=1")
    assert case.golden_name == "_generated_train__gpu__fast.yaml"


def test_explicit_engines_win_over_discovery():
    loaded = settings(engine_group="backend", engines=["cpu"])
    assert select_engines(loaded, ["cpu", "gpu"]) == ("cpu",)


def test_route_case_and_unknown_twin():
    loaded = settings(routes=[{"name": "legacy", "config_name": "legacy", "same_as": "train/base/default"}])
    cases = build_cases(loaded, ("base",))
    assert cases[-1].id == "route/legacy" and cases[-1].golden_name == "_generated_route__legacy.yaml"
    broken = settings(routes=[{"name": "legacy", "config_name": "legacy", "same_as": "nope"}])
    with pytest.raises(SettingsError, match="same_as 'nope' names no case"):
        build_cases(broken, ("base",))


def test_golden_name():
    assert golden_name("ppo_trainer/megatron/default") == "_generated_ppo_trainer__megatron__default.yaml"


def test_pyproject_without_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname='x'\n")
    with pytest.raises(SettingsError, match=r"no \[tool.config-harness\] table"):
        load_settings(start=tmp_path)


def test_invalid_toml_names_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("roots = [\n")
    with pytest.raises(SettingsError, match="bad.toml: invalid TOML"):
        load_settings(bad)


@pytest.mark.parametrize(
    ("commands", "message"),
    [
        ({"glob": "x/*.sh"}, r"commands: expected list, got dict"),
        (["x/*.sh"], r"commands\[0\]: expected a table, got str"),
        ([{"glob": 3}], r"commands\[0\]\.glob: expected str, got int 3"),
        ([{"glob": ["a/*.sh"]}], r"commands\[0\]\.glob: expected str, got list"),
        ([{"globs": "a/*.sh"}], r"commands\[0\]: unknown key 'globs'; did you mean 'glob'\? \(allowed: glob, modules\)"),
        ([{"glob": "a/*.sh"}, {"glob": "b/*.sh", "module": {}}], r"commands\[1\]: unknown key 'module'; did you mean 'modules'"),
        ([{}], r"commands\[0\]: missing required key 'glob'"),
        ([{"glob": "../x/*.sh"}], r"commands\[0\]\.glob: '\.\./x/\*\.sh' must be a relative glob inside the project"),
        ([{"glob": "/abs/*.sh"}], r"commands\[0\]\.glob: '/abs/\*\.sh' must be a relative glob inside the project"),
        ([{"glob": ""}], r"commands\[0\]\.glob: '' must be a relative glob"),
        ([{"glob": "a/*.sh", "modules": ["pkg.main"]}], r"commands\[0\]\.modules: expected dict, got list"),
        ([{"glob": "a/*.sh", "modules": {"pkg.main": 1}}], r'commands\[0\]\.modules\."pkg\.main": expected str, got int 1$'),
        ([{"glob": "a/*.sh", "modules": {"pkg-x.main": "train"}}], r"commands\[0\]\.modules: 'pkg-x\.main' = 'train' is neither"),
        (
            [{"glob": "a/*.sh", "modules": {"pkg.main": "../train"}}],
            r"commands\[0\]\.modules\.pkg\.main: '\.\./train' is not a config name inside",
        ),
        ([{"glob": "a/*.sh", "modules": {"../up/train.py": "train"}}], r"commands\[0\]\.modules: '\.\./up/train\.py' = 'train' is neither"),
        ([{"glob": "a/*.sh", "modules": {"/abs/train.py": "train"}}], r"commands\[0\]\.modules: '/abs/train\.py' = 'train' is neither"),
    ],
)
def test_commands_settings_errors_name_the_key(commands, message):
    with pytest.raises(SettingsError, match=message):
        settings(commands=commands)


def test_commands_globs_in_order_and_modules_merged():
    loaded = settings(
        commands=[
            {"glob": "examples/**/*.sh", "modules": {"pkg.main": "train"}},
            {"glob": "tools/*.sh", "modules": {"pkg.other": "sub/cfg"}},
        ]
    )
    assert loaded.command_globs == ("examples/**/*.sh", "tools/*.sh")
    assert loaded.command_modules == (("pkg.main", "train"), ("pkg.other", "sub/cfg"))
    assert settings().command_globs == () and settings().command_modules == ()
    # A launch that runs a script (`python 3D-Diffusion-Policy/train.py`) is mapped by the script's path.
    scripts = settings(commands=[{"glob": "scripts/*.sh", "modules": {"3D-Diffusion-Policy/train.py": "dp3"}}])
    assert scripts.command_modules == (("3D-Diffusion-Policy/train.py", "dp3"),)
