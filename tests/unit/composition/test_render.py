"""Goldens as text: a header saying how the case was composed, the unresolved tree with every mapping's keys in one
order whatever their types; YAML read back safely, with the line of every key. (Hostile YAML: test_gates.py.)"""

import yaml
from hypothesis import example, given
from hypothesis import strategies as st
from omegaconf import OmegaConf

from harness.composition import render
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


# The block writer must write exactly what PyYAML's emitter writes, or decline (and PyYAML writes the tree).
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.text(alphabet=st.sampled_from("ab ${}:.'\"#-\t\n\\é\u2028\x85~?!&*%@`,[]|>"), max_size=120),
    st.sampled_from(["yes", "no", "null", "~", "1.0", "1e-6", "0x1F", "True", "${oc.select:a.b,null}", "", " ", "- x", "a: b"]),
)
_keys = st.one_of(st.text(max_size=20), st.integers(), st.sampled_from(["yes", "1", "a b", "?", "-", "k" * 130]))
_trees = st.recursive(
    _scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_keys, children, max_size=4)),
    max_leaves=30,
)


@given(st.dictionaries(_keys, _trees, min_size=1, max_size=6))
@example({"a": " ".join(["word"] * 19) + "w"})  # ends just past the width at column 3: folded
@example({"k" * 70: {"i": "x" * 8 + " y"}})
@example({"a": [[" ".join(["v"] * 39)]]})
@example({"a": 0.0, "b": -0.0, "c": 1, "d": True, "e": 1.0, -0.0: 2})
def test_the_block_writer_writes_what_pyyaml_writes(tree):
    written = render._BlockWriter().document(tree)
    if written is not None:
        assert written == render._yaml_dump(render.sorted_tree(tree))
    assert dump_yaml(tree) == render._yaml_dump(render.sorted_tree(tree))


def test_the_block_writer_takes_an_ordinary_config_without_falling_back():
    # verl's long interpolations with a space are folded by the emitter: written by it, at their place.
    long = "${oc.select:actor_rollout_ref.rollout.multi_turn.function_tool_path, null}"
    tree = {"a": {"b": [1, {"c": "${x.y}", "d": [], "g": long}], "e": {}, "h": long}, "f": "a" * 200, 2: None, "m": "x\ny"}
    assert render._BlockWriter().document(tree) == render._yaml_dump(render.sorted_tree(tree))
