from hypothesis import given
from hypothesis import strategies as st

from harness.composition.render import dump_yaml, parse_yaml
from harness.model.semantic_diff import (
    ADDED,
    CHANGED,
    ORDER,
    REMOVED,
    Change,
    describe_change,
    describe_value,
    diff_trees,
    flatten,
    is_collection,
    list_detail,
    order_changes,
    unflatten,
)

KEYS = st.text(alphabet="abcdefgh_", min_size=1, max_size=4)
SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
VALUES = st.recursive(
    SCALARS | st.lists(SCALARS, max_size=3),
    lambda children: st.dictionaries(KEYS, children, max_size=4),
    max_leaves=20,
)
TREES = st.dictionaries(KEYS, VALUES, max_size=5)


def test_kinds_and_leaf_paths():
    old = {"a": {"b": {"c": "qkv"}, "n": None}, "l": [1, 2], "t": 1}
    new = {"a": {"b": {}}, "l": [1, 2, 3], "t": 1.0, "x": True}
    assert diff_trees(old, new) == [
        Change(ADDED, "a.b", None, {}),
        Change(REMOVED, "a.b.c", "qkv", None),
        Change(REMOVED, "a.n", None, None),
        Change(CHANGED, "l", [1, 2], [1, 2, 3]),
        Change(CHANGED, "t", 1, 1.0),
        Change(ADDED, "x", None, True),
    ]


def test_emptied_mapping_reports_each_lost_leaf():
    changes = diff_trees({"m": {"x": 1, "y": {"z": 2}}}, {"m": {}})
    assert [(c.kind, c.path) for c in changes if c.kind == REMOVED] == [(REMOVED, "m.x"), (REMOVED, "m.y.z")]


def test_null_key_that_disappears_is_removed():
    assert diff_trees({"k": None}, {}) == [Change(REMOVED, "k", None, None)]


def test_type_change_is_changed():
    assert diff_trees({"k": True}, {"k": 1}) == [Change(CHANGED, "k", True, 1)]
    assert diff_trees({"k": "1"}, {"k": 1})[0].kind == CHANGED


def test_describe():
    assert describe_change(Change(REMOVED, "a.b.c", "qkv")) == "REMOVED a.b.c (was 'qkv')"


def plain_flatten_diff(old, new):
    a, b = flatten(old), flatten(new)
    return {p for p in a.keys() | b.keys() if p not in a or p not in b or type(a[p]) is not type(b[p]) or a[p] != b[p]}


@given(TREES)
def test_diff_with_itself_is_empty(tree):
    assert diff_trees(tree, tree) == []


@given(TREES, TREES)
def test_diff_mirrors(a, b):
    swap = {REMOVED: ADDED, ADDED: REMOVED, CHANGED: CHANGED}
    forward = {(swap[c.kind], c.path, repr(c.new), repr(c.old)) for c in diff_trees(a, b)}
    backward = {(c.kind, c.path, repr(c.old), repr(c.new)) for c in diff_trees(b, a)}
    assert forward == backward


def apply_changes(tree, changes):
    """The changes applied to a tree's leaves, the tree rebuilt: the oracle that proves a diff complete."""
    leaves = flatten(tree)
    for change in changes:
        if change.kind == REMOVED:
            leaves.pop(change.path, None)
        else:
            leaves[change.path] = change.new
    return unflatten(leaves)


@given(TREES, TREES)
def test_applying_the_diff_gives_the_new_tree(a, b):
    assert apply_changes(a, diff_trees(a, b)) == b


@given(TREES, TREES)
def test_agrees_with_a_plain_flatten(a, b):
    assert {c.path for c in diff_trees(a, b)} == plain_flatten_diff(a, b)


@given(TREES)
def test_flatten_unflatten_round_trip(tree):
    assert unflatten(flatten(tree)) == tree


@given(TREES)
def test_render_parse_round_trip(tree):
    assert diff_trees(parse_yaml(dump_yaml(tree)), tree) == []


def test_a_changed_list_keeps_its_path_and_names_the_changed_element_and_key():
    old = {"graph": {"edges": [{"source": "a", "attributes": {"cutoff_factor": 0.6, "kind": "cut"}}, {"source": "b"}]}}
    new = {"graph": {"edges": [{"attributes": {"kind": "cut", "cutoff_factor": 0.7}, "source": "a"}, {"source": "b"}]}}
    (change,) = diff_trees(old, new)
    assert change.path == "graph.edges"
    assert change.detail == ("graph.edges[0].attributes.cutoff_factor: 0.6 -> 0.7",)
    assert describe_change(change) == "CHANGED graph.edges (list): graph.edges[0].attributes.cutoff_factor: 0.6 -> 0.7"


def test_an_inserted_element_is_one_added_line_not_a_shifted_tail():
    assert list_detail("xs", [1, 2, 3], [1, 9, 2, 3]) == ("xs[1]: added 9",)
    assert list_detail("xs", [1, 2, 3], [1, 3]) == ("xs[1]: removed (was 2)",)


def test_both_sides_of_a_change_render_mappings_alike():
    # A golden has sorted keys, a composition has merge order: the same mapping must read the same.
    assert describe_value({"b": 1, "a": {"d": 2, "c": 3}}) == describe_value({"a": {"c": 3, "d": 2}, "b": 1})
    (line,) = list_detail("xs", [{"z": 1, "a": 2}], [{"z": 1, "a": 2}, {"y": 0, "b": 1}])
    assert line == "xs[1]: added {'b': 1, 'y': 0}"


# Keys of every type a config can hold, so a walk that matches keys by dict equality (True == 1 == 1.0) is caught.
MIXED_KEYS = KEYS | st.sampled_from([1, True, 1.0, 0, False, "1", "true", "a.b"])
MIXED = st.recursive(
    SCALARS | st.lists(SCALARS, max_size=2), lambda children: st.dictionaries(MIXED_KEYS, children, max_size=4), max_leaves=20
)


def _full(changes):
    return [(c.kind, c.path, repr(c.old), repr(c.new), c.detail, c.subtree) for c in changes]


@given(st.dictionaries(MIXED_KEYS, MIXED, max_size=5), st.dictionaries(MIXED_KEYS, MIXED, max_size=5))
def test_the_side_by_side_walk_gives_exactly_the_flattened_diff(a, b):
    from harness.model.semantic_diff import diff_leaves

    assert _full(diff_trees(a, b)) == _full(diff_leaves(flatten(a), flatten(b)))
    # Two trees that share most of their content (a launch now and at the base) walk the shared part once.
    shared = {"big": a, "other": b}
    assert _full(diff_trees(shared, {**shared, "other": a})) == _full(diff_leaves(flatten(shared), flatten({**shared, "other": a})))


@given(st.dictionaries(MIXED_KEYS, MIXED, max_size=5))
def test_a_value_s_text_never_fails_and_ignores_key_order(tree):
    # A config may mix `1:`, `true:` and `a:` keys, where JSON's sort_keys raises: grouping findings, telling
    # moves apart and a review's write identities all key values by this text.
    from harness.model.semantic_diff import value_text

    assert value_text(tree) == value_text(dict(reversed(list(tree.items()))))


def test_a_value_s_text_tells_keys_and_values_of_other_types_apart():
    from harness.model.semantic_diff import value_text

    texts = {value_text(v) for v in ({1: "x"}, {"1": "x"}, {True: "x"}, {1.0: "x"}, [1], [1.0], [True], ["1"])}
    assert len(texts) == 8
    assert value_text({"b": 1, "a": [2]}) == '{"a": [2], "b": 1}'  # plain JSON where JSON can say it


CALLBACKS = {
    "early_stopping": {"_target_": "lightning.pytorch.callbacks.EarlyStopping", "patience": 3},
    "checkpoint": {"_target_": "lightning.pytorch.callbacks.ModelCheckpoint"},
    "summary": None,  # switched off
}


def test_a_collection_of_target_nodes_swapped_is_one_order_change_and_nothing_else_is():
    old = {"callbacks": CALLBACKS, "trainer": {"max_epochs": 3}}
    swapped = {"trainer": {"max_epochs": 3}, "callbacks": {key: CALLBACKS[key] for key in ("checkpoint", "summary", "early_stopping")}}
    (change,) = order_changes(old, swapped)
    assert (change.kind, change.path, change.old, change.new) == (
        ORDER,
        "callbacks",
        ["early_stopping", "checkpoint", "summary"],
        ["checkpoint", "summary", "early_stopping"],
    )
    assert describe_change(change) == (
        "ORDER callbacks: early_stopping, checkpoint, summary -> checkpoint, summary, early_stopping (the order they are built in)"
    )
    assert diff_trees(old, swapped) == []  # the same values: only the order tells them apart


def test_no_order_change_for_a_target_node_s_fields_plain_mappings_or_entries_added_and_removed():
    fields = {"_target_": "verl.workers.config.FSDPActorConfig", "lr": 1, "clip": 0.2}
    plain = {"a": {"x": 1}, "b": {"y": 2}}
    old = {"actor": fields, "plain": plain, "callbacks": CALLBACKS}
    new = {
        "actor": {key: fields[key] for key in ("clip", "lr", "_target_")},  # a dataclass's fields: any order
        "plain": {"b": {"y": 2}, "a": {"x": 1}},  # mappings the program reads by key
        "callbacks": {"new": {"_target_": "x.New"}, **{k: v for k, v in CALLBACKS.items() if k != "summary"}},  # added first
    }
    assert order_changes(old, new) == []


def test_is_collection_needs_two_named_target_nodes_and_no_target_of_its_own():
    assert is_collection(CALLBACKS)
    assert not is_collection({"only": {"_target_": "x.A"}, "off": None})
    assert not is_collection({**CALLBACKS, "_target_": "x.Holder"})
    assert not is_collection({**CALLBACKS, "verbose": True})
    assert not is_collection([1, 2])


@given(TREES)
def test_a_tree_has_no_order_change_with_itself(tree):
    assert order_changes(tree, tree) == []
