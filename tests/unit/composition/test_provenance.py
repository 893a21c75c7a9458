"""Which file set a value: the file and line of every leaf of a case, the override that sets a key last, and the
golden header that records both and is read back (a hand-edited header line records nothing)."""

import pytest

from harness.composition.cases import open_matrix
from harness.composition.provenance import leaf_sources, override_for, override_key, provenance_lines, recorded_in, writes_of
from harness.model.matrix import Case
from harness.model.settings import load_settings
from tests.conftest import write_tree

TREE = {
    "train.yaml": "defaults:\n  - backend: cpu\n  - _self_\ntrainer:\n  lr: 0.1\n",
    "backend/cpu.yaml": "# @package _global_\ndevice:\n  count: 1\ntrainer:\n  lr: 0.5\n",
}


@pytest.fixture
def matrix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path / "conf", TREE)
    (tmp_path / "h.toml").write_text('config_dir = "conf"\nroots = ["train"]\nengine_group = "backend"\n')
    with open_matrix(load_settings(tmp_path / "h.toml")) as (session, cases):
        yield tmp_path, session, cases[0]


def test_each_leaf_names_the_file_and_line_that_set_it_last(matrix):
    project, session, case = matrix
    sources = leaf_sources(session, case)
    assert (sources["device.count"].file.endswith("conf/backend/cpu.yaml"), sources["device.count"].line) == (True, 3)
    assert (sources["trainer.lr"].file.endswith("conf/train.yaml"), sources["trainer.lr"].line) == (True, 5)  # _self_ last
    writes = writes_of(session, case, "trainer.lr")
    assert [(w.config_path, w.value) for w in writes] == [("backend/cpu", 0.5), ("train", 0.1)]


def test_the_golden_header_records_the_sources_and_reads_back(matrix):
    project, session, case = matrix
    header = provenance_lines(session, case, project)
    recorded = recorded_in(header + "device:\n  count: 1\n")
    assert [(s.group, s.option, s.file) for s in recorded.selected] == [("backend", "cpu", "conf/backend/cpu.yaml")]
    assert str(recorded.source_of("device.count")) == "conf/backend/cpu.yaml:3"
    assert str(recorded.source_of("device")) == "conf/backend/cpu.yaml:3"  # a removed subtree: its first recorded leaf
    assert recorded.source_of("nothing") is None
    assert recorded_in("# set: {not json\n# selected: {}\na: 1\n").keys == {} and recorded_in(None).selected == ()


def test_the_override_that_sets_a_key_last():
    case = Case("t", "train", ("+a.b=1", "c=2"), ("a.b=3", "~d"))
    assert override_for(case, "a.b") == "a.b=3" and override_for(case, "d") == "~d" and override_for(case, "e") is None
    assert override_key("++x.y=1") == "x.y"


def test_what_the_config_files_write_under_hydra_reads_the_defaults_list_its_compose_computed(matrix, monkeypatch):
    """Issue 52: a case composed with a value override beside its group choice (`backend=cpu trainer.lr=2`) had its
    defaults list computed again by Hydra for the `hydra:` invariants, asked by the group choice alone."""
    from harness.composition.provenance import written_hydra

    project, session, case = matrix
    (project / "conf" / "backend" / "cpu.yaml").write_text("# @package _global_\nhydra:\n  run:\n    dir: out/cpu\n")
    session.compose("train", ["backend=cpu", "trainer.lr=2"])
    computed = []
    original = session.loader.compute_defaults_list
    monkeypatch.setattr(session.loader, "compute_defaults_list", lambda *a, **k: computed.append(a) or original(*a, **k))
    written = written_hydra(session, Case("t", "train", ("backend=cpu", "trainer.lr=2")))
    assert written == {"run": {"dir": "out/cpu"}} and computed == []
