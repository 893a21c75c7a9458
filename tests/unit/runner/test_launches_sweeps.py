"""A launch that sweeps (issue 54 item 2), on a small real project: one launch per point of Hydra's basic sweeper,
each composed as Hydra runs it; a sweep Hydra refuses, one that runs nothing and one in a plain run are errors of
their own; one a sweeper plugin runs, or one past the bound, is checked as far as it can be and said."""

from __future__ import annotations

import pytest

from harness.model.findings import ERROR, WARNING
from harness.runner.launches import (
    SWEEP_EMPTY,
    SWEEP_IN_PART,
    SWEEP_PLUGIN,
    SWEEP_REFUSED,
    SWEEP_UNRUN,
    Checked,
    Composer,
    Project,
    case_result,
    command_cases,
    tally,
)
from tests.conftest import write_tree

OPTUNA = "hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper"
PROJECT = {
    "app/__init__.py": "",
    "app/train.py": "import hydra\n\n@hydra.main(config_path='conf', config_name='train', version_base=None)\ndef main(cfg): ...\n",
    "app/conf/train.yaml": "defaults:\n  - optim: adam\n  - _self_\ntrainer:\n  lr: 0.1\n  epochs: 3\n",
    "app/conf/optim/adam.yaml": "name: adam\n",
    "app/conf/optim/sgd.yaml": "name: sgd\n",
    "app/conf/hydra/sweeper/optuna.yaml": f"_target_: {OPTUNA}\nn_trials: 20\n",
    "app/conf/search/optuna.yaml": "# @package _global_\ndefaults:\n  - override /hydra/sweeper: optuna\nhydra:\n  mode: MULTIRUN\n",
    "app/conf/search/grid.yaml": "# @package _global_\nhydra:\n  mode: MULTIRUN\n  sweeper:\n    params:\n      trainer.epochs: 1,2\n",
    "scripts/sweep.sh": """
        LRS=0.1,0.01
        python3 -m app.train -m trainer.lr=$LRS \\
            'optim=glob(*)'
        python3 -m app.train trainer.lr=0.1,0.2
        python3 -m app.train +search=grid trainer.lr=0.5,0.6
        python3 -m app.train +search=optuna 'trainer.lr=interval(0.1,0.2)' trainer.epochs=4
        python3 -m app.train -m 'trainer.lr=interval(0.1,0.2)'
        python3 -m app.train -m hydra.job.name=a,b
        python3 -m app.train -m "optim=glob(lion*)"
        python3 -m app.train -m 'trainer.epochs=range(0,100)' trainer.lr=1,2,3
        python3 -m app.train --multirun trainer.lr=$1,0.5
        """,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = write_tree(tmp_path_factory.mktemp("sweeps"), PROJECT)
    return Project(root, root / "app" / "conf", {})


@pytest.fixture(scope="module")
def checked(project: Project) -> dict[str, Checked]:
    composer = Composer(project.root)
    cases = composer.expanded(command_cases(project, [project.root / "scripts" / "sweep.sh"]))
    return {c.case.id: c for c in composer.check(cases)}


def launch(checked: dict[str, Checked], number: int) -> dict[str, Checked]:
    prefix = f"cmd/scripts/sweep.sh#{number}"
    return {case_id: c for case_id, c in checked.items() if case_id == prefix or case_id.startswith(prefix + "(")}


def test_a_launch_run_with_m_is_one_launch_per_point_each_composed_at_its_script_lines(checked):
    points = launch(checked, 1)
    assert list(points) == [
        "cmd/scripts/sweep.sh#1(trainer.lr=0.1,optim=adam)",
        "cmd/scripts/sweep.sh#1(trainer.lr=0.1,optim=sgd)",
        "cmd/scripts/sweep.sh#1(trainer.lr=0.01,optim=adam)",
        "cmd/scripts/sweep.sh#1(trainer.lr=0.01,optim=sgd)",
    ]
    assert all(not c.failures and c.config is None for c in points.values())
    first = points["cmd/scripts/sweep.sh#1(trainer.lr=0.1,optim=sgd)"]
    assert [(o.text, o.line) for o in first.case.launch.overrides] == [("trainer.lr=0.1", 2), ("optim=sgd", 3)]
    assert first.case.point == ("trainer.lr=0.1", "optim=sgd")


def test_a_sweep_in_a_plain_run_is_refused_as_hydra_refuses_it(checked):
    (only,) = launch(checked, 2).values()
    assert [(f.reason, f.key) for f in only.failures] == [(SWEEP_UNRUN, "trainer.lr")]
    assert "add -m" in only.failures[0].message


def test_a_config_that_sets_hydra_mode_multirun_sweeps_without_m_with_its_sweeper_params_first(checked):
    points = launch(checked, 3)
    assert list(points) == [
        "cmd/scripts/sweep.sh#3(trainer.epochs=1,trainer.lr=0.5)",
        "cmd/scripts/sweep.sh#3(trainer.epochs=1,trainer.lr=0.6)",
        "cmd/scripts/sweep.sh#3(trainer.epochs=2,trainer.lr=0.5)",
        "cmd/scripts/sweep.sh#3(trainer.epochs=2,trainer.lr=0.6)",
    ]
    point = points["cmd/scripts/sweep.sh#3(trainer.epochs=2,trainer.lr=0.6)"]
    assert [(o.text, o.line) for o in point.case.launch.overrides] == [("trainer.epochs=2", 5), ("+search=grid", 5), ("trainer.lr=0.6", 5)]
    assert not point.failures


def test_a_sweeper_plugin_s_launch_is_checked_once_without_its_sweep_and_named(checked):
    (only,) = launch(checked, 4).values()
    assert [o.text for o in only.case.launch.overrides] == ["+search=optuna", "trainer.epochs=4"]
    assert not only.failures
    (note,) = [f for f in case_result(only).findings if f.severity == WARNING]
    assert note.message.startswith(f"{SWEEP_PLUGIN}: the sweeper {OPTUNA} chooses the points when it runs")
    assert "not checked: trainer.lr=interval(0.1,0.2)" in note.message and str(note.source) == "scripts/sweep.sh:6"


@pytest.mark.parametrize(
    ("number", "reason", "said"),
    [
        (5, SWEEP_REFUSED, "the basic sweeper does not support interval sweeps"),
        (6, SWEEP_REFUSED, "Hydra does not sweep over its own configuration: hydra.job.name=a,b"),
        (7, SWEEP_EMPTY, "its sweep has no point, so it runs nothing: optim=glob(lion*)"),
    ],
)
def test_a_sweep_hydra_refuses_or_that_runs_nothing_is_an_error_at_its_line(checked, number, reason, said):
    (only,) = launch(checked, number).values()
    (error,) = case_result(only).findings
    assert (error.severity, error.detail.reason) == (ERROR, reason) and said in error.message
    assert str(error.source) == f"scripts/sweep.sh:{number + 2}"


def test_a_sweep_past_the_bound_checks_each_value_once_and_says_so_once(checked):
    points = launch(checked, 8)
    assert len(points) == 64  # range(0,100) x 3 values: 300 runs; the bound's 64, each lr among them
    assert {c.case.point[1] for c in points.values()} == {"trainer.lr=1", "trainer.lr=2", "trainer.lr=3"}
    notes = [f for c in points.values() for f in case_result(c).findings]
    (note,) = notes
    assert note.severity == WARNING and note.detail.reason == SWEEP_IN_PART
    assert "a sweep of 300 runs, more than 64: 64 checked, which take each of the first 64 values of each swept key once" in note.message


def test_a_value_the_script_is_given_stays_its_own_text_at_each_point(checked):
    points = launch(checked, 9)
    assert list(points) == ["cmd/scripts/sweep.sh#9(trainer.lr=$1)", "cmd/scripts/sweep.sh#9(trainer.lr=0.5)"]
    unknown = points["cmd/scripts/sweep.sh#9(trainer.lr=$1)"].case.launch.overrides[0]
    assert unknown.shown == "trainer.lr=$1" and unknown.unknown == ("$1",)
    assert points["cmd/scripts/sweep.sh#9(trainer.lr=0.5)"].case.launch.overrides[0].unknown == ()


def test_each_point_counts_as_a_launch(checked):
    counted = tally(checked.values())
    assert (counted.found, counted.failing) == (len(checked), 4)
