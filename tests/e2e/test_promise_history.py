"""Issue 50's promise proved on real history: a green review is never followed by a red `check` on the merged head,
and a review blocks on exactly what that `check` reports, cause by cause.

Two verl forks' whole histories (../shared/data/verl-forks.bundle: TinyZero and Search-R1) are replayed as a chain of
pull requests: adopted by one plain `init` at the first commit that touches a config or a launch script, each later
such commit is a pull request whose tree is that commit's (the harness's files kept), reviewed against the previous
one. For each, as committed (its goldens not regenerated) and again after `generate`:
- review exit 0 implies `check` exit 0 on the head;
- the review's blocking causes, but for what only a change has (a settings, contract, hydra or entry point change, a
  launch gone, a change not verified: `check` has no base to compare with), are `check`'s blocking causes on the head,
  each cause as every report groups it (harness.model.grouping.cause, a review's origin aside), and the goldens to
  regenerate are the same cases;
The head then becomes the base, green (`known` records what the commit broke, as a maintainer who merged it would), so
nothing `check` reports on the next head is excused at the base: the review must block on all of it.
35 real commits in all (22 of TinyZero after its base, 13 of Search-R1), whose breaks are goldens to regenerate; and
four of verl's own pull requests (verl-full.bundle, verl-commits.bundle), adopted at their parents, whose breaks are
launches: #5848 (a launch's override collides with the `lora:` block it adds), #7082, #2757 (a mandatory value three
launches leave unset) and #5885 (a write in Python the review names, not verified)."""

from __future__ import annotations

import io
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from harness.cli import build_parser, main
from harness.commands import check, diff_review
from harness.composition.session import Session
from harness.model.findings import Kind, MatrixResult, fails, regenerates
from harness.model.grouping import cause
from tests.e2e.adoption import bundle, clone
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e]

HARNESS_FILES = ("config-harness", "pyproject.toml")
# What only a change has: `check` on a head has no base to compare its settings, contracts, hydra settings, entry
# points, launches or changed lines with.
CHANGE_KINDS = frozenset(
    {Kind.SETTINGS_CHANGE, Kind.CONTRACT_CHANGE, Kind.HYDRA_CHANGE, Kind.ENTRY_CHANGE, Kind.LAUNCH_GONE, Kind.UNVERIFIED}
)


def run(*args: str) -> int:
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        return main(list(args))


def result_of(*args: str) -> MatrixResult:
    """The result the command line would report for `check` or `diff --base REF` (its exit code: 0 when `ok`)."""
    parsed = build_parser().parse_args(list(args))
    command = diff_review if parsed.command == "diff" else check
    with Session(), redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        engine, _, _ = command.merged(parsed)
        return engine.run()


def blocking(result: MatrixResult) -> tuple[dict[tuple[Any, ...], str], set[str]]:
    """The run's blocking causes (each with one message, to say it) and the cases whose goldens to regenerate."""
    findings = [(r.case.id, f) for r in result.cases for f in r.findings] + [("", f) for f in result.findings]
    causes = {cause(f): f"{case}: {f.kind} {f.path} {f.message}" for case, f in findings if fails(f) and not regenerates(f)}
    return causes, {case for case, f in findings if fails(f) and regenerates(f)}


def promise_broken(review: MatrixResult, head: MatrixResult) -> tuple[list[str], int]:
    """How the review differs from `check` on its head (a green review over a red check, a cause one blocks on and
    the other does not, goldens to regenerate that only one names), and how many causes and goldens `check` gave
    (so a run that compared nothing is told from one that agreed)."""
    if review.ok and not head.ok:
        return ["green review, red check"], 0
    (said, goldens), (found, regenerate) = blocking(review), blocking(head)
    said = {key: text for key, text in said.items() if key[0] not in CHANGE_KINDS}
    broken = [f"review only: {said[key]}" for key in said.keys() - found.keys()]
    broken += [f"check only: {found[key]}" for key in found.keys() - said.keys()]
    broken += [f"golden to regenerate, review only: {case}" for case in goldens - regenerate]
    broken += [f"golden to regenerate, check only: {case}" for case in regenerate - goldens]
    return sorted(broken), len(found) + len(regenerate)


def commit(repository: Path, message: str) -> None:
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "--allow-empty", "-m", message)


def as_pull_request(repository: Path, commit_id: str) -> None:
    """The working tree made `commit_id`'s tree exactly, but for the harness's own files (the base's)."""
    git(repository, "rm", "-rq", "--cached", ".")
    subprocess.run(["git", "-C", str(repository), "clean", "-qfdx", "-e", "config-harness", "-e", "pyproject.toml"], check=True)
    git(repository, "checkout", commit_id, "--", ".")
    git(repository, "checkout", "HEAD", "--", *HARNESS_FILES)


@pytest.mark.parametrize("branch", ["tinyzero", "search-r1"])
def test_a_review_blocks_on_what_check_on_its_head_reports_on_real_history(tmp_path, monkeypatch, branch):
    repository = tmp_path / branch
    subprocess.run(["git", "clone", "--quiet", "--branch", branch, str(bundle("verl-forks.bundle")), str(repository)], check=True)
    touched = git(repository, "log", "--reverse", "--first-parent", "--format=%H", "--", "*.yaml", "*.sh").split()
    git(repository, "checkout", "-q", "-b", "base", touched[0])
    monkeypatch.chdir(repository)
    assert run("init") == 0
    run("generate", "--quiet")
    run("known")  # what the first commit already had
    commit(repository, "adopt config-harness")
    assert run("check") == 0
    broken: dict[str, list[str]] = {}
    compared = 0
    for commit_id in touched[1:]:
        git(repository, "checkout", "-q", "-B", "pr", "base")
        as_pull_request(repository, commit_id)
        commit(repository, f"{commit_id[:7]} as committed")
        for when in ("goldens not regenerated", "goldens regenerated"):
            if when == "goldens regenerated":
                run("generate", "--quiet")
                commit(repository, f"{commit_id[:7]} with its goldens")
            differences, counted = promise_broken(result_of("diff", "--base", "base"), result_of("check"))
            compared += counted
            if differences:
                broken[f"{commit_id[:7]} ({when})"] = differences
        if run("check") != 0:
            run("known")  # merged anyway: the next pull request's base is green again
            commit(repository, f"{commit_id[:7]}: what it broke, recorded")
        assert run("check") == 0, commit_id
        git(repository, "branch", "-q", "-f", "base", "pr")
    assert not broken, "\n".join(f"{at}: {line}" for at, lines in broken.items() for line in lines)
    assert len(touched) - 1 >= 13 and compared > 0  # goldens to regenerate at least: the comparison had something to agree on


@pytest.mark.parametrize(
    ("name", "tag"),
    [("verl-full.bundle", "pr5848"), ("verl-full.bundle", "pr7082"), ("verl-commits.bundle", "pr2757"), ("verl-commits.bundle", "pr5885")],
)
def test_a_review_of_a_verl_pull_request_blocks_on_what_check_on_its_head_reports(tmp_path, monkeypatch, name, tag):
    repository = clone(name, tmp_path / "verl")
    git(repository, "checkout", "-q", "-b", "base", f"{tag}-parent")
    monkeypatch.chdir(repository)
    assert run("init", "--config-dir", "verl/trainer/config", "--quiet") == 0
    run("generate", "--quiet")
    commit(repository, "adopt config-harness")
    assert run("check") == 0  # init recorded what the parent already had
    git(repository, "checkout", "-q", "-b", "pr")
    diff = subprocess.run(["git", "diff", "--binary", f"{tag}-parent", tag], cwd=repository, check=True, capture_output=True)
    subprocess.run(["git", "apply"], cwd=repository, input=diff.stdout, check=True, capture_output=True)
    commit(repository, tag)
    broken = {}
    causes = 0
    for when in ("goldens not regenerated", "goldens regenerated"):
        if when == "goldens regenerated":
            run("generate", "--quiet")
            commit(repository, f"{tag} with its goldens")
        differences, counted = promise_broken(result_of("diff", "--base", "base"), result_of("check"))
        causes += counted
        if differences:
            broken[when] = differences
    assert not broken, "\n".join(f"{tag} ({at}): {line}" for at, lines in broken.items() for line in lines)
    assert causes > 0 or tag == "pr5885"  # #5885 changes Python only: its writes are named, not verified
