"""Config writes in code (issue 43 item 1), on a small project with its own package: a review names every write the
pull request adds, removes or changes in the code an entry point reaches and in a `_target_` class's `__post_init__`,
with its file, line and key; `explain` names the code after the YAML's provenance. Nothing is imported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.integration.test_targets import MARKER, SIDE_EFFECT, line_of
from tests.synthetic_history import git

CASE = "train/base/default"
PROJECT = {
    "harness.toml": """
        config_dir = "conf"
        snapshot_dir = "snapshots"
        roots = ["train"]
        python_sources = ["src/app"]
        """,
    "conf/train.yaml": """
        model:
          _target_: app.models.Model
          width: 3
        trainer:
          epochs: 1
          device: cpu
        """,
    "src/app/__init__.py": SIDE_EFFECT,
    "src/app/models.py": SIDE_EFFECT
    + textwrap.dedent("""
        from dataclasses import dataclass


        @dataclass
        class Model:
            width: int = 8
            depth: int = 4

            def __post_init__(self):
                self.depth = self.width * 2
        """),
    "src/app/main.py": SIDE_EFFECT
    + textwrap.dedent("""
        import hydra
        from omegaconf import OmegaConf, open_dict

        from app.helpers import fix_device


        def run(config):
            print(config)


        @hydra.main(config_path="../../conf", config_name="train", version_base=None)
        def main(config):
            fix_device(config)
            run(config)
        """),
    "src/app/helpers.py": SIDE_EFFECT
    + textwrap.dedent("""
        def fix_device(config):
            if config.trainer.device == "auto":
                config.trainer.device = "cpu"
        """),
}


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, PROJECT)
    cli("--settings", "harness.toml", "generate", cwd=tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def writes(report: dict) -> list[dict]:
    run_level = [f for f in report["findings"] if f["kind"] == "config_write"]
    return run_level + [f for case in report["cases"] for f in case["findings"] if f["kind"] == "config_write"]


def edit(file: Path, old: str, new: str) -> None:
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new, 1))


def test_writes_the_entry_point_and_the_functions_it_calls_add_are_named_with_file_line_and_key(project, cli):
    main_py, helpers = project / "src/app/main.py", project / "src/app/helpers.py"
    edit(
        main_py,
        "    fix_device(config)\n",
        "    with open_dict(config):\n"
        "        config.model.use_cache = False\n"
        '    OmegaConf.update(config, "trainer.epochs", 3, force_add=True)\n'
        "    node = config.trainer\n"
        '    node["device"] = "cuda"\n'
        "    del config.model.width\n"
        "    fix_device(config)\n",
    )
    edit(helpers, 'config.trainer.device = "cpu"', 'config.trainer.device = "npu"')
    cli("--settings", "harness.toml", "generate", cwd=project)  # the record `check` on the merged head reads
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    found = {(f["path"], str(f["old"]), str(f["new"]), f["source"]) for f in writes(review.json())}
    assert found == {
        ("model.use_cache", "None", "False", f"src/app/main.py:{line_of(main_py, 'use_cache = False')}"),
        ("trainer.epochs", "None", "3", f"src/app/main.py:{line_of(main_py, 'OmegaConf.update')}"),
        ("trainer.device", "None", "cuda", f"src/app/main.py:{line_of(main_py, 'node[')}"),
        ("model.width", "None", "(deleted)", f"src/app/main.py:{line_of(main_py, 'del config')}"),
        ("trainer.device", "cpu", "npu", f"src/app/helpers.py:{line_of(helpers, 'npu')}"),
    }
    assert review.code == 0  # news for the reviewer, in every format
    text = cli("--settings", "harness.toml", "diff", "--base", "main", cwd=project).out
    assert "app.main.main sets model.use_cache = False inside open_dict at src/app/main.py:" in text
    assert not (project / MARKER).exists()


def test_a_post_init_write_added_is_named_on_every_case_that_builds_the_class(project, cli):
    models = project / "src/app/models.py"
    edit(models, "        self.depth = self.width * 2\n", "        self.depth = self.width * 2\n        self.width = 16\n")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    (write,) = writes(review.json())
    assert (write["path"], write["old"], write["new"], write["source"]) == (
        "model.width",
        None,
        16,
        f"src/app/models.py:{line_of(models, '= 16')}",
    )
    assert "app.models.Model sets width = 16" in write["message"]


def test_a_new_entry_module_that_edits_the_config_is_read_the_same_way(project, cli):
    fast = project / "src/app/main_fast.py"
    fast.write_text(
        (project / "src/app/main.py")
        .read_text()
        .replace("    fix_device(config)\n", "    config.trainer.epochs = 1000\n    fix_device(config)\n")
    )
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    found = {(f["path"], f["new"], f["source"]) for f in writes(review.json())}
    # Its own write, and the helper's it reaches by name (new for this entry point).
    assert ("trainer.epochs", 1000, f"src/app/main_fast.py:{line_of(fast, '1000')}") in found
    assert any(path == "trainer.device" and source.startswith("src/app/helpers.py:") for path, _, source in found)


def test_a_property_assigned_in_post_init_is_the_write_its_setter_makes(project, cli):
    """`self.size = 16` where `size` is a property: no field `size` is written (the config has none); its setter runs
    with 16 and sets `width`, so the write is `model.width = 16` at the assigning line, as `self.width = 16` is."""
    models = project / "src/app/models.py"
    edit(models, "        self.depth = self.width * 2\n", "        self.depth = self.width * 2\n        self.size = 16\n")
    models.write_text(
        models.read_text()
        + "\n    @property\n    def size(self):\n        return self.width\n\n"
        + "    @size.setter\n    def size(self, value):\n        self.width = value\n"
    )
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    found = {(w["path"], w["old"], w["new"], w["source"]) for w in writes(review.json())}
    assert ("model.width", None, 16, f"src/app/models.py:{line_of(models, 'self.size = 16')}") in found, found
    assert not any(path == "model.size" for path, *_ in found), found
    (added,) = [w for w in writes(review.json()) if w["new"] == 16]
    assert "app.models.Model sets width = 16 at src/app/models.py:" in added["message"], added["message"]


def test_explain_says_which_code_sets_a_key_after_the_yaml(project, cli):
    edit(project / "src/app/main.py", "    fix_device(config)\n", "    config.trainer.epochs = 7\n    fix_device(config)\n")
    edit(
        project / "src/app/models.py",
        "        self.depth = self.width * 2\n",
        "        self.depth = self.width * 2\n        self.width = 16\n",
    )
    out = cli("--settings", "harness.toml", "explain", "trainer.epochs", "--case", CASE, cwd=project).out.splitlines()
    line = line_of(project / "src/app/main.py", "epochs = 7")
    assert out[1:] == [
        "  set by   conf/train.yaml:5  [defaults entry train] = 1",
        f"  then set by config.trainer.epochs = 7 at src/app/main.py:{line} (app.main.main)",
    ], out
    out = cli("--settings", "harness.toml", "explain", "model.width", "--case", CASE, cwd=project).out.splitlines()
    assert (
        out[-1] == f"  then set by self.width = 16 at src/app/models.py:{line_of(project / 'src/app/models.py', '= 16')} (app.models.Model)"
    )
    # A key the YAML lacks: the Python default, then the __post_init__ that overwrites it.
    out = cli("--settings", "harness.toml", "explain", "model.depth", "--case", CASE, cwd=project).out.splitlines()
    assert out[-1].startswith("  then set by self.depth = self.width * 2 at src/app/models.py:"), out


def test_a_target_swapped_to_a_subclass_says_what_the_new_class_does_differently(project, cli):
    """Issue 43 item 4: the review showed only the class names."""
    models = project / "src/app/models.py"
    models.write_text(
        models.read_text() + "\n\n@dataclass\nclass FastModel(Model):\n    depth: float = 2\n    fused: bool = True\n\n"
        "    def __post_init__(self):\n        self.width = 64\n"
    )
    train = project / "conf/train.yaml"
    edit(train, "_target_: app.models.Model", "_target_: app.models.FastModel")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    (case,) = review.json()["cases"]
    (swap,) = [f for f in case["findings"] if f["path"] == "model._target_"]
    depth, fused, post = line_of(models, "depth: float = 2"), line_of(models, "fused: bool"), line_of(models, "self.width = 64")
    assert swap["message"].endswith(
        f"; app.models.FastModel differs from app.models.Model: depth default 4 -> 2 (src/app/models.py:{depth}), "
        f"depth type int -> float (src/app/models.py:{depth}), fused new (src/app/models.py:{fused}), "
        f"app.models.FastModel's __post_init__ sets width = 64 at src/app/models.py:{post}, "
        f"app.models.Model's __post_init__ no longer sets depth (self.depth = self.width * 2) at src/app/models.py:{line_of(models, 'self.depth = self.width * 2')}"
    ), swap["message"]
    # The new class's __post_init__ write is a config write of the case as well (it sets width over the YAML's 3).
    assert [(f["path"], f["new"]) for f in writes(review.json()) if f["new"] is not None] == [("model.width", 64)]


def test_generate_records_the_writes_and_check_fails_on_a_write_the_record_lacks(tmp_path, cli):
    write_tree(tmp_path, PROJECT)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    record = tmp_path / "snapshots/_config_writes.yaml"
    assert "app.main.main:" in record.read_text() and "file: app/helpers.py" in record.read_text()
    assert str(tmp_path) not in record.read_text()
    before = record.read_text()
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0 and record.read_text() == before  # deterministic
    assert cli("--settings", "harness.toml", "check", cwd=tmp_path).code == 0
    main_py = tmp_path / "src/app/main.py"
    edit(main_py, "    fix_device(config)\n", "    config.trainer.epochs = 9\n    fix_device(config)\n")
    run = cli("--settings", "harness.toml", "check", "--format", "json", cwd=tmp_path)
    assert run.code == 1
    (write,) = writes(run.json())
    assert (write["path"], write["new"], write["severity"], write["source"]) == (
        "trainer.epochs",
        9,
        "error",
        f"src/app/main.py:{line_of(main_py, '= 9')}",
    )
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    assert cli("--settings", "harness.toml", "check", cwd=tmp_path).code == 0
    assert cli("--settings", "harness.toml", "generate", "--prune", cwd=tmp_path).code == 0 and record.exists()  # never an orphan
    record.write_text("entry_points: [1, 2]\n")
    bad = cli("--settings", "harness.toml", "check", cwd=tmp_path)
    assert bad.code == 2 and "snapshots/_config_writes.yaml: expected a mapping `entry_points:`" in bad.err + bad.out


def test_a_write_of_a_mapping_with_keys_of_mixed_types_is_reviewed_and_checked(project, cli):
    # `{1: ..., "a": ...}` is a literal Python writes and a config holds; JSON cannot sort its keys (exit 3 before).
    main_py = project / "src/app/main.py"
    edit(main_py, "    fix_device(config)\n", '    config.trainer.table = {1: "x", "a": 2}\n    fix_device(config)\n')
    git(project, "commit", "-qam", "a mapping written")
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 0
    git(project, "commit", "-qam", "recorded")
    edit(main_py, '{1: "x", "a": 2}', '{1: "y", "a": 2}')
    (write,) = writes(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json())
    assert (write["path"], write["severity"]) == ("trainer.table", "error")
    stale = cli("--settings", "harness.toml", "diff", "--base", "HEAD", cwd=project)
    assert stale.code == 1 and "record of the code's config writes is stale" in stale.out  # as check fails above
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 0
    review = cli("--settings", "harness.toml", "diff", "--base", "HEAD", cwd=project)
    assert review.code == 0 and "a config write changed: app.main.main sets trainer.table = {1: 'y', 'a': 2}" in review.out
    assert "1 value changed for the run." in review.out


# Issue 50 item 5: contracts judge the value the program runs with, after the code's writes.
PINNED = "contracts:\n  - name: short-runs\n    equal: {trainer.epochs: 1}\n"


def pin_epochs(project: Path) -> None:
    (project / "contracts.yaml").write_text(PINNED)
    settings = project / "harness.toml"
    settings.write_text('contracts = ["contracts.yaml"]\n' + settings.read_text())


def contract_errors(report: dict) -> list[dict]:
    return [f for case in report["cases"] for f in case["findings"] if f["kind"] == "contract" and f["severity"] == "error"]


def test_a_code_write_that_breaks_a_contract_is_its_error_at_the_writing_line_in_check(tmp_path, cli):
    write_tree(tmp_path, PROJECT)
    pin_epochs(tmp_path)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    assert cli("--settings", "harness.toml", "check", cwd=tmp_path).code == 0  # the YAML's 1 keeps the pin
    main_py = tmp_path / "src/app/main.py"
    edit(main_py, "    fix_device(config)\n", "    with open_dict(config):\n        config.trainer.epochs = 4\n    fix_device(config)\n")
    cli("--settings", "harness.toml", "generate", cwd=tmp_path)  # the record of writes follows the code: only the contract is left
    run = cli("--settings", "harness.toml", "check", "--format", "json", cwd=tmp_path)
    assert run.code == 1
    (error,) = contract_errors(run.json())
    where = f"src/app/main.py:{line_of(main_py, 'epochs = 4')}"
    assert (error["path"], error["old"], error["new"], error["source"], error["written_by"]) == (
        "trainer.epochs",
        1,
        4,
        where,
        "app.main.main",
    )
    assert error["message"].startswith("short-runs: trainer.epochs must equal 1 but is 4") and where in error["message"]
    text = cli("--settings", "harness.toml", "check", cwd=tmp_path)
    assert text.code == 1 and where in text.out and not text.out.startswith("OK")


def test_a_review_blocks_on_a_code_write_that_breaks_a_contract_and_names_the_line(tmp_path, cli):
    write_tree(tmp_path, PROJECT)
    pin_epochs(tmp_path)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    main_py = tmp_path / "src/app/main.py"
    edit(main_py, "    fix_device(config)\n", '    OmegaConf.update(config, "trainer.epochs", 4)\n    fix_device(config)\n')
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=tmp_path)
    assert review.code == 1
    (error,) = contract_errors(review.json())
    where = f"src/app/main.py:{line_of(main_py, 'OmegaConf.update')}"
    assert (error["path"], error["new"], error["source"], error["origin"]) == ("trainer.epochs", 4, where, "introduced")
    # The write the base already had is at_base: a later change that leaves it alone fails nothing.
    git(tmp_path, "commit", "-q", "-am", "write epochs")
    edit(tmp_path / "conf/train.yaml", "device: cpu", "device: cuda")
    cli("--settings", "harness.toml", "generate", cwd=tmp_path)  # the goldens and record `check` on the head reads
    again = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=tmp_path)
    assert again.code == 0 and [e["origin"] for e in contract_errors(again.json())] == ["at_base"]


def test_a_review_fails_where_the_pull_requests_record_of_writes_is_stale_as_check_on_its_head_does(project, cli):
    main_py = project / "src/app/main.py"
    edit(main_py, "    fix_device(config)\n", "    config.trainer.epochs = 9\n    fix_device(config)\n")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    assert cli("--settings", "harness.toml", "check", cwd=project).code == 1  # the record lacks the write
    stale = [f for f in review.json()["findings"] if f["kind"] == "stale_golden"]
    assert review.code == 1 and [f["source"] for f in stale] == ["snapshots/_config_writes.yaml"], review.out
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 0
    regenerated = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    assert regenerated.code == 0 and not [f for f in regenerated.json()["findings"] if f["kind"] == "stale_golden"]
    assert cli("--settings", "harness.toml", "check", cwd=project).code == 0


def test_a_review_of_a_pull_request_deleting_the_record_while_changing_the_writes_fails(project, cli):
    # Issue 53's probe: with no record on the head, `check` had nothing to compare the code's writes with, and the
    # review passed; the deletion is a settings change the snapshot folder's owners must approve.
    edit(project / "src/app/main.py", "    fix_device(config)\n", "    config.trainer.epochs = 9\n    fix_device(config)\n")
    (project / "snapshots/_config_writes.yaml").unlink()
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    report = review.json()
    changes = [f for f in report["findings"] if f["kind"] == "settings_change" and f["severity"] == "error"]
    assert review.code == 1 and not report["ok"], review.out
    assert [f["path"] for f in changes] == ["snapshots/_config_writes.yaml"], report["findings"]
    assert [f["message"] for f in writes(report) if "epochs" in f["message"]], report["findings"]


# Issue 56: a code write was shown as `null -> 4` (the write at the base, none) or only in words, never as the change it
# makes to the value the program runs with; now `trainer.epochs: 1 -> 4` as a YAML change is shown, with the line.
def _with_presets(project: Path) -> None:
    settings = project / "harness.toml"
    settings.write_text(settings.read_text() + '\n[presets]\ndefault = []\nlong = ["trainer.epochs=5"]\n')


def test_a_code_write_is_shown_as_the_change_it_makes_from_the_yaml_value_in_check_review_pytest_and_json(tmp_path, cli):
    import subprocess
    import sys

    write_tree(tmp_path, PROJECT)
    _with_presets(tmp_path)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    main_py = tmp_path / "src/app/main.py"
    edit(
        main_py,
        "    fix_device(config)\n",
        "    config.trainer.device = 'cuda'\n    config.trainer.epochs = 4\n    with open_dict(config):\n"
        "        config.trainer.seed = 7\n    fix_device(config)\n",
    )
    device, epochs, seed = (f"src/app/main.py:{line_of(main_py, text)}" for text in ("'cuda'", "epochs = 4", "seed = 7"))
    review = cli("--settings", "harness.toml", "diff", "--base", "main", cwd=tmp_path).out
    # The same value on every case: one change; one per value where the presets differ; a new key from absent.
    assert f'trainer.device: "cpu" -> "cuda" (a config write added: app.main.main sets trainer.device = \'cuda\' at {device})' in review
    assert (
        f"trainer.epochs: 1 -> 4 on train/base/default, 5 -> 4 on train/base/long (a config write added: app.main.main "
        f"sets trainer.epochs = 4 at {epochs})"
    ) in review, review
    assert f"trainer.seed: — -> 7 (a config write added: app.main.main sets trainer.seed = 7 inside open_dict at {seed})" in review
    report = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=tmp_path).json()
    (found,) = [f for f in writes(report) if f["path"] == "trainer.epochs"]
    assert (found["old"], found["new"], found["source"]) == (None, 4, epochs)  # the interface's fields, as they were
    assert found["replaces"] == [
        {"value": 1, "present": True, "cases": ["train/base/default"]},
        {"value": 5, "present": True, "cases": ["train/base/long"]},
    ]
    (group,) = [g for g in report["groups"] if g["kind"] == "config_write" and g["path"] == "trainer.epochs"]
    assert group["replaces"] == found["replaces"]
    markdown = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "markdown", cwd=tmp_path).out
    row = "| <code>trainer.<wbr>epochs</code> | 1 -&gt; 4 on train/base/default, 5 -&gt; 4 on train/base/long (a config write added"
    assert row in markdown, markdown
    # check against the record, and pytest, say it the same way; a write removed goes back to the YAML's value.
    git(tmp_path, "commit", "-qam", "writes")
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "commit", "-qam", "recorded")
    edit(main_py, "    config.trainer.epochs = 4\n", "")
    edit(main_py, "config.trainer.device = 'cuda'", "config.trainer.device = 'npu'")
    device = f"src/app/main.py:{line_of(main_py, 'npu')}"
    check = cli("--settings", "harness.toml", "check", cwd=tmp_path)
    assert check.code == 1
    assert 'trainer.device: "cuda" -> "npu" (a config write changed (against snapshots/_config_writes.yaml' in check.out, check.out
    assert "trainer.epochs: 4 -> 1 on train/base/default, 4 -> 5 on train/base/long (a config write removed" in check.out
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--config-harness", "--config-harness-settings", "harness.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert "trainer.epochs: 4 -> 1 on train/base/default, 4 -> 5 on train/base/long (a config write removed" in run.stdout, run.stdout
    assert 'trainer.device: "cuda" -> "npu"' in run.stdout
