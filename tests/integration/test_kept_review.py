"""A whole review kept by its inputs (issue 52): a second review with nothing changed composes, reads and compares
nothing and prints the same bytes; after a change to what decides it, it is reviewed again and its report is a
review's without any cache (each other kind of change: tests/integration/test_kept_review_changes.py, e2e tier).

Counted in calls, not seconds: the same answer on a loaded machine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.composition.compose import HydraSession
from harness.runner import launches as launches_module
from harness.runner.run import Runner
from tests.conftest import commit_small_project, count_calls
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
    return count_calls(
        monkeypatch, {"compose": (HydraSession, "compose"), "read": (launches_module, "launches_in"), "run": (Runner, "run")}
    )


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
    # A file the review read inside a folder git ignores (one name to git, named by no setting): only the reader's
    # record of what the run asked for sees it change.
    (root / "local" / "names.sh").write_text("SETTING=trainer.no_such_key=0.3\n")  # the launch now fails
    counted.update(compose=0, read=0, run=0)
    after = cli(*flags, *REVIEW)
    assert counted["run"] == 1 and after.out != first.out
    assert (after.out, after.code) == (cli(*flags, "--no-cache", *REVIEW).out, after.code)
