"""The one reader of tree data: at most `limit` bytes (one more is refused, exactly `limit` is read), a path that
leads out of its scope is refused before it is opened, and git's output is bounded the same way.
(The refusals of links, devices and FIFOs: tests/unit/gates/test_gates.py.)"""

import io
import sys

import pytest

from harness.gates.confine import UnsafeInput
from harness.gates.reader import InputLimitError, NotAFile, git_output, read_bytes, read_limited, read_text, too_large


def test_exactly_the_limit_is_read_and_one_byte_more_is_refused():
    assert read_limited(io.BytesIO(b"x" * 10), 10) == b"x" * 10
    with pytest.raises(InputLimitError, match="larger than 9 bytes; refused"):
        read_limited(io.BytesIO(b"x" * 10), 9)
    assert str(too_large(3 * 1024 * 1024)) == "larger than 3 MiB; refused" and str(too_large(1500)) == "larger than 1,500 bytes; refused"


def test_a_file_past_its_limit_is_named(tmp_path):
    (tmp_path / "big.yaml").write_bytes(b"a" * 101)
    with pytest.raises(InputLimitError, match=r"big.yaml: larger than 100 bytes; refused"):
        read_bytes(tmp_path / "big.yaml", limit=100)
    with pytest.raises(InputLimitError, match=r"^the golden: larger"):
        read_bytes(tmp_path / "big.yaml", limit=100, what="the golden")


def test_dot_dot_or_a_link_out_of_the_scope_is_refused_and_inside_is_read(tmp_path):
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("s")
    (project / "conf" / "a.yaml").write_text("a: 1\n")
    assert read_text(project / "conf" / ".." / "conf" / "a.yaml", (project,)) == "a: 1\n"
    with pytest.raises(UnsafeInput, match=r"secret.txt: leads outside the project .*project; it is not read"):
        read_bytes(project / ".." / "secret.txt", (project,))
    (project / "conf" / "b.yaml").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(UnsafeInput, match=r"b.yaml: leads outside the project .*project through a symlink or '\.\.'; it is not read"):
        read_bytes(project / "conf" / "b.yaml", (project,))
    with pytest.raises(FileNotFoundError):
        read_bytes(project / "missing.yaml", (project,))
    with pytest.raises(NotAFile, match="conf: a folder, not a regular file; it is not read"):
        read_bytes(project / "conf", (project,))


def test_a_command_s_output_is_bounded_and_it_is_stopped_past_it():
    code, out, err = git_output([sys.executable, "-c", "import sys; print('x' * 5); print('e', file=sys.stderr)"])
    assert (code, out, err) == (0, b"xxxxx\n", b"e\n")
    with pytest.raises(InputLimitError):
        git_output([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 4096)"], limit=10_000)
    assert git_output([sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().upper())"], stdin=b"ab")[1] == b"AB"
