"""The baselines a run compares with: the goldens on disk (`check`), another tree composed (a tree diff), and the
goldens committed at a git ref with the ref's tree for cases that have none there (a review)."""

import pytest

from harness.baselines.kinds import GoldenFolder, at_ref, on_disk
from harness.model.matrix import Case, golden_name
from harness.model.settings import SettingsError, load_settings
from tests.synthetic_history import commit, git


def case(case_id):
    return Case(case_id, "train", (), golden_name=golden_name(case_id))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf").mkdir()
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "harness.toml").write_text('config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train", "eval"]\n')
    (tmp_path / "conf" / "train.yaml").write_text("lr: 0.1\n")
    (tmp_path / "conf" / "eval.yaml").write_text("lr: 0.0\n")
    (tmp_path / "snapshots" / golden_name("train/base/default")).write_text("lr: 0.1\n")
    (tmp_path / "snapshots" / golden_name("old/base/default")).write_text("lr: 9\n")
    return tmp_path


def test_the_goldens_on_disk_and_the_orphans(project):
    goldens = GoldenFolder(project / "snapshots")
    assert goldens.description == "goldens in snapshots"
    assert goldens.entry(case("train/base/default")).text == "lr: 0.1\n"
    assert goldens.entry(case("eval/base/default")) is None
    assert goldens.gone([case("train/base/default"), case("eval/base/default")]) == ["snapshots/_generated_old__base__default.yaml"]


def test_another_tree_on_disk_is_composed_case_by_case(project):
    (project / "release").mkdir()
    (project / "release" / "train.yaml").write_text("lr: 0.3\n")
    settings = load_settings(project / "harness.toml")
    tree = on_disk(settings, project / "release")
    assert tree.description.endswith("release (composed)")
    assert tree.entry(case("train/base/default")).tree == {"lr": 0.3}
    # The same settings: a root the release lacks is an error of that case (a tree diff drops such roots first).
    assert "Cannot find primary config 'eval'" in tree.entry(case("eval/base/default")).error
    assert tree.entry(case("route/none")) is None
    with pytest.raises(SettingsError, match="no such config folder"):
        on_disk(settings, project / "nowhere")


def test_a_ref_s_goldens_first_and_its_tree_for_a_case_without_one(project):
    git(project, "init", "-q", "-b", "main")
    commit(project, "base")
    (project / "conf" / "train.yaml").write_text("lr: 0.5\n")  # the working tree: not what the ref holds
    baseline = at_ref(load_settings(project / "harness.toml"), "main")
    cases = [case("train/base/default"), case("eval/base/default")]
    baseline.prepare(cases)
    assert baseline.description == "goldens at main; cases without one: config tree main:conf (composed)"
    train = baseline.entry(cases[0])
    assert (train.display, train.text) == ("main:snapshots/_generated_train__base__default.yaml", "lr: 0.1\n")
    assert baseline.entry(cases[1]).tree == {"lr": 0.0}  # no golden at main: the tree at main, composed
    assert baseline.gone(cases) == ["main:snapshots/_generated_old__base__default.yaml"]
    composed = at_ref(load_settings(project / "harness.toml"), "main", compose_base=True)
    composed.prepare(cases)
    assert composed.entry(cases[0]).tree == {"lr": 0.1} and composed.description.endswith("(--compose-base)")
