"""The composition cache: an edit recomposes only what read the edited file, and the cache never passes a
case that --no-cache fails (environment values, symlinked folders, search-path folders, `..` paths)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from harness.composition.cases import open_matrix
from harness.composition.render import to_plain
from harness.model.settings import load_settings
from tests.conftest import write_tree


def compose_all(project: Path, cache: Path | None) -> tuple[dict, list]:
    """Every case's plain tree, and the compositions that did not come from the cache."""
    settings = replace(load_settings(project / "harness.toml"), cache_dir=cache)
    with open_matrix(settings) as (session, cases):
        trees = {c.case.id: (to_plain(c.config) if c.config is not None else c.error) for c in session.compose_cases(cases)}
        return trees, list(session.composed_fresh)


def test_a_comment_or_whitespace_edit_recomposes_nothing(small_project, tmp_path):
    cache = tmp_path / "private-cache"
    cold, fresh = compose_all(small_project, cache)
    assert len(fresh) == 5  # two engine bases, the group-selecting preset on each, the route
    root = small_project / "conf" / "train.yaml"
    root.write_text("# a comment at the top\n\n" + root.read_text().replace("  lr: 0.1", "  lr:    0.1   # the rate"))
    warm, fresh = compose_all(small_project, cache)
    assert fresh == [] and warm == cold
    uncached, _ = compose_all(small_project, None)
    assert uncached == warm


def test_a_value_edit_recomposes_only_the_cases_that_read_the_file(small_project, tmp_path):
    cache = tmp_path / "private-cache"
    compose_all(small_project, cache)
    sgd = small_project / "conf" / "optimizer" / "sgd.yaml"
    sgd.write_text(sgd.read_text().replace("momentum: 0.9", "momentum: 0.5"))
    warm, fresh = compose_all(small_project, cache)
    assert sorted(fresh) == [
        ("train", ("backend=cpu", "optimizer@trainer.optim=sgd")),
        ("train", ("backend=gpu", "optimizer@trainer.optim=sgd")),
    ]
    assert warm["train/cpu/sgd"]["trainer"]["optim"]["momentum"] == 0.5
    assert warm == compose_all(small_project, None)[0]


def test_the_same_tree_in_another_folder_composes_from_the_cache_and_an_edit_there_does_not(small_project, tmp_path):
    """A clone, a copy or a test's own folder: compositions are cached under names relative to the config folder,
    and each file they read is asked again in the new place."""
    cache = tmp_path / "private-cache"
    cold, _ = compose_all(small_project, cache)
    copy = tmp_path / "elsewhere" / "project"
    shutil.copytree(small_project, copy)
    warm, fresh = compose_all(copy, cache)
    assert fresh == [] and warm == cold
    gpu = copy / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 2"))
    edited, fresh = compose_all(copy, cache)
    assert sorted(fresh) == [("legacy", ()), ("train", ("backend=gpu",)), ("train", ("backend=gpu", "optimizer@trainer.optim=sgd"))]
    assert edited["train/gpu/default"]["device"]["count"] == 2 and edited == compose_all(copy, None)[0]
    # One entry per key: the first place's answers differ from the edited copy's now, so it composes again (the
    # replay tells them apart), and gets its own values, never the copy's.
    assert compose_all(small_project, cache)[0] == cold


def test_provenance_lines_follow_a_comment_edit_that_the_cache_ignores(small_project, cli, monkeypatch):
    monkeypatch.chdir(small_project)
    first = cli("--settings", "harness.toml", "explain", "trainer.optim.name", "--case", "train/cpu/default")
    assert first.code == 0 and "conf/optimizer/adam.yaml:1" in first.out, first.out
    adam = small_project / "conf" / "optimizer" / "adam.yaml"
    adam.write_text("# optimizer\n# defaults\n" + adam.read_text())
    second = cli("--settings", "harness.toml", "explain", "trainer.optim.name", "--case", "train/cpu/default")
    assert second.code == 0 and "conf/optimizer/adam.yaml:3" in second.out, second.out


SETTINGS = 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n\n[presets]\ndefault = []\n'


def env_in_defaults(project: Path, monkeypatch: pytest.MonkeyPatch):
    write_tree(
        project,
        {
            "conf/train.yaml": "defaults:\n  - backend: ${oc.env:HARNESS_TEST_BACKEND}\n  - _self_\nx: 1\n",
            "conf/backend/cpu.yaml": "kind: cpu\n",
            "conf/backend/gpu.yaml": "kind: gpu\n",
        },
    )
    monkeypatch.setenv("HARNESS_TEST_BACKEND", "cpu")
    return lambda: monkeypatch.setenv("HARNESS_TEST_BACKEND", "gpu")


def symlinked_folder(project: Path, monkeypatch: pytest.MonkeyPatch):
    write_tree(
        project,
        {
            "conf/train.yaml": "defaults:\n  - backend: cpu\n  - _self_\nx: 1\n",
            "shared/backend/cpu.yaml": "kind: cpu\n",
        },
    )
    (project / "conf" / "backend").symlink_to(project / "shared" / "backend", target_is_directory=True)
    return lambda: (project / "shared" / "backend" / "cpu.yaml").write_text("kind: cpu\ncount: 2\n")


def search_path_folder(project: Path, monkeypatch: pytest.MonkeyPatch):
    write_tree(
        project,
        {
            "conf/train.yaml": f"defaults:\n  - extra: one\n  - _self_\nhydra:\n  searchpath:\n    - file://{project / 'more'}\nx: 1\n",
            "more/extra/one.yaml": "kind: one\n",
        },
    )
    return lambda: (project / "more" / "extra" / "one.yaml").write_text("kind: two\n")


def dotdot_path(project: Path, monkeypatch: pytest.MonkeyPatch):
    write_tree(
        project,
        {
            "conf/train.yaml": "defaults:\n  - ../shared/common@common\n  - _self_\nx: 1\n",
            "shared/common.yaml": "value: 1\n",
        },
    )
    return lambda: (project / "shared" / "common.yaml").write_text("value: 2\n")


@pytest.mark.parametrize("repro", [env_in_defaults, symlinked_folder, search_path_folder, dotdot_path])
def test_the_cache_never_passes_what_no_cache_fails(repro, tmp_path, cli, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)  # the project: files outside conf/ may be read
    (project / "harness.toml").write_text(SETTINGS)
    change = repro(project, monkeypatch)
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(tmp_path / "private-cache"))
    monkeypatch.chdir(project)
    generated = cli("--settings", "harness.toml", "generate")
    warm = cli("--settings", "harness.toml", "check")  # served from the cache
    # An environment value deciding a defaults entry is refused outright (issue 16); the others compose.
    assert warm.code == (1 if repro is env_in_defaults else 0), generated.err + warm.out
    change()
    uncached = cli("--settings", "harness.toml", "--no-cache", "check", "--format", "json")
    cached = cli("--settings", "harness.toml", "check", "--format", "json")
    assert uncached.code != 0, uncached.out + uncached.err
    assert (cached.code, cached.json()) == (uncached.code, uncached.json())
    assert json.loads(uncached.out)["cases"][0]["status"] in ("changed", "error")


def test_an_environment_value_read_by_a_value_only_is_not_a_dependency(small_project, tmp_path, monkeypatch):
    # `${oc.env:USER}` stays unresolved in values (train.yaml has one): it must not defeat the cache.
    cache = tmp_path / "private-cache"
    compose_all(small_project, cache)
    monkeypatch.setenv("USER", "someone-else" + os.environ.get("USER", ""))
    assert compose_all(small_project, cache)[1] == []


PKG_TREE = {
    "conf/train.yaml": "defaults:\n  - extra: x\n  - _self_\nhydra:\n  searchpath: [pkg://mypkg.conf]\ntrainer:\n  lr: 0.1\n",
    "mypkg/__init__.py": "raise SystemExit('imported')\n",
    "mypkg/conf/extra/x.yaml": "k: 2\n",
    "harness.toml": 'jobs = 1\nconfig_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n',
}


def test_a_project_package_folder_is_read_where_the_composition_runs_never_where_it_was_cached(tmp_path, monkeypatch):
    """`pkg://mypkg.conf` is the folder below the working folder: a composition cached in one checkout is not
    another checkout's, whose package folder holds something else (it read the first checkout's folder, or
    stopped with exit 2 because that folder is outside the second's project)."""
    cache = tmp_path / "private-cache"
    first, second = write_tree(tmp_path / "first", PKG_TREE), write_tree(tmp_path / "second", PKG_TREE)
    (second / "mypkg" / "conf" / "extra" / "x.yaml").write_text("k: 99\n")
    for project in (first, second):
        (project / ".git").mkdir()
    monkeypatch.chdir(first)
    assert compose_all(first, cache)[0]["train/base/default"]["extra"] == {"k": 2}
    monkeypatch.chdir(second)
    trees, fresh = compose_all(second, cache)
    assert trees["train/base/default"]["extra"] == {"k": 99} and fresh == [("train", ())]


def test_an_absolute_search_path_below_the_config_folder_means_that_folder_in_another_tree(tmp_path):
    """A config naming `file:///first/conf/extra_configs` reads that folder wherever the tree is: a composition
    cached in `first` (where the folder lies below the config folder) is not reused by a tree in `second` whose
    own `conf/extra_configs` still holds what `first`'s held."""
    cache = tmp_path / "private-cache"
    first = tmp_path / "first"
    searched = first / "conf" / "extra_configs"
    tree = {
        "conf/train.yaml": f"defaults:\n  - extra: x\n  - _self_\nhydra:\n  searchpath: ['file://{searched}']\n",
        "conf/extra_configs/extra/x.yaml": "k: 1\n",
        "harness.toml": 'jobs = 1\nconfig_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n',
    }
    write_tree(first, tree)
    second = write_tree(tmp_path / "second", {**tree, "harness.toml": tree["harness.toml"] + f"read_outside = ['{searched}']\n"})
    assert compose_all(first, cache)[0]["train/base/default"]["extra"] == {"k": 1}
    (searched / "extra" / "x.yaml").write_text("k: 2\n")
    assert compose_all(second, None)[0]["train/base/default"]["extra"] == {"k": 2}
    assert compose_all(second, cache)[0]["train/base/default"]["extra"] == {"k": 2}


def test_a_search_path_folder_named_at_sign_is_the_working_folders_not_the_config_folders(small_project, tmp_path_factory, monkeypatch):
    """`file://@/extra_configs` is the folder `@/extra_configs` below the working folder: a cached composition that
    read it is not taken for one that read `conf/extra_configs` (the name the cache gives folders below the config
    folder), which still holds what it held."""
    cache = tmp_path_factory.mktemp("outside") / "private-cache"  # the project is tmp_path, checkout and all
    monkeypatch.chdir(small_project)
    (small_project / ".git").mkdir()  # the project is the checkout, the config folder a part of it
    write_tree(small_project, {"@/extra_configs/extra/x.yaml": "k: 1\n", "conf/extra_configs/extra/x.yaml": "k: 1\n"})
    root = small_project / "conf" / "train.yaml"
    root.write_text(
        root.read_text().replace("  - _self_\n", "  - extra: x\n  - _self_\nhydra:\n  searchpath: ['file://@/extra_configs']\n", 1)
    )
    assert compose_all(small_project, cache)[0]["train/cpu/default"]["extra"] == {"k": 1}
    (small_project / "@" / "extra_configs" / "extra" / "x.yaml").write_text("k: 2\n")
    assert compose_all(small_project, cache)[0]["train/cpu/default"]["extra"] == {"k": 2}
    assert compose_all(small_project, None)[0]["train/cpu/default"]["extra"] == {"k": 2}
