"""A whole review kept by its inputs (issue 52): a second review with nothing changed composes, reads and compares
nothing and prints the same bytes; after any change to what decides it, it is reviewed again and its report is a
review's without any cache.

Counted in calls, not seconds: the same answer on a loaded machine."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from harness.composition.compose import HydraSession
from harness.runner import launches as launches_module
from harness.runner.run import Runner
from tests.conftest import commit_small_project, git, write_tree
from tests.integration.test_review import with_launches

ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
# local/ is ignored by git, which lists it as one name: only the reader's record of what the review read says when
# names.sh changes.
LAUNCHES = "source local/names.sh\npython -m app.main trainer.name=b $SETTING\n"
REVIEW = ("diff", "--base", "main", "--format", "json")
ALL_TAKEN = re.compile(r"taken from the cache \(every file they read unchanged\); 0 cases and 0 launches composed there")


@pytest.fixture
def project(small_project: Path, cli, tmp_path_factory) -> tuple[Path, tuple[str, ...]]:
    with_launches(
        small_project,
        {"app/__init__.py": "", "app/main.py": ENTRY, "scripts/run.sh": LAUNCHES, "local/names.sh": "SETTING=trainer.lr=0.3\n"},
    )
    (small_project / ".gitignore").write_text("local/\n")
    commit_small_project(small_project, cli, "contracts:\n  - name: lr\n    require: [trainer.lr]\n")
    train = small_project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))  # the pull request: a changed default
    return small_project, ("--settings", "harness.toml", "--cache-dir", str(tmp_path_factory.mktemp("kept") / "cache"))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many compositions, scripts read with bash's grammar and runs a review in this process does (`jobs = 1`)."""
    calls = {"compose": 0, "read": 0, "run": 0}

    def counting(name: str, original):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return original(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(HydraSession, "compose", counting("compose", HydraSession.compose))
    monkeypatch.setattr(launches_module, "launches_in", counting("read", launches_module.launches_in))
    monkeypatch.setattr(Runner, "run", counting("run", Runner.run))
    return calls


def test_a_second_review_with_nothing_changed_is_taken_whole(project, cli, counted):
    root, flags = project
    first = cli(*flags, *REVIEW)
    assert counted["compose"] > 0 and counted["run"] == 1 and not ALL_TAKEN.search(first.err)
    assert {f["path"] for c in first.json()["cases"] for f in c["findings"]} >= {"trainer.lr"}
    counted.update(compose=0, read=0, run=0)
    again = cli(*flags, *REVIEW)
    assert (again.out, again.code) == (first.out, first.code)
    assert counted == {"compose": 0, "read": 0, "run": 0}  # nothing composed, no script read, nothing run
    assert ALL_TAKEN.search(again.err), again.err  # said as everything at the base taken from the cache
    cold = cli(*flags, "--no-cache", *REVIEW)
    assert (cold.out, cold.code) == (first.out, first.code)


def _tracked(root: Path) -> None:
    train = root / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.2", "lr: 0.3"))


def _untracked(root: Path) -> None:  # a new option of the engine group: new cases
    write_tree(root / "conf", {"backend/tpu.yaml": "device:\n  kind: tpu\n"})


def _ignored_read(root: Path) -> None:  # neither git's status nor a named folder sees it: the reader's record does
    (root / "local" / "names.sh").write_text("SETTING=trainer.no_such_key=0.3\n")  # the launch now fails


def _staged(root: Path) -> None:  # the same bytes in the working tree, another blob in the index
    _tracked(root)
    git(root, "add", "conf/train.yaml")


@pytest.mark.parametrize("change", [_tracked, _untracked, _ignored_read, _staged], ids=lambda c: c.__name__.strip("_"))
def test_a_changed_input_is_reviewed_again_as_a_review_without_cache(project, cli, counted, change):
    root, flags = project
    before = cli(*flags, *REVIEW)
    change(root)
    counted.update(compose=0, read=0, run=0)
    after = cli(*flags, *REVIEW)
    assert counted["run"] == 1  # reviewed again
    assert after.out != before.out  # each change shows in the report
    cold = cli(*flags, "--no-cache", *REVIEW)
    assert (after.out, after.code) == (cold.out, cold.code)


def test_a_new_environment_day_or_base_is_a_review_of_its_own(project, cli, counted, monkeypatch):
    root, flags = project
    before = cli(*flags, *REVIEW)
    monkeypatch.setenv("CONFIG_HARNESS_KEPT_PROBE", "1")  # a config may read any variable
    counted.update(compose=0, read=0, run=0)
    assert cli(*flags, *REVIEW).out == before.out and counted["run"] == 1
    # The base moves: main gets a commit of its own (the working tree's edit kept aside and put back).
    subprocess.run(["git", "-C", str(root), "stash", "-q"], check=True)
    readme = root / "NOTES.md"
    readme.write_text("notes\n")
    git(root, "add", "NOTES.md")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notes")
    subprocess.run(["git", "-C", str(root), "stash", "pop", "-q"], check=True)
    counted.update(compose=0, read=0, run=0)
    moved = cli(*flags, *REVIEW)
    assert counted["run"] == 1
    assert (moved.out, moved.code) == (cli(*flags, "--no-cache", *REVIEW).out, moved.code)
