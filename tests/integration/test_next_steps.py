"""Issue 56 item 1: every next step a report can print is done as printed, and does what it says. A small repository
with a test suite of its own that fails (so plain `pytest --snapshot-update` is the wrong advice), launch scripts,
Python sources and the pre-commit template: for each row of the table (harness/reporters/steps.py), a change makes
check, a review, pytest or the hook print it, the test does what the line says (its commands run as printed; its
"edit FILE:LINE" at that line) and asserts the promised outcome. A row without a scenario here fails the last test.
The same on verl's real tree: tests/e2e/test_next_steps_verl.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harness.reporters.steps import STEPS
from tests.conftest import ROOT, write_tree
from tests.next_steps import (
    by_name,
    check,
    commands,
    commit_through_the_hook,
    do,
    edit,
    error_line,
    fails,
    findings,
    green_after,
    insert_at,
    json_check,
    next_lines,
    places,
    pytest_rewrites,
    replace_on_line,
    review_against,
    run_command,
)
from tests.synthetic_history import git

SETTINGS = """
    [tool.config-harness]
    config_dir = "conf"
    snapshot_dir = "snapshots"
    roots = ["train"]
    python_sources = ["app"]
    contracts = ["config-harness/contracts.yaml", "config-harness/known.yaml"]
    jobs = 1

    [[tool.config-harness.commands]]
    glob = "scripts/*.sh"
    """
TRAIN = """
    defaults:
      - optim: adam
      - _self_
    model:
      _target_: app.models.Model
      width: 3
    trainer:
      epochs: 1
      device: cpu
      seed: 7
      data_seed: ${trainer.seed}
      layers: [a, b]
    """
PROJECT = {
    "pyproject.toml": SETTINGS,
    "conf/train.yaml": TRAIN,
    "conf/optim/adam.yaml": "lr: 0.1\n",
    "conf/optim/sgd.yaml": "lr: 0.5\n",
    "config-harness/contracts.yaml": """
        contracts:
          - name: runs-somewhere
            require: [trainer.device]
        """,
    "config-harness/known.yaml": "waivers: []\n",
    "app/__init__.py": "",
    "app/models.py": """
        from dataclasses import dataclass


        @dataclass
        class Model:
            width: int = 8
        """,
    "app/main.py": """
        import hydra


        @hydra.main(config_path="../conf", config_name="train", version_base=None)
        def main(config):
            if config.trainer.device == "auto":
                config.trainer.device = "cpu"
            print(config.trainer.device)
        """,
    "scripts/run.sh": "python -m app.main trainer.epochs=5\n",
    # The repository's own suite, which fails: what plain `pytest --snapshot-update` would run too.
    "tests/test_own.py": """
        def test_the_repository_s_own_work_in_progress():
            assert False, "the repository's own failing test"
        """,
    ".gitignore": ".pytest_cache/\n__pycache__/\n",
}
TRAIN_YAML = "conf/train.yaml"


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository adopted once (goldens and the record of config writes generated, committed on `main`)."""
    repository = write_tree(tmp_path_factory.mktemp("next-steps") / "repo", PROJECT)
    shutil.copy(ROOT / "templates" / "pre-commit-config.yaml", repository / ".pre-commit-config.yaml")
    git(repository, "init", "-q", "-b", "main")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        from harness.cli import main

        assert main(["generate", "--quiet"]) == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness")
    return repository


@pytest.fixture
def repo(adopted: Path) -> Path:
    """The adopted repository on a branch of the test's own; back on `main`, clean, afterwards."""
    git(adopted, "checkout", "-q", "-B", "change", "main")
    yield adopted
    git(adopted, "reset", "-q", "--hard")
    git(adopted, "clean", "-qfdx", "-e", ".pytest_cache")
    git(adopted, "checkout", "-q", "main")


def review(repository: Path, capsys) -> tuple[int, str]:
    """The pull request committed, then reviewed against `main`."""
    return review_against(repository, capsys, "main")


def contract(repo, capsys):
    """Done: `config-harness known` records the violation: check is green, the finding known."""
    (repo / "config-harness/contracts.yaml").write_text("contracts:\n  - name: on-gpu\n    equal: {trainer.device: cuda}\n")
    line, _ = fails(repo, capsys, "contract")
    assert commands(line) == ["config-harness known"]
    do(line, repo, capsys)
    assert check(repo, capsys)[0] == 0
    (known,) = findings(json_check(repo, capsys), "contract")
    assert known["status"] == "known" and known["path"] == "trainer.device"


def record_reason(repo, capsys):
    """Done: the record added: the review passes, the change a warning."""
    (repo / "config-harness/contracts.yaml").write_text("contracts: []\n")  # the base's contract dropped: a loosening
    _, out = fails(repo, capsys, "record_reason", review)
    record = re.search(r"add to `changes:` (\{.*?\})  \(", error_line(out, "without a recorded reason")).group(1)
    contracts = repo / "config-harness/contracts.yaml"
    contracts.write_text(contracts.read_text() + f"changes:\n  - {record.replace('reason: WHY', 'reason: no longer required')}\n")
    code, out = review(repo, capsys)
    assert code == 0 and "[recorded reason: no longer required]" in out, out


def known_reason(repo, capsys):
    """Done: the command run: the review passes."""
    contracts = repo / "config-harness/contracts.yaml"
    contracts.write_text(contracts.read_text() + "  - name: on-gpu\n    equal: {trainer.device: cuda}\n")
    assert run_command("config-harness known", repo, capsys)[0] == 0  # the pull request records what it breaks
    line, _ = fails(repo, capsys, "known_reason", review)
    assert commands(line) == ["config-harness known --base main --reason 'WHY'"]
    do(line, repo, capsys)
    code, out = review(repo, capsys)
    assert code == 0, out


def compose(repo, capsys):
    """Done: the config named in the error fixed: the case composes."""
    edit(repo, TRAIN_YAML, "- optim: adam", "- optim: adamw")
    _, out = fails(repo, capsys, "compose")
    assert "launch" not in next_lines(out), "the script is not to blame: its config does not compose"
    named = error_line(out, "is not an option of optim", "train/base/default")
    (file, at) = places(named)[0]
    wanted = re.search(r"did you mean '(\w+)'", named).group(1)
    replace_on_line(repo / file, at, "adamw", wanted)
    assert check(repo, capsys)[0] == 0


def unresolved(repo, capsys):
    """Done: the named line edited (or the key restored): every case resolves."""
    edit(repo, TRAIN_YAML, "  seed: 7", "  random_seed: 7")
    line, _ = fails(repo, capsys, "unresolved")
    assert line.startswith("an interpolation reads a key the config no longer has (1 case and 1 launch): ")
    assert line.endswith("or restore trainer.seed") and "script" not in line
    ((file, at),) = places(line)
    replace_on_line(repo / file, at, "trainer.seed", "trainer.random_seed")
    assert findings(json_check(repo, capsys), "unresolved") == []


def target(repo, capsys):
    """Done: the key fixed in the named file: the node builds."""
    edit(repo, TRAIN_YAML, "  width: 3", "  wdth: 3")
    _, out = fails(repo, capsys, "target")
    named = error_line(out, "declares no field wdth")
    (file, at) = places(named.split("set by ")[1])[0]  # the file named above: where the key is set
    replace_on_line(repo / file, at, "wdth", "width")  # the field app/models.py declares
    assert check(repo, capsys)[0] == 0


def launch(repo, capsys):
    """Done: the fix written at the named line: the launch composes."""
    edit(repo, TRAIN_YAML, "  epochs: 1", "  num_epochs: 1")
    _, out = fails(repo, capsys, "launch")
    named = error_line(out, "scripts/run.sh")
    where = re.search(r"([\w./-]+\.sh):(\d+): (\S+); fix: write (\S+)\)", named)
    replace_on_line(repo / where.group(1), int(where.group(2)), where.group(3), where.group(4))
    assert findings(json_check(repo, capsys), "launch") == []


def removed(repo, capsys):
    """Done: the key restored where it was set: check is green."""
    edit(repo, TRAIN_YAML, "  layers: [a, b]\n", "")
    line, _ = fails(repo, capsys, "removed")
    ((file, at),) = places(line)
    insert_at(repo / file, at, "  layers: [a, b]\n")
    assert check(repo, capsys)[0] == 0


def regenerate(repo, capsys):
    """Done: the command run: check (or pytest) is green."""
    edit(repo, TRAIN_YAML, "width: 3", "width: 4")
    green_after(repo, capsys, "regenerate")


def hook(repo, capsys):
    """Done: the command run, the goldens staged: the commit passes the hook."""
    commit_through_the_hook(repo, TRAIN_YAML, "width: 3", "width: 4")
    assert check(repo, capsys)[0] == 0


def config_write(repo, capsys):
    """Done: the command run: check is green."""
    edit(repo, "app/main.py", "    print(config.trainer.device)", "    config.trainer.epochs = 4\n    print(config.trainer.device)")
    green_after(repo, capsys, "config_write")


def unverified(repo, capsys):
    """Done: the change made readable: the review passes. The base blocks on changes not verified; a write through a
    name that may be either of two nodes is made one the reader follows."""
    edit(repo, "pyproject.toml", "jobs = 1\n", 'jobs = 1\nunverified = "block"\n')
    git(repo, "commit", "-q", "-am", "a base that blocks on changes not verified")
    git(repo, "branch", "-f", "strict")
    edit(
        repo,
        "app/main.py",
        "    print(config.trainer.device)",
        "    node = config.trainer if config.trainer.device else config\n    node.epochs = 4\n    print(config.trainer.device)",
    )
    assert run_command("config-harness generate --quiet", repo, capsys)[0] == 0

    def strict_review(repository: Path, capsys) -> tuple[int, str]:
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "--allow-empty", "-m", "pull request")
        return run_command("config-harness diff --base strict", repository, capsys)

    _, out = fails(repo, capsys, "unverified", strict_review)
    (file, at) = places(error_line(out, "not verified"))[0]
    replace_on_line(repo / file, at, "node.epochs = 4", "config.trainer.epochs = 4")  # a write the reader follows
    assert run_command("config-harness generate --quiet", repo, capsys)[0] == 0
    code, out = strict_review(repo, capsys)
    assert code == 0 and "not verified" not in out, out


def stale_golden(repo, capsys):
    """Done: the command run and committed: the review has no stale golden."""
    edit(repo, TRAIN_YAML, "width: 3", "width: 4")  # the goldens not regenerated
    line, _ = fails(repo, capsys, "stale_golden", review)
    do(line, repo, capsys)  # "... and commit" (the review below commits what the step wrote)
    code, out = review(repo, capsys)
    assert code == 0, out


def orphans(repo, capsys):
    """Done: the command run: no orphan golden is left."""
    orphan = repo / "snapshots/_generated_old__base__default.yaml"
    shutil.copy(repo / "snapshots/_generated_train__base__default.yaml", orphan)
    green_after(repo, capsys, "orphans")
    assert not orphan.exists()


SCENARIOS = by_name(
    contract,
    record_reason,
    known_reason,
    compose,
    unresolved,
    target,
    launch,
    removed,
    regenerate,
    hook,
    config_write,
    unverified,
    stale_golden,
    orphans,
)


def test_every_row_of_the_table_has_a_scenario():
    assert sorted(SCENARIOS) == sorted(step.name for step in STEPS)


@pytest.mark.parametrize("name", [step.name for step in STEPS])
def test_the_step_does_what_it_says(name, repo, capsys):
    SCENARIOS[name](repo, capsys)


def test_pytest_rewrites_the_goldens_without_running_the_repository_s_own_suite(repo):
    """Plain `pytest --snapshot-update` collects the repository's own suite, which fails: the wrong advice here."""
    edit(repo, TRAIN_YAML, "width: 3", "width: 4")
    plain, _ = pytest_rewrites(repo, "snapshots")
    assert plain.returncode == 1 and "the repository's own failing test" in plain.stdout
