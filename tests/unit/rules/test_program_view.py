"""`program_view`: the option that lets `require` and `equal` see a Python default; turning it on is a loosening."""

import textwrap
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.rules import program_view
from harness.rules.contracts import ContractError, parse_contracts
from harness.rules.protocol import View
from tests.unit.rules.terms import changed

RULE = """
contracts:
  - name: defaults
    require: [model.lr]
"""


def lookup(tree, path):
    return 0.1


def test_the_view_keeps_the_program_only_when_the_option_is_on():
    view = View(OmegaConf.create({}), {}, lookup, "a")
    assert program_view.KIND.scope(True, view) is view
    narrowed = program_view.KIND.scope(False, view)
    assert narrowed is not None and narrowed.program is None and narrowed.case_id == "a"


def test_the_option_must_be_a_boolean():
    with pytest.raises(ContractError, match=r"^c.yaml:4: program_view must be true or false"):
        parse_contracts(textwrap.dedent(RULE).lstrip() + "    program_view: 1\n", Path("c.yaml"))


def test_turning_it_on_is_a_change_and_off_or_gone_is_not():
    on = RULE + "    program_view: true\n"
    (turned_on,) = changed(RULE, on)
    assert (turned_on.path, turned_on.old, turned_on.new) == ("", {"program_view": False}, {"program_view": True})
    assert changed(on, RULE) == []
    assert [f.path for f in changed(on, "contracts: []\n")] == ["model.lr"]  # the require term, not the option
