"""The matrix: every root x engine x preset case and every route, with a golden name each; two cases that would
share a golden, a route that names no case or an option no override can spell are settings errors."""

import pytest

from harness.model.matrix import BASE_ENGINE, build_cases, golden_name, group_override, is_golden_name, select_engines
from harness.model.settings import SettingsError, load_settings


def settings(tmp_path, text):
    (tmp_path / "conf").mkdir(exist_ok=True)
    (tmp_path / "h.toml").write_text('config_dir = "conf"\n' + text)
    return load_settings(tmp_path / "h.toml")


def test_golden_names_are_flat_and_recognised():
    assert golden_name("train/gpu/fast") == "_generated_train__gpu__fast.yaml"
    assert is_golden_name("_generated_a.yaml") and not is_golden_name("_generated_a.yml") and not is_golden_name("a.yaml")


def test_every_root_engine_and_preset_then_every_route(tmp_path):
    text = 'roots = ["train", "sub/eval"]\nengine_group = "backend"\n[presets]\ndefault = []\nfast = ["a=1"]\n'
    text += '[[routes]]\nname = "legacy"\nconfig_name = "legacy"\nsame_as = "train/gpu/default"\n'
    cases = build_cases(settings(tmp_path, text), ("cpu", "gpu"))
    assert [c.id for c in cases] == [
        "train/cpu/default",
        "train/cpu/fast",
        "train/gpu/default",
        "train/gpu/fast",
        "sub.eval/cpu/default",  # a root in a subfolder keeps ids at three segments
        "sub.eval/cpu/fast",
        "sub.eval/gpu/default",
        "sub.eval/gpu/fast",
        "route/legacy",
    ]
    fast = cases[1]
    assert (fast.config_name, fast.overrides, fast.golden_name) == ("train", ("backend=cpu", "a=1"), "_generated_train__cpu__fast.yaml")
    assert cases[-1].same_as == "train/gpu/default"


def test_a_route_to_no_case_is_refused_unless_lenient(tmp_path):
    text = 'roots = ["train"]\n[[routes]]\nname = "r"\nconfig_name = "r"\nsame_as = "train/none/default"\n'
    with pytest.raises(SettingsError, match="route 'r' same_as 'train/none/default' names no case"):
        build_cases(settings(tmp_path, text), (BASE_ENGINE,))
    assert [c.id for c in build_cases(settings(tmp_path, text), (BASE_ENGINE,), strict=False)] == ["train/base/default", "route/r"]


def test_an_option_is_quoted_when_a_bare_one_would_read_as_another_value():
    assert group_override("backend", "gpu") == "backend=gpu"
    assert group_override("backend", "1") == "backend='1'"
    assert group_override("backend", "true") == "backend='true'"
    with pytest.raises(SettingsError, match="cannot be written as a Hydra override"):
        group_override("backend", "${x}")


def test_engines_explicit_then_discovered_then_base(tmp_path):
    assert select_engines(settings(tmp_path, 'roots = ["t"]\n'), ["a"]) == (BASE_ENGINE,)
    assert select_engines(settings(tmp_path, 'roots = ["t"]\nengine_group = "g"\n'), ["a", "b"]) == ("a", "b")
    assert select_engines(settings(tmp_path, 'roots = ["t"]\nengine_group = "g"\nengines = ["b"]\n'), ["a", "b"]) == ("b",)
