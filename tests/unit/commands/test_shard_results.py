"""What a `--shard K/N` run's JSON carries for `merge`: results encoded losslessly (tuples, mappings with any key,
enums and the result's dataclasses tagged), nothing else encodable, and the identity every shard shares."""

import argparse
import json

import pytest

from harness.commands.merge import decode
from harness.commands.shard_results import encode, identity, invocation
from harness.model.findings import WARNING, CaseResult, Finding, Kind, Status
from harness.model.matrix import Case
from harness.model.settings import load_settings


def test_a_result_comes_back_equal_through_json():
    finding = Finding(Kind.CONTRACT, "a.b", (1, 2), {"k": [1, None]}, severity=WARNING, message="m")
    result = CaseResult(Case("train/a", "train", ("x=1",)), "snapshots/a.yaml", Status.CHANGED, (finding,))
    value = [result, {1: "int key", (1, 2): "tuple key"}, (True, 1.5, None)]
    assert decode(json.loads(json.dumps(encode(value)))) == value


def test_a_tuple_and_a_list_stay_apart():
    assert encode([1, (2,)]) == [1, {"t": [2]}]
    assert decode(encode((1, [2]))) == (1, [2])


def test_a_type_merge_cannot_rebuild_is_refused_when_written():
    with pytest.raises(TypeError, match="a shard's result holds a set, which merge cannot carry"):
        encode({1, 2})

    class Stranger:
        pass

    with pytest.raises(TypeError, match="Stranger"):
        encode([Stranger()])


def test_the_identity_changes_with_the_settings_the_run_and_the_matrix(tmp_path):
    (tmp_path / "harness.toml").write_text('config_dir = "conf"\nroots = ["train"]\n')
    (tmp_path / "conf").mkdir()
    settings = load_settings(tmp_path / "harness.toml")
    first = identity(settings, {"command": "check"}, ["a", "b"])
    assert first == identity(settings, {"command": "check"}, ["a", "b"])
    assert first["commit"] is None  # not a git checkout: the settings and the matrix still have to agree
    assert identity(settings, {"command": "check"}, ["a"])["matrix"] != first["matrix"]
    assert identity(settings, {"command": "generate"}, ["a", "b"])["settings"] != first["settings"]
    (tmp_path / "harness.toml").write_text('config_dir = "conf"\nroots = ["train", "eval"]\n')
    assert identity(settings, {"command": "check"}, ["a", "b"])["settings"] != first["settings"]


def test_the_invocation_keeps_what_merge_rebuilds_the_run_from():
    args = argparse.Namespace(case=["a/*"], strict_waivers=True, settings="h.toml", format="json")
    recorded = invocation(args, "check")
    assert recorded["command"] == "check" and recorded["case"] == ["a/*"] and recorded["strict_waivers"] is True
    assert recorded["settings"] == "h.toml" and "format" not in recorded and recorded["base"] is None
