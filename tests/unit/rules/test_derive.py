"""lock's merge into a contracts file: only the named contract changes, loosening needs a reason."""

from pathlib import Path

import pytest
import yaml

from harness.rules.derive import LockRefused, plan_lock

DERIVED = {"name": "critical", "cases": "t/megatron/*", "require": ["a.qkv", "a.new"], "equal": {"a.qkv": "qkv", "a.new": 1}}
CASES = ["t/dp/default", "t/megatron/default"]


def plan(existing, derived=DERIVED, reason=None):
    return plan_lock(existing, Path("c.yaml"), derived, CASES, reason)


def test_a_new_file_gets_the_contract():
    result = plan(None)
    assert yaml.safe_load(result.text) == {"contracts": [DERIVED]}
    assert result.added == ["require a.qkv", "require a.new", "equal a.qkv: 'qkv'", "equal a.new: 1"]


def test_records_append_to_an_existing_changes_list_and_other_text_is_kept():
    existing = """\
# header
changes:
  - {contract: other, path: x, old: require, new: null, reason: long ago}
contracts:
  - name: critical   # the one lock owns
    cases: "t/megatron/*"
    require: [a.qkv, a.gone]
    equal: {a.qkv: qkv, a.new: 2}
  - {name: other, require: [y]}   # hand-written, flow style
"""
    with pytest.raises(
        LockRefused,
        match=r"lock would drop or re-pin 2 term\(s\) of critical \(require a.gone removed; equal a.new re-pinned from 2 to 1\)",
    ):
        plan(existing)
    result = plan(existing, reason="upstream")
    assert result.text.startswith("# header\nchanges:\n  - {contract: other, path: x, old: require, new: null, reason: long ago}\n")
    assert result.text.endswith("  - {name: other, require: [y]}   # hand-written, flow style\n")
    document = yaml.safe_load(result.text)
    assert [r["reason"] for r in document["changes"]] == ["long ago", "upstream", "upstream"]
    assert document["changes"][2] == {
        "contract": "critical",
        "path": "a.new",
        "old": {"equal": 2},
        "new": {"equal": 1},
        "reason": "upstream",
    }
    # Locking the same tree again changes nothing and records nothing.
    again = plan(result.text)
    assert again.text == result.text and again.loosened == [] and again.recorded == []


def test_a_flow_style_file_is_rewritten_whole_keeping_its_leading_comments():
    existing = "# keep me\ncontracts: [{name: other, require: [y]}]\n"
    result = plan(existing)
    assert result.text.startswith("# keep me\n")
    assert yaml.safe_load(result.text)["contracts"] == [{"name": "other", "require": ["y"]}, DERIVED]
