import datetime
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.contracts import ContractError, contract_findings, parse_contracts
from harness.lock import derive_contract
from harness.matrix import Case

CONFIG = {
    "model": {"use_remove_padding": True, "lora_alpha": 16, "lora": {"alpha": 32}, "name": "???"},
    "rollout": {"layer_name_map": {"qkv_layer_name": "qkv"}},
    "derived": "${model.lora_alpha}",
}
TODAY = datetime.date(2026, 11, 30)


def findings(text, case_id="t/megatron/default", config=CONFIG):
    contract_set = parse_contracts(text, Path("c.yaml"))
    cfg = OmegaConf.create(config)
    return contract_findings(contract_set, Case(case_id, "t", ()), cfg, config, TODAY)


RULES = """
contracts:
  - name: critical
    cases: "t/megatron/*"
    require: [rollout.layer_name_map.qkv_layer_name, rollout.layer_name_map.gate]
    equal: {model.use_remove_padding: false}
    forbid: [model.lora_alpha]
    agree: [[model.lora_alpha, model.lora.alpha], [derived, model.lora_alpha]]
"""


def test_each_rule_kind():
    messages = [f.message for f in findings(RULES)]
    assert messages == [
        "critical: rollout.layer_name_map.gate is required but missing",
        "critical: model.use_remove_padding must equal False but is True",
        "critical: model.lora_alpha is forbidden but present (16)",
        "critical: must agree but differ: model.lora_alpha=16, model.lora.alpha=32",
    ]
    assert {f.severity for f in findings(RULES)} == {"error"}


def test_glob_scopes_cases():
    assert findings(RULES, case_id="t/dp/default") == []


def test_waiver_turns_error_into_warning_and_expires():
    live = RULES + "waivers:\n  - {contract: critical, path: model.use_remove_padding, reason: known, until: 2027-06-30}\n"
    waived = [f for f in findings(live) if f.path == "model.use_remove_padding"]
    assert waived[0].severity == "warning" and "waived: known" in waived[0].message
    expired = RULES + "waivers:\n  - {contract: critical, path: model.use_remove_padding, reason: known, until: 2025-01-01}\n"
    again = [f for f in findings(expired) if f.path == "model.use_remove_padding"]
    assert again[0].severity == "error" and "expired" in again[0].message


def test_mandatory_value_is_named_when_a_contract_needs_it():
    text = "contracts:\n  - name: n\n    equal: {model.name: x}\n"
    (finding,) = findings(text)
    assert "model.name" in finding.message and "???" in finding.message


@pytest.mark.parametrize(
    "text, message",
    [
        ("contracts:\n  - name: x\n    requires: [a]\n", r"c.yaml:3: unknown key 'requires'"),
        ("contract: []\n", r"c.yaml:1: unknown key 'contract'"),
        ("contracts:\n  - name: x\nwaivers:\n  - {contract: y, path: a, reason: r}\n", "waiver names no contract: 'y'"),
        ("contracts:\n  - name: x\nwaivers:\n  - {contract: x, path: a, reason: r, until: soon}\n", "until must be a date"),
        ("contracts: [\n", "c.yaml:2: invalid YAML"),
    ],
)
def test_strict_validation(text, message):
    with pytest.raises(ContractError, match=message):
        parse_contracts(text, Path("c.yaml"))


def test_derive_contract_requires_engine_specific_keys():
    baseline = {"model": {"use_remove_padding": True, "x": 1}}
    target = {"model": {"use_remove_padding": False, "x": 1, "moe": {"freeze": False}}, "i": "${model.x}"}
    contract = derive_contract("c", "*", baseline, target)
    assert contract["require"] == ["i", "model.moe.freeze"]
    assert contract["equal"] == {"model.moe.freeze": False, "model.use_remove_padding": False}
