"""A finding's core and its per-kind detail: the JSON each detail writes, and rules that read the detail, not the words."""

from __future__ import annotations

import datetime
import pickle
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.composition.provenance import Source
from harness.model.findings import (
    ERROR,
    NO_DEFAULT,
    WARNING,
    Approvals,
    CaseResult,
    ContractHygiene,
    ContractRef,
    Difference,
    Excused,
    Finding,
    Kind,
    LaunchFix,
    LaunchTally,
    MatrixResult,
    Moved,
    Origin,
    PythonDefault,
    RulesUsed,
    Status,
    TargetFacts,
    TargetReason,
    ViaDefault,
)
from harness.model.matrix import Case
from harness.reporters.layout import approvals_line, launches_line, rules_line
from harness.rules.contract_changes import run_findings
from harness.rules.contracts import contract_findings, contract_hygiene, contract_of_finding, parse_contracts, violations_seen

CORE = ["kind", "path", "old", "new", "severity", "message", "source"]
CASE = Case("ppo_trainer/megatron/default", "ppo_trainer", ())
TODAY = datetime.date(2026, 12, 1)
CONTRACTS = """\
contracts:
  - name: lr
    require: [actor.lr]
  - name: "lr: strict"
    cases: "nothing/*"
    require: [actor.other]
waivers:
  - contract: lr
    path: actor.lr
    reason: known slow
"""


def test_each_detail_writes_its_own_json_fields_after_the_core_and_before_origin_and_status():
    changed = Finding(
        Kind.CHANGED,
        "a.list",
        [1],
        [2],
        ERROR,
        "CHANGED",
        detail=Difference(("[0]: 1 -> 2",), "a"),
        origin=Origin.INTRODUCED,
        status=Excused.WAIVED,
        waiver="why",
    )
    assert list(changed.as_dict()) == [*CORE, "detail", "subtree", "origin", "status"]
    assert changed.as_dict()["detail"] == ["[0]: 1 -> 2"] and changed.as_dict()["status"] == "waived"
    # A launch says its fix and a move its value even when there is none: the interface's keys are always there.
    launch = Finding(
        Kind.LAUNCH, "", None, None, WARNING, "not extracted: ...", source=Source("run.sh", 3), detail=LaunchFix("not extracted")
    )
    assert {k: v for k, v in launch.as_dict().items() if k not in CORE} == {"detail": ["not extracted"], "fix": None}
    moved = Finding(Kind.MOVED, "a.b", "a.b", "c.b", ERROR, "MOVED", detail=Moved(None))
    assert {k: v for k, v in moved.as_dict().items() if k not in CORE} == {"value": None}
    plain = Finding(Kind.ERROR, "", message="compose failed")
    assert list(plain.as_dict()) == CORE and plain.contract == "" and not plain.effective_same


def test_target_facts_keep_the_order_each_reason_writes_them_in():
    assert list(TargetFacts(TargetReason.MISSING_CLASS, target="x.Y").as_dict()) == ["reason", "target"]
    assert list(TargetFacts(TargetReason.UNDECLARED, owner="Y", source="y.py:3").as_dict()) == ["reason", "class", "source"]
    # A Python default of None is a default: the fact is there, `null`.
    defaulted = TargetFacts(TargetReason.DEFAULTED, owner="Y", source="y.py:4", default=None).as_dict()
    assert defaulted == {"reason": "defaulted", "default": None, "source": "y.py:4", "class": "Y"}
    via = Finding(Kind.CHANGED, "a.k", 1, None, ERROR, "m", detail=ViaDefault(TargetFacts(TargetReason.DEFAULTED, "", "Y", "y.py:4", None)))
    assert (via.as_dict()["detail"], via.as_dict()["via"]) == (defaulted, "python default")
    agrees = Finding(Kind.CHANGED, "a.k", 1, 2, ERROR, "m", detail=Difference(agrees=PythonDefault(2, "y.py:5")))
    assert agrees.as_dict()["detail"] == {"python_default": 2, "python_source": "y.py:5"}


def test_a_contract_finding_names_its_contract_as_data_whatever_its_message_says():
    contract_set = parse_contracts(CONTRACTS, Path("contracts.yaml"))
    config = OmegaConf.create({"actor": {}})
    (finding,) = contract_findings(contract_set, CASE, config, {"actor": {}}, TODAY)
    assert (finding.contract, finding.severity, finding.status, finding.waiver) == ("lr", WARNING, Excused.WAIVED, "known slow")
    assert isinstance(finding.detail, ContractRef) and finding.detail.source == "contracts.yaml:2"
    # The message is for people: rewording it (or a longer name that starts like it) changes nothing it is about.
    reworded = replace(finding, message="lr: strict: actor.other is required")
    assert contract_of_finding(contract_set, reworded) is contract_set.contracts[0]
    result = CaseResult(CASE, "snapshots/x.yaml", Status.ERROR, (reworded,))
    assert violations_seen(contract_set, [result]) == {(CASE.id, "lr", "actor.lr")}


def test_a_contract_that_checks_nothing_says_so_as_data_and_a_review_makes_it_an_error():
    contract_set = parse_contracts(CONTRACTS, Path("contracts.yaml"))
    (hygiene,) = contract_hygiene(contract_set, [CASE.id])
    assert hygiene.detail == ContractHygiene("lr: strict", checks_nothing=True) and hygiene.contract == ""
    assert list(hygiene.as_dict()) == CORE  # the JSON of a hygiene warning is its core alone, as it always was
    (reviewed,) = run_findings(contract_set, None, [CASE.id], [], whole_matrix=False, review=True)
    assert (reviewed.severity, reviewed.origin) == (ERROR, Origin.INTRODUCED)
    (checked,) = run_findings(contract_set, None, [CASE.id], [], whole_matrix=False)
    assert checked.severity == WARNING and checked.origin is None


def test_a_result_is_frozen_and_its_run_level_lines_are_rendered_from_data():
    result = MatrixResult(
        rules=RulesUsed("harness.toml", "main", first_adoption=False),
        approvals=Approvals(2, ("harness.toml", "c.yaml")),
        launches=LaunchTally(5, 4, 3, 1, (("sub", 2),)),
    )
    with pytest.raises(FrozenInstanceError):
        result.orphans = ("x",)  # type: ignore[misc]
    assert (
        rules_line(result.rules) == "settings: main's harness.toml (the base decides what is checked; this change's settings are reviewed)"
    )
    assert rules_line(RulesUsed("harness.toml", "main", first_adoption=True)) == (
        "settings: this change's harness.toml (main has none: first adoption)"
    )
    assert approvals_line(result.approvals) == (
        "2 contract, settings or hydra changes carry a recorded reason: the owners of harness.toml, "
        "c.yaml must approve them (see templates/CODEOWNERS)"
    )
    assert launches_line(result.launches) == (
        "4 launches checked of 5 found: 3 compose, 1 fail, 1 could not be extracted; 2 launches of "
        "programs in the git submodule sub not checked (it is not checked out)"
    )
    assert (rules_line(None), approvals_line(None), launches_line(None)) == ("", "", "")


def test_every_detail_survives_the_trip_from_a_forked_worker():
    """Workers send their results pickled: a detail that cannot be pickled would be dropped by the queue's feeder."""
    details = [
        Difference(("x",), "a", True, PythonDefault(1, "y.py:2")),
        ViaDefault(TargetFacts(TargetReason.DEFAULTED, "", "Y", "y.py:4", 1)),
        TargetFacts(TargetReason.UNDECLARED, owner="Y", source="y.py:3"),
        Moved({"k": 1}, "a"),
        LaunchFix("key removed", "b=1"),
        ContractRef("c", "contracts.yaml:2"),
        ContractHygiene("c", checks_nothing=True),
    ]
    for detail in details:
        finding = Finding(Kind.CHANGED, "a", detail=detail, origin=Origin.AT_BASE, status=Excused.KNOWN, waiver="why")
        back = pickle.loads(pickle.dumps(finding))
        assert back == finding and back.as_dict() == finding.as_dict()
    assert pickle.loads(pickle.dumps(details[2])).default is NO_DEFAULT  # still "no default", not some other object
