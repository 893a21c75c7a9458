from omegaconf import OmegaConf

from harness.check import effective_findings, fallback_findings
from harness.resolve import effective_value, fallbacks, resolve_path


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
    (finding,) = effective_findings(OmegaConf.create(new), new, golden)
    assert finding.path == "actor.pad" and "model.pad" in finding.message
    assert (finding.old, finding.new) == (False, True)


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
