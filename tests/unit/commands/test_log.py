"""`log KEY --case ID`: the commits where the key's composed value changed in that case, oldest first, each with
its commit, date, old and new value and subject; bad input (a key or case that is not there) is one line."""

import json

from harness.model.semantic_diff import ABSENT
from tests.synthetic_history import commit


def test_each_commit_that_changed_the_value_once(committed, cli):
    gpu = committed / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    first = commit(committed, "four gpus")
    (committed / "notes.txt").write_text("no config change\n")
    commit(committed, "notes")
    run = cli("--settings", "harness.toml", "log", "device.count", "--case", "train/gpu/default")
    assert run.code == 0
    lines = run.out.splitlines()
    # The first commit brings the key in; the commit that changed no config is not a change.
    assert len(lines) == 3 and lines[0].endswith(f" {ABSENT} -> 8  adopt")
    assert lines[1].startswith(first[:12]) and lines[1].endswith(" 8 -> 4  four gpus")
    assert lines[2] == "2 change(s) of device.count in train/gpu/default"
    document = json.loads(cli("--settings", "harness.toml", "log", "device.count", "--case", "train/gpu/*", "--format", "json").out)
    assert document["case"] == "train/gpu/default"  # a glob selects in the working tree, then the exact id is walked
    assert [(c["commit"], c["old"], c["new"]) for c in document["changes"]][1:] == [(first, 8, 4)]
    assert cli("--settings", "harness.toml", "log", "device.count", "--case", "train/cpu/default").out.splitlines()[-1] == (
        "1 change(s) of device.count in train/cpu/default"
    )


def test_a_glob_of_two_cases_is_one_line_of_bad_input(committed, cli):
    run = cli("--settings", "harness.toml", "log", "device.count", "--case", "train/*")
    assert run.code == 2 and run.err.count("\n") == 1 and "matches 2 cases" in run.err
