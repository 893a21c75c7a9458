"""`cases`: the glob of case ids a contract applies to; narrowing it is a loosening that names the cases it loses."""

import textwrap
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.rules import scope
from harness.rules.contract_changes import contract_changes_in_files
from harness.rules.contracts import ContractError, parse_contracts, violations

RULE = """
contracts:
  - name: gpu
    cases: "train/gpu/*"
    require: [trainer.device]
"""


def test_a_contract_applies_only_to_the_cases_its_glob_matches():
    (contract,) = parse_contracts(textwrap.dedent(RULE), Path("c.yaml")).contracts
    config = OmegaConf.create({})
    assert [v.path for v in violations(contract, config, {}, case_id="train/gpu/a")] == ["trainer.device"]
    assert violations(contract, config, {}, case_id="train/cpu/a") == []
    # No case id: the caller chose the contract already.
    assert [v.path for v in violations(contract, config, {})] == ["trainer.device"]


def test_the_default_glob_is_every_case_and_the_first_contract_of_a_name_decides():
    (contract,) = parse_contracts("contracts:\n  - name: x\n    require: [a]\n", Path("c.yaml")).contracts
    assert contract.term("cases") == "*"
    assert scope.KIND.merged("a/*", "*") == "a/*"


def test_a_glob_that_is_not_one_string_names_its_line():
    with pytest.raises(ContractError, match=r"^c.yaml:3: cases must be one glob string"):
        parse_contracts("contracts:\n  - name: x\n    cases: [a, b]\n    require: [a]\n", Path("c.yaml"))


def test_narrowing_names_the_lost_cases_and_widening_is_no_change():
    cases = ["train/gpu/a", "train/gpu/b", "train/gpu/c", "train/gpu/d", "train/gpu/e", "train/cpu/a"]
    base = {"c.yaml": textwrap.dedent(RULE)}
    narrowed = {"c.yaml": textwrap.dedent(RULE).replace("train/gpu/*", "train/gpu/a")}
    (change,) = contract_changes_in_files(base, narrowed, cases)
    assert (change.path, change.old, change.new) == ("", {"cases": "train/gpu/*"}, {"cases": "train/gpu/a"})
    assert "no longer covers train/gpu/b, train/gpu/c, train/gpu/d and 1 more" in change.message
    widened = {"c.yaml": textwrap.dedent(RULE).replace("train/gpu/*", "train/*")}
    assert contract_changes_in_files(base, widened, cases) == []
    # Narrowed on paper, but no case of this review is lost: nothing to excuse.
    assert contract_changes_in_files(base, narrowed, ["train/gpu/a", "train/cpu/a"]) == []
