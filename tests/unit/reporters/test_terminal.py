"""The terminal's progress bar and colors: only for a person at a terminal, never in CI, a pipe or TERM=dumb."""

import io

import pytest

from harness.reporters.terminal import PROGRESS_MIN_CASES, Progress, is_interactive, wants_color


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def terminal(monkeypatch):
    for name in ("CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    return monkeypatch


def test_a_pipe_ci_or_a_dumb_terminal_is_not_interactive(terminal):
    assert is_interactive(Tty()) and not is_interactive(io.StringIO())
    terminal.setenv("CI", "true")
    assert not is_interactive(Tty())
    terminal.setenv("CI", "false")
    assert is_interactive(Tty())
    terminal.setenv("TERM", "dumb")
    assert not is_interactive(Tty())


def test_no_color_turns_color_off(terminal):
    assert wants_color(Tty())
    terminal.setenv("NO_COLOR", "1")
    assert not wants_color(Tty())


def test_the_bar_is_drawn_for_a_long_matrix_and_erased_at_the_end(terminal):
    stream = Tty()
    bar = Progress(stream)
    bar.start(PROGRESS_MIN_CASES)
    bar.advance("train/a")
    bar.close()
    assert stream.getvalue() == f"\r\033[K[###.....................] 1/{PROGRESS_MIN_CASES} train/a\r\033[K"


def test_a_short_matrix_or_a_pipe_gets_no_bar(terminal):
    for stream, total in ((Tty(), PROGRESS_MIN_CASES - 1), (io.StringIO(), 100)):
        bar = Progress(stream)
        bar.start(total)
        bar.advance("a")
        bar.close()
        assert stream.getvalue() == "" and bar.done == 1
