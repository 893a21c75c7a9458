"""The one writer: a rewritten file keeps its mode, a new one gets what a plain write gives it, a failed write
leaves the old file and no temporary one, and a file the harness creates never lands through a link.
(Writes into .git and through links out of the snapshot folder: tests/unit/gates/test_gates.py.)"""

import os
import stat

import pytest

from harness.gates.confine import UnsafeInput
from harness.gates.writer import current_umask, mode_for, replace_file, write_atomic, write_new, write_problem


def test_a_rewrite_keeps_the_mode_and_a_new_file_follows_the_umask(tmp_path):
    kept = tmp_path / "kept.yaml"
    kept.write_text("old\n")
    kept.chmod(0o640)
    write_atomic(kept, "new\n")
    assert kept.read_text() == "new\n" and stat.S_IMODE(kept.stat().st_mode) == 0o640
    fresh = tmp_path / "deep" / "fresh.yaml"
    write_atomic(fresh, b"bytes\n")
    assert fresh.read_bytes() == b"bytes\n" and stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~current_umask()
    assert mode_for(tmp_path / "none") == 0o666 & ~current_umask()
    write_atomic(fresh, "x", mode=0o600)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    target = tmp_path / "a.yaml"
    target.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\udc80")  # a lone surrogate cannot be UTF-8
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]


def test_a_new_file_is_never_written_through_a_link(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "link").symlink_to(outside)
    with pytest.raises(UnsafeInput, match="is a symlink; the harness never writes through one"):
        write_new(scratch / "link", b"ours", scratch)
    replace_file(scratch / "link", b"ours", scratch)
    assert outside.read_text() == "theirs\n" and (scratch / "link").read_bytes() == b"ours" and not (scratch / "link").is_symlink()
    with pytest.raises(FileExistsError):
        write_new(scratch / "link", b"again", scratch)


def test_what_may_not_be_written_says_why(tmp_path):
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "snapshots" / "out").symlink_to(tmp_path / "elsewhere")
    assert write_problem(tmp_path / "snapshots" / "a.yaml", tmp_path / "snapshots") is None
    assert "leads out of" in write_problem(tmp_path / "snapshots" / "out" / "a.yaml", tmp_path / "snapshots")
    assert write_problem(tmp_path / "snapshots" / "out" / "a.yaml") is None  # named on the command line: trusted
    assert os.path.isdir(tmp_path / "elsewhere") and not list((tmp_path / "elsewhere").iterdir())
