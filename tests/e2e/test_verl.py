"""End to end on verl's real config trees, fetched from PyPI wheels (never imported)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.baselines.releases import fetch_wheel_tree
from harness.composition.render import parse_yaml
from harness.model.semantic_diff import flatten, same_value
from harness.model.settings import load_settings
from tests.conftest import ROOT, verl_tree

pytestmark = pytest.mark.e2e

ACCEPTANCE_SETTINGS = """
config_dir = "{config_dir}"
read_outside = ["{config_dir}"]
snapshot_dir = "snapshots"
roots = ["ppo_trainer"]
engines = ["dp"]
engine_group = "model_engine"
[presets]
default = []
[[routes]]
name = "ppo_megatron_trainer"
config_name = "ppo_megatron_trainer"
"""
MEGATRON_KEYS = {
    "actor_rollout_ref.rollout.layer_name_map.qkv_layer_name",
    "actor_rollout_ref.rollout.layer_name_map.gate_proj_layer_name",
    "actor_rollout_ref.model.override_config.moe_config.freeze_moe_router",
    "actor_rollout_ref.model.use_remove_padding",
}


@pytest.fixture(scope="module")
def project_tree() -> Path:
    """The project's own pinned verl tree, fetched the way `make setup` does."""
    source = load_settings(start=ROOT).source
    return fetch_wheel_tree(source.wheel, source.unpack, source.into, python=source.python)


def test_matrix_is_every_engine_times_every_preset_plus_the_route(project_tree, cli):
    cases = cli("list", "--format", "json", cwd=ROOT).json()["cases"]
    ids = [c["id"] for c in cases]
    engines = ["dp", "megatron", "torchtitan", "veomni"]
    assert ids == [f"ppo_trainer/{e}/{p}" for e in engines for p in ("default", "grpo", "lora")] + ["route/ppo_megatron_trainer"]
    assert cases[3]["overrides"] == ["model_engine=megatron"]


def test_every_committed_golden_equals_plain_hydra_compose(project_tree, cli):
    cases = cli("list", "--format", "json", cwd=ROOT).json()["cases"]
    with initialize_config_dir(config_dir=str(project_tree), version_base=None):
        for case in cases:
            plain = OmegaConf.to_container(compose(case["config_name"], overrides=case["overrides"]), resolve=False)
            golden = parse_yaml((ROOT / case["golden"]).read_text(encoding="utf-8"))
            assert golden == plain, case["id"]


def test_check_passes_on_the_committed_goldens_with_waived_warnings(project_tree, cli):
    result = cli("check", "--format", "json", cwd=ROOT)
    assert result.code == 0, result.out[-2000:]
    report = result.json()
    assert report["ok"] and all(c["status"] == "ok" for c in report["cases"])
    # The lora alias disagreement (16 vs 32) shows on every engine, waived but never hidden.
    for engine in ("dp", "megatron", "torchtitan", "veomni"):
        (case,) = [c for c in report["cases"] if c["id"] == f"ppo_trainer/{engine}/default"]
        lora = [f for f in case["findings"] if f["message"].startswith("lora-alias")]
        assert lora and lora[0]["severity"] == "warning" and "lora_alpha=16" in lora[0]["message"] and "alpha=32" in lora[0]["message"]


def test_an_edit_to_any_tree_file_names_the_changed_leaves(project_tree, cli, tmp_path):
    copy = shutil.copytree(project_tree, tmp_path / "config")
    rollout = copy / "rollout" / "rollout.yaml"
    text = rollout.read_text()
    assert "\ntemperature: 1.0\n" in text
    rollout.write_text(text.replace("\ntemperature: 1.0\n", "\ntemperature: 0.7\n"))
    result = cli("--config-dir", str(copy), "check", "--format", "json", cwd=ROOT)
    assert result.code == 1
    for case in result.json()["cases"]:
        changes = [(f["kind"], f["path"], f["old"], f["new"]) for f in case["findings"] if f["kind"] in ("changed", "removed", "added")]
        assert changes == [("changed", "actor_rollout_ref.rollout.temperature", 1.0, 0.7)], case["id"]


@pytest.fixture(scope="module")
def acceptance(tmp_path_factory):
    """Goldens made from verl 0.7.1, and a settings file that can point at 0.8.0."""
    old, new = verl_tree("0.7.1"), verl_tree("0.8.0")
    project = tmp_path_factory.mktemp("acceptance")
    (project / "harness.toml").write_text(ACCEPTANCE_SETTINGS.format(config_dir=old))
    return project, old, new


def megatron_report(cli, project, new, *extra):
    return cli("--settings", "harness.toml", "--config-dir", str(new), *extra, "check", "--format", "json", cwd=project)


def test_0_7_1_goldens_checked_against_0_8_0_report_exactly_the_plain_flatten_diff(acceptance, cli):
    project, old, new = acceptance
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 0
    result = megatron_report(cli, project, new)
    assert result.code == 1
    (case,) = [c for c in result.json()["cases"] if c["id"] == "route/ppo_megatron_trainer"]
    reported = {(f["kind"], f["path"]) for f in case["findings"] if f["kind"] in ("removed", "added", "changed")}

    def plain(tree_dir):
        with initialize_config_dir(config_dir=str(tree_dir), version_base=None):
            return flatten(OmegaConf.to_container(compose("ppo_megatron_trainer"), resolve=False))

    before, after = plain(old), plain(new)
    expected = {("removed", p) for p in before.keys() - after.keys()}
    expected |= {("added", p) for p in after.keys() - before.keys()}
    expected |= {("changed", p) for p in before.keys() & after.keys() if (type(before[p]), before[p]) != (type(after[p]), after[p])}
    assert reported == expected
    assert {("removed", k) for k in MEGATRON_KEYS - {"actor_rollout_ref.model.use_remove_padding"}} <= reported
    (padding,) = [f for f in case["findings"] if f["path"] == "actor_rollout_ref.model.use_remove_padding"]
    assert (padding["kind"], padding["old"], padding["new"]) == ("changed", False, True)


def test_regenerated_goldens_cannot_hide_what_the_megatron_contract_pins(acceptance, cli, tmp_path):
    project, old, new = acceptance
    contract = tmp_path / "megatron.yaml"
    locked = cli(
        "--settings",
        "harness.toml",
        "lock",
        "--baseline",
        "ppo_trainer/dp/default",
        "--target",
        "route/ppo_megatron_trainer",
        "--name",
        "megatron-critical",
        "--cases",
        "*megatron*",
        "--output",
        str(contract),
        cwd=project,
    )
    assert locked.code == 0
    regenerated = cli("--settings", "harness.toml", "--config-dir", str(new), "--contracts", str(contract), "generate")
    assert regenerated.code == 1  # goldens written, contracts still fail
    result = megatron_report(cli, project, new, "--contracts", str(contract))
    assert result.code == 1
    (case,) = [c for c in result.json()["cases"] if c["id"] == "route/ppo_megatron_trainer"]
    assert case["status"] == "error"  # the golden matches, but a case with a contract error is never "ok"
    failing = {f["path"] for f in case["findings"] if f["kind"] == "contract" and f["severity"] == "error"}
    assert MEGATRON_KEYS <= failing


def test_the_optimized_path_gives_the_plain_paths_goldens_and_findings(project_tree, tmp_path):
    """Shared bases, the parse cache and forked workers against one full Hydra compose per case."""
    import json
    import subprocess
    import sys

    from harness.baselines.goldens import write_goldens
    from harness.baselines.kinds import GoldenFolder
    from harness.reporters.json import result_as_dict, to_json
    from harness.runner.config_writes import RECORD_NAME
    from harness.runner.run import RuleSet, Run, Runner

    settings = load_settings(start=ROOT)
    # The same rules `check` runs: the contracts, the program view of the classes, the run-level findings.
    checks = RuleSet.of(settings)
    plain_run = Run.check(settings, checks)
    plain = json.loads(to_json(result_as_dict(Runner(plain_run, plain=True).run())))
    harness = [sys.executable, "-m", "harness", "--jobs", "2"]
    optimized = subprocess.run(harness + ["check", "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    assert optimized.returncode == 0, optimized.stderr
    document = json.loads(optimized.stdout)
    assert document.pop("next_steps") == []  # the CLI's advice for a failing run; this one passes
    assert document == plain

    plain_dir = tmp_path / "plain"
    write_goldens(Runner(Run.check(settings, checks, keep_rendered=True, baseline=GoldenFolder(plain_dir)), plain=True).run(), plain_dir)
    written = subprocess.run(harness + ["--snapshot-dir", str(tmp_path / "fast"), "generate"], cwd=ROOT, capture_output=True)
    assert written.returncode == 0, written.stderr
    names = sorted(p.name for p in (tmp_path / "plain").iterdir())
    fast = sorted(p.name for p in (tmp_path / "fast").iterdir())
    # generate also writes the record of the code's config writes (snapshots/_config_writes.yaml), no golden
    assert fast == sorted([*names, RECORD_NAME]) and len(names) == 13
    assert (tmp_path / "fast" / RECORD_NAME).read_bytes() == (ROOT / "snapshots" / RECORD_NAME).read_bytes()
    for name in names:
        assert (tmp_path / "fast" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes(), name


def test_upgrade_report_diffs_every_case_between_two_releases(project_tree, cli):
    """`make upgrade-report FROM=0.8.0 TO=0.9.1`: both trees composed for every case, diffed exactly."""
    old, new = verl_tree("0.8.0"), project_tree
    result = cli("diff", str(old), str(new), "--format", "json", cwd=ROOT)
    # The review's exit policy: differences are news (info); only unwaived contract errors or broken cases fail.
    assert result.code == 0, result.out[-3000:]
    report = result.json()
    assert report["schema_version"] and report["baseline"] == "config tree .cache/verl-0.8.0/verl/trainer/config (composed)"
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses["ppo_trainer/dp/default"] == "changed" and statuses["route/ppo_megatron_trainer"] == "changed"
    assert statuses["ppo_trainer/mindspeed/default"] == "gone"  # 0.9.1 dropped the mindspeed engine
    with initialize_config_dir(config_dir=str(old), version_base=None):
        before = flatten(OmegaConf.to_container(compose("ppo_trainer", overrides=["model_engine=dp"]), resolve=False))
    with initialize_config_dir(config_dir=str(new), version_base=None):
        after = flatten(OmegaConf.to_container(compose("ppo_trainer", overrides=["model_engine=dp"]), resolve=False))
    expected = {p for p in before.keys() | after.keys() if p not in before or p not in after or not same_value(before[p], after[p])}
    (dp,) = [c for c in report["cases"] if c["id"] == "ppo_trainer/dp/default"]
    reported = {f["path"] for f in dp["findings"] if f["kind"] in ("removed", "added", "changed")}
    assert reported == expected and expected
    assert all(f["severity"] == "info" for f in dp["findings"] if f["kind"] in ("removed", "added", "changed"))
    markdown = cli("diff", str(old), str(new), "--format", "markdown", "--title", "verl 0.8.0 → 0.9.1")
    # The verdict first, then the title; differences are details, folded under their count.
    assert markdown.out.startswith("**OK**: ") and "\n\n## verl 0.8.0 → 0.9.1\n" in markdown.out
    assert "<summary>Changed values (" in markdown.out
