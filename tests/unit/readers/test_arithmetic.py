"""Bash integer arithmetic over an expression's text: bash's precedence, its short-circuits, and None (never a guess)
for what is not followed. Each expected value is what bash 5.2 prints for `echo $((EXPRESSION))` with `Y=1`."""

from __future__ import annotations

import pytest

from harness.readers.arithmetic import evaluate

BASH = {
    "-1+Y": 0,
    "1+2*3-4/2": 5,
    "2**3**2": 512,
    "-2**2": 4,
    "!0+1": 2,
    "~1+1": -1,
    "1<2==1": 1,
    "3%2*5": 5,
    "1 << 2 + 1": 8,
    "7&3|4": 7,
    "6^3": 5,
    "0x10+010": 24,
    "-5/2": -2,
    "-5%3": -2,
    "1?0?5:6:7": 6,
    "1<<63": -9223372036854775808,
    "Y++ + 1": 2,
    "X=3, X*2": 6,
}


def run(text: str, values: dict[str, str] | None = None) -> tuple[int | None, dict[str, str]]:
    variables = {"Y": "1", **(values or {})}

    def write(name: str, value: int) -> None:
        variables[name] = str(value)

    return evaluate(text, lambda name: variables.get(name, ""), write), variables


@pytest.mark.parametrize(("text", "expected"), BASH.items(), ids=BASH.keys())
def test_the_value_is_bash_s(text, expected):
    assert run(text)[0] == expected


def test_assignments_are_made_as_bash_makes_them_and_only_where_it_evaluates():
    assert run("Z = Y += 2") == (3, {"Y": "3", "Z": "3"})
    assert run("0 && (Z=5)") == (0, {"Y": "1"})
    assert run("1 || (Z=5)") == (1, {"Y": "1"})
    assert run("0 ? (Z=5) : 2") == (2, {"Y": "1"})


@pytest.mark.parametrize("text", ["5/0", "08", "2**-1", "A[1]", "2#101", "Y +", "(1", "X=", "1 = 2", "W+1"])
def test_what_bash_refuses_or_is_not_followed_is_none(text):
    # `W` holds an expression bash would evaluate in turn: not followed.
    assert run(text, {"W": "1+2"})[0] is None


def test_an_unknown_variable_makes_the_value_unknown():
    assert evaluate("Q+1", lambda name: None, lambda name, value: None) is None
