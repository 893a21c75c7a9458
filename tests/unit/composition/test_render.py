"""Goldens as text: a header saying how the case was composed, the unresolved tree with every mapping's keys in one
order whatever their types; YAML read back safely, with the line of every key. (Hostile YAML: test_gates.py.)"""

import yaml
from omegaconf import OmegaConf

from harness.composition.render import dump_yaml, golden_body, header, key_lines, line_of, load_config_text, parse_yaml, render_golden
from harness.model.matrix import Case


def test_keys_of_mixed_types_are_sorted_and_interpolations_stay_as_written():
    assert dump_yaml({"b": 1, 2: "two", "a": {"z": None, "y": [3, {"d": 1, "c": 2}]}, True: "t"}) == (
        "a:\n  'y':\n  - 3\n  - c: 2\n    d: 1\n  z: null\nb: 1\ntrue: t\n2: two\n"
    )  # `y` quoted: YAML 1.1 reads a bare y as true
    text = render_golden(Case("t/base/default", "train", ("a=1",), version_base="1.3"), OmegaConf.create({"x": "${w}", "w": 1}))
    assert text.splitlines()[:2] == [
        "# config-harness golden for case t/base/default",
        "# Composed with Hydra: config_name=train version_base=1.3 overrides: a=1",
    ]
    assert golden_body(text) == "w: 1\nx: ${w}\n"


def test_a_string_that_reads_as_another_type_keeps_its_type_through_a_golden():
    tree = {"a": "1", "b": "true", "c": "null", "d": "1e3", "e": "multi\nline"}
    assert parse_yaml(dump_yaml(tree)) == tree


def test_the_header_says_when_there_are_no_overrides():
    assert "overrides: (none)" in header(Case("t/base/default", "train", ()))


def test_yaml_read_back_and_the_line_of_each_key():
    text = "a:\n  b: 1\n  c:\n    d: 2\nlist: [1, 2]\n"
    assert key_lines(text) == {"a": 1, "a.b": 2, "a.c": 3, "a.c.d": 4, "list": 5}
    assert line_of(key_lines(text), "a.c.d") == 4 and line_of(key_lines(text), "a.c.missing.deeper") == 3 and line_of({}, "x") is None
    assert key_lines("a: [unclosed\n") == {}
    assert parse_yaml("") == {} and load_config_text("just text") == OmegaConf.create({"just text": None})


def test_no_python_object_is_ever_built_from_yaml():
    try:
        parse_yaml("a: !!python/object/apply:os.system [echo hi]\n")
    except yaml.YAMLError:
        return
    raise AssertionError("a python tag was accepted")
