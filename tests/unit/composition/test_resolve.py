import pytest
from omegaconf import OmegaConf

from harness.composition import resolve
from harness.composition.resolve import affected_interpolations, effective_value, fallbacks, resolve_path
from harness.model.semantic_diff import diff_trees
from harness.runner.compare import effective_findings, fallback_findings


def test_fallback_when_key_is_absent_or_mandatory_not_when_present():
    tree = {
        "a": "${oc.select:missing.key,7}",
        "b": "${oc.select:present,1}",
        "c": "${oc.select:mandatory,2}",
        "d": "${oc.select:present,${oc.select:missing.key,3}}",
        "present": None,
        "mandatory": "???",
    }
    assert sorted(fallbacks(tree)) == ["a", "c"]
    assert fallbacks(tree)["a"].default == "7"


def test_new_fallback_is_an_error_known_one_is_info():
    golden = {"x": "${oc.select:k,1}", "k": 5}
    new = {"x": "${oc.select:k,1}"}
    (finding,) = fallback_findings(new, golden)
    assert finding.kind == "fallback" and finding.severity == "error" and finding.path == "x"
    assert fallback_findings(new, new)[0].severity == "info"


def test_effective_value_change_names_both_paths():
    golden = {"actor": {"pad": "${oc.select:model.pad,false}"}, "model": {"pad": False}}
    new = {"actor": {"pad": "${oc.select:model.pad,false}"}, "model": {"pad": True}}
    (finding,) = effective_findings(OmegaConf.create(new), new, golden, diff_trees(golden, new))
    assert finding.path == "actor.pad" and "model.pad" in finding.message
    assert (finding.old, finding.new) == (False, True)


def test_only_interpolations_that_read_a_changed_leaf_are_affected():
    interpolations = {
        "a": "${b}",  # reads b, which reads the changed c
        "b": "${oc.select:c,1}",
        "d": "${e}",  # reads an unchanged key
        "f": "${.g}",  # a sibling of a changed key: unaffected
        "m.x": "${m.y}",  # reads a key below a changed mapping
        "n": "${model}",  # reads a mapping that holds a changed leaf
        "o": "${oc.env:HOME}",  # another resolver: conservatively affected
    }
    changed = {"c", "h", "m", "model.pad"}
    assert affected_interpolations(interpolations, changed) == {"a", "b", "m.x", "n", "o"}


def test_a_transitive_change_is_still_reported():
    golden = {"a": "${b}", "b": "${c}", "c": 1, "u": "${v}", "v": 0}
    new = {"a": "${b}", "b": "${c}", "c": 2, "u": "${v}", "v": 0}
    findings = effective_findings(OmegaConf.create(new), new, golden, diff_trees(golden, new))
    assert [(f.path, f.old, f.new) for f in findings] == [("a", 1, 2), ("b", 1, 2)]


def test_env_lookups_stay_opaque(monkeypatch):
    tree = {"user": "${oc.env:USER}", "when": "${now:%Y}"}
    config = OmegaConf.create(tree)
    monkeypatch.setenv("USER", "alice")
    first = resolve_path(config, "user"), resolve_path(config, "when")
    monkeypatch.delenv("USER")
    assert (resolve_path(config, "user"), resolve_path(config, "when")) == first == ("${oc.env:USER}", "${now:%Y}")


def test_resolution_failures_name_the_key():
    tree = {"a": "${b}", "b": "${a}", "m": "???", "r": "${nowhere}"}
    config = OmegaConf.create(tree)
    assert "a cannot be resolved" in effective_value(config, tree, "a").reason
    assert "m is '???'" in effective_value(config, tree, "m").reason
    assert "r cannot be resolved" in effective_value(config, tree, "r").reason


def test_a_scalar_refactor_is_folded_whatever_else_the_case_spends_its_budget_on():
    """Issue 30: an interpolation replaced by a literal with the same resolved value is a refactor in every case.
    A case whose other changed interpolations read big mappings must not spend its budget before the cheap one."""
    from harness.composition.resolve import resolves_unchanged

    big = {f"k{i}": i for i in range(6000)}
    lean = {"x": False, "z": {"flag": "${oc.select:x,false}"}}
    old = {**lean, "big": big, "big2": dict(big), **{f"a{i}": "${big}" for i in range(10)}}
    new = {**old, "z": {"flag": False}, **{f"a{i}": "${big2}" for i in range(10)}}
    paths = [f"a{i}" for i in range(10)] + ["z.flag"]
    heavy = resolves_unchanged(old, new, paths)
    assert "z.flag" in heavy and "z.flag" in resolves_unchanged(lean, {**lean, "z": {"flag": False}}, ["z.flag"])
    assert len(heavy & set(paths[:-1])) < 10  # the budget still bounds the big ones: not every one was resolved


PLAIN_TREE = {
    "model": {"channels": 512, "rate": 1e-3, "on": True, "off": None, "name": "gnn", "dollar": "a$b", "slash": "a\\b"},
    "missing": "???",
    "chain": "${model.channels}",
    "nested": {"deep": {"x": -1.5}},
    "items": [1, 2],
}


@pytest.mark.parametrize(
    "written", ["${model.channels}", "${model.rate}", "${model.on}", "${model.off}", "${model.name}", "${nested.deep.x}"]
)
def test_a_plain_reference_resolves_as_omegaconf_does_without_building_the_config(written):
    tree = {**PLAIN_TREE, "here": written}
    value = resolve.referenced_plain(tree, written)
    expected = resolve.resolve_path(OmegaConf.create(tree), "here")
    assert value is not resolve.NOT_PLAIN
    assert type(value) is type(expected) and value == expected


@pytest.mark.parametrize(
    "written",
    [
        "${model.dollar}",  # a `$` in the target: OmegaConf may read it as more
        "${model.slash}",
        "${missing}",
        "${chain}",  # the target is an interpolation itself
        "${nested}",  # a mapping
        "${items}",
        "${items.0}",
        "${model.absent}",
        "${.channels}",  # relative
        "${oc.select:model.channels,1}",
        "x_${model.channels}",  # text around it
        "${model.channels}${model.name}",
    ],
)
def test_anything_else_is_left_to_omegaconf(written):
    assert resolve.referenced_plain({**PLAIN_TREE, "here": written}, written) is resolve.NOT_PLAIN
