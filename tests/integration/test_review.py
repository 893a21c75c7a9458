"""`diff --base REF`: the pull-request review report, on a small project inside a real git repository."""

from __future__ import annotations

import pytest

from tests.conftest import commit_small_project

CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
"""


@pytest.fixture
def repository(small_project, cli):
    return commit_small_project(small_project, cli, CONTRACTS)


def test_review_groups_changes_by_case_and_passes_without_contract_violations(repository, cli):
    cpu = repository / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert result.code == 0, result.out
    report = result.json()
    assert report["base"] == "main" and report["ok"] is True
    changed = {c["id"]: c["findings"] for c in report["cases"] if c["status"] == "changed"}
    assert set(changed) == {"train/cpu/default", "train/cpu/fast", "train/cpu/sgd"}
    assert [(f["kind"], f["path"], f["old"], f["new"], f["severity"]) for f in changed["train/cpu/default"]] == [
        ("changed", "device.count", 1, 2, "info")
    ]
    assert changed["train/cpu/default"][0]["source"] == "conf/backend/cpu.yaml:5"
    markdown = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "markdown").out
    assert "review against `main`" in markdown and "### `train/cpu/fast` (changed)" in markdown


def test_review_fails_on_an_unwaived_contract_even_after_regeneration(repository, cli):
    gpu = repository / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", "    other: x\n"))
    assert cli("--settings", "harness.toml", "generate").code == 1  # contracts fail generate too
    result = cli("--settings", "harness.toml", "diff", "--base", "main")
    assert result.code == 1
    assert "REMOVED device.map.qkv (was 'qkv_proj')" in result.out
    assert "gpu-critical: device.map.qkv is required but missing" in result.out


def test_review_lists_new_and_removed_cases(repository, cli):
    settings = repository / "harness.toml"
    settings.write_text(settings.read_text().replace('sgd = ["optimizer@trainer.optim=sgd"]', 'slow = ["trainer.epochs=9"]'))
    report = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json").json()
    assert report["baseline"] == "goldens at main; cases without one: config tree main:conf (composed)"
    # A case without a golden at the base is compared with the base tree composed the same way.
    slow = {c["id"]: c for c in report["cases"] if c["id"].endswith("/slow")}
    assert {i: (c["status"], c["golden"]) for i, c in slow.items()} == {
        "train/cpu/slow": ("ok", "main:conf train/cpu/slow"),
        "train/gpu/slow": ("ok", "main:conf train/gpu/slow"),
    }
    gone = [(c["id"], c["golden"]) for c in report["cases"] if c["status"] == "gone"]
    assert gone == [
        ("train/cpu/sgd", "main:snapshots/_generated_train__cpu__sgd.yaml"),
        ("train/gpu/sgd", "main:snapshots/_generated_train__gpu__sgd.yaml"),
    ]


def test_review_bad_ref_and_bad_arguments_exit_2(repository, cli):
    bad = cli("--settings", "harness.toml", "diff", "--base", "no-such-branch")
    assert bad.code == 2 and bad.err.strip() == "config-harness: error: unknown git ref 'no-such-branch'"
    both = cli("--settings", "harness.toml", "diff", "a.yaml", "b.yaml", "--base", "main")
    assert both.code == 2 and len(both.err.strip().splitlines()) == 1
    assert cli("diff", "only-one.yaml").code == 2
