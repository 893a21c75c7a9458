"""The launch review's pure parts: which modules map to which config on each side, and the records that excuse
an entry change or a lost launch."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.rules.contracts import ENTRY, LAUNCH, ContractError, parse_contracts
from harness.rules.review_rules import SettingsChange
from harness.runner.launch_review import head_modules, modules_of


def test_modules_are_the_union_of_every_commands_tables_modules():
    commands = [{"glob": "a/*.sh", "modules": {"m.a": "x"}}, {"glob": "b/*.sh"}, {"glob": "c/*.sh", "modules": {"m.c": "y"}}]
    assert modules_of(commands) == {"m.a": "x", "m.c": "y"}
    assert modules_of(None) == {} and modules_of([{"modules": "not a table"}]) == {}


def test_the_pull_requests_modules_come_from_its_commands_change_else_they_are_the_bases():
    base = {"m.a": "x"}
    assert head_modules(base, []) == base
    change = SettingsChange("commands", [{"glob": "*.sh", "modules": {"m.a": "x"}}], [{"glob": "*.sh", "modules": {"m.a": "z"}}], True, "")
    assert head_modules(base, [change]) == {"m.a": "z"}


def test_entry_and_launch_records_parse_as_subjects_of_their_own():
    text = (
        "changes:\n"
        "  - {entry: verl.trainer.main_ppo, old: {config_name: a}, new: {config_name: b}, reason: v2}\n"
        "  - {launch: 'cmd/x.sh#1', old: 'x.sh:3', new: null, reason: gone}\n"
    )
    records = parse_contracts(text, Path("c.yaml")).changes
    assert [(r.contract, r.path, r.old, r.new) for r in records] == [
        (ENTRY, "verl.trainer.main_ppo", {"config_name": "a"}, {"config_name": "b"}),
        (LAUNCH, "cmd/x.sh#1", "x.sh:3", None),
    ]
    with pytest.raises(ContractError, match="exactly one of 'contract', 'setting', 'hydra', 'known', 'entry', 'launch'"):
        parse_contracts("changes:\n  - {entry: m, launch: l, reason: r}\n", Path("c.yaml"))
