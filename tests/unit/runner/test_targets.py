"""Target findings on plain trees, with classes read from real source files (never imported)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.composition.resolve import MISSING
from harness.model.findings import ERROR, INFO, VIA_PYTHON_DEFAULT, WARNING, Difference, Finding, Kind, TargetFacts, ViaDefault
from harness.model.grouping import counts
from harness.model.matrix import Case
from harness.readers.pysource import SourceIndex
from harness.rules.contracts import Contract, ContractSet, Waiver, parse_contracts, violations
from harness.runner.targets import ProgramView, target_nodes, waive_targets
from tests.conftest import write_tree

SOURCES = {
    "app/__init__.py": "from .models import Model, Data\n",
    "app/models.py": """
        from dataclasses import dataclass, field

        @dataclass
        class Model:
            width: int = 8
            depth: int = 4
            layers: dict = field(default_factory=lambda: {"qkv": "qkv_proj"})
            act: str = str("relu")

        @dataclass
        class Data:
            path: str
            batch: int = 32
        """,
}
CASE = Case("train/base/default", "train", ())


@pytest.fixture
def view(tmp_path: Path) -> ProgramView:
    write_tree(tmp_path, SOURCES)
    return ProgramView(SourceIndex([tmp_path / "app"], (tmp_path,)))


def reasons(findings: list[Finding]) -> dict[str, str]:
    return {f.path: f.as_dict()["detail"]["reason"] for f in findings}


def test_target_nodes_are_found_at_any_depth_and_in_lists():
    tree = {"a": {"_target_": "x.Y", "k": 1, "_recursive_": False}, "b": [{"_target_": "x.Z"}], "c": {"_target_": "${x}"}}
    nodes = list(target_nodes(tree))
    assert [(n.path, n.target, n.keys) for n in nodes] == [("a", "x.Y", ("k",)), ("b.0", "x.Z", ()), ("c", "${x}", ())]


def test_each_node_reports_missing_classes_undeclared_keys_required_and_defaulted_fields(view):
    tree = {
        "model": {"_target_": "app.Model", "width": 3, "bogus": 1},
        "data": {"_target_": "app.models.Data"},
        "optim": {"_target_": "app.optim.Adam", "lr": 0.1},
        "outside": {"_target_": "torch.optim.AdamW", "lr": 0.1},
        "later": {"_target_": "${oc.select:x,app.Model}", "anything": 1},
    }
    findings = view.findings(CASE, None, tree)
    assert reasons(findings) == {
        "model.bogus": "undeclared",
        "model.depth": "defaulted",
        "model.layers": "defaulted",
        "model.act": "defaulted",
        "data.path": "required",
        "data.batch": "defaulted",
        "optim._target_": "missing_class",
    }
    by_path = {f.path: f for f in findings}
    assert by_path["model.bogus"].severity == ERROR and by_path["data.path"].severity == ERROR
    assert by_path["optim._target_"].severity == ERROR and "no attribute or submodule optim" in by_path["optim._target_"].message
    layers = by_path["model.layers"]
    assert layers.severity == INFO and layers.new == {"qkv": "qkv_proj"}
    assert isinstance(layers.detail, TargetFacts)
    assert layers.detail.default == {"qkv": "qkv_proj"} and layers.detail.source.endswith("models.py:7")
    assert by_path["model.act"].new == "not literal: str('relu')"
    assert counts(findings) == {"missing_class": 1, "undeclared": 1, "required": 1, "defaulted": 4}


def test_a_partial_node_requires_nothing(view):
    findings = view.findings(CASE, None, {"data": {"_target_": "app.models.Data", "_partial_": True}})
    assert reasons(findings) == {"data.batch": "defaulted"}


def test_the_value_the_program_sees_includes_python_defaults(view):
    tree = {"model": {"_target_": "app.Model", "width": 3}, "plain": {"x": 1}}
    assert view.value_at(tree, "model.width") == 3
    assert view.value_at(tree, "model.depth") == 4
    assert view.value_at(tree, "model.layers.qkv") == "qkv_proj"
    assert view.value_at(tree, "model.layers.gate") is MISSING
    assert view.value_at(tree, "model.act").describe() == "not literal: str('relu')"
    assert view.filled(tree, "plain.y") is None and view.filled(tree, "model.nope") is None


def test_a_dropped_key_the_class_fills_is_one_changed_finding_via_the_python_default(view):
    tree = {"model": {"_target_": "app.Model", "width": 3}}
    removed = [
        Finding(Kind.REMOVED, "model.layers.qkv", "q", None, ERROR, "REMOVED"),
        Finding(Kind.REMOVED, "model.layers.gate", "g", None, ERROR, "REMOVED"),
        Finding(Kind.REMOVED, "other.key", 1, None, ERROR, "REMOVED"),
    ]
    refined = view.refine(removed, tree)
    assert [f.kind for f in refined] == [Kind.CHANGED, Kind.REMOVED]
    changed = refined[0]
    assert (changed.path, changed.old, changed.new) == ("model.layers", {"qkv": "q", "gate": "g"}, {"qkv": "qkv_proj"})
    assert isinstance(changed.detail, ViaDefault) and changed.detail.facts.default == {"qkv": "qkv_proj"}
    assert changed.source is not None and str(changed.source).endswith("models.py:7")
    assert changed.as_dict()["via"] == "python default"


def test_a_yaml_value_that_now_equals_the_python_default_says_so(view):
    tree = {"model": {"_target_": "app.Model", "width": 8, "depth": 5}}
    findings = [
        Finding(Kind.CHANGED, "model.width", 3, 8, ERROR, "CHANGED", detail=Difference(subtree="model")),
        Finding(Kind.CHANGED, "model.depth", 3, 5, ERROR, "CHANGED"),
    ]
    agrees, differs = view.refine(findings, tree)
    assert "now agrees with the Python default 8" in agrees.message and agrees.as_dict()["detail"]["python_default"] == 8
    assert isinstance(agrees.detail, Difference) and agrees.detail.subtree == "model"  # the difference's own detail stays
    assert differs.message == "CHANGED"


def test_a_target_waiver_on_a_node_excuses_every_key_below_it_until_it_expires(view):
    findings = view.findings(CASE, None, {"model": {"_target_": "app.Model", "bogus": 1}, "data": {"_target_": "app.models.Data"}})
    waivers = (Waiver("target", "model", "read raw", datetime.date(2030, 1, 1)),)
    shown = {f.path: f for f in waive_targets(findings, waivers, CASE.id, datetime.date(2029, 1, 1))}
    assert shown["model.bogus"].severity == WARNING and shown["model.bogus"].waiver.startswith("read raw")
    assert shown["data.path"].severity == ERROR
    expired = {f.path: f for f in waive_targets(findings, waivers, CASE.id, datetime.date(2031, 1, 1))}
    assert expired["model.bogus"].severity == ERROR and "waiver expired" in expired["model.bogus"].message


def test_contracts_opt_in_to_see_python_defaults(view):
    tree = {"model": {"_target_": "app.Model", "width": 3}}
    config = OmegaConf.create(tree)
    seen = Contract("pins", {"require": ("model.depth",), "equal": (("model.depth", 4), ("model.act", "relu")), "program_view": True})
    found = violations(seen, config, tree, view.value_at)
    assert [v.path for v in found] == ["model.act"] and "not literal" in found[0].message
    differs = Contract("pins", {"equal": (("model.depth", 5),), "program_view": True})
    assert [v.message for v in violations(differs, config, tree, view.value_at)] == ["model.depth must equal 5 but is 4"]
    yaml_only = Contract("pins", {"require": ("model.depth",)})
    assert [v.path for v in violations(yaml_only, config, tree, view.value_at)] == ["model.depth"]


def test_contract_files_parse_program_view_and_target_waivers():
    text = """
contracts:
  - name: pins
    program_view: true
    require: [a.b]
waivers:
  - contract: target
    path: global_profiler
    reason: read raw
"""
    parsed = parse_contracts(text, Path("c.yaml"))
    assert parsed.contracts[0].term("program_view") and parsed.waivers[0].contract == "target"
    assert isinstance(parsed, ContractSet)


def test_a_changed_python_default_the_yaml_leaves_to_the_class_is_one_changed_value(tmp_path):
    from harness.runner.targets import default_changes

    write_tree(tmp_path / "base", SOURCES)
    write_tree(tmp_path / "head", {**SOURCES, "app/models.py": SOURCES["app/models.py"].replace("batch: int = 32", "batch: int = 64")})
    base, head = (ProgramView(SourceIndex([tmp_path / side / "app"], (tmp_path,))) for side in ("base", "head"))
    tree = {"model": {"_target_": "app.Model", "width": 3}, "data": {"_target_": "app.models.Data", "path": "p"}}
    (changed,) = default_changes(base, head, tree, tree)
    assert (changed.kind, changed.path, changed.old, changed.new, changed.as_dict()["via"], changed.severity) == (
        Kind.CHANGED,
        "data.batch",
        32,
        64,
        VIA_PYTHON_DEFAULT,
        INFO,
    )
    line = next(n for n, text in enumerate((tmp_path / "head/app/models.py").read_text().splitlines(), 1) if "batch: int = 64" in text)
    assert "via python default" in changed.message
    assert changed.source.file.endswith("head/app/models.py") and changed.source.line == line  # this side's class line
    # The same classes on both sides, or a YAML that sets the key, change nothing.
    assert default_changes(base, base, tree, tree) == []
    set_here = {**tree, "data": {**tree["data"], "batch": 16}}
    assert default_changes(base, head, set_here, set_here) == []


def test_a_field_renamed_in_a_base_class_is_named_at_the_edited_line_not_at_the_subclass(tmp_path):
    """verl's critic.yaml sets `cliprange_value`, declared by CriticConfig (critic.py:93) and inherited by the
    `_target_` FSDPCriticConfig (critic.py:188). Renaming the field at :93 must send the reader to :93, the line
    they edited, not to the subclass nobody touched (issue 56)."""
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/critic.py": """
                from dataclasses import dataclass

                @dataclass
                class CriticConfig:
                    ppo_epochs: int = 1
                    cliprange_val: float = 0.5

                @dataclass
                class FSDPCriticConfig(CriticConfig):
                    grad_clip: float = 1.0
                """,
        },
    )
    view = ProgramView(SourceIndex([tmp_path / "app"], (tmp_path,)))
    tree = {"critic": {"_target_": "app.critic.FSDPCriticConfig", "cliprange_value": 0.5, "grad_clip": 1.0, "bogus": 1}}
    by_path = {f.path: f for f in view.findings(CASE, None, tree)}
    renamed, bogus = by_path["critic.cliprange_value"], by_path["critic.bogus"]
    source = tmp_path / "app" / "critic.py"
    lines = source.read_text().splitlines()
    edited = f"{source}:{lines.index('    cliprange_val: float = 0.5') + 1}"
    subclass = f"{source}:{lines.index('class FSDPCriticConfig(CriticConfig):') + 1}"
    assert renamed.severity == ERROR and renamed.message == (
        "critic.cliprange_value: app.critic.FSDPCriticConfig declares no field cliprange_value (did you mean cliprange_val? "
        f"app.critic.CriticConfig declares it at {edited}); building the node fails"
    )
    assert isinstance(renamed.detail, TargetFacts) and renamed.detail.source == edited
    # A key close to no field: the class's own line, as before.
    assert bogus.message == f"critic.bogus: app.critic.FSDPCriticConfig ({subclass}) declares no field bogus; building the node fails"
