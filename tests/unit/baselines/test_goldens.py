"""goldens: the one owner of a snapshot folder (compare, write, prune), on real files in a temporary folder."""

from __future__ import annotations

import fcntl

import pytest

from harness.baselines.goldens import Goldens, pending, remove_golden, same_golden, write_golden
from harness.gates.confine import UnsafeInput
from harness.model.findings import ERROR, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.matrix import Case, golden_name

HEADER = "# config-harness golden for case train/cpu/default\n"
BODY = "a: 1\nb:\n  c: two\n"


def case(case_id: str) -> Case:
    return Case(case_id, "train", (), golden_name=golden_name(case_id))


CPU, GPU = case("train/cpu/default"), case("train/gpu/default")


@pytest.fixture
def goldens(tmp_path):
    folder = tmp_path / "snapshots"
    folder.mkdir()
    return Goldens(folder, (CPU, GPU))


def result(of: Case, status: str, rendered: str | None = HEADER + BODY, *findings: Finding) -> CaseResult:
    return CaseResult(of, f"snapshots/{of.golden_name}", status, findings, rendered=rendered)


def compose_error(message: str) -> Finding:
    return Finding(Kind.ERROR, "", severity=ERROR, message=message)


def test_same_golden_is_the_same_bytes_or_the_same_body_under_another_header():
    assert same_golden(HEADER + BODY, HEADER + BODY)
    assert same_golden("# an older header\n# of two lines\n" + BODY, HEADER + BODY)
    assert not same_golden(HEADER + BODY.replace("two", "three"), HEADER + BODY)
    assert not same_golden(HEADER + "\n" + BODY, HEADER + BODY)  # a blank line is body, not header


def test_generate_writes_what_composed_and_differs_or_is_missing():
    assert pending(result(CPU, Status.CHANGED)) and pending(result(CPU, Status.NEW))
    assert not pending(result(CPU, Status.OK)) and not pending(result(CPU, Status.ERROR))
    assert not pending(result(CPU, Status.CHANGED, None))  # composed nothing, or a run that keeps no rendering


def test_write_rewrites_only_pending_cases_and_marks_them_written(goldens):
    goldens.path(GPU).write_text("# old\nkept: as it is\n")
    run = MatrixResult(cases=(result(CPU, Status.NEW), result(GPU, Status.ERROR)))
    written = goldens.write(run)
    assert [r.golden for r in written.cases if r.written] == [f"snapshots/{CPU.golden_name}"]
    assert goldens.read(CPU) == HEADER + BODY and goldens.read(GPU) == "# old\nkept: as it is\n"
    assert written.cases[0].written and written.cases[0].status == Status.OK and not written.cases[1].written
    assert not run.cases[0].written  # a result is frozen: the run written is a new one


def test_a_rewritten_golden_keeps_its_mode(goldens):
    path = goldens.path(CPU)
    path.write_text("old: 1\n")
    path.chmod(0o600)
    write_golden(path, HEADER + BODY, goldens.folder)
    assert path.read_text() == HEADER + BODY and oct(path.stat().st_mode & 0o777) == "0o600"


def test_write_golden_never_writes_through_a_link(goldens, tmp_path):
    target = tmp_path / "elsewhere.yaml"
    target.write_text(BODY)
    goldens.path(CPU).symlink_to(target)
    with pytest.raises(UnsafeInput, match="is a symlink"):
        write_golden(goldens.path(CPU), HEADER + BODY, goldens.folder)
    assert target.read_text() == BODY and goldens.path(CPU).is_symlink()


def test_kept_says_why_generate_leaves_a_golden_that_is_not_current(goldens, tmp_path):
    failed = result(CPU, Status.ERROR, None, compose_error("In 'train': 'nope' is not an option of backend"))
    assert goldens.kept(failed) == "In 'train': 'nope' is not an option of backend"
    goldens.path(CPU).write_text("a: [\n")
    not_yaml = result(CPU, Status.ERROR, HEADER + BODY, compose_error("golden snapshots/x.yaml:2: invalid YAML"))
    assert goldens.kept(not_yaml) == "golden snapshots/x.yaml:2: invalid YAML"
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(BODY)
    goldens.path(GPU).symlink_to(outside)
    assert "is a symlink" in (goldens.kept(result(GPU, Status.CHANGED)) or "")
    assert outside.read_text() == BODY


def test_kept_is_none_for_a_golden_generate_writes_or_that_is_current(goldens):
    assert goldens.kept(result(CPU, Status.NEW)) is None
    goldens.path(CPU).write_text("# another header\n" + BODY)
    assert goldens.kept(result(CPU, Status.CHANGED)) is None
    assert goldens.kept(result(CPU, Status.OK)) is None
    contract_error = Finding(Kind.CONTRACT, "a", severity=ERROR, message="a must be 2")
    assert goldens.kept(result(CPU, Status.ERROR, HEADER + BODY, contract_error)) is None  # the golden is current


def leftover(folder, name: str):
    path = folder / f".{name}.abc123.tmp"
    path.write_text("half a golden")
    return path


def test_orphans_are_golden_named_files_no_case_claims(goldens):
    for name in (CPU.golden_name, golden_name("gone/case"), "README.md"):
        (goldens.folder / name).write_text(BODY)
    leftover(goldens.folder, CPU.golden_name)
    assert goldens.orphans() == [goldens.folder / golden_name("gone/case")]


def test_prune_removes_killed_writes_always_and_orphans_only_when_asked(goldens):
    orphan = goldens.folder / golden_name("gone/case")
    orphan.write_text(BODY)
    killed = leftover(goldens.folder, CPU.golden_name)
    writing = leftover(goldens.folder, GPU.golden_name)
    (goldens.folder / "README.md").write_text("notes\n")
    with open(writing, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # a write in progress holds its lock
        assert goldens.prune(every_orphan=False) == [killed]
        assert orphan.exists() and writing.exists()
        assert goldens.prune(every_orphan=True) == [orphan]
    assert sorted(p.name for p in goldens.folder.iterdir()) == sorted([writing.name, "README.md"])


def test_remove_golden_deletes_a_link_not_its_target_and_refuses_other_files(goldens, tmp_path):
    target = tmp_path / "target.yaml"
    target.write_text(BODY)
    link = goldens.folder / golden_name("gone/case")
    link.symlink_to(target)
    assert remove_golden(link) and not link.is_symlink() and target.read_text() == BODY
    assert not remove_golden(link)  # gone already: another process pruned it first
    notes = goldens.folder / "README.md"
    notes.write_text("notes\n")
    with pytest.raises(UnsafeInput, match="neither a golden"):
        remove_golden(notes)
    assert notes.exists()
