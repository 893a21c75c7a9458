"""`one_of`, the rule kind added as one module and one registry line: checked, loosened and locked like the others."""

import datetime
import textwrap
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.model.matrix import Case
from harness.rules.contract_changes import contract_changes, read_contract_files
from harness.rules.contracts import ContractError, contract_findings, parse_contracts
from harness.rules.derive import plan_lock

RULE = """
contracts:
  - name: devices
    one_of: {trainer.device: [cuda, npu], trainer.nodes: [1, 2, 4]}
"""
CASES = ["t/dp/default"]


def findings(config, text=RULE):
    contract_set = parse_contracts(textwrap.dedent(text), Path("c.yaml"))
    return contract_findings(contract_set, Case("t/dp/default", "t", ()), OmegaConf.create(config), config, datetime.date(2026, 12, 1))


def test_a_value_outside_the_list_and_a_missing_one_are_violations():
    assert findings({"trainer": {"device": "npu", "nodes": 2}}) == []
    messages = [f.message for f in findings({"trainer": {"device": "cpu"}})]
    assert messages == [
        "devices: trainer.device must be one of ['cuda', 'npu'] but is 'cpu'",
        "devices: trainer.nodes must be one of [1, 2, 4] but is missing",
    ]


def test_the_value_is_compared_resolved_and_by_type():
    config = {"trainer": {"device": "${hw}", "nodes": 2.5}, "hw": "cuda"}
    assert [f.path for f in findings(config)] == ["trainer.nodes"]
    assert [f.path for f in findings({"trainer": {"device": "cuda", "nodes": True}})] == ["trainer.nodes"]


def test_a_waiver_names_a_one_of_path():
    waived = RULE + "waivers:\n  - {contract: devices, path: trainer.device, reason: cpu smoke test}\n"
    (finding,) = [f for f in findings({"trainer": {"device": "cpu", "nodes": 1}}, waived)]
    assert finding.severity == "warning" and "waived: cpu smoke test" in finding.message


@pytest.mark.parametrize("term", ["[cuda]", "{trainer.device: cuda}", "{trainer.device: []}", "{'\"a\"b': [1]}"])
def test_a_bad_term_names_its_line(term):
    with pytest.raises(ContractError, match=r"^c.yaml:3: one_of"):
        parse_contracts(f"contracts:\n  - name: devices\n    one_of: {term}\n", Path("c.yaml"))


def changes(head):
    return contract_changes(
        read_contract_files({"c.yaml": textwrap.dedent(RULE)}), read_contract_files({"c.yaml": textwrap.dedent(head)}), CASES
    )


def test_widening_or_dropping_the_list_is_a_contract_change_and_narrowing_is_not():
    (widened,) = changes(RULE.replace("[cuda, npu]", "[cuda, npu, cpu]"))
    assert (widened.path, widened.old, widened.new) == ("trainer.device", {"one_of": ["cuda", "npu"]}, {"one_of": ["cuda", "npu", "cpu"]})
    assert "one_of trainer.device widened from ['cuda', 'npu'] to ['cuda', 'npu', 'cpu'] without a recorded reason" in widened.message
    (dropped,) = changes(RULE.replace(", trainer.nodes: [1, 2, 4]", ""))
    assert (dropped.path, dropped.new) == ("trainer.nodes", None)
    assert changes(RULE.replace("[1, 2, 4]", "[1, 2]")) == []
    gone = changes("contracts: []\n")
    assert [f.message.split(" without")[0] for f in gone] == [
        "devices: one_of trainer.device removed (contract gone)",
        "devices: one_of trainer.nodes removed (contract gone)",
    ]


def test_lock_keeps_a_one_of_term_as_written():
    derived = {"name": "devices", "cases": "*", "require": ["trainer.device"], "equal": {}}
    plan = plan_lock(textwrap.dedent(RULE), Path("c.yaml"), derived, CASES, None)
    assert plan.added == ["require trainer.device"] and plan.loosened == []
    assert parse_contracts(plan.text, Path("c.yaml")).contracts[0].term("one_of") == (
        ("trainer.device", ("cuda", "npu")),
        ("trainer.nodes", (1, 2, 4)),
    )
