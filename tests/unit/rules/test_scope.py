"""`cases`: the glob of case ids a contract applies to; narrowing it is a loosening that names the cases it loses."""

from pathlib import Path

import pytest

from harness.rules import scope
from harness.rules.contracts import ContractError, parse_contracts
from tests.unit.rules.terms import changed, violated

RULE = """
contracts:
  - name: gpu
    cases: "train/gpu/*"
    require: [trainer.device]
"""


def test_a_contract_applies_only_to_the_cases_its_glob_matches():
    assert [v.path for v in violated(RULE, {}, case_id="train/gpu/a")] == ["trainer.device"]
    assert violated(RULE, {}, case_id="train/cpu/a") == []
    # No case id: the caller chose the contract already.
    assert [v.path for v in violated(RULE, {})] == ["trainer.device"]


def test_the_default_glob_is_every_case_and_the_first_contract_of_a_name_decides():
    (contract,) = parse_contracts("contracts:\n  - name: x\n    require: [a]\n", Path("c.yaml")).contracts
    assert contract.term("cases") == "*"
    assert scope.KIND.merged("a/*", "*") == "a/*"


def test_a_glob_that_is_not_one_string_names_its_line():
    with pytest.raises(ContractError, match=r"^c.yaml:3: cases must be one glob string"):
        parse_contracts("contracts:\n  - name: x\n    cases: [a, b]\n    require: [a]\n", Path("c.yaml"))


def test_narrowing_names_the_lost_cases_and_widening_is_no_change():
    cases = ["train/gpu/a", "train/gpu/b", "train/gpu/c", "train/gpu/d", "train/gpu/e", "train/cpu/a"]
    narrowed = RULE.replace("train/gpu/*", "train/gpu/a")
    (change,) = changed(RULE, narrowed, cases)
    assert (change.path, change.old, change.new) == ("", {"cases": "train/gpu/*"}, {"cases": "train/gpu/a"})
    assert "no longer covers train/gpu/b, train/gpu/c, train/gpu/d and 1 more" in change.message
    assert changed(RULE, RULE.replace("train/gpu/*", "train/*"), cases) == []
    # Narrowed on paper, but no case of this review is lost: nothing to excuse.
    assert changed(RULE, narrowed, ["train/gpu/a", "train/cpu/a"]) == []
