"""A review's base reuses what the working tree composed: only the cases whose recorded reads include a file the
change touched are composed again at the base, the review says how many it reused, and its report is the same
bytes as with no cache at all (issue 45 item 5)."""

from __future__ import annotations

from tests.conftest import commit_small_project

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
