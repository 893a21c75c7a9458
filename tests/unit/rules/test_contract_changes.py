"""contract_change findings: one test per term type, records that excuse exactly one change."""

import textwrap

import pytest

from harness.rules.contract_changes import contract_changes, read_contract_files

CASES = ["t/dp/default", "t/megatron/default", "t/megatron/lora", "route/megatron"]

BASE = """
contracts:
  - name: critical
    cases: "*megatron*"
    require: [a.qkv, a.gate]
    equal: {a.padding: false, a.class: Old, a.map: {x: 1}}
    forbid: [a.deprecated]
    agree: [[m.lora_alpha, m.lora.alpha]]
    agree_require_both: true
waivers:
  - {contract: critical, path: a.gate, reason: known, cases: "t/megatron/*", until: 2027-01-01}
"""


def changes(head, base=BASE, cases=CASES):
    head_text = None if head is None else textwrap.dedent(head)
    return contract_changes(read_contract_files({"c.yaml": textwrap.dedent(base)}), read_contract_files({"c.yaml": head_text}), cases)


def edited(old, new, base=BASE):
    assert old in base
    return base.replace(old, new)


def only(findings):
    assert len(findings) == 1, [f.message for f in findings]
    return findings[0]


def test_unchanged_contracts_have_no_findings():
    assert changes(BASE) == []


def test_strengthening_is_not_a_change():
    stronger = edited("require: [a.qkv, a.gate]", "require: [a.qkv, a.gate, a.new]")
    stronger = edited('cases: "*megatron*"', 'cases: "*"', stronger)
    assert changes(stronger) == []


def test_require_removed():
    finding = only(changes(edited("require: [a.qkv, a.gate]", "require: [a.gate]")))
    assert (finding.kind, finding.path, finding.old, finding.new, finding.severity) == (
        "contract_change",
        "a.qkv",
        "require",
        None,
        "error",
    )
    assert finding.message.startswith("critical: require a.qkv removed without a recorded reason")
    assert "{contract: critical, path: a.qkv, old: require, new: null, reason: WHY}" in finding.message


def test_require_kept_by_an_equal_pin_is_not_removed():
    assert changes(edited("require: [a.qkv, a.gate]", "require: [a.qkv]").replace("a.padding: false", "a.padding: false, a.gate: g")) == []


def test_equal_pin_removed_and_changed():
    removed = only(changes(edited("a.padding: false, ", "")))
    assert (removed.path, removed.old, removed.new) == ("a.padding", {"equal": False}, None)
    changed = only(changes(edited("a.class: Old", "a.class: New")))
    assert (changed.path, changed.old, changed.new) == ("a.class", {"equal": "Old"}, {"equal": "New"})
    assert "re-pinned from 'Old' to 'New'" in changed.message


def test_equal_pin_compares_types_and_mappings():
    assert only(changes(edited("a.padding: false", "a.padding: 0"))).new == {"equal": 0}
    assert changes(edited("a.map: {x: 1}", "a.map: {x: 1}")) == []
    assert only(changes(edited("a.map: {x: 1}", "a.map: {x: 2}"))).new == {"equal": {"x": 2}}


def test_forbid_removed():
    finding = only(changes(edited("forbid: [a.deprecated]", "forbid: []")))
    assert (finding.path, finding.old, finding.new) == ("a.deprecated", "forbid", None)


def test_agree_pair_removed_or_narrowed():
    finding = only(changes(edited("agree: [[m.lora_alpha, m.lora.alpha]]", "agree: []")))
    assert (finding.path, finding.old, finding.new) == ("m.lora.alpha", {"agree": ["m.lora_alpha", "m.lora.alpha"]}, None)
    wider = edited("agree: [[m.lora_alpha, m.lora.alpha]]", "agree: [[m.lora.alpha, m.lora_alpha, m.third]]")
    assert changes(wider) == []


def test_agree_require_both_turned_off():
    finding = only(changes(edited("agree_require_both: true", "agree_require_both: false")))
    assert (finding.path, finding.old, finding.new) == ("", {"agree_require_both": True}, {"agree_require_both": False})


def test_cases_glob_narrowed_names_the_cases_it_no_longer_covers():
    finding = only(changes(edited('cases: "*megatron*"', 'cases: "t/megatron/*"')))
    assert (finding.path, finding.old, finding.new) == ("", {"cases": "*megatron*"}, {"cases": "t/megatron/*"})
    assert "no longer covers route/megatron" in finding.message
    # A different glob that covers the same cases is not narrower.
    assert changes(edited('cases: "*megatron*"', 'cases: "*/megatron*"')) == []


def test_waiver_added_extended_widened_or_made_permanent():
    waiver = '{contract: critical, path: a.gate, reason: known, cases: "t/megatron/*", until: 2027-01-01}'
    added = only(changes(edited(waiver, waiver + "\n  - {contract: critical, path: a.qkv, reason: new}")))
    assert (added.path, added.old, added.new) == ("a.qkv", None, {"waiver": {"cases": "*", "until": None}})
    later = only(changes(edited("until: 2027-01-01", "until: 2028-01-01")))
    assert later.old == {"waiver": {"cases": "t/megatron/*", "until": "2027-01-01"}}
    assert later.new == {"waiver": {"cases": "t/megatron/*", "until": "2028-01-01"}}
    forever = only(changes(edited(", until: 2027-01-01", "")))
    assert forever.new == {"waiver": {"cases": "t/megatron/*", "until": None}}
    wider = only(changes(edited('cases: "t/megatron/*", until', 'cases: "t/*", until')))
    assert wider.new == {"waiver": {"cases": "t/*", "until": "2027-01-01"}} and wider.old is None
    # Shorter or narrower is stricter: no finding.
    assert changes(edited("until: 2027-01-01", "until: 2026-12-01")) == []
    assert changes(edited('cases: "t/megatron/*"', 'cases: "t/megatron/lora"')) == []


def test_waiver_for_a_rule_new_since_the_base_is_not_a_loosening():
    head = edited("require: [a.qkv, a.gate]", "require: [a.qkv, a.gate, a.new]")
    head += '  - {contract: critical, path: a.new, reason: "new rule, known gap"}\n'
    assert changes(head) == []


@pytest.mark.parametrize("head", [None, "contracts: []\n", BASE.replace("critical", "renamed")])
def test_deleted_or_renamed_contract_removes_every_term(head):
    findings = changes(head)
    terms = {(f.path, repr(f.old)) for f in findings}
    assert terms == {
        ("a.qkv", "'require'"),
        ("a.gate", "'require'"),
        ("a.padding", "{'equal': False}"),
        ("a.class", "{'equal': 'Old'}"),
        ("a.map", "{'equal': {'x': 1}}"),
        ("a.deprecated", "'forbid'"),
        ("m.lora.alpha", "{'agree': ['m.lora_alpha', 'm.lora.alpha']}"),
    }
    assert {f.severity for f in findings} == {"error"}


def test_a_record_excuses_exactly_its_change_and_shows_the_reason():
    head = edited("require: [a.qkv, a.gate]", "require: [a.gate]")
    head = edited("a.class: Old", "a.class: New", head)
    head += """changes:
  - {contract: critical, path: a.qkv, old: require, new: null, reason: "upstream dropped qkv on purpose (PR 1)"}
  - {contract: critical, path: a.class, old: {equal: Old}, new: {equal: Other}, reason: an older re-pin}
"""
    by_path = {f.path: f for f in changes(head)}
    assert by_path["a.qkv"].severity == "warning"
    assert "[recorded reason: upstream dropped qkv on purpose (PR 1)]" in by_path["a.qkv"].message
    # The record for Old -> Other does not excuse Old -> New.
    assert by_path["a.class"].severity == "error"


def test_base_records_do_not_excuse_head_changes():
    base = BASE + "changes:\n  - {contract: critical, path: a.qkv, old: require, new: null, reason: old}\n"
    head = edited("require: [a.qkv, a.gate]", "require: [a.gate]")
    assert only(changes(head, base=base)).severity == "error"


def test_a_contract_moved_to_another_file_is_not_a_change():
    base = {"a.yaml": textwrap.dedent(BASE), "b.yaml": None}
    head = {"a.yaml": "contracts: []\n", "b.yaml": textwrap.dedent(BASE)}
    assert contract_changes(read_contract_files(base), read_contract_files(head), CASES) == []
