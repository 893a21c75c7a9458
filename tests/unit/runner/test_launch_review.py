"""The launch review's pure parts: which modules map to which config on each side, and the records that excuse
an entry change or a lost launch."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.readers.bash import Launch, Override
from harness.readers.bash_words import PLACEHOLDER_MARK
from harness.rules.contracts import ENTRY, LAUNCH, ContractError, parse_contracts
from harness.rules.review_rules import SettingsChange
from harness.runner.launch_review import head_modules, modules_of, value_findings
from harness.runner.launches import Checked, CommandCase


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


def _launch(overrides: list[Override], tree: dict) -> Checked:
    launch = Launch("run.sh", 1, 1, entry="app.main", overrides=tuple(overrides))
    return Checked(CommandCase("cmd/run.sh#1", launch), tree=tree)


def test_a_value_the_script_cannot_know_is_named_in_the_scripts_own_text_never_as_a_placeholder():
    """TinyZero c38a544 (`hdfs_path=$2` -> `save_path=$2`): the review said `"/tmp/sft_model" -> "__unset_2__"`."""
    base = _launch(
        [
            Override("trainer.hdfs=__unset_2__", 3, ("$2",), "trainer.hdfs=$hdfs_path"),
            Override("data.home=__unset_HOME__/d", 4, ("$HOME",), "data.home=$HOME/d"),
        ],
        {"trainer": {"hdfs": "__unset_2__", "local": "/tmp/sft", "files": ["__unset_HOME__/a"]}, "data": {"home": "__unset_HOME__/d"}},
    )
    now = _launch(
        [Override("trainer.local=__unset_2__", 3, ("$2",), "trainer.local=$save_path"), Override("trainer.hdfs=null", 4)],
        {"trainer": {"hdfs": None, "local": "__unset_2__", "files": ["/data/a"]}, "data": {"home": "/d"}},
    )
    found = {f.path: (f.old, f.new, f.source.line if f.source else None, f.message) for f in value_findings(now, base, "main")}
    assert {path: values[:3] for path, values in found.items()} == {
        "trainer.hdfs": ("$hdfs_path", None, 4),
        "trainer.local": ("/tmp/sft", "$save_path", 3),
        "trainer.files": (["$HOME/a"], ["/data/a"], None),
        "data.home": ("$HOME/d", "/d", 4),
    }
    assert not any(PLACEHOLDER_MARK in message for *_, message in found.values()), found
    assert "'/tmp/sft' -> '$save_path'" in found["trainer.local"][3]


def test_two_unknowns_written_alike_are_named_by_what_they_stand_for():
    base = _launch([Override("a.out=__unset_2__", 2, ("$2",), "a.out=$out")], {"a": {"out": "__unset_2__"}})
    now = _launch([Override("a.out=__unset_3__", 2, ("$3",), "a.out=$out")], {"a": {"out": "__unset_3__"}})
    (finding,) = value_findings(now, base, "main")
    assert (finding.old, finding.new) == ("$2", "$3") and PLACEHOLDER_MARK not in finding.message


def test_a_launchs_python_defaults_are_reused_while_its_trees_and_the_sources_are_the_same(tmp_path, monkeypatch):
    """A later review takes a launch's Python defaults from the cache while both trees and every `.py` file of
    both sides are the same bytes; an edited source is read again."""
    from harness.readers.pysource import SourceIndex
    from harness.runner import targets
    from harness.runner.launch_review import Comparisons, views_digest
    from tests.unit.runner.test_targets import SOURCES, write_tree

    write_tree(tmp_path / "base", SOURCES)
    write_tree(tmp_path / "head", {**SOURCES, "app/models.py": SOURCES["app/models.py"].replace("batch: int = 32", "batch: int = 64")})

    def views() -> tuple[targets.ProgramView, ...]:  # each review reads the sources afresh
        return tuple(targets.ProgramView(SourceIndex([tmp_path / side / "app"], (tmp_path,))) for side in ("base", "head"))

    tree = {"model": {"_target_": "app.Model", "width": 3}, "data": {"_target_": "app.models.Data", "path": "p"}}
    first = Comparisons(views_key=views_digest(read := views()))
    found = first.of(tree, tree, "cmd/run.sh#1", read)
    assert [(f.path, f.old, f.new) for f in found] == [("data.batch", 32, 64)]
    read_again = []
    monkeypatch.setattr(targets, "default_changes", lambda *args, **kwargs: read_again.append(args) or [])
    again = Comparisons(known=dict(first.used), views_key=views_digest(read := views()))
    assert again.of(tree, tree, "cmd/run.sh#1", read) == found and read_again == []
    models = tmp_path / "head" / "app" / "models.py"
    models.write_text(models.read_text().replace("batch: int = 64", "batch: int = 128"))
    monkeypatch.undo()
    edited = Comparisons(known=dict(first.used), views_key=views_digest(read := views()))
    assert [(f.path, f.old, f.new) for f in edited.of(tree, tree, "cmd/run.sh#1", read)] == [("data.batch", 32, 128)]
