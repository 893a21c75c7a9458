"""`--format json`: the result as a document for programs, and `list`'s and `log`'s answers."""

import json
from types import SimpleNamespace

from harness.model.findings import ERROR, WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case
from harness.reporters import CaseList, KeyHistory, ReportOptions
from harness.reporters.json import REPORTER, SCHEMA_VERSION, to_json


def case(case_id, *findings, status=Status.CHANGED):
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings)


STALE = Finding(Kind.CHANGED, "trainer.lr", 0.1, 0.2, message="trainer.lr: 0.1 -> 0.2")
WARNED = Finding(Kind.CONTRACT, "x.y", 1, 2, severity=WARNING, message="w: x.y")
RUN = MatrixResult(
    cases=(case("train/cpu", STALE), case("train/gpu", STALE, WARNED), case("train/ok", status=Status.OK)),
    orphans=("snapshots/old.yaml",),
    baseline="goldens in snapshots",
)


def test_the_document_carries_every_case_the_groups_and_the_verdict():
    document = json.loads(REPORTER.render(RUN, ReportOptions()))
    assert next(iter(document)) == "schema_version" and document["schema_version"] == SCHEMA_VERSION
    assert document["ok"] is False and document["verdict"].startswith("FAILED: 3 cases against goldens in snapshots")
    assert [(c["id"], c["status"], len(c["findings"])) for c in document["cases"]] == [
        ("train/cpu", "changed", 1),
        ("train/gpu", "changed", 2),
        ("train/ok", "ok", 0),
    ]
    # One group per distinct finding, naming every case it is on.
    (changed,) = [g for g in document["groups"] if g["kind"] == "changed"]
    assert changed["cases"] == ["train/cpu", "train/gpu"] and changed["severity"] == ERROR
    assert document["counts"]["goldens"] == 2 and document["counts"]["warnings"] == 1 and document["orphans"] == ["snapshots/old.yaml"]
    assert "base" not in document
    assert json.loads(REPORTER.render(RUN, ReportOptions(base="origin/main")))["base"] == "origin/main"


def test_a_passing_run_is_ok_with_no_groups():
    document = json.loads(REPORTER.render(MatrixResult(cases=(case("a", status=Status.OK),), baseline="b"), ReportOptions()))
    assert document["ok"] is True and document["groups"] == [] and document["verdict"].startswith("OK")


def test_every_answer_starts_with_the_schema_version_and_a_list_is_not_wrapped():
    assert list(json.loads(to_json({"a": 1}))) == ["schema_version", "a"]
    assert json.loads(to_json([1, 2])) == [1, 2]


def test_the_case_list_shows_programs_that_are_no_launch_only_when_verbose():
    listing = CaseList(({"id": "a", "overrides": []},), ({"program": "x.py", "why": "no hydra", "sources": ["s.sh:1"]},))
    assert json.loads(REPORTER.cases(listing, ReportOptions())) == {
        "schema_version": SCHEMA_VERSION,
        "cases": [{"id": "a", "overrides": []}],
    }
    assert json.loads(REPORTER.cases(listing, ReportOptions(verbose=True)))["not_launches"][0]["program"] == "x.py"


def test_a_key_history_lists_its_changes_and_how_the_walk_began():
    change = SimpleNamespace(commit="c" * 40, date="2026-01-01", old=1, new=2, subject="bump")
    since = SimpleNamespace(value=1, present=True, line=lambda key, shown: f"{key} was {shown} at the start")
    history = KeyHistory("trainer.lr", "train/a", SimpleNamespace(changes=[change], since=since))
    document = json.loads(REPORTER.log(history, ReportOptions()))
    assert document["key"] == "trainer.lr" and document["case"] == "train/a"
    assert document["changes"] == [{"commit": "c" * 40, "date": "2026-01-01", "old": 1, "new": 2, "subject": "bump"}]
    assert document["since"]["note"] == "trainer.lr was 1 at the start"
