"""What every rule kind shares: a term change's record, where a key of a contracts file is (FILE:LINE), and the
strict parsing helpers, each refusal one line naming the file, line and key."""

import textwrap
from pathlib import Path

import pytest

from harness.composition.resolve import MISSING
from harness.rules.contracts import parse_contracts
from harness.rules.protocol import (
    HYDRA,
    ContractError,
    TermChange,
    checked,
    flag,
    path_list,
    plain,
    show,
    strict_keys,
    where,
)


class Lines(dict):
    """A mapping that remembers lines, as the contracts loader's mappings do."""

    def __init__(self, items, lines):
        super().__init__(items)
        self.lines = lines


ORIGIN = Path("c.yaml")
ENTRY = Lines({"require": ["a.b"], "flag": "yes", "bad": "a..b"}, {"": 3, "require": 4, "flag": 5, "bad": 6})


def test_a_change_s_record_names_its_contract_or_its_subject():
    assert TermChange("gpu", "a.b", "require", None, "x").record("why") == {
        "contract": "gpu",
        "path": "a.b",
        "old": "require",
        "new": None,
        "reason": "why",
    }
    assert TermChange(HYDRA, "job.chdir", 1, 2, "x").record("why") == {"hydra": "job.chdir", "old": 1, "new": 2, "reason": "why"}


def test_where_is_the_line_of_the_key_else_of_the_mapping():
    assert where(ORIGIN, ENTRY, "flag") == "c.yaml:5" and where(ORIGIN, ENTRY, "other") == "c.yaml:3"
    assert where(ORIGIN, {"a": 1}, "a") == "c.yaml"  # a plain mapping has no lines


def test_the_helpers_refuse_with_file_and_line():
    assert path_list(ORIGIN, ENTRY, "require") == ("a.b",) and path_list(ORIGIN, ENTRY, "absent") == ()
    with pytest.raises(ContractError, match=r"^c.yaml:5: flag must be true or false$"):
        flag(ORIGIN, ENTRY, "flag")
    assert flag(ORIGIN, ENTRY, "absent") is False
    with pytest.raises(ContractError, match=r"^c.yaml:6: bad: "):
        checked(ORIGIN, ENTRY, "bad", '"unclosed')
    with pytest.raises(ContractError, match=r"^c.yaml:5: unknown key 'flag' in a contract \(allowed: bad, require\)$"):
        strict_keys(ORIGIN, ENTRY, {"require", "bad"}, "a contract")
    with pytest.raises(ContractError, match="a contract must be a mapping, got list"):
        strict_keys(ORIGIN, [1], {"a"}, "a contract")


def test_values_show_as_messages_show_them_and_parsed_mappings_compare_as_plain_ones():
    assert show(MISSING) == "missing" and show("x") == "'x'" and show(1.0) == "1.0"
    (contract,) = parse_contracts(textwrap.dedent("contracts:\n  - name: x\n    equal: {a: {b: [1, {c: 2}]}}\n"), ORIGIN).contracts
    ((_, value),) = contract.term("equal")
    assert plain(value) == {"b": [1, {"c": 2}]} and type(plain(value)) is dict
