"""Issue 51 items 1 and 3: a review accounts for every file the pull request changes. Each channel the readers do not
follow (a write through `setattr` or `object.__setattr__`, a method reached through an object, a Hydra
SearchPathPlugin, `xargs`, a `PATH` shim, a wrapper that calls a launch script with an environment prefix, a config
file no case reads) was a silent exit 0; now each is named at its line in every format, and the base's
`unverified = "block"` makes it fail the review."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import git

SETTINGS = """
    config_dir = "conf"
    snapshot_dir = "snapshots"
    roots = ["train"]
    python_sources = ["app"]

    [[commands]]
    glob = "scripts/*.sh"
    """
PROJECT = {
    "conf/train.yaml": """
        defaults:
          - optim: adam
          - _self_
        model:
          _target_: app.models.Model
          width: 3
        trainer:
          epochs: 1
          device: cpu
        """,
    "conf/optim/adam.yaml": "lr: 0.1\n",
    "conf/optim/sgd.yaml": "lr: 0.5\n",
    "app/__init__.py": "",
    "app/models.py": textwrap.dedent("""
        from dataclasses import dataclass


        @dataclass
        class Model:
            width: int = 8
            depth: int = 4

            def __post_init__(self):
                self.depth = self.width * 2
        """),
    "app/runner.py": textwrap.dedent("""
        class TaskRunner:
            def run(self, config):
                print(config.trainer.epochs)
        """),
    "app/main.py": textwrap.dedent("""
        import hydra

        from app.runner import TaskRunner


        @hydra.main(config_path="../conf", config_name="train", version_base=None)
        def main(config):
            runner = TaskRunner()
            runner.run(config)
        """),
    "scripts/run.sh": "python -m app.main trainer.epochs=5\n",
    "README.md": "# app\n",
}


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, {"harness.toml": SETTINGS, **PROJECT})
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def edit(file: Path, old: str, new: str) -> None:
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new, 1))


def line_of(file: Path, needle: str) -> int:
    return next(number for number, text in enumerate(file.read_text().splitlines(), 1) if needle in text)


def review(cli, project: Path, fmt: str = "json"):
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0  # as the author would
    return cli("--settings", "harness.toml", "diff", "--base", "main", "--format", fmt, cwd=project)


def unverified(report: dict) -> list[tuple[str, str]]:
    return [(f["source"], f["message"]) for f in report["findings"] if f["kind"] == "unverified"]


def named(cli, project: Path, file: str, line: int, words: str) -> dict:
    """The review names the change at FILE:LINE with `words`, warns (exit 0), says so in its verdict and in the text,
    markdown and github formats at that line."""
    result = review(cli, project)
    report = result.json()
    found = unverified(report)
    assert any(source == f"{file}:{line}" and words in message for source, message in found), (found, result.out)
    assert result.code == 0, result.out
    assert f"{len(found)} change{'s' * (len(found) != 1)} not verified" in report["verdict"]
    assert any(row["verdict"] == "not verified" and row["file"] == file for row in report["changed_files"])
    text = review(cli, project, "text").out
    assert "Changes not verified" in text and words in text
    github = review(cli, project, "github").out
    assert any(row.startswith("::warning") and f"file={file},line={line}" in row and "unverified" in row for row in github.splitlines()), (
        github
    )
    assert "Changes not verified" in review(cli, project, "markdown").out
    return report


def test_a_write_through_setattr_is_compared_as_the_write_it_is(project, cli):
    """`setattr(node, "k", v)` with the key spelled is read as `node.k = v` (it was named as not resolved before the
    reader followed it): the review compares it, at its line."""
    main = project / "app/main.py"
    edit(main, "    runner = TaskRunner()\n", '    setattr(config.trainer, "epochs", 9)\n    runner = TaskRunner()\n')
    report = review(cli, project).json()
    line = line_of(main, "setattr")
    writes = [f for f in report["findings"] if f["kind"] == "config_write"]
    assert [(f["path"], f["new"], f["source"]) for f in writes] == [("trainer.epochs", 9, f"app/main.py:{line}")], writes
    assert not unverified(report)


def test_a_setattr_whose_key_is_computed_is_named_as_a_key_the_reader_cannot_place(project, cli):
    main = project / "app/main.py"
    edit(main, "    runner = TaskRunner()\n", '    key = "epochs"\n    setattr(config.trainer, key, 9)\n    runner = TaskRunner()\n')
    report = review(cli, project).json()
    line = line_of(main, "setattr")
    assert any(
        f["kind"] == "config_write" and f["source"] == f"app/main.py:{line}" and "cannot place" in f["message"] for f in report["findings"]
    )


def test_object_setattr_through_a_field_aliasing_another_node_is_named(project, cli):
    """The shape of verl 74dc16c94 (#5885): a field made the same object as another (`self.engine = self.fsdp_config`)
    and written through with `object.__setattr__`: the write changes both fields, so no one key is claimed."""
    models = project / "app/models.py"
    edit(
        models,
        "        self.depth = self.width * 2\n",
        "        self.depth = self.width * 2\n        self.engine = self.fsdp\n"
        '        object.__setattr__(self.engine, "strategy", self.width)\n',
    )
    named(cli, project, "app/models.py", line_of(models, "object.__setattr__"), "(a write below a node two keys share)")


def test_a_write_in_a_method_reached_through_an_object_is_named(project, cli):
    runner = project / "app/runner.py"
    edit(runner, "        print(config.trainer.epochs)\n", "        config.trainer.epochs = 1000\n        print(config.trainer.epochs)\n")
    named(cli, project, "app/runner.py", line_of(runner, "= 1000"), "write not resolved at app/runner.py:")


def test_a_search_path_plugin_is_named_with_the_folder_it_adds(project, cli):
    plugin = {
        "extra/train.yaml": "trainer:\n  epochs: 99\n",
        "hydra_plugins/extra_plugin/extra_plugin.py": textwrap.dedent("""
            from hydra.core.config_search_path import ConfigSearchPath
            from hydra.plugins.search_path_plugin import SearchPathPlugin


            class ExtraPlugin(SearchPathPlugin):
                def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
                    search_path.prepend(provider="extra", path="file://extra")
            """),
    }
    write_tree(project, plugin)
    file = "hydra_plugins/extra_plugin/extra_plugin.py"
    report = named(cli, project, file, line_of(project / file, "class ExtraPlugin"), "SearchPathPlugin")
    assert any("extra" in message and "search_path" in message for _, message in unverified(report))


def test_xargs_feeding_overrides_is_named(project, cli):
    script = project / "scripts/run.sh"
    script.write_text(script.read_text() + "echo trainer.epochs=9 | xargs python -m app.main\n")
    named(cli, project, "scripts/run.sh", 2, "`xargs`")


def test_a_path_shim_is_named_in_the_script_and_in_the_repository(project, cli):
    shim = project / "bin/python3"
    shim.parent.mkdir()
    shim.write_text('#!/bin/sh\nexec /usr/bin/python3 "$@" trainer.epochs=9\n')
    shim.chmod(0o755)
    script = project / "scripts/run.sh"
    script.write_text('export PATH="$PWD/bin:$PATH"\n' + script.read_text())
    report = named(cli, project, "scripts/run.sh", 1, "a PATH change")
    assert any(source == "bin/python3:1" and "executable named python3" in message for source, message in unverified(report))


def test_a_wrapper_calling_a_launch_script_with_an_environment_prefix_is_named(project, cli):
    write_tree(project, {"tools/wrap.sh": "ROLLOUT_N=1 bash scripts/run.sh\n"})
    named(cli, project, "tools/wrap.sh", 1, "calls the launch script scripts/run.sh")


def test_a_config_file_no_case_reads_is_named(project, cli):
    edit(project / "conf/optim/sgd.yaml", "0.5", "5.0")
    named(cli, project, "conf/optim/sgd.yaml", 1, "no case or launch of the review reads")


def test_the_base_decides_that_changes_not_verified_block(project, cli):
    """`unverified = "block"` at the base fails the review; the same value only in the pull request decides nothing."""
    settings = project / "harness.toml"
    settings.write_text('unverified = "block"\n' + settings.read_text())
    edit(project / "conf/optim/sgd.yaml", "0.5", "5.0")
    result = review(cli, project)
    assert result.code == 0 and [f["severity"] for f in result.json()["findings"] if f["kind"] == "unverified"] == ["warning"]
    git(project, "commit", "-q", "-m", "block", "--", "harness.toml")
    result = review(cli, project)
    assert result.code == 1, result.out
    assert [f["severity"] for f in result.json()["findings"] if f["kind"] == "unverified"] == ["error"]
    assert "1 change not verified" in result.json()["verdict"]
    # The pull request cannot turn it back into a warning: the base's value decides, and the change narrows the review.
    edit(settings, 'unverified = "block"\n', "")
    result = review(cli, project)
    assert result.code == 1 and [f["severity"] for f in result.json()["findings"] if f["kind"] == "unverified"] == ["error"]


def test_changes_the_readers_follow_are_compared_and_the_rest_not_relevant(project, cli):
    """Precision: a launch's changed override, a YAML a case reads, a write the reader resolves and the docs are
    accounted for without a line not verified."""
    edit(project / "scripts/run.sh", "epochs=5", "epochs=6")
    edit(project / "conf/optim/adam.yaml", "0.1", "0.2")
    edit(project / "app/main.py", "    runner = TaskRunner()\n", "    config.trainer.device = 'cuda'\n    runner = TaskRunner()\n")
    edit(project / "README.md", "app", "the app")
    result = review(cli, project)
    report = result.json()
    assert result.code == 0 and not unverified(report), result.out
    verdicts = {row["file"]: row["verdict"] for row in report["changed_files"]}
    assert verdicts["scripts/run.sh"] == verdicts["conf/optim/adam.yaml"] == verdicts["app/main.py"] == "compared"
    assert verdicts["README.md"] == "not relevant"
    assert "not verified" not in report["verdict"]


def _changed(report: dict) -> dict[str, list[tuple[str, object, object]]]:
    return {
        case["id"]: [(f["path"], f["old"], f["new"]) for f in case["findings"] if f["kind"] == "changed"]
        for case in report["cases"]
        if case["id"].startswith("cmd/")
    }


def test_a_launch_inserted_before_another_never_takes_its_place(project, cli):
    """Issue 51 item 3: the real launch's change is compared with the base's launch it is, not with the one inserted
    above it (which is `new`)."""
    (project / "scripts/run.sh").write_text("python -m app.main optim=sgd\npython -m app.main trainer.epochs=7\n")
    report = review(cli, project).json()
    changed = _changed(report)
    assert changed["cmd/scripts/run.sh#2"] == [("trainer.epochs", 5, 7)], changed
    assert not changed.get("cmd/scripts/run.sh#1"), changed
    assert [c["status"] for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#1"] == ["new"]


def test_a_copy_of_a_launch_inserted_above_it_leaves_its_change_compared(project, cli):
    """The inserted launch is the base's launch as it was; the real one, edited below it, is new and is still compared
    with the base's launch that runs the same command."""
    (project / "scripts/run.sh").write_text("python -m app.main trainer.epochs=5\npython -m app.main trainer.epochs=7\n")
    report = review(cli, project).json()
    changed = _changed(report)
    assert changed["cmd/scripts/run.sh#2"] == [("trainer.epochs", 5, 7)], changed
    notes = [f["message"] for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#2" for f in c["findings"] if f["kind"] == "new_launch"]
    assert notes and "compared with scripts/run.sh:1 at the base" in notes[0]


def test_an_entry_point_added_in_pyproject_is_named(project, cli):
    write_tree(project, {"pyproject.toml": '[project]\nname = "app"\n\n[project.scripts]\ntrain = "app.main:main"\n'})
    named(cli, project, "pyproject.toml", 4, "an entry point added or changed")


def test_a_python_source_past_the_budget_is_named_not_read(project, cli):
    """Pull-request bytes are read within the budgets: a source past the Python budget is named, never parsed."""
    (project / "app/big.py").write_text("x = 1\n" * 120_000)
    report = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project).json()
    assert any(f["path"] == "app/big.py" and "not read" in f["message"] for f in report["findings"] if f["kind"] == "unverified"), report
