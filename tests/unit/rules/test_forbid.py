"""`forbid`: a forbidden path present in the config is a violation, absent is fine; dropping one is a loosening."""

from pathlib import Path

import pytest

from harness.rules.contracts import ContractError, parse_contracts
from tests.unit.rules.terms import changed, violated

RULE = """
contracts:
  - name: no-legacy
    forbid: [trainer.legacy, model.old_lr]
"""


def found(config, text=RULE):
    return [(v.path, v.message) for v in violated(text, config)]


def test_a_present_path_is_a_violation_and_an_absent_one_is_not():
    assert found({"trainer": {"steps": 1}, "model": {"lr": 0.1}}) == []
    assert found({"trainer": {"legacy": True}, "model": {"old_lr": None}}) == [
        ("trainer.legacy", "trainer.legacy is forbidden but present (True)"),
        ("model.old_lr", "model.old_lr is forbidden but present (None)"),
    ]


def test_a_present_mapping_is_forbidden_too():
    assert [path for path, _ in found({"trainer": {"legacy": {"a": 1}}})] == ["trainer.legacy"]


@pytest.mark.parametrize("term", ["trainer.legacy", "{a: b}", "[1]", "['\"a\"b']"])
def test_a_bad_term_names_its_line(term):
    with pytest.raises(ContractError, match=r"^c.yaml:3: forbid"):
        parse_contracts(f"contracts:\n  - name: x\n    forbid: {term}\n", Path("c.yaml"))


def test_dropping_a_forbidden_path_is_a_contract_change():
    (dropped,) = changed(RULE, RULE.replace(", model.old_lr", ""))
    assert (dropped.path, dropped.old, dropped.new) == ("model.old_lr", "forbid", None)
    assert dropped.message.startswith("no-legacy: forbid model.old_lr removed")
    gone = changed(RULE, "contracts: []\n")
    assert [f.path for f in gone] == ["trainer.legacy", "model.old_lr"]
    assert all("(contract gone)" in f.message for f in gone)
    assert changed(RULE, RULE.replace("]", ", extra]")) == []
