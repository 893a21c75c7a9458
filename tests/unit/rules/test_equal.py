"""`equal`: the resolved value at a path must equal the pin, compared by type; a re-pin or a dropped pin is a
loosening; lock names each new pin."""

from pathlib import Path

import pytest

from harness.composition.resolve import MISSING
from harness.rules import equal
from harness.rules.contracts import ContractError, parse_contracts
from tests.unit.rules.terms import changed, violated

RULE = """
contracts:
  - name: pins
    equal: {trainer.steps: 10, model.name: gpt}
"""


def found(config, text=RULE, program=None):
    return [(v.path, v.actual, v.message) for v in violated(text, config, program)]


def test_the_value_is_compared_resolved_and_by_type():
    assert found({"trainer": {"steps": "${n}"}, "n": 10, "model": {"name": "gpt"}}) == []
    assert found({"trainer": {"steps": 10.0}, "model": {"name": "gpt"}}) == [
        ("trainer.steps", 10.0, "trainer.steps must equal 10 but is 10.0"),
    ]
    assert [path for path, _, _ in found({"trainer": {"steps": True}, "model": {"name": "gpt"}})] == ["trainer.steps"]


def test_a_missing_value_is_reported_once_when_require_reports_it_already():
    assert found({"trainer": {"steps": 10}}) == [("model.name", None, "model.name must equal 'gpt' but is missing")]
    required = RULE + "    require: [model.name]\n"
    assert [message for _, _, message in found({"trainer": {"steps": 10}}, required)] == ["model.name is required but missing"]


def test_an_unresolvable_value_says_why():
    ((path, actual, message),) = found({"trainer": {"steps": "${nowhere}"}, "model": {"name": "gpt"}})
    assert (path, actual) == ("trainer.steps", None)
    assert message.startswith("trainer.steps must equal 10 but ") and "nowhere" in message


def test_a_python_default_is_compared_with_program_view():
    class Built:
        def describe(self):
            return "a call to make_steps()"

    def literal(tree, path):
        return 10 if path == "trainer.steps" else MISSING

    with_view = RULE + "    program_view: true\n"
    config = {"model": {"name": "gpt"}}
    assert found(config, with_view, literal) == []
    assert [p for p, _, _ in found(config, RULE, literal)] == ["trainer.steps"]  # without the option, the YAML alone
    ((_, _, message),) = found(config, with_view, lambda tree, path: Built() if path == "trainer.steps" else MISSING)
    assert message == "trainer.steps must equal 10; it is not in the config and its Python default is a call to make_steps()"


def test_a_bad_term_names_its_line():
    with pytest.raises(ContractError, match=r"^c.yaml:3: equal must map dotted paths to values"):
        parse_contracts("contracts:\n  - name: x\n    equal: [a]\n", Path("c.yaml"))


def changes(head):
    return changed(RULE, head)


def test_a_re_pin_and_a_dropped_pin_are_changes():
    (repinned,) = changes(RULE.replace("10", "20"))
    assert (repinned.path, repinned.old, repinned.new) == ("trainer.steps", {"equal": 10}, {"equal": 20})
    assert "equal trainer.steps re-pinned from 10 to 20" in repinned.message
    assert changes(RULE.replace("10", "10.0")) != []  # 10.0 is another value than 10
    (dropped,) = changes(RULE.replace(", model.name: gpt", ""))
    assert (dropped.path, dropped.new) == ("model.name", None)
    assert changes(RULE.replace("gpt}", "gpt, extra: 1}")) == []


def test_lock_names_each_new_pin():
    assert equal.KIND.added((("a", 1),), (("a", 2), ("b", "x"))) == ["equal b: 'x'"]
