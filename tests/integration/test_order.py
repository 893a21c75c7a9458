"""Order is compared (issue 54 item 3), on a small Lightning-style project: swapping two callbacks changes what the
program builds first, and a review says so (kind `order`, the collection and both orders), on the matrix's case and on
a launch; goldens keep sorted keys, so the swap rewrites none of them and `check` stays green."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import commit_small_project, write_tree

DEFAULTS = "defaults:\n  - {}\n  - {}\n  - _self_\n"
PROJECT = {
    "conf/train.yaml": "defaults:\n  - callbacks: default\n  - _self_\ntrainer:\n  max_epochs: 3\n",
    "conf/callbacks/default.yaml": DEFAULTS.format("early_stopping", "checkpoint"),
    "conf/callbacks/early_stopping.yaml": "early_stopping:\n  _target_: lightning.pytorch.callbacks.EarlyStopping\n  patience: 3\n",
    "conf/callbacks/checkpoint.yaml": "checkpoint:\n  _target_: lightning.pytorch.callbacks.ModelCheckpoint\n  save_top_k: 1\n",
    "app/__init__.py": "",
    "app/main.py": "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n",
    "scripts/run.sh": "python -m app.main trainer.max_epochs=5\n",
    "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n\n[[commands]]\nglob = "scripts/*.sh"\n',
}
ORDER = ("order", "callbacks", ["early_stopping", "checkpoint"], ["checkpoint", "early_stopping"])


@pytest.fixture
def swapped(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, PROJECT)
    project = commit_small_project(tmp_path, cli, None)
    (project / "conf/callbacks/default.yaml").write_text(DEFAULTS.format("checkpoint", "early_stopping"))
    return project


def order_findings(report: dict) -> dict[str, list[tuple]]:
    return {
        case["id"]: [(f["kind"], f["path"], f["old"], f["new"]) for f in case["findings"] if f["kind"] == "order"]
        for case in report["cases"]
    }


def test_swapping_two_callbacks_is_an_order_change_in_the_review_and_rewrites_no_golden(swapped, cli):
    generated = cli("--settings", "harness.toml", "generate")
    assert generated.code == 0 and "0 changed" in generated.out  # goldens keep sorted keys: no churn
    assert cli("--settings", "harness.toml", "check").code == 0

    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert review.code == 0  # news, as any changed value in a review
    found = order_findings(review.json())
    assert found == {"train/base/default": [ORDER], "cmd/scripts/run.sh#1": [ORDER]}
    (case,) = [c for c in review.json()["cases"] if c["id"] == "train/base/default"]
    assert case["status"] == "changed" and case["findings"][0]["severity"] == "info"
    text = cli("--settings", "harness.toml", "diff", "--base", "main").out
    assert "ORDER callbacks: early_stopping, checkpoint -> checkpoint, early_stopping (the order they are built in)" in text


def test_a_tree_diff_names_the_order_change_too(swapped, cli, tmp_path):
    base = tmp_path.parent / f"{tmp_path.name}-base"
    write_tree(base, {name: text for name, text in PROJECT.items() if name.startswith("conf/")})
    diff = cli("--settings", "harness.toml", "diff", str(base / "conf"), "conf", "--format", "json")
    assert [(f["kind"], f["path"], f["old"], f["new"]) for c in diff.json()["cases"] for f in c["findings"]] == [ORDER]
