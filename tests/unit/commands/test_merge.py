"""`merge RESULT.json...`: the shards of one run, each once, read back only as the types a result is made of;
anything else is one line naming the file, exit 2."""

import json

import pytest

from harness.commands.merge import MAX_DEPTH, decode
from harness.commands.shard_results import encode


@pytest.mark.parametrize(
    "value, said",
    [
        ({"x": 1}, "not an encoded value"),
        ({"c": "os.system", "v": {}}, "not an encoded value"),  # only the result's own types are built
        ({"e": "Kind", "v": "no such kind"}, "is not a valid Kind"),
        ({"c": "Case", "v": {"id": "a", "shell": "rm -rf /"}}, "Case has no field 'shell'"),
        ({"d": [[{"t": [1]}, 1], [[1], 2]]}, "a mapping key that is a list or mapping"),
        ({"d": [[1, 2, 3]]}, "a mapping's entries are not key-value pairs"),
    ],
)
def test_anything_encode_does_not_write_is_refused(value, said):
    with pytest.raises(ValueError, match=said):
        decode(value)


def test_nesting_is_bounded():
    deep: object = 1
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(ValueError, match=f"values nested more than {MAX_DEPTH} deep"):
        decode(deep)
    assert decode(encode([[[1]]])) == [[[1]]]


def shard(tmp_path, name, index, count=2, **changes):
    document = {
        "ok": True,
        "shard": {"index": index, "count": count, "run": {"command": "check"}, "results": [], "settings": "s", "matrix": "m", **changes},
    }
    (tmp_path / name).write_text(json.dumps(document))
    return name


@pytest.mark.parametrize(
    "files, said",
    [
        (lambda p: [shard(p, "a.json", 1)], "shard 2 of 2 is missing (given: 1)"),
        (lambda p: [shard(p, "a.json", 1), shard(p, "b.json", 1)], "b.json: shard 1 again (also a.json)"),
        (lambda p: [shard(p, "a.json", 1), shard(p, "b.json", 2, matrix="other")], "b.json: from another matrix of cases than a.json"),
        (lambda p: [shard(p, "a.json", 1), shard(p, "b.json", 2, count=3)], "b.json: shard 2 of 3, but a.json is of 2"),
        (lambda p: [shard(p, "a.json", 1, results={})], "a.json: its `shard` member has no valid 'results'"),
        (lambda p: [(p / "x.json").write_text("{}") and "x.json"], "x.json: not the JSON result of a `--shard K/N` run"),
        (lambda p: [(p / "x.json").write_text("{") and "x.json"], "x.json: not JSON"),
        (lambda p: ["gone.json"], "gone.json: no such file"),
        # A shard file is data (issue 53): it never sets merge's own options, opens no file outside, and its count is
        # checked before use (1e9 was a list of a billion missing shards).
        (lambda p: [shard(p, "a.json", 1, count=1, run={"command": "check", "report": []})], "a.json: its `run` member holds 'report'"),
        (
            lambda p: [shard(p, "a.json", 1, count=1, run={"command": "check", "cache_dir": "x"})],
            "a.json: its `run` member holds 'cache_dir'",
        ),
        (lambda p: [shard(p, "a.json", 1, count=1, run={"command": "check", "base": 1})], "a.json: its `run` member's 'base' is not"),
        (
            lambda p: [shard(p, "a.json", 1, count=1, run={"command": "check", "settings": "/etc/passwd"})],
            "--settings '/etc/passwd' is not inside",
        ),
        (
            lambda p: [shard(p, "a.json", 1, count=1, run={"command": "check", "contracts": "../c.yaml"})],
            "--contracts '../c.yaml' is not inside",
        ),
        (lambda p: [shard(p, "a.json", 1, count=10**9)], "a.json: shard 1 of 1000000000 is not a shard of at most 256"),
    ],
)
def test_results_that_are_not_the_shards_of_one_run_are_one_line(tmp_path, cli, files, said):
    run = cli("merge", *files(tmp_path), cwd=tmp_path)
    assert run.code == 2 and run.out == "" and run.err.count("\n") == 1 and said in run.err, run.err
