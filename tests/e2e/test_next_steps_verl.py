"""Issue 56 item 1 on verl's real tree (verl-full.bundle at `main-2026-08-22`, adopted as the README says, with a
contract of its own): every row of the next-step table is printed by check, a review, pytest or the pre-commit hook
after a change a verl contributor makes, done as its line says, and does what it says. verl has a test suite of its
own that plain `pytest --snapshot-update` collects (196 collection errors): the pytest step must not be that.
The same table on a small repository: tests/integration/test_next_steps.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harness.reporters.steps import STEPS
from tests.conftest import ROOT
from tests.e2e.adoption import adopt_verl, clone, pull_request
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

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-next-steps")]
ADOPTED = "adopted-next-steps"
CONTRACTS = "config-harness/contracts.yaml"
CRITIC = "verl/trainer/config/critic/critic.yaml"
ACTOR = "verl/trainer/config/actor/actor.yaml"
MEGATRON = "verl/trainer/config/engine/megatron.yaml"
MAIN_PPO = "verl/trainer/main_ppo.py"
SAMPLED = "  - name: sampled\n    cases: 'ppo_trainer/*'\n    require: [actor_rollout_ref.rollout.n]"
TWICE = "\n  - name: samples-twice\n    cases: 'ppo_trainer/*'\n    equal: {actor_rollout_ref.rollout.n: 2}"  # verl samples once
RENAMED = ("ppo_max_token_len_per_gpu: 32768", "ppo_max_tokens_per_gpu: 32768")


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = clone("verl-full.bundle", tmp_path_factory.mktemp("verl-next-steps") / "verl")
    adopt_verl(repository, "main-2026-08-22", ADOPTED, "adopt config-harness")
    contracts = repository / CONTRACTS
    contracts.write_text(contracts.read_text().replace("contracts: []", "contracts:\n" + SAMPLED))
    shutil.copy(ROOT / "templates" / "pre-commit-config.yaml", repository / ".pre-commit-config.yaml")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "a contract, the pre-commit template")
    return repository


@pytest.fixture
def repo(verl: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    yield from pull_request(verl, ADOPTED, request, monkeypatch)


def review(repository: Path, capsys) -> tuple[int, str]:
    return review_against(repository, capsys, ADOPTED)


def contract(repo, capsys):
    edit(repo, CONTRACTS, SAMPLED, SAMPLED + TWICE)
    line, _ = fails(repo, capsys, "contract")
    assert commands(line) == ["config-harness known"]
    do(line, repo, capsys)
    assert check(repo, capsys)[0] == 0
    known = [f for f in findings(json_check(repo, capsys), "contract") if "samples-twice" in f["message"]]
    assert known and all(f["status"] == "known" for f in known)


def record_reason(repo, capsys):
    contracts = repo / CONTRACTS
    edit(repo, CONTRACTS, SAMPLED, "  []")
    _, out = fails(repo, capsys, "record_reason", review)
    record = re.search(r"add to `changes:` (\{.*?\})  \(", error_line(out, "without a recorded reason")).group(1)
    contracts.write_text(contracts.read_text() + f"changes:\n  - {record.replace('reason: WHY', 'reason: every rollout samples')}\n")
    code, out = review(repo, capsys)
    assert code == 0 and "[recorded reason: every rollout samples]" in out, out


def known_reason(repo, capsys):
    edit(repo, CONTRACTS, SAMPLED, SAMPLED + TWICE)
    assert run_command("config-harness known", repo, capsys)[0] == 0
    line, _ = fails(repo, capsys, "known_reason", review)
    assert commands(line) == [f"config-harness known --base {ADOPTED} --reason 'WHY'"]
    do(line, repo, capsys)
    code, out = review(repo, capsys)
    assert code == 0, out


def compose(repo, capsys):
    edit(repo, "verl/trainer/config/ppo_trainer.yaml", "  - data@data: legacy_data\n", "  - data@data: legacy_dat\n")
    _, out = fails(repo, capsys, "compose")
    assert "launch" not in next_lines(out), "verl's scripts are not to blame: the config they name does not compose"
    named = error_line(out, "is not an option of data", "ppo_trainer/")
    (file, at) = places(named)[0]
    replace_on_line(repo / file, at, "legacy_dat", re.search(r"did you mean '(\w+)'", named).group(1))
    assert check(repo, capsys)[0] == 0


def unresolved(repo, capsys):
    """The issue's case: a key critic.yaml:49 interpolates, renamed; one cause, its line, the cases and launches."""
    edit(repo, CRITIC, *RENAMED)
    line, out = fails(repo, capsys, "unresolved")
    broken = {c["id"] for c in json_check(repo, capsys)["cases"] if any(f["kind"] == "unresolved" for f in c["findings"])}
    launches = sum(case.startswith("cmd/") for case in broken)
    assert launches > 50 and line == (
        f"an interpolation reads a key the config no longer has ({len(broken) - launches} cases and {launches} launches): "
        f"edit {CRITIC}:49, the line that still reads it, or restore critic.ppo_max_token_len_per_gpu"
    )
    assert sum("cannot be resolved" in row for row in out.splitlines()) == 1  # one line for the cause, in check
    ((file, at),) = places(line)
    replace_on_line(repo / file, at, "ppo_max_token_len_per_gpu", "ppo_max_tokens_per_gpu")
    assert findings(json_check(repo, capsys), "unresolved") == []


def target(repo, capsys):
    edit(repo, CRITIC, *RENAMED)
    _, out = fails(repo, capsys, "target")
    named = error_line(out, "declares no field ppo_max_tokens_per_gpu", "ppo_trainer/")
    (file, at) = places(named.split("set by ")[1])[0]
    replace_on_line(repo / file, at, "ppo_max_tokens_per_gpu", "ppo_max_token_len_per_gpu")  # the field the classes declare
    assert check(repo, capsys)[0] == 0


def launch(repo, capsys):
    """The rename's launches: each script line that sets the old key gets the fix written there (--verbose names each)."""
    edit(repo, CRITIC, *RENAMED)
    replace_on_line(repo / CRITIC, 49, "ppo_max_token_len_per_gpu", "ppo_max_tokens_per_gpu")
    fails(repo, capsys, "launch")
    _, verbose = run_command("config-harness check --verbose", repo, capsys)
    fixes = re.findall(r"^ +([\w./-]+\.sh):(\d+): (critic\.ppo_max_token_len_per_gpu)=\S+; fix: write (\S+)$", verbose, flags=re.M)
    assert fixes, verbose
    for file, at, key, fix in fixes:  # the override as the script writes it (`$VAR` and all) gives way to the fix
        script = repo / file
        written = re.search(rf"{re.escape(key)}=\S+", script.read_text().splitlines()[int(at) - 1]).group()
        replace_on_line(script, int(at), written, fix)
    left = [f for f in findings(json_check(repo, capsys), "launch") if f["path"] == "critic.ppo_max_token_len_per_gpu"]
    assert left == []


def removed(repo, capsys):
    """The issue's case: `sequence_parallel` deleted at engine/megatron.yaml:32 breaks a launch that sets it."""
    edit(repo, MEGATRON, "sequence_parallel: True\n", "")
    line, _ = fails(repo, capsys, "removed")
    assert f"at {MEGATRON}:32" in line
    (file, at) = places(line)[0]
    insert_at(repo / file, at, "sequence_parallel: True\n")
    assert check(repo, capsys)[0] == 0


def regenerate(repo, capsys):
    edit(repo, ACTOR, "ppo_mini_batch_size: 256", "ppo_mini_batch_size: 128")
    green_after(repo, capsys, "regenerate")


def hook(repo, capsys):
    commit_through_the_hook(repo, ACTOR, "ppo_mini_batch_size: 256", "ppo_mini_batch_size: 128")
    assert check(repo, capsys)[0] == 0


def config_write(repo, capsys):
    edit(repo, MAIN_PPO, "    auto_set_device(config)\n", "    auto_set_device(config)\n    config.actor_rollout_ref.rollout.n = 4\n")
    green_after(repo, capsys, "config_write")


def unverified(repo, capsys):
    edit(repo, "pyproject.toml", 'python_sources = ["verl"]\n', 'python_sources = ["verl"]\nunverified = "block"\n')
    git(repo, "commit", "-q", "-am", "a base that blocks on changes not verified")
    git(repo, "branch", "-f", "strict-next-steps")
    # A write through a name that may be either of two nodes: the reader cannot say which (setattr is followed now).
    node = "    node = config.actor_rollout_ref.rollout if config.trainer.device else config.actor_rollout_ref.actor\n"
    write = "node.n = 4"
    edit(repo, MAIN_PPO, "    auto_set_device(config)\n", f"    auto_set_device(config)\n{node}    {write}\n")
    assert run_command("config-harness generate --quiet", repo, capsys)[0] in (0, 1)

    def strict_review(repository: Path, capsys) -> tuple[int, str]:
        return review_against(repository, capsys, "strict-next-steps")

    _, out = fails(repo, capsys, "unverified", strict_review)
    (file, at) = places(error_line(out, "not verified"))[0]
    replace_on_line(repo / file, at, write, "config.actor_rollout_ref.rollout.n = 4")
    assert run_command("config-harness generate --quiet", repo, capsys)[0] in (0, 1)
    code, out = strict_review(repo, capsys)
    assert code == 0 and "not verified" not in out, out


def stale_golden(repo, capsys):
    edit(repo, ACTOR, "ppo_mini_batch_size: 256", "ppo_mini_batch_size: 128")
    line, _ = fails(repo, capsys, "stale_golden", review)
    do(line, repo, capsys)
    code, out = review(repo, capsys)
    assert code == 0, out


def orphans(repo, capsys):
    snapshots = repo / "config-harness/snapshots"
    orphan = snapshots / "_generated_ppo_trainer__gone__default.yaml"
    shutil.copy(snapshots / "_generated_ppo_trainer__dp__default.yaml", orphan)
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


def test_every_row_of_the_table_has_a_scenario_on_verl():
    assert sorted(SCENARIOS) == sorted(step.name for step in STEPS)


@pytest.mark.parametrize("name", [step.name for step in STEPS])
def test_the_step_does_what_it_says_on_verl(name, repo, capsys):
    SCENARIOS[name](repo, capsys)


def test_pytest_rewrites_verl_s_goldens_without_running_verl_s_own_suite(repo):
    """`pytest --snapshot-update` in verl collects verl's own suite: exit 2 and 196 collection errors, the goldens
    untouched. The step pytest prints rewrites them and runs nothing else."""
    edit(repo, ACTOR, "ppo_mini_batch_size: 256", "ppo_mini_batch_size: 128")
    plain, touched = pytest_rewrites(repo, "config-harness/snapshots")
    assert plain.returncode == 2 and "errors during collection" in plain.stdout and touched == ""
