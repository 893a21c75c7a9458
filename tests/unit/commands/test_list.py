"""`list`: every case with its golden, as text, ids only, or JSON; a glob that matches nothing is bad input."""

import json

from tests.unit.commands.conftest import CASES


def test_every_case_with_its_golden_and_overrides(tiny, cli):
    run = cli("--settings", "harness.toml", "list")
    assert run.code == 0
    assert [line.split() for line in run.out.splitlines()] == [
        ["train/cpu/default", "snapshots/_generated_train__cpu__default.yaml", "[backend=cpu]"],
        ["train/gpu/default", "snapshots/_generated_train__gpu__default.yaml", "[backend=gpu]"],
    ]


def test_quiet_is_the_ids_and_a_glob_selects(tiny, cli):
    assert cli("--settings", "harness.toml", "list", "--quiet").out.splitlines() == CASES
    assert cli("list", "--settings", "harness.toml", "--quiet", "--case", "*/gpu/*").out == "train/gpu/default\n"


def test_json_is_the_interface_rows(tiny, cli):
    document = json.loads(cli("--settings", "harness.toml", "list", "--format", "json").out)
    assert [row["id"] for row in document["cases"]] == CASES
    assert document["cases"][0] == {
        "id": "train/cpu/default",
        "config_name": "train",
        "overrides": ["backend=cpu"],
        "golden": "snapshots/_generated_train__cpu__default.yaml",
    }


def test_a_glob_that_matches_nothing_names_the_closest_case(tiny, cli):
    run = cli("--settings", "harness.toml", "list", "--case", "train/gpu/defualt")
    assert run.code == 2 and run.out == ""
    assert run.err.count("\n") == 1 and "--case 'train/gpu/defualt' matches no case" in run.err and "train/gpu/default" in run.err
