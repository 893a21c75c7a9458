"""`require`: a required path missing from the config is a violation unless `program_view` finds a Python default;
dropping one is a loosening unless an `equal` pin still requires it; lock names the paths it adds."""

from pathlib import Path

import pytest

from harness.composition.resolve import MISSING
from harness.rules import require
from harness.rules.contracts import ContractError, parse_contracts
from tests.unit.rules.terms import changed, violated

RULE = """
contracts:
  - name: needs
    require: [trainer.steps, model.lr]
"""


def found(config, text=RULE, program=None):
    return [v.message for v in violated(text, config, program)]


def test_a_missing_path_is_a_violation_and_a_null_value_is_present():
    assert found({"trainer": {"steps": None}, "model": {"lr": 0.1}}) == []
    assert found({"trainer": {}}) == ["trainer.steps is required but missing", "model.lr is required but missing"]


def test_a_python_default_counts_only_with_program_view():
    def program(tree, path):
        return 3e-4 if path == "model.lr" else MISSING

    config = {"trainer": {"steps": 1}}
    assert found(config, program=program) == ["model.lr is required but missing"]
    with_view = RULE + "    program_view: true\n"
    assert found(config, with_view, program=program) == []


def test_a_bad_term_names_its_line():
    with pytest.raises(ContractError, match=r"^c.yaml:3: require must be a list of dotted paths"):
        parse_contracts("contracts:\n  - name: x\n    require: trainer.steps\n", Path("c.yaml"))


def changes(head):
    return changed(RULE, head)


def test_dropping_a_path_is_a_change_unless_an_equal_pin_keeps_requiring_it():
    (dropped,) = changes(RULE.replace(", model.lr", ""))
    assert (dropped.path, dropped.old, dropped.new) == ("model.lr", "require", None)
    assert changes(RULE.replace(", model.lr]", "]\n    equal: {model.lr: 0.1}")) == []
    assert [f.path for f in changes("contracts: []\n")] == ["trainer.steps", "model.lr"]


def test_lock_names_each_added_path_once():
    assert require.KIND.added(("a",), ("a", "b", "c")) == ["require b", "require c"]
    assert require.KIND.added(("a",), ("a",)) == []
