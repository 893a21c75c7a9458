"""Config writes as findings: what an entry point's code (and the functions it calls by name) and a `_target_`
class's `__post_init__` write to the composed config, compared between a base and a pull request's sources, read
with `ast` and never run. (A review of a small project end to end: tests/integration/test_config_writes.py.)"""

from pathlib import Path

import pytest

from harness.readers.pysource import SourceIndex
from harness.runner.config_writes import entry_write_changes, node_write_changes, writes_of
from harness.runner.targets import ProgramView
from tests.conftest import write_tree

MAIN = """
import hydra
from omegaconf import open_dict

@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(config):
    with open_dict(config):
        config.trainer.lr = {lr}
    config.trainer.steps = 10
    run(config)

def run(config):
    config.model.width = 3
"""
MODELS = """
from dataclasses import dataclass

@dataclass
class Model:
    width: int = 8
    def __post_init__(self):
        self.width = {width}
"""


@pytest.fixture
def views(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files are shown relative to the working folder
    for side, lr, width in (("base", "0.1", "self.width * 2"), ("head", "0.2", "self.width * 4")):
        write_tree(tmp_path / side, {"app/__init__.py": "", "app/main.py": MAIN.format(lr=lr), "app/models.py": MODELS.format(width=width)})
    return ProgramView(SourceIndex([Path("base/app")])), ProgramView(SourceIndex([Path("head/app")]))


def test_a_changed_entry_point_write_is_one_finding_with_file_line_and_key(views):
    base, head = views
    (changed,) = entry_write_changes(base, head)
    assert (changed.path, changed.old, changed.new, str(changed.severity)) == ("trainer.lr", 0.1, 0.2, "warning")
    assert changed.message == (
        "trainer.lr: a config write changed: app.main.main sets trainer.lr = 0.2 inside open_dict at head/app/main.py:7 "
        "(was 0.1 at the base)"
    )
    assert str(changed.source) == "head/app/main.py:7"
    assert entry_write_changes(head, head) == []  # the same writes: nothing, whatever their lines


def test_explain_finds_the_writes_to_a_key_or_a_node_above_it(views):
    _, head = views
    assert [(w.owner, w.write.key, w.write.line, w.write.open_dict) for w in writes_of(head, "trainer.lr")] == [
        ("app.main.main", "trainer.lr", 7, True)
    ]
    assert [w.write.key for w in writes_of(head, "model.width")] == ["model.width"]  # in a function main calls by name
    assert writes_of(head, "trainer.other") == []


def test_a_post_init_write_that_changed_is_a_finding_at_the_node(views):
    base, head = views
    (changed,) = node_write_changes(base, head, [("model", "app.models.Model", "app.models.Model")])
    assert (changed.path, changed.old, changed.new) == ("model.width", "self.width = self.width * 2", "self.width = self.width * 4")
    assert "app.models.Model sets width" in changed.message and str(changed.source) == "head/app/models.py:7"
    assert node_write_changes(base, head, [("model", None, None)]) == []
