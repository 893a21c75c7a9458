"""The rule kind registry (harness/rules): every kind keeps the protocol, and options are terms a review sees."""

import textwrap
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.rules import BY_KEY, KINDS
from harness.rules.contract_changes import contract_changes, read_contract_files
from harness.rules.contracts import CONTRACT_KEYS, Contract, ContractError, parse_contracts, violations
from harness.rules.protocol import View

CASES = ["t/dp/default", "t/megatron/default"]
EMPTY = Contract("empty")
VIEW = View(OmegaConf.create({"a": 1}), {"a": 1}, None, "t/dp/default")


def changes(base, head):
    return contract_changes(
        read_contract_files({"c.yaml": textwrap.dedent(base)}), read_contract_files({"c.yaml": textwrap.dedent(head)}), CASES
    )


def test_every_kind_owns_one_key_of_a_contract():
    assert len(BY_KEY) == len(KINDS)
    assert CONTRACT_KEYS == {"name", *BY_KEY}


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.key)
def test_an_unwritten_term_is_the_default_and_does_nothing(kind):
    assert kind.parse(Path("c.yaml"), {}) == kind.default
    assert kind.paths(kind.default) == ()
    assert kind.scope(kind.default, VIEW) == VIEW
    assert kind.violations(EMPTY, kind.default, VIEW) == []
    assert kind.loosened(EMPTY, EMPTY, CASES) == []
    assert kind.loosened(EMPTY, None, CASES) == []
    assert kind.merged(kind.default, kind.default) == kind.default
    assert kind.added(kind.default, kind.default) == []


@pytest.mark.parametrize(
    "key, value",
    [
        ("require", "a.b"),
        ("equal", ["a"]),
        ("forbid", 3),
        ("agree", [["a"]]),
        ("agree_require_both", "yes"),
        ("program_view", 1),
        ("cases", ["*"]),
    ],
)
def test_a_kind_rejects_a_bad_term_at_its_line(key, value):
    text = f"contracts:\n  - name: c\n    {key}: {value!r}\n"
    with pytest.raises(ContractError, match=rf"^c.yaml:3: {key}"):
        parse_contracts(text, Path("c.yaml"))


def test_cases_scope_the_contract_and_program_view_scopes_the_python_defaults():
    contract = parse_contracts("contracts:\n  - {name: c, cases: 't/megatron/*', require: [b]}\n", Path("c.yaml")).contracts[0]
    config = OmegaConf.create({"a": 1})
    default = {"b": 4}  # what the program would fill in
    assert violations(contract, config, {"a": 1}, case_id="t/dp/default") == []
    assert [v.path for v in violations(contract, config, {"a": 1}, lambda tree, path: default.get(path), "t/megatron/default")] == ["b"]
    seeing = Contract("c", {**contract.terms, "program_view": True})
    assert violations(seeing, config, {"a": 1}, lambda tree, path: default.get(path), "t/megatron/default") == []


BASE = """
contracts:
  - name: pins
    require: [model.depth]
    equal: {model.act: relu}
"""


def test_turning_program_view_on_is_a_loosening_and_off_is_not():
    on = BASE + "    program_view: true\n"
    (finding,) = changes(BASE, on)
    assert (finding.path, finding.old, finding.new, finding.severity) == ("", {"program_view": False}, {"program_view": True}, "error")
    assert finding.message.startswith("pins: program_view turned on:")
    assert "{contract: pins, path: '', old: {program_view: false}, new: {program_view: true}, reason: WHY}" in finding.message
    assert changes(on, BASE) == []
    recorded = on + "changes:\n  - {contract: pins, path: '', old: {program_view: false}, new: {program_view: true}, reason: sources}\n"
    assert [f.severity for f in changes(BASE, recorded)] == ["warning"]


def test_two_contracts_of_one_name_keep_program_view_when_merged():
    twice = BASE + "  - name: pins\n    forbid: [model.old]\n"
    assert [f.new for f in changes(twice, twice.replace("forbid: [model.old]", "forbid: [model.old]\n    program_view: true"))] == [
        {"program_view": True}
    ]
