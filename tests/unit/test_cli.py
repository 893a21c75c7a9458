"""A forgiving command line (issue 45 item 4): no prefix matching, and "did you mean" for an unknown command, flag
or choice, exit 2 in one line, the way case names and keys get it."""

from __future__ import annotations

import pytest

from harness.cli import main


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    return captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--verbos"],  # argparse took it as --verbose (and printed 465 lines on verl)
        ["check", "--quie"],
        ["diff", "--bas", "main"],
        ["--setting", "harness.toml", "check"],  # a global flag before the command
        ["--no-cach", "check"],
    ],
)
def test_a_prefix_of_a_flag_is_refused_with_the_flag_it_may_mean(capsys, argv):
    wrong = next(word for word in argv if word.startswith("--"))
    err = _error(capsys, *argv)
    assert f"unrecognized arguments: {wrong}" in err and "; did you mean '--" in err, err


def test_an_unknown_command_names_the_closest(capsys):
    assert _error(capsys, "chek").endswith("; did you mean 'check'?\n")
    assert _error(capsys, "mrege", "a.json").endswith("; did you mean 'merge'?\n")


def test_an_unknown_flag_names_the_closest_of_its_command(capsys):
    assert _error(capsys, "diff", "--bse", "main").endswith("unrecognized arguments: --bse; did you mean '--base'?\n")
    assert _error(capsys, "check", "--fromat=json").endswith("; did you mean '--format'?\n")
    # Nothing close: the plain line, still one.
    assert _error(capsys, "check", "--zzzzzz").endswith("unrecognized arguments: --zzzzzz\n")


def test_an_unknown_choice_names_the_closest(capsys):
    assert _error(capsys, "check", "--format", "mardown").endswith("; did you mean 'markdown'?\n")
