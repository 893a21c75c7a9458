"""A run that cannot start blocks (issue 50 item 4), on a small project with a real launch script: a mandatory `???`
value a launch leaves unset is an error on that launch, naming the key and the script's line, the same in `check`, the
review (`diff --base REF`) and pytest; a case's own `???` (the matrix's case, whose command line the user writes)
stays what it was, never an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.plugin import RUN_PROPERTY
from tests.conftest import commit_small_project, write_tree

SCRIPT = "scripts/run.sh"
PROJECT = {
    "harness.toml": """
        config_dir = "conf"
        snapshot_dir = "snapshots"
        roots = ["train"]

        [[commands]]
        glob = "scripts/*.sh"
        """,
    "conf/train.yaml": """
        trainer:
          engine: fsdp
          epochs: 1
        judge:
          enable: false
          model: ???
        """,
    "app/__init__.py": "",
    "app/main.py": (
        "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\n"
        "def main(cfg):\n    print(cfg.trainer.engine)\n"
    ),
    SCRIPT: "set -e\npython -m app.main trainer.epochs=2 trainer.engine=megatron\npython -m app.main \\\n  trainer.epochs=3\n",
}
UNSET_LAUNCH = "cmd/scripts/run.sh#2"


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, PROJECT)
    return commit_small_project(tmp_path, cli, None)


def make_mandatory(project: Path, cli) -> None:
    """The change under test: `trainer.engine` becomes mandatory (verl #2757's `rollout.name: ???`), goldens regenerated."""
    conf = project / "conf/train.yaml"
    conf.write_text(conf.read_text().replace("engine: fsdp", "engine: ???"))
    cli("--settings", "harness.toml", "generate", cwd=project)


def launch_errors(report: dict) -> dict[str, list[dict]]:
    return {
        case["id"]: [f for f in case["findings"] if f["severity"] == "error"] for case in report["cases"] if case["id"].startswith("cmd/")
    }


def test_a_launch_leaving_a_mandatory_value_unset_blocks_check_and_the_case_s_own_does_not(project, cli):
    make_mandatory(project, cli)
    checked = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project)
    assert checked.code == 1
    report = checked.json()
    errors = launch_errors(report)
    (unset,) = errors[UNSET_LAUNCH]
    assert (unset["kind"], unset["path"], unset["source"]) == ("launch", "trainer.engine", f"{SCRIPT}:3")
    assert "???" in unset["message"] and "no value" in unset["message"]
    assert errors["cmd/scripts/run.sh#1"] == []  # it gives the value
    (case,) = [c for c in report["cases"] if c["id"] == "train/base/default"]
    assert case["status"] == "ok"  # the case's own `???`: the user supplies it
    text = cli("--settings", "harness.toml", "check", cwd=project).out
    assert "trainer.engine" in text and f"{SCRIPT}:3" in text

    # Given a value, the launch starts: nothing blocks, though the case's own `???` is still there. A `???` under a
    # node switched off (`judge.enable: false`) is not read; a launch that switches it on must give it.
    script = project / SCRIPT
    script.write_text(script.read_text().replace("trainer.epochs=3", "trainer.epochs=3 trainer.engine=fsdp"))
    assert cli("--settings", "harness.toml", "check", cwd=project).code == 0
    script.write_text(script.read_text() + "python -m app.main trainer.engine=fsdp judge.enable=true\n")
    errors = launch_errors(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json())
    assert [(f["path"], f["source"]) for f in errors["cmd/scripts/run.sh#3"]] == [("judge.model", f"{SCRIPT}:5")]
    assert errors[UNSET_LAUNCH] == errors["cmd/scripts/run.sh#1"] == []


def test_the_review_blocks_on_the_launch_the_change_leaves_unset_as_check_and_pytest_do(project, cli, pytester):
    make_mandatory(project, cli)
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    assert review.code == 1
    (unset,) = launch_errors(review.json())[UNSET_LAUNCH]
    assert (unset["path"], unset["source"], unset["origin"]) == ("trainer.engine", f"{SCRIPT}:3", "introduced")
    assert launch_errors(review.json())["cmd/scripts/run.sh#1"] == []
    # The same launch counts the same in the three: one of two failing.
    check_tally = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json()["launches"]
    assert review.json()["launches"] == check_tally
    assert check_tally == "2 launches checked of 2 found: 1 compose, 1 fail"
    recorder = pytester.inline_run(
        "--config-harness-settings", str(project / "harness.toml"), "-p", "no:cacheprovider", str(project / "harness.toml")
    )
    (run,) = [r for r in recorder.getreports("pytest_runtest_logreport") if r.when == "call" and r.nodeid.endswith("::run")]
    # One line per cause, as check writes it: the script line of the launch (cmd/scripts/run.sh#2) and its fix.
    assert (
        run.failed and "(scripts/run.sh:3; fix: write trainer.engine=VALUE)" in str(run.longrepr) and "trainer.engine" in str(run.longrepr)
    )
    (said,) = [value for name, value in run.user_properties if name == RUN_PROPERTY]
    assert check_tally in said["lines"]
