"""Issue 30 on verl's whole repository (../shared/data/verl-full.bundle): the harness adopted at the parent of PR
#5848 with the settings `init` writes (its launch scripts under examples/, Python sources read from verl/), then each
way a pull request changes what verl runs while leaving the config files alone, reviewed against the adoption."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.e2e.adoption import adopt_verl, clone, pull_request
from tests.e2e.adoption import review as review_json
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-full-review")]

ADOPTED = "adopted"
MAIN_PPO = "verl/trainer/main_ppo.py"


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verl at `pr5848-parent` with the harness adopted on branch `adopted` (init, python_sources, generate)."""
    repository = clone("verl-full.bundle", tmp_path_factory.mktemp("verl-full") / "verl")
    text = adopt_verl(repository, "pr5848-parent", ADOPTED, "adopt config-harness at the parent of PR #5848")
    assert 'glob = "examples/**/*.sh"' in text and 'glob = "tests/' not in text
    return repository


@pytest.fixture
def change(verl: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A pull request branch off the adoption, named for the test; back on `adopted`, clean, afterwards."""
    yield from pull_request(verl, ADOPTED, request, monkeypatch)


def review(verl: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, dict[str, Any]]:
    return review_json(verl, ADOPTED, capsys, *more)


def findings(report: dict[str, Any], kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(case["id"], f) for case in report["cases"] for f in case["findings"] if f["kind"] == kind]


def test_a_re_pointed_root_is_an_entry_change_and_the_launches_values_change_with_it(change, capsys):
    main_ppo = change / MAIN_PPO
    main_ppo.write_text(main_ppo.read_text().replace('config_name="ppo_trainer"', 'config_name="ppo_trainer_v2"', 1))
    (change / "verl/trainer/config/ppo_trainer_v2.yaml").write_text(
        "defaults:\n  - ppo_trainer\n  - _self_\n\nalgorithm:\n  gamma: 0.5\nactor_rollout_ref:\n  model:\n    use_remove_padding: false\n"
    )
    code, report = review(change, capsys)
    assert code == 1
    (entry,) = [f for f in report["findings"] if f["kind"] == "entry_change"]
    assert (entry["path"], entry["old"], entry["new"], entry["severity"]) == (
        "verl.trainer.main_ppo",
        {"config_name": "ppo_trainer"},
        {"config_name": "ppo_trainer_v2"},
        "error",
    )
    # Every main_ppo launch that leaves gamma to the config now runs with 0.5, one group for all of them.
    gamma = [g for g in report["groups"] if g["path"] == "algorithm.gamma" and g["kind"] == "changed"]
    assert [(g["old"], g["new"]) for g in gamma] == [(1.0, 0.5)]
    launches = set(gamma[0]["cases"])
    assert len(launches) >= 50 and all(case.startswith("cmd/examples/") for case in launches)
    sets_gamma = {case for case, f in findings(report, "changed") if f["path"] == "algorithm.gamma"}
    assert sets_gamma == launches
    number = int(re.search(r"; (\d+) launches run it", entry["message"]).group(1))
    assert number >= len(launches)  # the launches that set gamma themselves run it too, with their own value


def test_a_python_default_no_yaml_sets_is_a_changed_value_on_every_case_and_launch_that_builds_the_class(change, capsys):
    model = change / "verl/workers/config/model.py"
    text = model.read_text()
    assert text.count("load_tokenizer: bool = True") >= 1
    model.write_text(text.replace("load_tokenizer: bool = True", "load_tokenizer: bool = False"))
    code, report = review(change, capsys)
    via = [(case, f) for case, f in findings(report, "changed") if f.get("via") == "python default"]
    paths = {f["path"] for _, f in via}
    assert "actor_rollout_ref.model.load_tokenizer" in paths
    tokenizer = [(case, f) for case, f in via if f["path"] == "actor_rollout_ref.model.load_tokenizer"]
    assert all((f["old"], f["new"], f["severity"]) == (True, False, "info") for _, f in tokenizer)
    assert all(f["source"].startswith("verl/workers/config/model.py:") for _, f in tokenizer)
    cases = {case for case, _ in tokenizer}
    assert "ppo_trainer/dp/default" in cases and any(case.startswith("cmd/examples/") for case in cases)
    assert code == 0  # a changed value is news for the reviewer, not a failure


def test_a_deleted_and_a_renamed_script_are_launch_gone_errors_at_the_bases_line(change, capsys):
    deleted, renamed = "examples/ppo_trainer/run_gemma.sh", "examples/ppo_trainer/run_deepseek7b_llm.sh"
    git(change, "rm", "-q", deleted)
    git(change, "mv", renamed, renamed.replace(".sh", ".bash"))
    code, report = review(change, capsys)
    gone = {f["path"]: f for _, f in findings(report, "launch_gone")}
    assert code == 1 and set(gone) == {f"cmd/{deleted}#1", f"cmd/{renamed}#1"}
    assert all(f["severity"] == "error" and f["origin"] == "introduced" for f in gone.values())
    assert {f["source"].rsplit(":", 1)[0] for f in gone.values()} == {deleted, renamed}


def test_a_launch_whose_config_name_the_reader_cannot_know_is_an_error_when_the_base_extracted_it(change, capsys):
    script = change / "examples/ppo_trainer/run_gemma.sh"
    text = script.read_text()
    assert "python3 -m verl.trainer.main_ppo \\\n" in text
    script.write_text(
        text.replace("python3 -m verl.trainer.main_ppo \\\n", 'python3 -m verl.trainer.main_ppo --config-name="$(pick)" \\\n', 1)
    )
    code, report = review(change, capsys, "--case", "cmd/examples/ppo_trainer/*")
    dark = [f for case, f in findings(report, "launch") if case == "cmd/examples/ppo_trainer/run_gemma.sh#1"]
    assert code == 1 and [f["severity"] for f in dark] == ["error"], dark
    line = 1 + text.splitlines().index("python3 -m verl.trainer.main_ppo \\")
    assert dark[0]["source"] == f"examples/ppo_trainer/run_gemma.sh:{line}" and dark[0]["message"].startswith("not extracted:")


def test_log_since_a_tag_off_heads_line_walks_from_the_merge_base_and_names_pr_5848(verl, capsys, monkeypatch):
    """A release tag on its own branch (as verl's v0.7.1 is): `log --since` walks from the merge base, as git does."""
    monkeypatch.chdir(verl)
    git(verl, "checkout", "-q", "-b", "release-0.7", "pr5848-parent")
    (verl / "verl/version/version").write_text("0.7.1\n")
    git(verl, "commit", "-q", "-am", "release 0.7.1")
    git(verl, "tag", "release-tag")
    git(verl, "checkout", "-q", "-B", "with-pr5848", ADOPTED)
    git(verl, "cherry-pick", "--allow-empty", "pr5848")  # the PR's own change, on top of the adoption
    pr = git(verl, "rev-parse", "HEAD").strip()
    try:
        capsys.readouterr()
        arguments = ["log", "actor_rollout_ref.model.use_remove_padding", "--case", "route/ppo_megatron_trainer", "--since", "release-tag"]
        assert main(arguments) == 0
        lines = capsys.readouterr().out.splitlines()
        base = git(verl, "merge-base", "release-tag", "HEAD").strip()
        assert lines[0].startswith("--since release-tag (") and f"walked from their merge base {base[:12]}" in lines[0]
        assert sum("merge base" in line for line in lines) == 1
        assert any(line.startswith(pr[:12]) and "false -> true" in line for line in lines[1:]), lines
    finally:
        git(verl, "checkout", "-q", ADOPTED)


def test_refactors_are_folded_the_same_way_in_every_case(verl, capsys, tmp_path):
    """An interpolation replaced by a literal with the same resolved value (verl's 16253911d, between PR #5848 and
    the parent of PR #7082: `critic.model.external_lib`, `trust_remote_code`) is a refactor in every case or none."""
    trees = {}
    for tag in ("pr5848", "pr7082-parent"):
        folder = tmp_path / tag
        folder.mkdir()
        archive = tmp_path / f"{tag}.tar"
        git(verl, "archive", "-o", str(archive), tag, "verl/trainer/config")
        import tarfile

        with tarfile.open(archive) as opened:
            opened.extractall(folder, filter="data")
        trees[tag] = folder / "verl/trainer/config"
    capsys.readouterr()
    main(["diff", str(trees["pr5848"]), str(trees["pr7082-parent"]), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    # Groups are distinct by (kind, path, old, new, severity, contract, effective_same ...): a change folded in some
    # cases and not in others would be two groups with the same path, old and new.
    folded: dict[tuple[str, str, str], set[bool]] = defaultdict(set)
    for group in report["groups"]:
        if group["kind"] == "changed":
            folded[(group["path"], json.dumps(group["old"]), json.dumps(group["new"]))].add(bool(group["effective_same"]))
    assert folded and all(len(same) == 1 for same in folded.values()), {k: v for k, v in folded.items() if len(v) > 1}
    refactors = {path for (path, _, _), same in folded.items() if same == {True}}
    assert {"critic.model.external_lib", "critic.model.trust_remote_code"} <= refactors
