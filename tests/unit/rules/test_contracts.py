import datetime
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.model.matrix import Case
from harness.rules.contracts import ContractError, contract_findings, parse_contracts
from harness.rules.derive import derive_contract

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


ALIAS = """
contracts:
  - name: alias
    agree: [[model.lora_alpha, model.lora.alpha]]
"""


@pytest.mark.parametrize(
    "model, failing",
    [
        ({"lora_alpha": 16, "lora": {"alpha": 16}}, False),  # both present and equal
        ({"lora_alpha": 16}, False),  # only the old spelling: the alias does not exist yet
        ({"lora": {"alpha": 32}}, False),  # only the new spelling
        ({}, False),  # neither
        ({"lora_alpha": 16, "lora": {"alpha": 32}}, True),  # both present, different
    ],
)
def test_agree_means_alias_agreement(model, failing):
    assert bool(findings(ALIAS, config={"model": model})) is failing


def test_agree_require_both_makes_absence_a_violation():
    strict = ALIAS + "    agree_require_both: true\n"
    (finding,) = findings(strict, config={"model": {"lora_alpha": 16}})
    assert "must all be present and agree: model.lora_alpha=16, model.lora.alpha=missing" in finding.message
    assert findings(strict, config={"model": {"lora_alpha": 16, "lora": {"alpha": 16}}}) == []


def test_waiver_scoped_to_cases_does_not_hide_another_case():
    text = ALIAS + "waivers:\n  - {contract: alias, path: model.lora.alpha, reason: megatron only, cases: 't/megatron/*'}\n"
    config = {"model": {"lora_alpha": 16, "lora": {"alpha": 32}}}
    (megatron,) = findings(text, case_id="t/megatron/default", config=config)
    (dp,) = findings(text, case_id="t/dp/default", config=config)
    assert (megatron.severity, dp.severity) == ("warning", "error")


def test_equal_with_a_mapping_value_can_pass():
    text = "contracts:\n  - name: n\n    equal: {rollout.layer_name_map: {qkv_layer_name: qkv}}\n"
    assert findings(text) == []
    other = "contracts:\n  - name: n\n    equal: {rollout.layer_name_map: {qkv_layer_name: other}}\n"
    assert len(findings(other)) == 1


def test_waiver_expiry_uses_the_utc_date(monkeypatch):
    import time

    from harness.rules.contracts import utc_today

    # A zone whose local date is not the UTC date right now (UTC+14 after noon UTC, UTC-12 before).
    now = datetime.datetime.now(datetime.UTC)
    monkeypatch.setenv("TZ", "Etc/GMT-14" if now.hour >= 12 else "Etc/GMT+12")
    time.tzset()
    try:
        assert datetime.date.today() != now.date()  # the local date really differs here
        assert utc_today() == now.date()
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def _result(case_id, found):
    from harness.model.findings import CaseResult

    return CaseResult(Case(case_id, "t", ()), "g.yaml", "ok", tuple(found))


def test_stale_waiver_is_reported_and_strict_makes_it_an_error():
    from harness.rules.contracts import stale_waivers, violations_seen

    text = (
        ALIAS
        + """waivers:
  - {contract: alias, path: model.lora_alpha, reason: still needed, cases: 't/megatron/*'}
  - {contract: alias, path: model.lora.alpha, reason: gone on dp, cases: 't/dp/*'}
"""
    )
    contract_set = parse_contracts(text, Path("c.yaml"))
    config = {"model": {"lora_alpha": 16, "lora": {"alpha": 32}}}
    # The megatron case still disagrees (the waiver names the group's first path); dp agrees now.
    results = [
        _result("t/megatron/default", findings(text, "t/megatron/default", config)),
        _result("t/dp/default", findings(text, "t/dp/default", {"model": {"lora_alpha": 32, "lora": {"alpha": 32}}})),
    ]
    seen = violations_seen(contract_set, results)
    (stale,) = stale_waivers(contract_set, seen)
    assert stale.severity == "warning" and stale.path == "model.lora.alpha"
    assert stale.message.startswith("alias: waiver no longer needed: no case in cases 't/dp/*' violates model.lora.alpha")
    assert stale_waivers(contract_set, seen, strict=True)[0].severity == "error"


def test_hygiene_names_empty_globs_unknown_waiver_paths_and_duplicate_names():
    from harness.rules.contracts import contract_hygiene

    text = """
contracts:
  - {name: a, cases: "nothing/*", require: [x]}
  - {name: b, require: [y]}
  - {name: b, require: [z]}
waivers:
  - {contract: b, path: not.a.rule, reason: r}
"""
    messages = [f.message for f in contract_hygiene(parse_contracts(text, Path("c.yaml")), ["t/dp/default"])]
    assert messages == [
        "b: duplicate contract name (in c.yaml)",
        "a: cases 'nothing/*' matches no case; the contract checks nothing",
        "b: waiver for not.a.rule, which no rule of the contract names",
    ]


def test_a_live_waiver_excuses_whatever_the_order_of_an_expired_one_beside_it():
    text = RULES + (
        "waivers:\n"
        "  - {contract: critical, path: model.use_remove_padding, reason: old, until: 2025-01-01}\n"
        "  - {contract: critical, path: model.use_remove_padding, reason: renewed, until: 2027-06-30}\n"
    )
    (finding,) = [f for f in findings(text) if f.path == "model.use_remove_padding"]
    assert finding.severity == "warning" and "waived: renewed" in finding.message
