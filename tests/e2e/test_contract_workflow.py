"""Contracts on verl's real trees (0.7.1 -> 0.8.0 wheels): lock merges and records, alias agreement, stale waivers."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import git, verl_tree
from tests.e2e.test_verl import ACCEPTANCE_SETTINGS

pytestmark = pytest.mark.e2e

# The acceptance project of test_verl (dp plus the old Megatron route), with a contracts file.
SETTINGS = 'contracts = ["contracts.yaml"]\n' + ACCEPTANCE_SETTINGS
QKV = "actor_rollout_ref.rollout.layer_name_map.qkv_layer_name"
LOCK = (
    "lock",
    "--against",
    "ppo_trainer/dp/default",
    "--from",
    "route/ppo_megatron_trainer",
    "--name",
    "megatron-critical",
    "--case",
    "*megatron*",
    "--output",
    "contracts.yaml",
)

# Two contracts, waivers and comments: a hand-written file that lock must not disturb.
HAND_WRITTEN = f"""\
# verl contracts, reviewed by hand.
contracts:
  # Megatron: what 0.7.1 promised.
  - name: megatron-critical
    cases: "*megatron*"
    require: [{QKV}]
    forbid: [actor_rollout_ref.actor.megatron.some_removed_option]
  - name: lora-alias
    agree:
      - [actor_rollout_ref.model.lora_alpha, actor_rollout_ref.model.lora.alpha]
# Known differences, each with a reason.
waivers:
  - contract: lora-alias
    path: actor_rollout_ref.model.lora.alpha
    cases: "route/*"          # the old Megatron config: 16 vs 32 since long before 0.8.0
    reason: megatron's lora block predates the flat lora_alpha
"""


@pytest.fixture(scope="module")
def trees():
    return verl_tree("0.7.1"), verl_tree("0.8.0")


@pytest.fixture
def project(tmp_path, trees):
    old, _ = trees
    (tmp_path / "harness.toml").write_text(SETTINGS.format(config_dir=old))
    (tmp_path / "contracts.yaml").write_text(HAND_WRITTEN)
    return tmp_path


def contract_findings(cli, project, config_dir, *extra):
    result = cli("--settings", "harness.toml", "--config-dir", str(config_dir), *extra, "check", "--format", "json", cwd=project)
    findings = [(case["id"], f) for case in result.json()["cases"] for f in case["findings"] if f["kind"] == "contract"]
    return result, findings


def test_lock_on_a_file_with_two_contracts_and_waivers_changes_only_the_named_contract(project, cli):
    before = (project / "contracts.yaml").read_text()
    result = cli("--settings", "harness.toml", *LOCK, cwd=project)
    assert result.code == 0, result.err
    assert result.out.startswith("megatron-critical: ") and " added, 0 dropped, 0 re-pinned\n" in result.out
    assert f"  added      require {QKV}\n" not in result.out  # it was required already
    after = (project / "contracts.yaml").read_text()
    # Everything outside the named contract keeps its bytes, comments included.
    untouched = before[before.index("  - name: lora-alias") :]
    assert after.endswith(untouched)
    assert after.startswith("# verl contracts, reviewed by hand.\ncontracts:\n  # Megatron: what 0.7.1 promised.\n  - ")
    old_doc, new_doc = yaml.safe_load(before), yaml.safe_load(after)
    assert new_doc["waivers"] == old_doc["waivers"] and new_doc["contracts"][1] == old_doc["contracts"][1]
    megatron = new_doc["contracts"][0]
    assert QKV in megatron["require"] and megatron["equal"][QKV] == "qkv"
    assert megatron["forbid"] == ["actor_rollout_ref.actor.megatron.some_removed_option"]  # not derived: kept
    # Locking the same tree again changes nothing.
    assert cli("--settings", "harness.toml", *LOCK, cwd=project).code == 0
    assert (project / "contracts.yaml").read_text() == after


def test_lock_without_reason_refuses_to_drop_and_with_one_records_each_term(project, cli, trees):
    _, new = trees
    assert cli("--settings", "harness.toml", *LOCK, cwd=project).code == 0
    locked = (project / "contracts.yaml").read_text()
    refused = cli("--settings", "harness.toml", "--config-dir", str(new), *LOCK, cwd=project)
    assert refused.code == 2 and refused.out == ""
    assert len(refused.err.strip().splitlines()) == 1
    assert "lock would drop or re-pin" in refused.err and "--reason" in refused.err
    assert (project / "contracts.yaml").read_text() == locked

    reason = "verl PR #5848 unified the Megatron config; reviewed"
    relocked = cli("--settings", "harness.toml", "--config-dir", str(new), *LOCK, "--reason", reason, cwd=project)
    assert relocked.code == 0, relocked.err
    assert f"  dropped    require {QKV} removed\n" in relocked.out
    assert "  dropped    equal actor_rollout_ref.model.use_remove_padding: False removed\n" in relocked.out
    repin = "actor_rollout_ref.actor.megatron.dist_ckpt_optim_fully_reshardable"
    assert f"  re-pinned  equal {repin} re-pinned from True to False\n" in relocked.out
    document = yaml.safe_load((project / "contracts.yaml").read_text())
    records = {(r["path"], str(r["old"]), str(r["new"])): r["reason"] for r in document["changes"]}
    assert records[(QKV, "require", "None")] == reason
    assert records[(QKV, "{'equal': 'qkv'}", "None")] == reason
    assert records[(repin, "{'equal': True}", "{'equal': False}")] == reason
    assert document["waivers"] == yaml.safe_load(HAND_WRITTEN)["waivers"]
    # The re-locked contract holds on 0.8.0, and a second re-lock has nothing left to record.
    _, findings = contract_findings(cli, project, new)
    assert not [f for _, f in findings if f["severity"] == "error" and f["message"].startswith("megatron-critical")]
    assert cli("--settings", "harness.toml", "--config-dir", str(new), *LOCK, cwd=project).code == 0


def test_lora_alias_fails_where_alpha_newly_disagrees_and_not_where_one_key_exists(project, cli, trees):
    old, new = trees
    # 0.7.1: dp has only lora_alpha (the structured lora block does not exist yet): fine. The old Megatron
    # route disagrees (16 vs 32), waived for route/* only.
    result, findings = contract_findings(cli, project, old)
    alias = [(case, f["severity"]) for case, f in findings if f["message"].startswith("lora-alias")]
    assert alias == [("route/ppo_megatron_trainer", "warning")]
    # 0.8.0 adds lora.alpha: 32 beside lora_alpha: 16 on dp: a new disagreement the route's waiver does not hide.
    result, findings = contract_findings(cli, project, new)
    alias = {(case, f["severity"]) for case, f in findings if f["message"].startswith("lora-alias")}
    assert ("ppo_trainer/dp/default", "error") in alias and ("route/ppo_megatron_trainer", "warning") in alias
    (dp,) = [f for case, f in findings if case == "ppo_trainer/dp/default" and f["message"].startswith("lora-alias")]
    assert "actor_rollout_ref.model.lora_alpha=16, actor_rollout_ref.model.lora.alpha=32" in dp["message"]
    assert result.code == 1


def test_a_weakened_contract_fails_the_review_until_its_reasons_are_recorded(tmp_path, cli, trees):
    """Adopt at verl 0.7.1 with a lock-derived contract, upgrade to 0.8.0, and try to drop the requirement."""
    import shutil

    old, new = trees
    repository = tmp_path / "repository"
    shutil.copytree(old, repository / "conf")
    (repository / "harness.toml").write_text(SETTINGS.format(config_dir="conf"))
    assert cli("--settings", "harness.toml", *LOCK, cwd=repository).code == 0
    git(repository, "init", "-q", "-b", "main")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness at verl 0.7.1")

    shutil.rmtree(repository / "conf")
    shutil.copytree(new, repository / "conf")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "verl 0.8.0")

    def review(*extra):
        return cli("--settings", "harness.toml", "diff", "--base", "HEAD~1", *extra, cwd=repository)

    upgraded = review("--format", "json")
    assert upgraded.code == 1
    failing = {f["path"] for case in upgraded.json()["cases"] for f in case["findings"] if f["severity"] == "error"}
    assert QKV in failing
    # Re-locking would drop the requirement: refused without a reason.
    contracts = repository / "contracts.yaml"
    locked = contracts.read_text()
    refused = cli("--settings", "harness.toml", *LOCK, cwd=repository)
    assert refused.code == 2 and "--reason" in refused.err and contracts.read_text() == locked

    # Dropping the requirement by hand is a contract_change error that names it.
    document = yaml.safe_load(locked)
    (megatron,) = document["contracts"]
    megatron["require"].remove(QKV)
    del megatron["equal"][QKV]
    contracts.write_text(yaml.safe_dump(document))
    result = review("--format", "json")
    assert result.code == 1
    changes = [f for f in result.json()["findings"] if f["kind"] == "contract_change"]
    assert {(f["path"], str(f["old"]), f["severity"]) for f in changes} == {
        (QKV, "require", "error"),
        (QKV, "{'equal': 'qkv'}", "error"),
    }
    assert all(f["message"].startswith("megatron-critical: ") for f in changes)

    # Reasons recorded: by hand for what the edit dropped, by `lock --reason` for the rest of 0.8.0's changes.
    hand = "verl PR #5848: vLLM/SGLang read the layer names from the model now"
    document["changes"] = [
        {"contract": "megatron-critical", "path": QKV, "old": old_term, "new": None, "reason": hand}
        for old_term in ("require", {"equal": "qkv"})
    ]
    contracts.write_text(yaml.safe_dump(document))
    locked_reason = "verl 0.8.0 unified ppo_megatron_trainer into model_engine=megatron; reviewed"
    assert cli("--settings", "harness.toml", *LOCK, "--reason", locked_reason, cwd=repository).code == 0
    cli("--settings", "harness.toml", "generate", cwd=repository)  # the goldens `check` on the merged head reads
    passed = review("--format", "markdown")
    assert passed.code == 0, passed.out[:3000]
    # In markdown an issue reference is a code span: GitHub would link `#5848` to an issue of its own choosing.
    assert f"[recorded reason: {hand.replace('#5848:', '`#5848:`')}]" in passed.out and f"[recorded reason: {locked_reason}]" in passed.out
    # Contract changes come first; differences are details, folded under their count below them.
    assert passed.out.index("| contract change: ") < passed.out.index("<summary>Changed values (")


def test_verl_contracts_hold_on_0_9_1_with_no_stale_waiver_and_scoped_lora_waivers(cli):
    from harness.baselines.releases import fetch_wheel_tree
    from harness.model.settings import load_settings
    from tests.conftest import ROOT

    source = load_settings(start=ROOT).source
    fetch_wheel_tree(source.wheel, source.unpack, source.into, python=source.python)
    result = cli("check", "--format", "json", "--strict-waivers", cwd=ROOT)
    assert result.code == 0, result.out[-2000:]
    report = result.json()
    assert report["findings"] == []  # no stale waiver, no contract-file hygiene warning
    rank = {
        case["id"]
        for case in report["cases"]
        for f in case["findings"]
        if f["message"].startswith("lora-alias") and "lora.rank" in f["message"]
    }
    assert rank == {f"ppo_trainer/{engine}/lora" for engine in ("dp", "megatron", "torchtitan", "veomni")}
