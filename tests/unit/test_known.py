"""Known entries (harness/rules/known.py): which finding an entry names, how it excuses, when it is stale, and the file."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
import yaml

from harness.composition.provenance import Source
from harness.model.findings import ERROR, INFO, WARNING, CaseResult, Excused, Finding, Kind, LaunchFix, Status
from harness.model.matrix import Case
from harness.rules import known
from harness.rules.contracts import parse_contracts

TODAY = datetime.date(2026, 12, 1)
LAUNCH = Finding(
    Kind.LAUNCH,
    "actor.lr",
    None,
    "actor.lr=1",
    ERROR,
    "key removed: actor.lr is not in the config",
    source=Source("run.sh", 3),
    detail=LaunchFix("key removed"),
)


def entries(text: str):
    return known.known_entries(parse_contracts(text, Path("known.yaml")))


ENTRY = """\
waivers:
  - finding: launch
    cases: "cmd/run.sh#*"
    path: actor.lr
    what: key removed
    reason: known at adoption
"""


def test_a_launch_entry_names_the_script_not_the_launch_number_and_escapes_glob_characters():
    assert known.cases_of("cmd/examples/run.sh#2") == "cmd/examples/run.sh#*"
    assert known.cases_of("cmd/a[1]/r?n*.sh#1") == "cmd/a[[]1]/r[?]n[*].sh#*"
    assert known.cases_of("ppo/dp/default") == "ppo/dp/default"


def test_an_entry_excuses_exactly_its_kind_case_path_and_reason_word():
    (entry,) = entries(ENTRY)
    assert known.excuses(entry, "cmd/run.sh#4", LAUNCH)
    assert not known.excuses(entry, "cmd/other.sh#1", LAUNCH)
    assert not known.excuses(entry, "cmd/run.sh#1", Finding(Kind.LAUNCH, "actor.lr", detail=LaunchFix("key now exists")))
    assert not known.excuses(entry, "cmd/run.sh#1", Finding(Kind.LAUNCH, "actor.lr2", detail=LaunchFix("key removed")))
    assert not known.excuses(entry, "cmd/run.sh#1", Finding(Kind.TARGET, "actor.lr"))


def test_an_excused_finding_is_info_with_status_known_and_a_golden_difference_is_never_excused():
    (entry,) = entries(ENTRY)
    (excused,) = known.excuse([LAUNCH], [entry], "cmd/run.sh#1", TODAY)
    assert (excused.severity, excused.status, excused.waiver) == (INFO, Excused.KNOWN, "known at adoption")
    assert excused.as_dict()["status"] == "known"
    changed = Finding(Kind.CHANGED, "actor.lr", 1, 2, ERROR)
    assert not known.excusable(changed)
    assert known.excuse([changed], [entry], "cmd/run.sh#1", TODAY) == [changed]


def test_an_entry_past_its_date_excuses_nothing():
    (entry,) = entries(ENTRY.replace("reason: known at adoption", "reason: r\n    until: 2026-11-30"))
    assert known.excuse([LAUNCH], [entry], "cmd/run.sh#1", TODAY) == [LAUNCH]


def test_a_case_whose_only_errors_are_known_is_ok_and_an_unused_entry_is_stale():
    (entry,) = entries(ENTRY)
    result = CaseResult(Case("cmd/run.sh#1", "", ()), "run.sh:3", Status.ERROR, (LAUNCH,))
    (excused,) = known.excuse_results([result], [entry], TODAY)
    assert excused.status == Status.OK and not excused.failed
    assert known.stale_entries([entry], [excused]) == []
    (stale,) = known.stale_entries([entry], [result])  # nothing excused: the problem is fixed
    assert stale.severity == WARNING and "known finding fixed" in stale.message and "remove its entry (known.yaml:2)" in stale.message


def test_entries_for_records_each_distinct_finding_once_with_its_line_as_the_reason():
    results = [CaseResult(Case(f"cmd/run.sh#{n}", "", ()), "", Status.ERROR, (LAUNCH,)) for n in (1, 2)]
    (entry,) = known.entries_for(results, TODAY)
    assert entry == {
        "finding": "launch",
        "cases": "cmd/run.sh#*",
        "path": "actor.lr",
        "what": "key removed",
        "reason": "known at adoption (2026-12-01): key removed: actor.lr is not in the config (run.sh:3)",
    }
    assert entries(known.render([entry]))[0].what == "key removed"  # what init writes, the contracts reader reads


def test_appended_keeps_every_byte_and_refuses_what_it_cannot_extend():
    one = {"finding": "launch", "cases": "cmd/a.sh#*", "path": "", "what": "not extracted", "reason": "r"}
    two = {**one, "cases": "cmd/b.sh#*"}
    first = known.appended(known.render([]), [one])
    assert first.startswith(known.HEADER) and yaml.safe_load(first)["waivers"] == [one]
    second = known.appended(first, [two])
    assert second.startswith(first) and yaml.safe_load(second)["waivers"] == [one, two]
    with pytest.raises(ValueError, match="only `waivers:`"):
        known.appended("contracts: []\nwaivers: []\n", [one])
    indented = "waivers:\n  - finding: launch\n    cases: x\n    reason: r\n"
    with pytest.raises(ValueError, match="cannot be appended"):
        known.appended(indented, [one])
