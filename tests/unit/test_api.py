"""The public Python API (harness/api.py, docs/python-api.md): every name in `harness.__all__` resolves, and the
facade runs a check from a path, a str or loaded settings, as the CLI would."""

from __future__ import annotations

import json

import harness
from harness.model.findings import MatrixResult
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree


def test_every_public_name_resolves():
    for name in harness.__all__:
        assert getattr(harness, name) is not None, name
    assert callable(harness.check) and callable(harness.load) and callable(harness.report)


def test_check_from_a_str_a_path_or_settings_equals_the_cli(tmp_path, monkeypatch, cli):
    write_tree(tmp_path / "conf", SMALL_TREE)
    table = SMALL_SETTINGS.replace("[presets]", "[tool.config-harness.presets]").replace("[[routes]]", "[[tool.config-harness.routes]]")
    (tmp_path / "pyproject.toml").write_text("[tool.config-harness]\n" + table)
    assert cli("generate", cwd=tmp_path).code == 0
    (tmp_path / "conf/train.yaml").write_text((tmp_path / "conf/train.yaml").read_text().replace("epochs: 3", "epochs: 4"))

    by_start = harness.check(harness.load(start=str(tmp_path)))  # a str, as a script passes it
    by_path = harness.check(tmp_path / "pyproject.toml", cases=["train/cpu/*"])
    assert isinstance(by_start, MatrixResult) and not by_start.ok
    assert {case.case.id for case in by_path.cases} == {"train/cpu/default", "train/cpu/fast", "train/cpu/sgd"}
    changed = {(f.kind, f.path, f.old, f.new) for case in by_path.cases for f in case.findings}
    assert ("changed", "trainer.epochs", 3, 4) in changed

    command = cli("check", "--format", "json")
    assert json.loads(harness.report(by_start, "json"))["cases"] == command.json()["cases"]
