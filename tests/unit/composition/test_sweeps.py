"""A multirun's points as Hydra's basic sweeper makes them (harness/composition/sweeps.py): Hydra's parser and its
`split_arguments` give the points, glob sweeps list a group's options through the session's loader, and the bound holds
before anything is listed (a sweep of a trillion points costs what its text costs)."""

from __future__ import annotations

import time

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from harness.composition import sweeps
from harness.composition.compose import HydraSession
from tests.conftest import write_tree

TREE = {
    "train.yaml": "defaults:\n  - db: mysql\n  - _self_\nlr: 0.1\nseed: 1\n",
    "db/mysql.yaml": "port: 3306\n",
    "db/postgres.yaml": "port: 5432\n",
    "db/sqlite.yaml": "port: 0\n",
}


def parsed(*texts: str) -> list[tuple[int, object]]:
    return list(enumerate(OverridesParser.create().parse_overrides(list(texts))))


def texts(found: sweeps.Points) -> list[list[str]]:
    return [[text for _, text in point.overrides] for point in found.points]


def test_the_points_are_hydra_s_product_in_hydra_s_order_each_override_with_its_argument():
    found = sweeps.points(parsed("lr=0.1,0.01", "seed=range(1,3)", "db=mysql"), None)
    assert texts(found) == [
        ["lr=0.1", "seed=1", "db=mysql"],
        ["lr=0.1", "seed=2", "db=mysql"],
        ["lr=0.01", "seed=1", "db=mysql"],
        ["lr=0.01", "seed=2", "db=mysql"],
    ]
    assert found.total == 4 and found.all_listed
    assert [point.swept for point in found.points][1] == ("lr=0.1", "seed=2")  # what names the point: what varies
    assert [index for index, _ in found.points[0].overrides] == [0, 1, 2]


def test_a_key_written_twice_keeps_its_first_place_and_its_last_value_as_hydra_s_sweeper_does():
    found = sweeps.points(parsed("lr=1,2", "seed=5", "lr=3"), None)
    assert texts(found) == [["lr=3", "seed=5"]]
    assert found.points[0].overrides == ((2, "lr=3"), (1, "seed=5"))  # the argument that wrote the value
    assert found.points[0].swept == ()


def test_choice_and_shuffle_are_read_by_hydra_s_parser_and_a_shuffle_keeps_the_order_written():
    for _ in range(5):  # Hydra shuffles at random: the same points, named alike on every run
        found = sweeps.points(parsed("lr=shuffle(0.3,0.1,0.2)", "seed=choice(7)"), None)
        assert texts(found) == [["lr=0.3", "seed=7"], ["lr=0.1", "seed=7"], ["lr=0.2", "seed=7"]]
    assert found.points[0].swept == ("lr=0.3", "seed=7")  # a one-value choice is still a sweep the point names


def test_a_glob_lists_the_group_s_options_through_the_session_s_loader(tmp_path):
    conf = write_tree(tmp_path / "conf", TREE)
    with HydraSession(conf) as session:
        found = sweeps.points(parsed("db=glob(*,exclude=sqlite)"), session.loader)
    assert texts(found) == [["db=mysql"], ["db=postgres"]]


def test_past_the_bound_each_swept_value_is_checked_once_and_nothing_is_listed_whole():
    started = time.process_time()
    found = sweeps.points(parsed("seed=range(0,1000000000000)", "lr=0.1,0.2,0.3", "db=x"), None, limit=8)
    assert time.process_time() - started < 1  # counted, never listed: a trillion points cost what their text costs
    assert found.total == 3 * 10**12 and not found.all_listed and found.longest == 10**12
    assert texts(found)[:4] == [
        ["seed=0", "lr=0.1", "db=x"],
        ["seed=1", "lr=0.2", "db=x"],
        ["seed=2", "lr=0.3", "db=x"],
        ["seed=3", "lr=0.1", "db=x"],
    ]
    assert len(found.points) == 8

    small = sweeps.points(parsed("a=1,2,3", "b=1,2,3"), None, limit=8)  # 9 points: each value once, in 3
    assert texts(small) == [["a=1", "b=1"], ["a=2", "b=2"], ["a=3", "b=3"]] and small.longest == 3


def test_a_float_range_is_counted_by_walking_it_at_most_so_far():
    found = sweeps.points(parsed("lr=range(0,1,0.25)"), None)
    assert texts(found) == [["lr=0.0"], ["lr=0.25"], ["lr=0.5"], ["lr=0.75"]]
    huge = sweeps.points(parsed("lr=range(0,1,0.00000001)"), None, limit=4)
    assert not huge.exact and huge.total == sweeps.COUNTED and len(huge.points) == 4


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("lr=interval(0.1,0.2)", "does not support interval sweeps"),
        ("lr=range(1,5,0)", "lr=range(1,5,0)"),
    ],
)
def test_a_sweep_the_basic_sweeper_refuses_is_refused_in_one_line(text, said):
    with pytest.raises(sweeps.SweepRefused, match=said.replace("(", r"\(").replace(")", r"\)")):
        sweeps.points(parsed(text), None)


def test_a_sweep_with_an_empty_value_list_has_no_point():
    found = sweeps.points(parsed("seed=range(5,1)", "lr=1,2"), None)
    assert found.points == () and found.total == 0


@pytest.mark.parametrize(
    ("text", "sweep"),
    [("a=1,2", True), ("a=range(3)", True), ("a=glob(*)", True), ("a=[1,2]", False), ("a='1,2'", False), ("a=f(", False), ("a=1", False)],
)
def test_is_sweep_asks_hydra_s_parser(text, sweep):
    assert sweeps.is_sweep(text) is sweep


def test_the_sweeper_run_mode_and_params_are_read_from_a_composition_s_hydra_subtree(tmp_path):
    conf = write_tree(
        tmp_path / "conf",
        {
            **TREE,
            "hydra/sweeper/optuna.yaml": "_target_: hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper\n",
            "grid.yaml": "defaults:\n  - train\n  - _self_\nhydra:\n  mode: MULTIRUN\n  sweeper:\n    params:\n      seed: 1,2\n",
        },
    )
    with HydraSession(conf) as session:
        plain = session.hydra_node("train", [])
        grid = session.hydra_node("grid", [])
        optuna = session.hydra_node("train", ["hydra/sweeper=optuna"])
    assert (sweeps.sweeper_of(plain), sweeps.mode_of(plain), sweeps.sweep_params(plain)) == ("", "", [])
    assert (sweeps.sweeper_of(grid), sweeps.mode_of(grid), sweeps.sweep_params(grid)) == ("", "MULTIRUN", ["seed=1,2"])
    assert sweeps.sweeper_of(optuna) == "hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper"
