"""The value the program sees, on a small tree with its own package: target findings, explain, contracts, review."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import git

MARKER = "imported.marker"
# Importing either module would create the marker file next to the settings: the test proves it never appears.
SIDE_EFFECT = f"open({MARKER!r}, 'w').write('imported')\n"
PROJECT = {
    "harness.toml": """
        config_dir = "conf"
        snapshot_dir = "snapshots"
        roots = ["train"]
        python_sources = ["src/app"]
        contracts = ["contracts.yaml"]
        """,
    "contracts.yaml": """
        contracts:
          - name: depth-pinned
            program_view: true
            require: [model.depth]
            equal: {model.depth: 4}
        """,
    "conf/train.yaml": """
        model:
          _target_: app.Model
          width: 3
          bogus: 1
          layers:
            qkv: q
        optim:
          _target_: app.optim.Adam
          lr: 0.1
        data:
          _target_: app.models.Data
        """,
    "src/app/__init__.py": SIDE_EFFECT + "from .models import Model, Data\n",
    "src/app/models.py": SIDE_EFFECT
    + textwrap.dedent("""
        from dataclasses import dataclass, field


        @dataclass
        class Model:
            width: int = 8
            depth: int = 4
            layers: dict = field(default_factory=lambda: {"qkv": "qkv_proj"})


        @dataclass
        class Data:
            path: str
            batch: int = 32
        """),
}
CASE = "train/base/default"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_tree(tmp_path, PROJECT)
    return tmp_path


def target_findings(report: dict) -> dict[str, dict]:
    (case,) = report["cases"]
    return {f["path"]: f for f in case["findings"] if f["kind"] == "target"}


def line_of(file: Path, text: str) -> int:
    return next(number for number, line in enumerate(file.read_text().splitlines(), 1) if text in line)


def test_check_reports_each_target_finding_without_importing_the_package(project, cli):
    models = project / "src/app/models.py"
    run = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project)
    assert run.code == 1
    found = target_findings(run.json())
    assert {path: f["detail"]["reason"] for path, f in found.items()} == {
        "model.bogus": "undeclared",
        "model.depth": "defaulted",
        "optim._target_": "missing_class",
        "data.path": "required",
        "data.batch": "defaulted",
    }
    assert found["optim._target_"]["severity"] == "error" and found["optim._target_"]["source"] == "conf/train.yaml:8"
    assert found["model.bogus"]["severity"] == "error" and found["data.path"]["severity"] == "error"
    depth = found["model.depth"]
    assert depth["severity"] == "info" and depth["detail"]["default"] == 4
    assert depth["detail"]["source"] == f"src/app/models.py:{line_of(models, 'depth: int = 4')}"
    assert run.json()["cases"][0]["targets"] == {"missing_class": 1, "undeclared": 1, "required": 1, "defaulted": 2}
    # Nothing of the source folder was imported: no module ran (no marker file), none is loaded.
    assert not (project / MARKER).exists()
    assert "app" not in sys.modules and "app.models" not in sys.modules


def test_the_text_report_prints_the_counts_in_one_line_and_python_defaults_only_on_request(project, cli):
    run = cli("--settings", "harness.toml", "check", cwd=project)
    assert not [line for line in run.out.splitlines() if line.startswith("Program view")]  # the same every run: on request
    assert "the program uses the Python default" not in run.out
    run = cli("--settings", "harness.toml", "check", "--verbose", cwd=project)
    lines = [line for line in run.out.splitlines() if line.startswith("Program view")]
    assert lines == [
        "Program view (classes read from python_sources; an upper bound): 1 missing classes, "
        "1 required fields without a value; per case: 1 undeclared, 2 Python-defaulted on train/base/default"
    ]
    assert "the program uses the Python default 4" in run.out
    # A review reports what the change did; the counts are check's (its notes are not kept there, so they would read 0).
    assert cli("--settings", "harness.toml", "generate").code == 1  # written; the target errors stay errors
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    review = cli("--settings", "harness.toml", "diff", "--base", "main")
    assert review.code == 0 and "Program view" not in review.out, review.out  # the base's errors are not this change's


def test_explain_names_the_python_default_of_a_key_the_yaml_lacks(project, cli):
    run = cli("--settings", "harness.toml", "explain", "model.depth", "--case", CASE, cwd=project)
    line = line_of(project / "src/app/models.py", "depth: int = 4")
    assert run.code == 0
    assert run.out.startswith(f"model.depth: not in the config; the program uses the Python default 4 (src/app/models.py:{line})")
    assert cli("--settings", "harness.toml", "explain", "model.nothing", "--case", CASE, cwd=project).code == 2


def test_a_contract_with_program_view_holds_on_the_python_default_and_fails_when_it_differs(project, cli):
    def contract_messages() -> list[str]:
        report = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json()
        return [f["message"] for f in report["cases"][0]["findings"] if f["kind"] == "contract"]

    assert contract_messages() == []
    models = project / "src/app/models.py"
    models.write_text(models.read_text().replace("depth: int = 4", "depth: int = 6"))
    assert contract_messages() == ["depth-pinned: model.depth must equal 4 but is 6"]


def test_a_review_shows_a_dropped_key_as_old_yaml_value_to_python_default_with_the_class_line(project, cli):
    cli("--settings", "harness.toml", "generate", cwd=project)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    train = project / "conf/train.yaml"
    train.write_text(train.read_text().replace("  layers:\n    qkv: q\n", "").replace("width: 3", "width: 8"))
    run = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    findings = {f["path"]: f for f in run.json()["cases"][0]["findings"]}
    layers = findings["model.layers"]
    line = line_of(project / "src/app/models.py", "layers: dict")
    assert (layers["kind"], layers["old"], layers["new"], layers["via"]) == ("changed", {"qkv": "q"}, {"qkv": "qkv_proj"}, "python default")
    assert layers["source"] == f"src/app/models.py:{line}"
    assert "model.layers.qkv" not in findings  # one finding, not a removed leaf beside it
    width = findings["model.width"]
    assert (width["old"], width["new"]) == (3, 8) and "now agrees with the Python default 8" in width["message"]
    text = cli("--settings", "harness.toml", "diff", "--base", "main", cwd=project).out
    assert (
        f'model.layers: {{"qkv": "q"}} -> {{"qkv": "qkv_proj"}} (via python default)  (train/base/default; set by src/app/models.py:{line})'
        in text
    )
    width_line = line_of(project / "src/app/models.py", "width: int = 8")
    assert f"model.width: 3 -> 8 (the YAML now agrees with the Python default, src/app/models.py:{width_line})" in text
    assert not (project / MARKER).exists()


def test_a_review_finds_the_bases_errors_with_the_bases_python_never_the_pull_requests(project, cli):
    """A Python default the pull request changes breaks a program-view contract: that error is the change's own,
    so the base's errors must be found with the base's classes (with the working tree's it looked 'already at base')."""
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 1
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    models = project / "src" / "app" / "models.py"
    models.write_text(models.read_text().replace("    depth: int = 4", "    depth: int = 5"))
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    errors = [f for c in review.json()["cases"] for f in c["findings"] if f["severity"] == "error" and f["kind"] == "contract"]
    assert review.code == 1 and [f["origin"] for f in errors] == ["introduced"], review.out
    assert not (project / MARKER).exists()  # neither side's package was imported


def test_verbose_lists_the_errors_already_at_the_base_without_saying_verbose_would(project, cli):
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 1
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    short = cli("--settings", "harness.toml", "diff", "--base", "main").out
    assert "3 errors already at base (1 case, 3 distinct; --verbose lists them)" in short
    verbose = cli("--settings", "harness.toml", "diff", "--base", "main", "--verbose").out.splitlines()
    heading = verbose.index("3 errors already at base (1 case, 3 distinct):")
    assert all(line.startswith("  ERROR ") for line in verbose[heading + 1 : heading + 4])
    assert not any("--verbose lists them" in line for line in verbose)


def test_a_changed_python_default_no_yaml_sets_is_a_changed_value_in_a_review(project, cli):
    """Python defaults are values (issue 30): `batch: int = 32 -> 64` changes what the program gets for
    `data.batch`, which no config sets; the review says so, from both sides' classes, read and never imported."""
    cli("--settings", "harness.toml", "generate", cwd=project)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    models = project / "src" / "app" / "models.py"
    unchanged = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json").json()
    assert not [f for c in unchanged["cases"] for f in c["findings"] if f.get("via") == "python default"]
    models.write_text(models.read_text().replace("    batch: int = 32", "    batch: int = 64"))
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    via = [f for c in review.json()["cases"] for f in c["findings"] if f.get("via") == "python default"]
    line = line_of(models, "batch: int = 64")
    assert [(f["kind"], f["path"], f["old"], f["new"], f["severity"], f["source"]) for f in via] == [
        ("changed", "data.batch", 32, 64, "info", f"src/app/models.py:{line}")
    ]
    text = cli("--settings", "harness.toml", "diff", "--base", "main").out
    assert "data.batch: 32 -> 64 (via python default)" in text
    assert not (project / MARKER).exists()
