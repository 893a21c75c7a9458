"""Issue 45 item 5 on verl's whole repository (../shared/data/verl-full.bundle): a review's base reuses the working
tree's compositions (those whose recorded reads a change left as they were) and the report is byte for byte the
one a review without any cache writes; on PR #5848 and on a change of one config file."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.e2e.test_day_one import CONTRACTS
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-full-reuse")]

BUNDLE = Path(os.environ.get("CONFIG_HARNESS_TEST_DATA") or ROOT.parent / "shared" / "data") / "verl-full.bundle"
ADOPTED = "adopted"
ONE_FILE = "verl/trainer/config/actor/megatron_actor.yaml"
SAID = re.compile(
    r"config-harness: at adopted, (\d+) of (\d+) cases and (\d+) of (\d+) launches taken from the cache "
    r"\(every file they read unchanged\); (\d+) cases? and (\d+) launch(?:es)? composed there"
)


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verl at `pr5848-parent` adopted with the README's commands and a maintainer's contracts (branch `adopted`)."""
    if not BUNDLE.is_file():
        pytest.skip(f"the bundle of verl's whole repository is not beside the project (or in CONFIG_HARNESS_TEST_DATA): {BUNDLE}")
    repository = tmp_path_factory.mktemp("verl-full") / "verl"
    git(ROOT, "clone", "--quiet", str(BUNDLE), str(repository))
    git(repository, "checkout", "-q", "-b", ADOPTED, "pr5848-parent")
    (repository / "config-harness").mkdir()
    (repository / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        assert main(["init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"]) == 0
        main(["generate"])
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness at the parent of PR #5848")
    return repository


def reviews(verl: Path, cache: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, tuple[int, ...], str]:
    """`check` fills an empty cache (the developer's loop), then the review with it and the review without any
    cache: both reports (equal, asserted), what the first said it took from the cache, and the report."""
    capsys.readouterr()
    main(["--cache-dir", str(cache), "check"])
    capsys.readouterr()
    code = main(["--cache-dir", str(cache), "diff", "--base", ADOPTED, "--format", "json"])
    reused = capsys.readouterr()
    cold_code = main(["--no-cache", "diff", "--base", ADOPTED, "--format", "json"])
    cold = capsys.readouterr()
    assert reused.out == cold.out and code == cold_code  # the same bytes, whatever the cache held
    said = SAID.search(reused.err)
    assert said is not None, reused.err
    counts = tuple(int(number) for number in said.groups())
    without = SAID.search(cold.err)
    assert without is not None and without.group(1, 3) == ("0", "0"), cold.err  # no cache: everything composed
    return reused.out, counts, reused.err


@pytest.fixture
def branch(verl: Path, monkeypatch: pytest.MonkeyPatch):
    git(verl, "checkout", "-q", "-B", "change", ADOPTED)
    monkeypatch.chdir(verl)
    yield verl
    git(verl, "reset", "-q", "--hard")
    git(verl, "checkout", "-q", ADOPTED)


def test_pr_5848_reviewed_with_reuse_writes_the_report_of_a_cold_review(branch, tmp_path, capsys):
    diff = subprocess.run(
        ["git", "-C", str(branch), "diff", "--binary", "pr5848-parent", "pr5848", "--", ".", ":!pyproject.toml"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["git", "-C", str(branch), "apply", "--index"], input=diff, check=True, capture_output=True)
    git(branch, "commit", "-q", "-m", "PR #5848")
    report, (cases_reused, cases, launches_reused, launches, cases_composed, launches_composed), _ = reviews(
        branch, tmp_path / "cache", capsys
    )
    assert cases_reused + cases_composed == cases and launches_reused + launches_composed == launches
    assert '"status": "changed"' in report  # the PR changes what verl composes: the comparison is not vacuous


def test_a_one_file_change_recomposes_at_the_base_only_what_reads_the_file(branch, tmp_path, capsys):
    edited = branch / ONE_FILE
    edited.write_text(edited.read_text().replace("load_weight: True", "load_weight: False", 1))
    git(branch, "commit", "-q", "-am", "one config file")
    report, counts, said = reviews(branch, tmp_path / "cache", capsys)
    cases_reused, cases, launches_reused, launches, cases_composed, launches_composed = counts
    changed = [case["id"] for case in json.loads(report)["cases"] if case["status"] != "ok"]
    changed_cases = [case for case in changed if not case.startswith("cmd/")]
    # Only what reads megatron_actor.yaml is composed again at the base: the one matrix case that reads it, and
    # the launches whose composition reads it; everything else comes from what `check` composed.
    assert changed_cases == ["route/ppo_megatron_trainer"] and cases_composed == 1 and cases_reused == cases - 1, said
    assert 0 < launches_composed <= len(changed) - len(changed_cases) and launches_reused == launches - launches_composed, said
