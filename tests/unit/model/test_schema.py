"""The one validator of file shapes: the first problem, by its key path, in the words a TOML or YAML author knows."""

from __future__ import annotations

import datetime

import pytest

from harness.model.schema import ANY, ListOf, MapOf, OneOf, Table, first_problem

SHAPE = Table(
    {
        "name": str,
        "jobs": int,
        "flag": bool,
        "tags": ListOf(str),
        "presets": MapOf(ListOf(str)),
        "when": OneOf((str, datetime.date)),
        "x": ANY,
    },
    required=frozenset({"name"}),
)


@pytest.mark.parametrize(
    ("document", "at", "message"),
    [
        ({"name": "a", "jobs": True}, "jobs", "expected int, got bool True"),  # a flag is never a count
        ({"name": "a", "flag": 1}, "flag", "expected bool, got int 1"),
        ({"name": "a", "tags": "x"}, "tags", "expected list, got str 'x'"),
        ({"name": "a", "tags": ["x", 3]}, "tags[1]", "expected str, got int 3"),
        ({"name": "a", "presets": {"grpo": ["a", None]}}, "presets.grpo[1]", "expected str, got NoneType"),
        ({"name": "a", "presets": {"a.b": [1]}}, 'presets."a.b"[0]', "expected str, got int 1"),
        ({"name": "a", "when": 5}, "when", "expected str or date, got int 5"),
        ({"name": "a", "jobs": 10**5000}, "jobs", ""),  # fits: a number is a number, however long
        ({"name": "a", "naem": 1}, "", "unknown key 'naem'; did you mean 'name'?"),
        ({}, "", "missing required key 'name'"),
        ([], "", "expected a table, got list"),
        ({"name": "a", "x": {"anything": [1, {2: 3}]}}, None, None),
    ],
)
def test_first_problem_names_the_key_path(document, at, message):
    problem = first_problem(document, SHAPE)
    if at is None or message == "":
        assert problem is None
        return
    assert problem is not None and problem.at() == at and problem.message.startswith(message)


def test_a_huge_integer_is_shown_by_its_size_not_its_digits():
    problem = first_problem({"name": 10**5000}, SHAPE)
    assert problem is not None and problem.message == "expected str, got int of 16610 bits"
