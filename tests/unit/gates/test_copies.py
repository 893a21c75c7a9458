"""Copies of the repository the harness makes (harness/gates/copies.py), and display_path, which names their files
as the repository does: relative to the repository's top wherever the command runs, never by where a copy lies."""

from __future__ import annotations

from pathlib import Path

from harness.gates import copies
from harness.gates.confine import project_root
from harness.model.settings import display_path


def test_a_file_of_a_copy_is_placed_in_the_repository_by_the_copy_s_marker(tmp_path):
    copy = tmp_path / "cache" / "trees" / "5c9d"
    copies.mark(copy)
    assert copies.place(copy / "extra" / "db" / "x.yaml") == "extra/db/x.yaml"
    wheel = tmp_path / "scratch" / "tree"
    copies.mark(wheel, ".cache/verl")  # a pinned wheel's tree stands where the working tree keeps it
    assert copies.place(wheel / "verl" / "trainer" / "config" / "a.yaml") == ".cache/verl/verl/trainer/config/a.yaml"
    assert copies.place(tmp_path / "elsewhere" / "a.yaml") is None
    assert project_root(copy / "extra") == copy  # a copy is a project of its own: a composition there reads only inside it


def test_a_marker_a_repository_holds_inside_a_copy_never_names_its_files(tmp_path):
    copy = tmp_path / "copy"
    (copy / "conf").mkdir(parents=True)
    (copy / "conf" / copies.MARKER).write_text("somewhere/else")  # planted by a pull request
    copies.mark(copy)
    assert copies.place(copy / "conf" / "train.yaml") == "conf/train.yaml"


def test_a_marker_that_would_lead_out_of_the_repository_is_none(tmp_path):
    for written in ("/etc", "../up", "a/../../b", "line\nbreak"):
        copy = tmp_path / str(abs(hash(written)))
        copy.mkdir()
        (copy / copies.MARKER).write_text(written)
        assert copies.place(copy / "a.yaml") is None, written


def test_display_path_names_files_from_the_repository_s_top_wherever_the_run_starts(tmp_path, monkeypatch):
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "verl" / "trainer").mkdir(parents=True)
    monkeypatch.chdir(repository / "verl")
    assert display_path(repository / "examples" / "run.sh") == "examples/run.sh"
    assert display_path(repository / "verl" / "trainer" / "a.yaml") == "verl/trainer/a.yaml"
    copy = tmp_path / "cache" / "trees" / "1"
    copies.mark(copy)
    assert display_path(copy / "extra" / "x.yaml") == "extra/x.yaml"
    assert display_path(tmp_path / "outside.yaml") == str(tmp_path / "outside.yaml")  # no repository names it
    assert display_path(Path("relative.yaml")) == "relative.yaml"
    monkeypatch.chdir(copy)  # a base composed inside its copy
    assert display_path(copy / "conf" / "a.yaml") == "conf/a.yaml"
