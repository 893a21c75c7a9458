"""`--shard K/N`: K/N checked, and a plan that gives every case to exactly one shard, the same on every runner,
keeping the cases that share a base together unless that would leave the shards uneven."""

import re

import pytest

from harness.composition.shards import MAX_SHARDS, Shard, ShardError, plan
from harness.model.matrix import Case


def cases(bases: int, presets: int) -> list[Case]:
    return [Case(f"train/e{b}/p{p}", "train", (f"engine=e{b}", *(["x=1"] * p))) for b in range(bases) for p in range(presets)]


@pytest.mark.parametrize(
    "text, said",
    [
        ("1", "expected K/N"),
        ("0/2", "K must be between 1 and N (2)"),
        ("3/2", "K must be between 1 and N"),
        ("1/0", "N must be between 1 and"),
    ],
)
def test_only_k_of_n_is_a_shard(text, said):
    with pytest.raises(ShardError, match=re.escape(said)):
        Shard.parse(text)


def test_a_shard_reads_and_prints_as_k_of_n():
    assert Shard.parse(" 2/3 ") == Shard(2, 3) and str(Shard(2, 3)) == "2/3" and Shard(2, 3).as_dict() == {"index": 2, "count": 3}
    with pytest.raises(ShardError):
        Shard.parse(f"1/{MAX_SHARDS + 1}")


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_every_case_goes_to_exactly_one_shard(count):
    matrix = cases(5, 4)
    shards = plan(matrix, count)
    assert len(shards) == count
    assert sorted(i for shard in shards for i in shard) == list(range(len(matrix)))
    assert plan(matrix, count) == shards  # the same plan on every runner
    assert [case.id for case in Shard(1, count).cases(matrix)] == [matrix[i].id for i in shards[0]]


def test_launches_are_dealt_every_nth():
    ids = [f"cmd/{i}" for i in range(7)]
    assert Shard(1, 3).launches(ids) == ["cmd/0", "cmd/3", "cmd/6"]
    assert Shard(3, 3).launches(ids) == ["cmd/2", "cmd/5"]


def test_more_shards_than_cases_leaves_some_empty():
    shards = plan(cases(1, 1), 3)
    assert sorted(len(shard) for shard in shards) == [0, 0, 1]
