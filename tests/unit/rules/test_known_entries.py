"""Known entries (harness/rules/known_entries.py): which finding an entry names, how it excuses, when it is stale, and the file."""

from __future__ import annotations

import datetime
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from harness.composition.provenance import Source
from harness.model.findings import ERROR, INFO, WARNING, CaseResult, Excused, Finding, Kind, LaunchFix, Status, TargetFacts
from harness.model.matrix import Case
from harness.rules import known_entries
from harness.rules.contracts import ContractError, parse_contracts

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
    return known_entries.known_entries(parse_contracts(text, Path("known.yaml")))


ENTRY = """\
waivers:
  - finding: launch
    path: actor.lr
    source: run.sh:3
    what: key removed
    reason: known at adoption
"""


def test_an_entry_excuses_exactly_its_kind_key_script_line_and_reason_word_on_any_launch():
    (entry,) = entries(ENTRY)
    assert known_entries.excuses(entry, "cmd/run.sh#4", LAUNCH)
    assert known_entries.excuses(entry, "cmd/run.sh#9", LAUNCH)  # the launch's number is not its cause
    assert not known_entries.excuses(entry, "cmd/run.sh#4", replace(LAUNCH, source=Source("run.sh", 7)))  # another launch's line
    assert not known_entries.excuses(entry, "cmd/run.sh#1", replace(LAUNCH, detail=LaunchFix("key now exists")))
    assert not known_entries.excuses(entry, "cmd/run.sh#1", replace(LAUNCH, path="actor.lr2"))
    assert not known_entries.excuses(entry, "cmd/run.sh#1", replace(LAUNCH, kind=Kind.TARGET))


def test_no_such_key_and_key_removed_are_one_cause_for_a_known_entry():
    """An override whose key the config lacks is `no such key` or `key removed` by whether the baseline had the key
    (issue 42 item 9): `check` after `generate` and the review of the same commit differ, so an entry (and the record
    that accepts it) names the cause `key removed` either way, as entries an earlier version wrote do."""
    (entry,) = entries(ENTRY)
    typo = replace(LAUNCH, message="no such key: actor.lr is not in the config", detail=LaunchFix("no such key"))
    assert known_entries.excuses(entry, "cmd/run.sh#4", typo) and known_entries.excuses(entry, "cmd/run.sh#4", LAUNCH)
    assert known_entries.cause_of(typo) == known_entries.cause_of(LAUNCH)


TARGET = Finding(
    Kind.TARGET,
    "actor.ref.micro",
    None,
    4,
    ERROR,
    "actor.ref.micro: pkg.ActorConfig (pkg/actor.py:9) declares no field micro; building the node fails",
    source=Source("conf/ref/ref.yaml", 13),
    detail=TargetFacts("undeclared"),
)


def test_a_case_added_later_with_a_cause_the_base_knows_is_excused_and_a_new_cause_is_not():
    # Recorded on the dp engine; a new engine built from the same shared file shows the same cause: excused there
    # too. The entry names the config file, not its line: an edit elsewhere in the file keeps it.
    (entry,) = entries(
        known_entries.render(known_entries.entries_for([CaseResult(Case("ppo/dp/default", "", ()), "", Status.ERROR, (TARGET,))], TODAY))
    )
    assert (entry.source, entry.what, entry.path) == ("conf/ref/ref.yaml", "undeclared", "actor.ref.micro")
    assert known_entries.excuses(entry, "ppo/mydp/default", replace(TARGET, source=Source("conf/ref/ref.yaml", 15)))
    assert not known_entries.excuses(entry, "ppo/mydp/default", replace(TARGET, source=Source("conf/ref/mydp_ref.yaml", 13)))
    assert not known_entries.excuses(entry, "ppo/mydp/default", replace(TARGET, path="actor.ref.other"))


def test_a_typo_in_another_launch_of_a_script_with_a_known_broken_launch_is_not_excused():
    # RAGEN's train_all.sh: one launch's config is gone (known at adoption); a later typo in another launch of the
    # same script (a --config-name that does not exist) is a new cause. Before, the entry was `cases: cmd/x.sh#*`
    # with an empty path and excused both.
    broken = Finding(
        Kind.LAUNCH,
        "",
        None,
        None,
        ERROR,
        "config removed: old_trainer: Cannot find primary config 'old_trainer'",
        source=Source("train_all.sh", 10),
        detail=LaunchFix("config removed"),
    )
    typo = replace(broken, message="config removed: ppo_trainr: Cannot find primary config 'ppo_trainr'", source=Source("train_all.sh", 40))
    adopted = known_entries.entries_for([CaseResult(Case("cmd/train_all.sh#1", "", ()), "", Status.ERROR, (broken,))], TODAY)
    (entry,) = entries(known_entries.render(adopted))
    assert known_entries.excuse([broken], [entry], "cmd/train_all.sh#1", TODAY)[0].status == Excused.KNOWN
    assert known_entries.excuse([typo], [entry], "cmd/train_all.sh#7", TODAY) == [typo]
    # The same words on another line are another launch: still not excused.
    assert (
        known_entries.excuse([replace(broken, source=Source("train_all.sh", 40))], [entry], "cmd/train_all.sh#7", TODAY)[0].severity
        == ERROR
    )


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        (
            'finding: launch\n    cases: "cmd/x.sh#*"\n    path: ""',
            r"known.yaml:2: known entry for a whole script or case \(cases: 'cmd/x.sh#\*'",
        ),
        (
            "finding: target\n    cases: ppo/dp/default\n    path: a.b",
            r"known.yaml:2: known entry for a case glob .*run `config-harness known`",
        ),
        ('finding: error\n    path: ""', r"known.yaml:2: known entry for a whole case \(no path, source or message\)"),
    ],
)
def test_an_entry_for_a_whole_script_or_case_is_one_line_naming_the_file_and_entry(entry, says):
    with pytest.raises(ContractError, match=says):
        entries(f"waivers:\n  - {entry}\n    reason: r\n")


def test_a_base_written_by_the_earlier_version_is_read_as_written():
    legacy = 'waivers:\n  - finding: launch\n    cases: "cmd/run.sh#*"\n    path: actor.lr\n    what: key removed\n    reason: r\n'
    (entry,) = known_entries.known_entries(parse_contracts(legacy, Path("known.yaml"), legacy_known=True))
    assert known_entries.excuses(entry, "cmd/run.sh#2", LAUNCH) and not known_entries.excuses(entry, "cmd/other.sh#1", LAUNCH)


def test_an_excused_finding_is_info_with_status_known_and_a_golden_difference_is_never_excused():
    (entry,) = entries(ENTRY)
    (excused,) = known_entries.excuse([LAUNCH], [entry], "cmd/run.sh#1", TODAY)
    assert (excused.severity, excused.status, excused.waiver) == (INFO, Excused.KNOWN, "known at adoption")
    assert excused.as_dict()["status"] == "known"
    changed = Finding(Kind.CHANGED, "actor.lr", 1, 2, ERROR)
    assert not known_entries.excusable(changed)
    assert known_entries.excuse([changed], [entry], "cmd/run.sh#1", TODAY) == [changed]


def test_an_entry_past_its_date_excuses_nothing():
    (entry,) = entries(ENTRY.replace("reason: known at adoption", "reason: r\n    until: 2026-11-30"))
    assert known_entries.excuse([LAUNCH], [entry], "cmd/run.sh#1", TODAY) == [LAUNCH]


def test_a_case_whose_only_errors_are_known_is_ok_and_an_unused_entry_is_stale():
    (entry,) = entries(ENTRY)
    result = CaseResult(Case("cmd/run.sh#1", "", ()), "run.sh:3", Status.ERROR, (LAUNCH,))
    (excused,) = known_entries.excuse_results([result], [entry], TODAY)
    assert excused.status == Status.OK and not excused.failed
    assert known_entries.stale_entries([entry], [excused]) == []
    (stale,) = known_entries.stale_entries([entry], [result])  # nothing excused: the problem is fixed
    assert stale.severity == WARNING and "known finding fixed: key removed at actor.lr at run.sh:3" in stale.message
    assert "remove its entry (known.yaml:2)" in stale.message


def test_entries_for_records_each_distinct_finding_once_with_its_line_as_the_reason():
    results = [CaseResult(Case(f"cmd/run.sh#{n}", "", ()), "", Status.ERROR, (LAUNCH,)) for n in (1, 2)]
    (entry,) = known_entries.entries_for(results, TODAY)
    assert entry == {
        "finding": "launch",
        "path": "actor.lr",
        "source": "run.sh:3",
        "what": "key removed",
        "reason": "known at adoption (2026-12-01): key removed: actor.lr is not in the config (run.sh:3)",
    }
    assert entries(known_entries.render([entry]))[0].what == "key removed"  # what init writes, the contracts reader reads


def test_appended_keeps_every_byte_and_refuses_what_it_cannot_extend():
    one = {"finding": "launch", "path": "", "source": "a.sh:1", "what": "not extracted", "message": "m", "reason": "r"}
    two = {**one, "source": "b.sh:1"}
    first = known_entries.appended(known_entries.render([]), [one])
    assert first.startswith(known_entries.HEADER) and yaml.safe_load(first)["waivers"] == [one]
    second = known_entries.appended(first, [two])
    assert second.startswith(first) and yaml.safe_load(second)["waivers"] == [one, two]
    with pytest.raises(ValueError, match="only `waivers:`"):
        known_entries.appended("contracts: []\nwaivers: []\n", [one])
    indented = "waivers:\n  - finding: launch\n    cases: x\n    reason: r\n"
    with pytest.raises(ValueError, match="cannot be appended"):
        known_entries.appended(indented, [one])


def _review(head_text: str, base_text: str, contracts_text: str = "", today: datetime.date = TODAY):
    """added_entries on one launch finding, the head's known file against the base's (as a review reads them)."""
    head = parse_contracts(head_text, Path("config-harness/known.yaml"))
    base = parse_contracts(base_text, Path("config-harness/known.yaml"), legacy_known=True)
    records = parse_contracts(contracts_text, Path("config-harness/contracts.yaml")).changes + head.changes
    result = CaseResult(Case("cmd/run.sh#1", "", ()), "", Status.ERROR, (LAUNCH,))
    (excused,) = known_entries.excuse_results([result], known_entries.known_entries(head), today)
    found = known_entries.added_entries(
        [excused],
        known_entries.known_entries(head),
        known_entries.known_entries(base),
        records,
        today,
        "config-harness/contracts.yaml",
        "main",
    )
    return head, found


def test_an_entry_a_pull_request_adds_needs_a_record_in_a_file_the_base_owns_never_in_the_known_file():
    record = "{known: actor.lr, old: null, new: {finding: launch, path: actor.lr, source: 'run.sh:3', what: key removed, until: null}, reason: ok}"
    in_known = ENTRY + f"changes:\n  - {record}\n"
    head, (change,) = _review(in_known, "waivers: []\n")
    assert head.changes == () and len(head.unheeded) == 1  # a record in the known file approves nothing
    assert change.kind == Kind.CONTRACT_CHANGE and change.severity == ERROR, change
    assert "known entry added for key removed at actor.lr at run.sh:3" in change.message
    assert "the owners of config-harness/known.yaml and config-harness/contracts.yaml must approve" in change.message
    assert "`config-harness known --base main --reason TEXT` writes it" in change.message
    (warning,) = known_entries.unheeded_records(head)
    assert warning.severity == WARNING and "approves nothing (config-harness/known.yaml:" in warning.message
    _, (accepted,) = _review(ENTRY, "waivers: []\n", f"changes:\n  - {record}\n")
    assert accepted.severity == WARNING and "[recorded reason: ok]" in accepted.message
    # What the base already knew is no change at all, and a base written by the earlier version knows it too.
    assert _review(ENTRY, ENTRY)[1] == []
    legacy = 'waivers:\n  - finding: launch\n    cases: "cmd/run.sh#*"\n    path: actor.lr\n    what: key removed\n    reason: r\n'
    assert _review(ENTRY, legacy)[1] == []


def test_an_entry_whose_until_a_pull_request_moves_later_is_a_contract_change():
    base = ENTRY.replace("reason: known at adoption", "reason: r\n    until: 2027-01-31")
    head = ENTRY.replace("reason: known at adoption", "reason: r\n    until: 2099-01-01")
    _, (renewed,) = _review(head, base)
    assert renewed.severity == ERROR and "known entry renewed (until 2027-01-31 -> 2099-01-01)" in renewed.message, renewed
    assert renewed.old == {"until": "2027-01-31"} and renewed.new["until"] == "2099-01-01"
    _, (forever,) = _review(ENTRY, base)  # the date dropped: it never expires
    assert "until 2027-01-31 -> never expires" in forever.message
    # Past the base's date the base excuses nothing: the renewed entry is the only excuse, and still one change.
    _, (late,) = _review(head, base, today=datetime.date(2027, 6, 1))
    assert late.severity == ERROR and "renewed" in late.message
    assert _review(base, head)[1] == []  # an earlier date loosens nothing
    # An entry given its launch's identity (`known` adds `config:`) is the same cause as the base's by its line: moving
    # its `until` later in the same edit is still a renewal.
    _, (upgraded,) = _review(head.replace("    what: key removed\n", "    what: key removed\n    config: ppo\n"), base)
    assert "known entry renewed (until 2027-01-31 -> 2099-01-01)" in upgraded.message, upgraded


def test_records_for_a_contracts_file_are_appended_after_its_other_keys():
    text = "contracts:\n  - name: c\n    require: [a]\n"
    out = known_entries.appended(text, [{"known": "a", "reason": "r"}], key="changes")
    assert out.startswith(text) and yaml.safe_load(out)["changes"] == [{"known": "a", "reason": "r"}]
    with pytest.raises(ValueError, match="cannot be appended"):
        known_entries.appended("changes: []\ncontracts: []\n", [{"known": "a", "reason": "r"}], key="changes")


def test_the_codeowners_template_owns_the_known_file():
    owned = [
        line.split()[0]
        for line in (Path(__file__).parents[3] / "templates" / "CODEOWNERS").read_text().splitlines()
        if line.startswith("/")
    ]
    assert "/config-harness/known.yaml" in owned


def test_a_required_key_a_route_never_had_does_not_excuse_the_main_tree_losing_it():
    # Nothing sets a missing key, so its cause is the case's root config: a route that lacked it at adoption names
    # its own root, and the main tree dropping it later is a new cause (the base's contract fails the review).
    missing = Finding(Kind.CONTRACT, "trainer.val", "present", None, ERROR, "validation: trainer.val is required but missing")
    route = CaseResult(Case("route/eval", "", ()), "", Status.ERROR, (missing,), root_file="conf/eval.yaml")
    (entry,) = entries(known_entries.render(known_entries.entries_for([route], TODAY)))
    assert entry.source == "conf/eval.yaml"
    main_case = CaseResult(Case("train/dp/default", "", ()), "", Status.ERROR, (missing,), root_file="conf/train.yaml")
    new_engine = replace(main_case, case=Case("train/mydp/default", "", ()))
    (excused_route, still, still_new) = known_entries.excuse_results([route, main_case, new_engine], [entry], TODAY)
    assert excused_route.status == Status.OK and still.findings == (missing,) and still_new.findings == (missing,)


def test_a_record_the_pull_request_adds_that_accepts_nothing_is_a_warning():
    from harness.rules.contract_changes import unmatched_records

    text = (
        "changes:\n  - {contract: c, path: a, old: require, new: null, reason: used}\n  - {setting: jobs, old: 1, new: 2, reason: idle}\n"
    )
    records = parse_contracts(text, Path("config-harness/contracts.yaml")).changes
    used = Finding(Kind.CONTRACT_CHANGE, "a", "require", None, WARNING, "c: a dropped [recorded reason: used]")
    (idle,) = unmatched_records(records, {"config-harness/contracts.yaml": None}, [used])
    assert idle.severity == WARNING and "matches no change in this review (config-harness/contracts.yaml:3)" in idle.message
    # A record the base already holds is history: never reported again.
    assert unmatched_records(records, {"config-harness/contracts.yaml": text}, [used]) == []


LEFT_OUT = """\
waivers:
  - {finding: error, path: '', source: conf/sweep.yaml, what: root, reason: r}
  - {finding: error, path: '', source: conf/../../outside.yaml, what: root, reason: r}
  - {finding: error, path: '', source: "--preset 'fast=trainer.epochs=1", what: preset, reason: r}
  - {finding: error, path: '', source: "--preset fast=trainer.epochs=1", what: preset, reason: r}
  - {finding: error, path: '', source: "--preset 'bad=+trainer.lr=1'", what: preset, reason: r}
"""


def test_roots_and_presets_init_left_out_are_composed_again_inside_the_config_folder_whatever_the_entry_says(small_project):
    """Issue 42 item 9: each entry naming a root or preset init left out is composed again; the pull request writes
    these entries, so a source that climbs out of the config folder composes a name inside it, and one that cannot
    be read is a finding, never an exception."""
    from harness.model.settings import load_settings

    (small_project / "conf" / "sweep.yaml").write_text("defaults:\n  - train\n  - backend: tpu\n")
    (small_project / "outside.yaml").write_text("a: 1\n")
    settings = load_settings(small_project / "harness.toml")
    stems = [("train", ("backend=cpu",)), ("train", ("backend=gpu",))]
    found = known_entries.composed_again(settings, entries(LEFT_OUT), stems)
    assert [(f.source, f.message.split(":")[0]) for f in found] == [
        ("conf/sweep.yaml", "root sweep left out by init"),
        ("conf/../../outside.yaml", "root outside left out by init"),  # `outside`, looked for in conf/ only
        ("--preset 'fast=trainer.epochs=1", "preset left out by init"),
        ("--preset 'bad=+trainer.lr=1'", "preset bad left out by init"),
    ]
    assert "cannot be read (No closing quotation)" in found[2].message
    assert "Cannot find primary config 'outside'" in found[1].message
    assert all(known_entries.what_of(f) in ("root", "preset") for f in found)


def test_a_launchs_entry_names_what_it_means_so_a_line_shift_or_a_moved_script_keeps_it():
    """Issue 50 item 2: an entry `init` or `known` writes for a launch says its config name (and, for a failure about no
    key, the launch's content identity); its `FILE:LINE` is for the reader. It excuses the same cause at another line
    or in another script, never another config's or another launch's."""
    found = replace(LAUNCH, detail=LaunchFix("key removed", config="ppo", launch="1" * 16))
    (entry,) = entries(
        known_entries.render(
            known_entries.entries_for([CaseResult(Case("cmd/run.sh#1", "ppo", ()), "run.sh:3", Status.ERROR, (found,))], TODAY)
        )
    )
    assert (entry.source, entry.config, entry.launch) == ("run.sh:3", "ppo", "")
    # One entry per cause: the same key failing on the same config in another script is that cause again.
    elsewhere = CaseResult(Case("cmd/x.sh#1", "ppo", ()), "x.sh:9", Status.ERROR, (replace(found, source=Source("x.sh", 9)),))
    first = CaseResult(Case("cmd/run.sh#1", "ppo", ()), "run.sh:3", Status.ERROR, (found,))
    assert [e["source"] for e in known_entries.entries_for([first, elsewhere], TODAY)] == ["run.sh:3"]
    assert known_entries.excuses(entry, "cmd/run.sh#2", replace(found, source=Source("run.sh", 4)))  # a comment line above
    assert known_entries.excuses(entry, "cmd/new/run.sh#1", replace(found, source=Source("new/run.sh", 3)))  # moved
    assert not known_entries.excuses(
        entry, "cmd/run.sh#1", replace(found, detail=LaunchFix("key removed", config="other", launch="1" * 16))
    )
    config = replace(
        found,
        path="",
        new=None,
        message="config removed: evl: Cannot find primary config 'evl'",
        detail=LaunchFix("config removed", config="evl", launch="2" * 16),
    )
    (gone,) = entries(
        known_entries.render(
            known_entries.entries_for([CaseResult(Case("cmd/run.sh#1", "evl", ()), "run.sh:3", Status.ERROR, (config,))], TODAY)
        )
    )
    assert (gone.config, gone.launch) == ("evl", "2" * 16)
    assert known_entries.excuses(gone, "cmd/x.sh#5", replace(config, source=Source("x.sh", 9)))
    assert not known_entries.excuses(
        gone, "cmd/run.sh#2", replace(config, detail=LaunchFix("config removed", config="evl", launch="3" * 16))
    )


def test_an_entry_written_by_its_line_alone_names_its_script_at_any_line_and_known_gives_it_its_identity():
    """A known file an earlier version wrote (`source: FILE:LINE`, no `config`) keeps working for launches that carry
    their identity: its script at any line, with its words (lines left out), never another script; `with_identities`
    adds `config` (and `launch`) to it, every other byte kept."""
    (entry,) = entries(ENTRY)
    found = replace(LAUNCH, source=Source("run.sh", 5), detail=LaunchFix("key removed", config="ppo", launch="1" * 16))
    assert known_entries.excuses(entry, "cmd/run.sh#2", found)
    assert not known_entries.excuses(entry, "cmd/x.sh#2", replace(found, source=Source("x.sh", 3)))
    stop = replace(
        found,
        path="",
        new=None,
        message="bash stops before this launch runs, at run.sh:2: D: unbound variable",
        detail=LaunchFix("bash stops before it", launch="4" * 16),
    )
    (old,) = entries(
        ENTRY.replace("path: actor.lr", "path: ''").replace(
            "what: key removed", f"what: bash stops before it\n    message: '{stop.message}'"
        )
    )
    assert known_entries.excuses(old, "cmd/run.sh#2", replace(stop, message=stop.message.replace("run.sh:2", "run.sh:3")))
    assert not known_entries.excuses(old, "cmd/run.sh#2", replace(stop, message=stop.message.replace("D:", "E:")))
    text = "# kept\n" + ENTRY
    results = [CaseResult(Case("cmd/run.sh#1", "ppo", ()), "run.sh:5", Status.OK, (replace(found, status=Excused.KNOWN),))]
    written, count = known_entries.with_identities(text, entries(text), results)
    assert count == 1 and written == text.replace("    what: key removed\n", "    what: key removed\n").replace(
        "  - finding: launch\n", '  - finding: launch\n    config: "ppo"\n'
    )
    assert known_entries.with_identities(text, entries(text), []) == (text, 0)  # it excuses nothing now: left as it is


def test_unplaced_leaves_out_where_words_sit():
    assert known_entries.unplaced("stops at  scripts/run.sh:12: D (line 4)", "scripts/run.sh") == "stops at the script: D (line)"
    assert known_entries.unplaced("x.yaml:3:5 and a:b", "") == "x.yaml and a:b"
