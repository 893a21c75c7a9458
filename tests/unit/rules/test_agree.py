"""`agree`: aliases of one setting hold the same value where present; `agree_require_both` makes a missing alias a
violation; dropping or narrowing a group, or turning the option off, is a loosening."""

from pathlib import Path

import pytest

from harness.rules.contracts import ContractError, parse_contracts
from tests.unit.rules.terms import changed, violated

RULE = """
contracts:
  - name: aliases
    agree: [[actor.lr, critic.lr, ref.lr]]
"""


def found(config, text=RULE):
    return [(v.path, v.paths, v.message) for v in violated(text, config)]


def test_present_aliases_must_agree_and_a_missing_one_is_fine():
    assert found({"actor": {"lr": 0.1}, "critic": {"lr": "${actor.lr}"}}) == []
    assert found({"actor": {"lr": 0.1}}) == []
    ((path, paths, message),) = found({"actor": {"lr": 0.1}, "critic": {"lr": 0.2}})
    assert (path, paths) == ("ref.lr", ("actor.lr", "critic.lr", "ref.lr"))  # reported at the group's last path
    assert message == "must agree but differ: actor.lr=0.1, critic.lr=0.2, ref.lr=missing"


def test_values_are_compared_by_type():
    assert len(found({"actor": {"lr": 1}, "critic": {"lr": 1.0}})) == 1


def test_with_require_both_a_missing_alias_is_a_violation():
    both = RULE + "    agree_require_both: true\n"
    ((_, _, message),) = found({"actor": {"lr": 0.1}, "critic": {"lr": 0.1}}, both)
    assert message == "must all be present and agree: actor.lr=0.1, critic.lr=0.1, ref.lr=missing"
    assert found({"actor": {"lr": 0.1}, "critic": {"lr": 0.1}, "ref": {"lr": 0.1}}, both) == []


def test_an_unresolvable_alias_says_why():
    ((_, _, message),) = found({"actor": {"lr": "${gone}"}, "critic": {"lr": 0.1}})
    assert message.startswith("actor.lr: ") and "gone" in message


@pytest.mark.parametrize("term", ["[a, b]", "[[a]]", "[[a, 1]]", "{a: b}"])
def test_a_bad_group_names_its_line(term):
    with pytest.raises(ContractError, match=r"^c.yaml:3: agree must be a list of lists of two or more paths"):
        parse_contracts(f"contracts:\n  - name: x\n    agree: {term}\n", Path("c.yaml"))


def test_the_option_must_be_a_boolean():
    with pytest.raises(ContractError, match=r"^c.yaml:4: agree_require_both must be true or false"):
        parse_contracts("contracts:\n  - name: x\n    agree: [[a, b]]\n    agree_require_both: yes please\n", Path("c.yaml"))


def changes(head, base=RULE):
    return changed(base, head)


def test_narrowing_or_dropping_a_group_is_a_change_and_widening_is_not():
    (narrowed,) = changes(RULE.replace(", ref.lr", ""))
    assert (narrowed.path, narrowed.old, narrowed.new) == (
        "ref.lr",
        {"agree": ["actor.lr", "critic.lr", "ref.lr"]},
        {"agree": ["actor.lr", "critic.lr"]},
    )
    (dropped,) = changes("contracts:\n  - name: aliases\n    require: [x]\n")
    assert dropped.new is None and "agree ['actor.lr', 'critic.lr', 'ref.lr'] removed" in dropped.message
    assert changes(RULE.replace("ref.lr]", "ref.lr, rollout.lr]")) == []


def test_turning_require_both_off_is_a_change_and_on_is_not():
    both = RULE + "    agree_require_both: true\n"
    (off,) = changes(RULE, base=both)
    assert (off.path, off.old, off.new) == ("", {"agree_require_both": True}, {"agree_require_both": False})
    assert changes(both) == []
