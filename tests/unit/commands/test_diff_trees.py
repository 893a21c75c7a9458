"""`diff OLD_TREE NEW_TREE`: each case of the settings composed from both trees; a case whose root only one tree
holds is `new` or `gone`; a changed value is a difference, not a failure."""

from pathlib import Path

from harness.commands.diff_trees import tree_side
from harness.model.settings import load_settings
from tests.conftest import write_tree
from tests.unit.commands.conftest import SETTINGS, TREE


def trees(root: Path) -> None:
    write_tree(root / "old", TREE)
    write_tree(root / "new", {**TREE, "backend/gpu.yaml": TREE["backend/gpu.yaml"].replace("count: 8", "count: 4")})
    write_tree(root / "new", {"eval.yaml": "defaults:\n  - backend: cpu\n  - _self_\nmode: eval\n"})
    (root / "harness.toml").write_text(SETTINGS.replace('roots = ["train"]', 'roots = ["train", "eval"]'))


def test_each_side_has_the_cases_whose_root_it_holds(tmp_path):
    trees(tmp_path)
    settings = load_settings(tmp_path / "harness.toml")
    old, new = tree_side(settings, tmp_path / "old"), tree_side(settings, tmp_path / "new")
    assert (old.roots, new.roots) == (("train",), ("train", "eval"))
    assert old.config_dir == (tmp_path / "old").resolve()


def test_a_changed_value_is_news_and_a_case_of_one_tree_is_new(tmp_path, cli):
    trees(tmp_path)
    run = cli("--settings", "harness.toml", "diff", "old", "new", "--format", "json", cwd=tmp_path)
    assert run.code == 0, run.err  # a tree diff reports differences; only a broken case fails it
    statuses = {case["id"]: case["status"] for case in run.json()["cases"]}
    assert statuses == {"train/cpu/default": "ok", "train/gpu/default": "changed", "eval/cpu/default": "new", "eval/gpu/default": "new"}
    (changed,) = [f for case in run.json()["cases"] for f in case["findings"] if f["kind"] == "changed"]
    assert (changed["path"], changed["old"], changed["new"]) == ("device.count", 8, 4)
    assert run.json()["mode"] == "trees"
