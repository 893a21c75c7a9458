"""The public Python API (harness/api.py, docs/python-api.md): every name in `harness.__all__` resolves, and the
facade runs a check from a path, a str or loaded settings, as the CLI would."""

from __future__ import annotations

import json

import pytest

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


def test_the_public_names_are_the_four_functions_their_values_and_their_errors():
    values = {"Settings", "MatrixResult", "CaseResult", "Case", "Finding", "Kind", "Severity", "Status"}
    assert set(harness.__all__) == {"__version__", "load", "check", "generate", "report", *values, "BadInput", "ArgumentError"}


def _project(tmp_path):
    write_tree(tmp_path / "conf", SMALL_TREE)
    (tmp_path / "harness.toml").write_text(SMALL_SETTINGS)
    return tmp_path / "harness.toml"


def test_generate_writes_the_goldens_check_then_passes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = _project(tmp_path)
    assert not harness.check(settings).ok  # no golden yet
    written = harness.generate(settings, cases="train/cpu/*")
    assert sorted(case.case.id for case in written.cases if case.written) == ["train/cpu/default", "train/cpu/fast", "train/cpu/sgd"]
    assert harness.check(settings, cases="train/cpu/*").ok and not harness.check(settings).ok  # the other cases have none
    assert harness.generate(settings).ok and harness.check(settings).ok


def test_a_bad_argument_is_one_typed_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = _project(tmp_path)
    result = harness.check(settings, cases="train/cpu/*")  # one glob, not its letters
    assert {case.case.id for case in result.cases} == {"train/cpu/default", "train/cpu/fast", "train/cpu/sgd"}
    wrong = [
        (lambda: harness.report(result, "jsn"), ValueError, "format: 'jsn' is not a report format; did you mean 'json'?"),
        (lambda: harness.report({"ok": True}), TypeError, "result: a MatrixResult"),
        (lambda: harness.check(settings, cases=["train/*", 3]), TypeError, "cases: a case-id glob or a list of them"),
        (lambda: harness.check(3), TypeError, "settings: a Settings (harness.load), a path or None, not int 3"),
        (lambda: harness.check(settings, strict_waivers="no"), TypeError, "strict_waivers: True or False, not str 'no'"),
        (lambda: harness.generate(settings, prune=1), TypeError, "prune: True or False, not int 1"),
        (lambda: harness.load(start=2), TypeError, "start: a path"),
    ]
    for call, python_kind, line in wrong:
        with pytest.raises(harness.ArgumentError) as caught:
            call()
        assert isinstance(caught.value, python_kind) and isinstance(caught.value, harness.BadInput)
        assert str(caught.value).startswith(line) and "\n" not in str(caught.value)
    assert not (tmp_path / "snapshots").exists()  # nothing was written by a call refused
