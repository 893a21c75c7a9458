"""Contract changes judged by meaning: the base's contracts (terms and waivers) judge the pull request's configs,
and every violation they find that the pull request's contracts no longer report is a `contract_change`.

The property test edits a contracts file at random (waivers, widened groups, globs, options, dropped and re-pinned
terms, renamed contracts), renders it as YAML and reads it back through the parser, whatever the edit's syntax.
"""

from __future__ import annotations

import datetime
import textwrap
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st
from omegaconf import OmegaConf

from harness.composition.resolve import MISSING
from harness.rules.contract_changes import EXCUSED, unreported_findings
from harness.rules.contracts import ContractSet, parse_contracts, violations

TODAY = datetime.date(2026, 12, 1)
PATHS = ["m.lora_alpha", "m.lora.alpha", "m.pad", "m.old", "m.extra"]
CASES = ["t/dp/x", "t/megatron/x", "t/megatron/y"]
GLOBS = ["*", "t/megatron/*", "t/*/x", "t/dp/*"]
VALUES = [16, 32]

BASE = """
contracts:
  - name: lora-alias
    agree: [[m.lora_alpha, m.lora.alpha]]
  - name: pins
    cases: "t/megatron/*"
    require: [m.pad]
    equal: {m.pad: false}
"""


def parsed(text: str) -> ContractSet:
    return parse_contracts(textwrap.dedent(text), Path("c.yaml"))


def judged(base: str, head: str, config: dict, case_id: str = "t/megatron/x", program=None) -> list:
    return unreported_findings(parsed(base), parsed(head), case_id, OmegaConf.create(config), config, TODAY, program)


DISAGREE = {"m": {"lora_alpha": 16, "lora": {"alpha": 32}, "pad": False}}


def test_unchanged_contracts_excuse_nothing_even_where_they_are_broken():
    assert judged(BASE, BASE, DISAGREE) == []


def test_a_widened_group_with_a_waiver_for_its_new_key_is_an_error():
    head = BASE.replace("[[m.lora_alpha, m.lora.alpha]]", "[[m.lora_alpha, m.lora.alpha, m.extra]]") + (
        "waivers:\n  - {contract: lora-alias, path: m.extra, reason: the new key scales differently}\n"
    )
    (finding,) = judged(BASE, head, DISAGREE)
    assert (finding.kind, finding.severity, finding.path, finding.contract) == ("contract_change", "error", "m.lora.alpha", "lora-alias")
    assert finding.message.startswith(
        "lora-alias: the base's contract is broken here (must agree but differ: m.lora_alpha=16, "
        "m.lora.alpha=32) and this change's contracts no longer report it without a recorded reason"
    )
    assert "{contract: lora-alias, path: m.lora.alpha, old: enforced, new: excused, reason: WHY}" in finding.message


def test_a_violation_the_change_still_reports_at_one_of_its_paths_is_no_change():
    head = BASE.replace("[[m.lora_alpha, m.lora.alpha]]", "[[m.lora_alpha, m.lora.alpha, m.extra]]")
    assert judged(BASE, head, DISAGREE) == []
    waived_but_forbidden = BASE.replace(
        "agree: [[m.lora_alpha, m.lora.alpha]]", "agree: [[m.lora_alpha, m.lora.alpha]]\n    forbid: [m.lora_alpha]"
    )
    waived_but_forbidden += "waivers:\n  - {contract: lora-alias, path: m.lora.alpha, reason: megatron scales}\n"
    assert judged(BASE, waived_but_forbidden, DISAGREE) == []


def test_a_record_the_change_adds_for_the_contract_and_path_excuses_it_and_an_old_one_does_not():
    head = BASE + "waivers:\n  - {contract: lora-alias, path: m.lora.alpha, reason: megatron scales}\n"
    record = "changes:\n  - {contract: lora-alias, path: m.lora_alpha, old: enforced, new: excused, reason: megatron scales alpha}\n"
    (finding,) = judged(BASE, head + record, DISAGREE)
    assert finding.severity == "warning" and finding.message.endswith("[recorded reason: megatron scales alpha]")
    (again,) = judged(BASE + record, head + record, DISAGREE)
    assert again.severity == "error"


def test_the_record_of_a_dropped_term_also_excuses_the_violation_it_lets_through():
    pinned_only = BASE.replace("    require: [m.pad]\n", "")
    assert judged(BASE, pinned_only, {"m": {}}) == []  # the pin still reports the missing path
    dropped = pinned_only.replace("    equal: {m.pad: false}\n", "    forbid: [m.old]\n")
    (finding,) = judged(BASE, dropped, {"m": {}})
    assert finding.severity == "error" and "m.pad is required but missing" in finding.message
    record = "changes:\n  - {contract: pins, path: m.pad, old: require, new: null, reason: pad moved to the model}\n"
    (recorded,) = judged(BASE, dropped + record, {"m": {}})
    assert recorded.severity == "warning" and recorded.message.endswith("[recorded reason: pad moved to the model]")


def test_narrowed_cases_and_an_expired_waiver():
    narrowed = BASE.replace('cases: "t/megatron/*"', 'cases: "t/megatron/y"')
    broken = {"m": {"pad": True}}
    assert [f.path for f in judged(BASE, narrowed, broken)] == ["m.pad"]
    assert judged(BASE, narrowed, broken, case_id="t/megatron/y") == []
    expired = BASE + "waivers:\n  - {contract: pins, path: m.pad, reason: old, until: 2026-01-01}\n"
    assert judged(BASE, expired, broken) == []


def test_program_view_turned_on_lets_a_python_default_through_and_is_reported():
    head = BASE.replace("    require: [m.pad]\n", "    require: [m.pad]\n    program_view: true\n")
    defaults = {"m.pad": False}
    (finding,) = judged(BASE, head, {"m": {}}, program=lambda tree, path: defaults.get(path, MISSING))
    assert finding.path == "m.pad" and "m.pad is required but missing" in finding.message


# The property: a random edit of a random contracts file.

path = st.sampled_from(PATHS)
glob = st.sampled_from(GLOBS)


@st.composite
def contract(draw: Any, name: str) -> dict:
    entry: dict[str, Any] = {"name": name, "cases": draw(glob)}
    entry["require"] = draw(st.lists(path, max_size=2, unique=True))
    entry["equal"] = draw(st.dictionaries(path, st.sampled_from(VALUES), max_size=2))
    entry["forbid"] = draw(st.lists(path, max_size=1))
    entry["agree"] = draw(st.lists(st.lists(path, min_size=2, max_size=3, unique=True), max_size=1))
    entry["one_of"] = draw(st.dictionaries(path, st.lists(st.sampled_from(VALUES), min_size=1, unique=True), max_size=1))
    entry["agree_require_both"] = draw(st.booleans())
    entry["program_view"] = draw(st.booleans())
    return entry


@st.composite
def waiver(draw: Any, names: list[str]) -> dict:
    until = draw(st.sampled_from([None, "2026-01-01", "2027-01-01"]))
    return {"contract": draw(st.sampled_from(names)), "path": draw(path), "reason": "r", "cases": draw(glob), "until": until}


def edit(draw: Any, document: dict) -> dict:
    """One random edit of a contracts document, any of the ways a file can loosen (or tighten) its rules."""
    contracts = document["contracts"]
    if not contracts:
        return document  # every contract deleted by an earlier edit
    names = [c["name"] for c in contracts]
    target = draw(st.sampled_from(contracts))
    action = draw(st.sampled_from(["waiver", "widen", "glob", "option", "drop", "repin", "one_of", "rename", "delete", "add"]))
    if action == "waiver":
        document["waivers"].append(draw(waiver(names)))
    elif action == "widen" and target["agree"]:
        target["agree"][0].append(draw(path.filter(lambda p: p not in target["agree"][0])))
        if draw(st.booleans()):
            document["waivers"].append({"contract": target["name"], "path": target["agree"][0][-1], "reason": "r"})
    elif action == "glob":
        target["cases"] = draw(glob)
    elif action == "option":
        key = draw(st.sampled_from(["program_view", "agree_require_both"]))
        target[key] = not target[key]
    elif action == "drop":
        key = draw(st.sampled_from(["require", "equal", "forbid", "agree", "one_of"]))
        target[key] = type(target[key])()
    elif action == "repin" and target["equal"]:
        key = draw(st.sampled_from(sorted(target["equal"])))
        target["equal"][key] = draw(st.sampled_from(VALUES))
    elif action == "one_of" and target["one_of"]:
        key = next(iter(target["one_of"]))
        target["one_of"][key] = VALUES
    elif action == "rename":
        document["waivers"] = [w for w in document["waivers"] if w["contract"] != target["name"]]
        target["name"] += "-renamed"
    elif action == "delete":
        contracts.remove(target)
        document["waivers"] = [w for w in document["waivers"] if w["contract"] != target["name"]]
    elif action == "add":
        target["require"] = [*target["require"], draw(path)]
    return document


config_value = st.one_of(st.sampled_from(VALUES), st.none())


@st.composite
def attempt(draw: Any) -> tuple[str, str, dict[str, dict], dict]:
    contracts = [draw(contract("c0")), draw(contract("c1"))]
    names = [c["name"] for c in contracts]
    base = {"contracts": contracts, "waivers": draw(st.lists(waiver(names), max_size=2))}
    head = yaml.safe_load(yaml.safe_dump(base))
    for _ in range(draw(st.integers(1, 3))):
        head = edit(draw, head)
    configs = {case_id: draw(st.dictionaries(path, st.sampled_from(VALUES))) for case_id in CASES}
    defaults = draw(st.dictionaries(path, st.sampled_from(VALUES)))
    return yaml.safe_dump(base), yaml.safe_dump(head), configs, defaults


def tree_of(flat: dict) -> dict:
    tree: dict = {}
    for dotted, value in flat.items():
        node = tree
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node.setdefault(key, {}) if isinstance(node.get(key, {}), dict) else {}
        if isinstance(node.get(leaf), dict):
            continue  # `m.lora` holds `m.lora.alpha`: a config cannot also set it to a value
        node[leaf] = value
    return tree


def errors(contract_set: ContractSet, case_id: str, tree: dict, program) -> list:
    """The oracle: violations no live waiver with the same contract, a matching case glob and one of its paths excuses."""
    config = OmegaConf.create(tree)
    found = []
    for rule in contract_set.contracts:
        for violation in violations(rule, config, tree, program, case_id):
            paths = {violation.path, *violation.paths}
            excused = any(
                w.contract == violation.contract
                and w.path in paths
                and fnmatchcase(case_id, w.cases)
                and (w.until is None or TODAY <= w.until)
                for w in contract_set.waivers
            )
            if not excused:
                found.append(violation)
    return found


@given(attempt())
def test_every_edit_that_excuses_a_base_violation_is_reported(example):
    base_text, head_text, configs, defaults = example
    base, head = parsed(base_text), parsed(head_text)

    def program(tree, dotted):
        return defaults.get(dotted, MISSING)

    for case_id, flat in configs.items():
        tree = tree_of(flat)
        reported = {p for v in errors(head, case_id, tree, program) for p in (v.path, *v.paths)}
        excused = [v for v in errors(base, case_id, tree, program) if not {v.path, *v.paths} & reported]
        findings = unreported_findings(base, head, case_id, OmegaConf.create(tree), tree, TODAY, program)
        assert all(f.kind == "contract_change" and f.severity == "error" and f.new == EXCUSED for f in findings)
        assert sorted((f.contract, f.path) for f in findings) == sorted((v.contract, v.path) for v in excused), (case_id, tree)
