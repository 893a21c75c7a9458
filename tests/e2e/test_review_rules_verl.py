"""A pull request cannot turn its own review green: on verl's real trees (0.8.0 at the base with the harness adopted
by `init`, 0.9.1 in the pull request), each way of editing the harness's own settings or the `hydra:` subtree to
hide a change fails the review and is named first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import verl_tree
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

UPGRADE_RECORD = (
    "changes:\n"
    "  - {setting: engines, old: null, new: [dp, megatron, torchtitan, veomni], reason: verl 0.9.1 removed the mindspeed engine}\n"
)


def run(repository: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(repository)
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verl 0.8.0's tree with the harness adopted by `init` and its goldens, committed as `main`; then branch `pr`
    upgrades the tree to 0.9.1 and records why its settings now list the engines (mindspeed is gone)."""
    repository = tmp_path_factory.mktemp("verl-review")
    shutil.copytree(verl_tree("0.8.0"), repository / "verl" / "trainer" / "config")
    (repository / "pyproject.toml").write_text('[project]\nname = "verl"\n')
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        assert main(["init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"]) == 0
        assert main(["generate"]) == 0
    git(repository, "init", "-q", "-b", "main")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness at verl 0.8.0")
    git(repository, "checkout", "-q", "-b", "pr")
    shutil.rmtree(repository / "verl" / "trainer" / "config")
    shutil.copytree(verl_tree("0.9.1"), repository / "verl" / "trainer" / "config")
    edit(
        repository / "pyproject.toml",
        'engine_group = "model_engine"\n',
        'engine_group = "model_engine"\nengines = ["dp", "megatron", "torchtitan", "veomni"]\n',
    )
    with (repository / "config-harness" / "contracts.yaml").open("a") as contracts:
        contracts.write(UPGRADE_RECORD)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        main(["generate", "--prune"])  # the upgrade's goldens (mindspeed's pruned), as `check` on main will read them
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "upgrade to verl 0.9.1")
    return repository


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


@pytest.fixture
def attempt(adopted: Path, tmp_path: Path) -> Path:
    """A checkout of the honest upgrade, to add one fooling attempt to."""
    checkout = tmp_path / "attempt"
    git(adopted, "worktree", "add", "-q", "--detach", str(checkout), "pr")
    return checkout


def review(repository: Path, capsys, monkeypatch) -> tuple[int, dict]:
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "attempt")
    code, out = run(repository, capsys, monkeypatch, "diff", "--base", "main", "--format", "json")
    return code, json.loads(out)


def first_error(report: dict) -> dict:
    """The first error a reader meets: groups are in triage order, settings changes first."""
    return next(group for group in report["groups"] if group["severity"] == "error")


def test_the_honest_upgrade_passes_with_its_recorded_settings_change(adopted, capsys, monkeypatch):
    code, out = run(adopted, capsys, monkeypatch, "diff", "--base", "main", "--format", "json")
    report = json.loads(out)
    assert report["settings"].startswith("settings: main's pyproject.toml")
    (change,) = [f for f in report["findings"] if f["kind"] == "settings_change"]
    assert (change["path"], change["severity"]) == ("engines", "warning") and code == 0
    gone = [c["id"] for c in report["cases"] if c["status"] == "gone"]
    assert gone == ["ppo_trainer/mindspeed/default"]  # the recorded engines change explains it


def test_narrowing_the_engines_and_deleting_the_route_fails(attempt, capsys, monkeypatch):
    settings = attempt / "pyproject.toml"
    edit(settings, 'engines = ["dp", "megatron", "torchtitan", "veomni"]', 'engines = ["dp", "torchtitan", "veomni"]')
    edit(
        settings,
        '[[tool.config-harness.routes]]\nname = "ppo_megatron_trainer"\nconfig_name = "ppo_megatron_trainer"\n'
        'same_as = "ppo_trainer/megatron/default"\n',
        "",
    )
    run(attempt, capsys, monkeypatch, "generate", "--prune")  # the pull request regenerates and prunes its goldens
    code, report = review(attempt, capsys, monkeypatch)
    first = first_error(report)
    assert code == 1 and first["kind"] == "settings_change" and first["path"] in ("engines", "routes.ppo_megatron_trainer")
    errors = {(f["path"], f["severity"]) for f in report["findings"] if f["kind"] == "settings_change"}
    assert {("engines", "error"), ("routes.ppo_megatron_trainer", "error")} <= errors
    # The base's rules still review what the pull request dropped.
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses["ppo_trainer/megatron/default"] == statuses["route/ppo_megatron_trainer"] == "changed"


def test_a_preset_that_cancels_a_changed_value_fails_and_the_change_still_shows(attempt, capsys, monkeypatch):
    edit(attempt / "pyproject.toml", "default = []", 'default = ["actor_rollout_ref.rollout.max_num_seqs=1024"]')
    code, report = review(attempt, capsys, monkeypatch)
    first = first_error(report)
    assert code == 1 and (first["kind"], first["path"]) == ("settings_change", "presets.default")
    changed = {(g["path"], g["old"], g["new"]) for g in report["groups"] if g["kind"] == "changed"}
    assert ("actor_rollout_ref.rollout.max_num_seqs", 1024, 256) in changed


def test_contracts_re_pointed_outside_with_read_outside_widened_fails(attempt, tmp_path, capsys, monkeypatch):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "contracts.yaml").write_text("contracts: []\n")
    edit(
        attempt / "pyproject.toml",
        'contracts = ["config-harness/contracts.yaml", "config-harness/known.yaml"]',
        f'contracts = ["{outside / "contracts.yaml"}", "config-harness/known.yaml"]\nread_outside = ["{outside}"]',
    )
    code, report = review(attempt, capsys, monkeypatch)
    changes = {(f["path"], f["severity"]) for f in report["findings"] if f["kind"] == "settings_change"}
    assert code == 1 and first_error(report)["kind"] == "settings_change"
    assert {("contracts", "error"), ("read_outside", "error")} <= changes


def test_moving_the_search_path_and_the_snapshot_folder_fails(attempt, capsys, monkeypatch):
    (attempt / "extra-configs").mkdir()
    edit(
        attempt / "pyproject.toml",
        'snapshot_dir = "config-harness/snapshots"',
        'snapshot_dir = "elsewhere/snapshots"\nsearch_path = ["extra-configs"]',
    )
    code, report = review(attempt, capsys, monkeypatch)
    changes = {(f["path"], f["severity"]) for f in report["findings"] if f["kind"] == "settings_change"}
    assert code == 1 and first_error(report)["kind"] == "settings_change"
    assert {("snapshot_dir", "error"), ("search_path", "error")} <= changes
    assert report["baseline"].startswith("goldens at main")  # still the base's goldens, from the base's folder


def test_a_hydra_callback_and_an_environment_setting_fail(attempt, capsys, monkeypatch):
    root = attempt / "verl" / "trainer" / "config" / "ppo_trainer.yaml"
    root.write_text(
        root.read_text() + "\nhydra:\n  callbacks:\n    upload:\n      _target_: somewhere.Upload\n"
        "  job:\n    env_set:\n      WANDB_API_KEY: ${oc.env:GITHUB_TOKEN}\n"
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_review_secret")
    code, report = review(attempt, capsys, monkeypatch)
    first = first_error(report)
    assert code == 1 and first["kind"] == "hydra_change"
    hydra = {g["path"] for g in report["groups"] if g["kind"] == "hydra_change" and g["severity"] == "error"}
    assert hydra == {"hydra.callbacks.upload._target_", "hydra.job.env_set.WANDB_API_KEY"}
    assert "ghs_review_secret" not in json.dumps(report)


def test_a_renamed_root_fails(attempt, capsys, monkeypatch):
    config = attempt / "verl" / "trainer" / "config"
    git(attempt, "mv", "verl/trainer/config/ppo_trainer.yaml", "verl/trainer/config/ppo.yaml")
    for legacy in config.glob("*.yaml"):
        text = legacy.read_text()
        if "- ppo_trainer\n" in text:
            legacy.write_text(text.replace("- ppo_trainer\n", "- ppo\n"))
    settings = attempt / "pyproject.toml"
    edit(settings, 'roots = ["ppo_trainer"]', 'roots = ["ppo"]')
    settings.write_text(settings.read_text().replace('"ppo_trainer/megatron/default"', '"ppo/megatron/default"'))
    code, report = review(attempt, capsys, monkeypatch)
    first = first_error(report)
    assert code == 1 and (first["kind"], first["path"]) == ("settings_change", "roots")
