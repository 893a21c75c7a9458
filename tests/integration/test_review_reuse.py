"""A review's base reuses what the working tree composed: only the cases whose recorded reads include a file the
change touched are composed again at the base, the review says how many it reused, and its report is the same
bytes as with no cache at all (issue 45 item 5)."""

from __future__ import annotations

import pytest

from tests.conftest import commit_small_project, git

CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
"""


def test_a_one_file_change_recomposes_at_the_base_only_the_cases_that_read_the_file(small_project, cli, tmp_path_factory):
    project = commit_small_project(small_project, cli, CONTRACTS)
    gpu = project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    # A cache of its own, empty: what the committed project's `generate` composed is not in it.
    flags = ("--cache-dir", str(tmp_path_factory.mktemp("cache") / "harness"), "--settings", "harness.toml")
    # The developer's loop: `check` after the edit fills the cache with the working tree's compositions.
    assert cli(*flags, "check").code == 1  # the edit differs from the goldens
    assert cli(*flags, "generate").code == 0  # the pull request's goldens, as check on main will read them
    review = cli(*flags, "diff", "--base", "main", "--format", "json")
    # The base (a kept copy of conf/ at main, another folder) composes again only what reads backend/gpu.yaml:
    # train/gpu/default and its presets, and the route that overrides the backend to gpu; the cpu cases read
    # nothing the change touched and come from the working tree's entries.
    assert review.err.splitlines() == [
        "config-harness: at main, 3 of 7 cases taken from the cache (every file they read unchanged); 4 cases composed there"
    ]
    cold = cli("--no-cache", "--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert cold.err.splitlines() == [
        "config-harness: at main, 0 of 7 cases taken from the cache (every file they read unchanged); 7 cases composed there"
    ]
    assert review.out == cold.out and review.code == cold.code == 0
    changed = {case["id"] for case in review.json()["cases"] if case["status"] == "changed"}
    assert changed == {"train/gpu/default", "train/gpu/fast", "train/gpu/sgd", "route/legacy"}
    # A second review takes everything at the base from the cache.
    again = cli(*flags, "diff", "--base", "main", "--format", "json")
    assert again.err.splitlines() == [
        "config-harness: at main, 7 of 7 cases taken from the cache (every file they read unchanged); 0 cases composed there"
    ]
    assert again.out == review.out


def test_a_launchs_comparison_with_its_base_is_reused_while_both_trees_are_the_same(small_project, cli, tmp_path_factory, monkeypatch):
    """Each launch's composed tree is compared with its base's once: a later review of the same base whose two trees
    are the same bytes takes the comparison from the cache; a tree that changed is compared again."""
    from harness.runner import compare
    from tests.integration.test_review import LAUNCH_FILES, with_launches

    with_launches(small_project, LAUNCH_FILES)
    project = commit_small_project(small_project, cli, "contracts:\n  - name: lr\n    require: [trainer.effective_lr]\n")
    train = project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))  # the default under every launch moves
    flags = ("--cache-dir", str(tmp_path_factory.mktemp("cache") / "harness"), "--settings", "harness.toml")
    review = ("diff", "--base", "main", "--case", "cmd/*", "--format", "json")
    first = cli(*flags, *review)
    assert first.code == 0 and "trainer.lr" in first.out, first.out
    compared = []
    real = compare.compare_with_base

    def counted(*args, **kwargs):
        compared.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(compare, "compare_with_base", counted)
    again = cli(*flags, *review)
    assert again.out == first.out and again.code == first.code
    assert compared == []  # every launch's two trees as last time: no comparison made again
    # This side's tree of one launch changes (the script sets another value): that launch alone is compared again,
    # and the report says the new value, the same as a review with no cache.
    script = project / "scripts" / "run.sh"
    script.write_text(script.read_text().replace("effective_lr=0.7", "effective_lr=0.8"))
    edited = cli(*flags, *review)
    assert [tree["trainer"]["effective_lr"] for tree in compared] == [0.8]
    assert edited.out == cli("--no-cache", "--settings", "harness.toml", *review).out
    assert any(f["path"] == "trainer.effective_lr" and f["new"] == 0.8 for c in edited.json()["cases"] for f in c["findings"])


REVIEW_EDITS = {
    "a value changed again": lambda root: (root / "conf/backend/gpu.yaml").write_text(
        (root / "conf/backend/gpu.yaml").read_text().replace("count: 4", "count: 2")
    ),
    "the pull request's golden edited": lambda root: next((root / "snapshots").glob("*gpu__default*")).write_text(
        next((root / "snapshots").glob("*gpu__default*")).read_text().replace("count: 4", "count: 5")
    ),
    "a comment above a cited line": lambda root: (root / "conf/backend/gpu.yaml").write_text(
        "# moved down\n" + (root / "conf/backend/gpu.yaml").read_text()
    ),
    # main moves under the pull request: the base's trees change, the working tree does not.
    "the base moved": lambda root: (git(root, "add", "-A"), git(root, "commit", "-q", "-m", "merged")),
}


@pytest.mark.parametrize("edit", list(REVIEW_EDITS))
def test_a_warm_review_judges_no_case_again_and_after_an_edit_reports_what_no_cache_does(
    small_project, cli, tmp_path_factory, monkeypatch, edit
):
    """A review's case results are kept by their inputs whatever their status (issue 52: a warm review costs what a
    warm check does): nothing changed, no case is judged again; after an edit of the working tree or of the pull
    request's own goldens, the report is the report of a review without a cache."""
    from harness.runner import run as run_module

    project = commit_small_project(small_project, cli, CONTRACTS)
    gpu = project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    flags = ("--cache-dir", str(tmp_path_factory.mktemp("cache") / "harness"), "--settings", "harness.toml")
    assert cli(*flags, "generate").code == 0
    review = ("diff", "--base", "main", "--format", "json")
    first = cli(*flags, *review)
    judged = []
    original = run_module.judged_case
    monkeypatch.setattr(run_module, "judged_case", lambda *args, **kwargs: judged.append(1) or original(*args, **kwargs))
    again = cli(*flags, *review)
    assert (again.out, again.code) == (first.out, first.code) and judged == []
    REVIEW_EDITS[edit](project)
    kept = cli(*flags, *review)
    cold = cli("--no-cache", "--settings", "harness.toml", *review)
    assert (kept.out, kept.code) == (cold.out, cold.code)
    assert kept.out != first.out  # each edit is news to the review (a changed value, a stale golden, a line moved)


def test_a_first_review_after_check_checks_again_only_the_launches_that_read_the_changed_file(
    small_project, cli, tmp_path_factory, monkeypatch
):
    """The developer's loop (issue 52: a first review costs what the change touches): `check` keeps each launch's check
    with its tree, the review's side takes every one, and its copy of the base takes each launch whose every read
    holds there too; only the launch that reads the edited file is checked again, at the base. The report is the
    bytes of a review without a cache."""
    from harness.runner import launches
    from tests.integration.test_review import LAUNCH_FILES, with_launches

    files = dict(LAUNCH_FILES)
    files["scripts/run.sh"] += "python -m app.main backend=gpu trainer.name=gpu\n"
    with_launches(small_project, files)
    project = commit_small_project(small_project, cli, "contracts:\n  - name: lr\n    require: [trainer.effective_lr]\n")
    gpu = project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    flags = ("--cache-dir", str(tmp_path_factory.mktemp("cache") / "harness"), "--settings", "harness.toml")
    assert cli(*flags, "generate").code == 0
    assert cli(*flags, "check").code == 0
    checked = []
    real = launches.Composer._check_one
    monkeypatch.setattr(
        launches.Composer, "_check_one", lambda self, session, case, *rest: checked.append(case.id) or real(self, session, case, *rest)
    )
    review = ("diff", "--base", "main", "--case", "cmd/*", "--format", "json")
    first = cli(*flags, *review)
    assert checked == ["cmd/scripts/run.sh#4"], checked  # at the base: the one launch that reads backend/gpu.yaml
    assert any(f["path"] == "device.count" and f["new"] == 4 for c in first.json()["cases"] for f in c["findings"])
    cold = cli("--no-cache", "--settings", "harness.toml", *review)
    assert (first.out, first.code) == (cold.out, cold.code)


def test_a_case_the_base_lacks_is_kept_too_and_an_edit_of_it_reports_what_no_cache_does(small_project, cli, tmp_path_factory, monkeypatch):
    """A new engine option's cases have no entry at the base: their results are kept by the same inputs, with none for
    the base (2 such cases of PR #5848 were judged on every warm review, with the Python sources they parse)."""
    from harness.runner import run as run_module

    project = commit_small_project(small_project, cli, CONTRACTS)
    tpu = project / "conf" / "backend" / "tpu.yaml"
    tpu.write_text("# @package _global_\nbackend: tpu\ndevice:\n  kind: tpu\n  count: 4\n")
    flags = ("--cache-dir", str(tmp_path_factory.mktemp("cache") / "harness"), "--settings", "harness.toml")
    assert cli(*flags, "generate").code == 0
    review = ("diff", "--base", "main", "--format", "json")
    first = cli(*flags, *review)
    assert {c["id"] for c in first.json()["cases"] if c["status"] == "new"} >= {"train/tpu/default"}, first.out
    judged = []
    original = run_module.judged_case
    monkeypatch.setattr(run_module, "judged_case", lambda *args, **kwargs: judged.append(1) or original(*args, **kwargs))
    again = cli(*flags, *review)
    assert (again.out, again.code) == (first.out, first.code) and judged == []
    tpu.write_text(tpu.read_text().replace("count: 4", "count: 2"))
    kept = cli(*flags, *review)
    cold = cli("--no-cache", "--settings", "harness.toml", *review)
    assert (kept.out, kept.code) == (cold.out, cold.code) and kept.out != first.out
