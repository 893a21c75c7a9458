"""End to end on anemoi-training 0.17.1's real config tree (its PyPI wheel, config folder only, never imported).

Its group options include YAML lists (`diagnostics/callbacks/placeholder.yaml` is `[]`), its graphs are lists of
mappings, and it has three roots and 25 models: plain Hydra composes all of them, so must the harness.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.baselines.releases import fetch_wheel_tree
from tests.conftest import CACHE
from tests.e2e.real_trees import (
    Project,
    assert_goldens_equal_plain_hydra,
    check_edit,
    run_cli,
    shared_project,
)

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("anemoi")]

SETTINGS = """roots = ["config", "lam", "stretched"]
engine_group = "model"

[presets]
default = []
short = ["training.max_epochs=2", "dataloader.batch_size.training=1", "dataloader.num_workers.training=2"]

[[routes]]
name = "rollout"
config_name = "config"
overrides = ["diagnostics/callbacks=rollout_eval", "model=graphtransformer"]

[[routes]]
name = "hierarchical"
config_name = "config"
overrides = ["graph=hierarchical_2level", "model=graphtransformer"]
"""
# Edits are checked on a part of the matrix (every root, preset and route, two models): plain Hydra is slow.
NARROWER = 'engines = ["gnn", "graphtransformer"]\n'


@pytest.fixture(scope="session")
def anemoi(tmp_path_factory: pytest.TempPathFactory) -> Project:
    def fetch() -> Path:
        return fetch_wheel_tree("anemoi-training==0.17.1", "anemoi/training/config", CACHE / "anemoi-training-0.17.1")

    return shared_project(tmp_path_factory, "anemoi", fetch, SETTINGS)


def test_every_golden_equals_plain_hydra_and_nothing_plain_hydra_composes_fails(anemoi):
    assert len(anemoi.cases) == 3 * 25 * 2 + 2
    assert_goldens_equal_plain_hydra(anemoi)


def test_a_cutoff_inside_the_graph_edges_list_fails_exactly_the_changed_cases_and_names_the_element(anemoi, tmp_path):
    report, changed = check_edit(anemoi, tmp_path, "graph/multi_scale.yaml", "cutoff_factor: 0.6", "cutoff_factor: 0.7", NARROWER)
    for case in report["cases"]:
        if case["id"] in changed:
            (finding,) = [f for f in case["findings"] if f["kind"] == "changed"]
            assert finding["path"] == "graph.edges"  # a list is one value
            assert finding["detail"] == ["graph.edges[0].edge_builders[0].cutoff_factor: 0.6 -> 0.7"]
            assert finding["detail"][0] in finding["message"]


def test_a_model_width_edit_fails_exactly_the_changed_cases(anemoi, tmp_path):
    check_edit(anemoi, tmp_path, "model/graphtransformer.yaml", "num_channels: 1024\n", "num_channels: 512\n", NARROWER)


def test_a_lam_training_edit_fails_exactly_the_changed_cases(anemoi, tmp_path):
    # The `short` preset sets max_epochs itself, so its lam cases must stay ok.
    _, changed = check_edit(anemoi, tmp_path, "training/lam.yaml", "max_epochs: null", "max_epochs: 10", NARROWER)
    assert {case_id.split("/")[0] for case_id in changed} == {"lam"}
    assert not any(case_id.endswith("/short") for case_id in changed)


def test_list_valued_options_have_a_source(anemoi):
    code, out = run_cli("--settings", str(anemoi.folder / "harness.toml"), "explain", "diagnostics.callbacks", "--case", "route/rollout")
    assert code == 0, out
    assert str(Path("diagnostics") / "callbacks" / "rollout_eval.yaml") in out
