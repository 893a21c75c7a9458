"""The fast override parser: the plain `key=value` form typed exactly as Hydra's own parser types it, everything
else left to Hydra's parser."""

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import OverrideType

from harness.composition.overrides import fast, token_value

PLAIN = [
    "a.b=1",
    "a=-3",
    "a=1_000",
    "a=1.5e-3",
    "a=.5",
    "a=5.",
    "a=inf",
    "a=NaN",
    "a=True",
    "a=null",
    "a=word",
    "a=path/to:file.yaml",
    "+a.b=x",
    "++a=2",
    "~a.b",
    "a-b.c_d=1",
    "a=0x10",
    "a=01",
]


@pytest.mark.parametrize("text", PLAIN)
def test_the_plain_form_is_typed_as_hydra_types_it(text):
    (expected,) = OverridesParser.create().parse_overrides(overrides=[text])
    override = fast(text)
    assert override is not None
    value, want = override.value(), expected.value()
    assert (override.type, override.key_or_group, type(value)) == (expected.type, expected.key_or_group, type(want))
    assert value == want or (value != value and want != want)  # NaN


@pytest.mark.parametrize("text", ["a=[1,2]", "a='q'", "a=${b}", "a=1,2", "~a=1", "a", "a=-x", "a=x y", "1a=2", "a@p=1", "a=choice(1,2)"])
def test_anything_else_goes_to_hydras_parser(text):
    assert fast(text) is None


def test_a_delete_without_a_value_carries_none():
    override = fast("~trainer.x")
    assert override is not None and override.type == OverrideType.DEL and override.value_type is None


def test_a_lone_token_value():
    assert token_value("1_0") == 10 and token_value("-2.5") == -2.5 and token_value("FALSE") is False
    assert token_value("Null") is None and token_value("1.2.3") == "1.2.3"
