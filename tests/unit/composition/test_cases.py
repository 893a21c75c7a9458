"""Opening a tree's matrix, and `--case` globs: repeatable, their union selects, and a glob that matches nothing
is named rather than dropped."""

import pytest

from harness.composition.cases import case_globs, id_matches, open_matrix, select_cases, unmatched_glob
from harness.model.matrix import Case
from harness.model.settings import SettingsError, load_settings

CASES = [Case(case_id, "train", ()) for case_id in ("train/cpu/default", "train/gpu/default", "eval/cpu/default")]


def test_globs_select_their_union_and_none_selects_all():
    assert case_globs(None) is None and case_globs("a*") == ("a*",) and case_globs(["a", "b"]) == ("a", "b")
    assert [c.id for c in select_cases(CASES, ["train/gpu/*", "eval/*"])] == ["train/gpu/default", "eval/cpu/default"]
    assert select_cases(CASES, None) == CASES
    assert id_matches("train/cpu/default", "train/*") and not id_matches("train/cpu/default", "TRAIN/*")  # case-sensitive


def test_the_first_glob_that_matches_nothing_is_named():
    assert unmatched_glob(CASES, ["train/*", "evl/*", "nope"]) == "evl/*"
    assert unmatched_glob(CASES, None) is None and unmatched_glob(CASES, "*/cpu/*") is None


def settings(tmp_path, extra=""):
    (tmp_path / "h.toml").write_text(f'config_dir = "conf"\nroots = ["train"]\n{extra}')
    return load_settings(tmp_path / "h.toml")


def test_the_matrix_of_a_tree_and_what_is_missing_from_it(tmp_path):
    (tmp_path / "conf" / "backend").mkdir(parents=True)
    (tmp_path / "conf" / "train.yaml").write_text("defaults:\n  - backend: a\n  - _self_\n")
    for engine in ("a", "b"):
        (tmp_path / "conf" / "backend" / f"{engine}.yaml").write_text(f"name: {engine}\n")
    with open_matrix(settings(tmp_path, 'engine_group = "backend"\n')) as (_, cases):
        assert [c.id for c in cases] == ["train/a/default", "train/b/default"]
    with pytest.raises(SettingsError, match="engine_group 'nothing' has no options in"):
        with open_matrix(settings(tmp_path, 'engine_group = "nothing"\n')):
            pass
    with open_matrix(settings(tmp_path, 'engine_group = "nothing"\n'), strict=False) as (_, cases):
        assert [c.id for c in cases] == []  # a baseline without the group yet: no engine cases, no error
    (tmp_path / "h.toml").write_text('config_dir = "gone"\nroots = ["train"]\n')
    with pytest.raises(SettingsError, match="config_dir .*gone does not exist"):
        with open_matrix(load_settings(tmp_path / "h.toml")):
            pass
