"""Issue 24 on verl's real history: launch commands in its scripts as cases, composed and reviewed (the replay bundle)."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from harness.composition import hydra_compat
from harness.runner.launches import Composer, Project, command_cases, find_scripts
from tests.e2e.real_trees import SHARED_DATA
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

BUNDLE = SHARED_DATA / "verl-replay.bundle"
GLOBS = ("examples/**/*.sh", "verl/experimental/**/shell/*.sh")
SETTINGS = """\
config_dir = "verl/trainer/config"
snapshot_dir = "snapshots"
roots = ["ppo_trainer"]

[[commands]]
glob = "examples/**/*.sh"

[[commands]]
glob = "verl/experimental/**/shell/*.sh"
"""


def clone(tmp_path: Path, tag: str) -> Path:
    """verl's repository at a tag of the replay bundle, in a scratch folder."""
    if not BUNDLE.is_file():
        pytest.skip(f"{BUNDLE} is absent")
    destination = tmp_path / "verl"
    subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(destination)], check=True)
    git(destination, "checkout", "--quiet", tag)
    return destination


def replay(tmp_path: Path, scripts_tag: str, tree_tag: str, contracts: str | None = None) -> Path:
    """A repository whose `base` commit is `scripts_tag` with settings (and `contracts.yaml` when given), and whose
    working tree has the tree of `tree_tag` under the scripts of `scripts_tag` (what a pull request that touched
    only configs would look like)."""
    repo = clone(tmp_path, scripts_tag)
    git(repo, "checkout", "--quiet", "-b", "base")
    settings = SETTINGS
    if contracts is not None:
        (repo / "contracts.yaml").write_text(contracts, encoding="utf-8")
        settings = 'contracts = ["contracts.yaml"]\n' + settings
    (repo / "harness.toml").write_text(settings, encoding="utf-8")
    git(repo, "add", "harness.toml", *(["contracts.yaml"] if contracts is not None else []))
    git(repo, "commit", "--quiet", "-m", "settings")
    git(repo, "checkout", tree_tag, "--", ".", ":(exclude)*.sh")
    return repo


def plain_compose(repo: Path, case) -> Any:
    """A launch composed by plain Hydra in one go, from the repository's root as the script runs (raises its error)."""
    with contextlib.chdir(repo):
        GlobalHydra.instance().clear()
        try:
            with initialize_config_dir(config_dir=str(case.config_dir), version_base=None):
                return compose(case.config_name, list(case.overrides))
        finally:
            GlobalHydra.instance().clear()


def launch_findings(document: dict) -> list[dict]:
    return [f | {"case": c["id"]} for c in document["cases"] for f in c["findings"] if f["kind"] == "launch"]


def test_main_branch_every_launch_found_and_checked_as_plain_hydra_says(tmp_path, cli):
    repo = clone(tmp_path, "main-2026-08-22")
    result = cli("init", "--config-dir", "verl/trainer/config", "--settings", "harness.toml", cwd=repo)
    assert result.code == 0 and "commands      examples/**/*.sh" in result.out
    # init recorded what already fails as known (test_day_one.py); here every launch finding is compared with Hydra.
    known = repo / "config-harness" / "known.yaml"
    assert "- finding: launch" in known.read_text()
    known.write_text("waivers: []\n")
    # Every launch in examples/ and verl/experimental/**/shell/: a script that names an entry point of the
    # repository (`-m verl.`) is found, each such command once.
    scripts = find_scripts(repo, GLOBS)
    naming = [s for s in scripts if "-m verl." in s.read_text() or "$COMMAND" in s.read_text()]
    listing = cli("--settings", "harness.toml", "list", "--format", "json", "--case", "cmd/*", cwd=repo).json()["cases"]
    found_scripts = {row["source"].rsplit(":", 1)[0] for row in listing}
    assert {s.relative_to(repo).as_posix() for s in naming} <= found_scripts
    assert all(row["kind"] == "command" for row in listing)
    unread = [row for row in listing if not row["extracted"]]
    # Each said with why: a program the script never sets, print_cfg.py's arguments from a function's `$3` (once
    # per pass of the loop over its 4 specs that calls it: issue 51), and (issue 41) a value a `source` of a file
    # outside the project may set (Ascend's set_env.sh).
    assert [row["source"] for row in unread] == [
        "examples/sft/gsm8k/run_mimo_7b_mtp_megatron.sh:77",
        *["scripts/generate_trainer_config.sh:28"] * 4,
        "verl/experimental/fully_async_policy/shell/geo3k_qwen3vl_30b_megatron_6_2_npu_async.sh:65",
    ]
    assert "$COMMAND" in unread[0]["reason"]
    # The function's `$3` is the caller's `$config_arg`, which `read` sets from a here-string the reader does not follow.
    for row in unread[1:5]:
        assert row["reason"].endswith(
            "`${config_arg}` is not known: $config_arg stands for whole arguments (it may be set by "
            "`read -r config_name output_file config_arg` (line 39))"
        )
    assert unread[5]["reason"].endswith(
        "which may be set in a way the reader does not follow: `source /usr/local/Ascend/nnal/atb/set_env.sh` (line 10): it lies"
        " outside the project"
    )

    checked = cli("--settings", "harness.toml", "--no-cache", "check", "--case", "cmd/*", cwd=repo)
    assert checked.code == 1
    count_line = next(line for line in checked.out.splitlines() if "launches checked of" in line)  # after the verdict
    # Readings of a launch under an environment its script tests (issue 51) are launches of their own, said so.
    readings = [row for row in listing if "when" in row]
    assert readings and all(row["id"].endswith(f" ({row['when']})") for row in readings)
    said = f" ({len(readings)} of them read under an environment their script tests)"
    assert count_line.startswith(f"{len(listing) - len(unread)} launches checked of {len(listing)} found{said}: ")
    document = json.loads(cli("--settings", "harness.toml", "check", "--case", "cmd/*", "--format", "json", cwd=repo).out)
    findings = launch_findings(document)
    # A launch not extracted that bash never reaches fails too (its stop), but is counted as not extracted.
    failing = {f["case"] for f in findings if f["severity"] == "error"} - {row["id"] for row in unread}
    assert f"{len(listing) - len(unread) - len(failing)} compose, {len(failing)} fail" in count_line
    merge = [f for f in findings if f["case"] == "cmd/examples/tuning/lora/run_qwen3_8b_merge_fsdp.sh#1"]
    assert [(f["path"], f["source"], f["fix"]) for f in merge] == [
        (
            "actor_rollout_ref.model.lora.merge",
            "examples/tuning/lora/run_qwen3_8b_merge_fsdp.sh:54",
            "actor_rollout_ref.model.lora.merge=True",
        )
    ]
    for finding in findings:
        if finding["path"]:
            script, line = finding["source"].rsplit(":", 1)
            assert finding["new"].lstrip("+~").startswith(finding["path"])
            text = (repo / script).read_text().splitlines()[int(line) - 1]
            assert finding["path"] in text or "$" in text or "[@]" in text  # the override's own line

    # Plain Hydra on the same overrides: a launch we say composes composes, and one we say fails stops at the
    # first override we name (sampled: every failing launch whose failure is an override, and ten that compose).
    project = Project(repo, repo / "verl/trainer/config", {})
    cases = {c.id: c for c in command_cases(project, scripts)}
    by_case: dict[str, list[dict]] = {}
    for finding in findings:
        by_case.setdefault(finding["case"], []).append(finding)
    sample = [case_id for case_id, fs in by_case.items() if all(f["path"] for f in fs)]
    sample += [case_id for case_id in cases if case_id not in by_case][:10]
    assert len(sample) > 10
    for case_id in sample:
        try:
            plain_compose(repo, cases[case_id])
            error = None
        except Exception as caught:  # Hydra's own exception types vary
            error = caught
        if case_id not in by_case:
            assert error is None, case_id
        else:
            first = by_case[case_id][0]
            assert error is not None, case_id
            messages = f"{error} {error.__cause__}"
            assert first["path"] in messages or first["new"] in messages, (case_id, messages)


def test_launches_checked_on_one_lent_config_say_what_each_on_a_fresh_copy_with_hydras_code_says(tmp_path, monkeypatch):
    # The speed path (a base's config lent to one launch after another, overrides undone after each, plain values
    # set without OmegaConf.update's walk, errors without deep copies) against the plain one on every launch.
    repo = clone(tmp_path, "main-2026-08-22")
    cases = command_cases(Project(repo, repo / "verl/trainer/config", {}), find_scripts(repo, GLOBS))

    def verdicts() -> list[tuple]:
        checked = Composer(repo).check(cases)
        return [(c.case.id, [(f.reason, f.key, f.message, f.fix) for f in c.failures], [o.text for o in c.unchecked]) for c in checked]

    lent = verdicts()
    monkeypatch.setattr(hydra_compat.LentConfig, "apply", lambda self, parsed: hydra_compat.apply_overrides([parsed], self.config))
    monkeypatch.setattr(hydra_compat.LentConfig, "give_back", lambda self: False)
    monkeypatch.setattr(hydra_compat, "errors_without_copies", contextlib.nullcontext)
    assert verdicts() == lent
    assert sum(bool(failures) for _, failures, _ in lent) > 5


def test_fully_async_launches_read_verls_own_pkg_search_path_from_the_checkout_as_plain_hydra_reads_the_folder(tmp_path):
    # fully_async_ppo_trainer.yaml searches `pkg://verl.trainer.config`: verl's own package, read from the checkout
    # as a folder (never imported). Plain Hydra, given that folder as `file://`, composes the same config.
    repo = clone(tmp_path, "main-2026-08-22")
    cases = [
        c
        for c in command_cases(Project(repo, repo / "verl/trainer/config", {}), find_scripts(repo, GLOBS))
        if c.config_name == "fully_async_ppo_trainer"
    ]
    assert len(cases) > 5
    checked = Composer(repo).check(cases[:3], keep_config=True)
    assert [c.failures for c in checked] == [[], [], []]
    config = repo / "verl/experimental/fully_async_policy/config/fully_async_ppo_trainer.yaml"
    text = config.read_text()
    assert "- pkg://verl.trainer.config" in text
    config.write_text(text.replace("- pkg://verl.trainer.config", "- file://verl/trainer/config"))
    for case, result in zip(cases, checked):
        plain = plain_compose(repo, case)
        assert OmegaConf.to_container(result.config, resolve=False) == OmegaConf.to_container(plain, resolve=False), case.id


def test_replay_of_c88e875dd_names_the_async_scripts_collision_as_introduced(tmp_path, cli):
    repo = replay(tmp_path, "pr7082-parent", "pr7082")
    script = "verl/experimental/fully_async_policy/shell/grpo_qwen35_35b_megatron_async.sh"
    result = cli("--settings", "harness.toml", "diff", "--base", "base", "--case", f"cmd/{script}#*", "--format", "json", cwd=repo)
    assert result.code == 1
    findings = launch_findings(result.json())
    collision = [f for f in findings if f["new"] == "+algorithm.filter_groups.enable=True"]
    assert len(collision) == 1
    assert collision[0]["origin"] == "introduced" and collision[0]["severity"] == "error"
    assert collision[0]["source"].startswith(f"{script}:")
    assert collision[0]["fix"] == "algorithm.filter_groups.enable=True"
    assert "key now exists" in collision[0]["message"]


def test_replay_of_pr_5848_names_the_lora_merge_script_and_the_override_without_plus(tmp_path, cli):
    repo = replay(tmp_path, "pr5848-parent", "pr5848")
    result = cli("--settings", "harness.toml", "diff", "--base", "base", "--case", "cmd/*", "--format", "json", cwd=repo)
    assert result.code == 1
    introduced = [f for f in launch_findings(result.json()) if f["origin"] == "introduced"]
    # The data README's fact: the PR breaks exactly this one launch.
    assert [(f["case"], f["new"], f["fix"]) for f in introduced] == [
        (
            "cmd/examples/grpo_trainer/run_qwen3-4b_gsm8k_grpo_lora_merge.sh#1",
            "+actor_rollout_ref.model.lora.merge=True",
            "actor_rollout_ref.model.lora.merge=True",
        )
    ]
    text = cli("--settings", "harness.toml", "diff", "--base", "base", "--case", "cmd/*", cwd=repo)
    assert "launches checked of" in text.out and "run_qwen3-4b_gsm8k_grpo_lora_merge.sh:" in text.out


def test_replay_of_pr_5848_names_the_launches_whose_value_moved_under_an_unchanged_script(tmp_path, cli):
    # PR #5848 flipped the Megatron default of model.use_remove_padding from false to true: a Megatron launch
    # that does not set it now runs with true, a changed value of that launch (issue 30), with the matrix's.
    key = "actor_rollout_ref.model.use_remove_padding"
    repo = replay(tmp_path, "pr5848-parent", "pr5848", f"contracts:\n  - name: padding\n    require: [{key}]\n")
    glob = "cmd/examples/grpo_trainer/*megatron*"
    result = cli("--settings", "harness.toml", "diff", "--base", "base", "--case", glob, "--format", "json", cwd=repo)
    assert result.code == 0  # differences fail nothing in a review
    moved = [(c["id"], f) for c in result.json()["cases"] for f in c["findings"] if f["path"] == key and f["kind"] == "changed"]
    assert len(moved) > 10
    assert {(f["old"], f["new"], f["severity"]) for _, f in moved} == {(False, True, "info")}
    assert "cmd/examples/grpo_trainer/run_qwen2-7b_math_megatron.sh#1" in {case for case, _ in moved}
    for case, _ in moved:  # none of these scripts sets the key; those that set it keep their value
        script = case.removeprefix("cmd/").rsplit("#", 1)[0]
        assert key not in (repo / script).read_text()
    setting = [p for p in (repo / "examples/grpo_trainer").glob("*megatron*.sh") if key in p.read_text()]
    assert setting and not {case for case, _ in moved} & {f"cmd/{p.relative_to(repo).as_posix()}#1" for p in setting}
    (group,) = [g for g in result.json()["groups"] if g["path"] == key and g["kind"] == "changed"]
    assert set(group["cases"]) >= {case for case, _ in moved}  # one cause, one group


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_renamed_key_and_a_moved_subtree_are_one_moved_finding_each_and_launches_are_told_the_new_override(tmp_path, cli):
    repo = clone(tmp_path, "main-2026-08-22")
    (repo / "harness.toml").write_text(
        SETTINGS.replace('glob = "examples/**/*.sh"', 'glob = "examples/ppo_trainer/*.sh"').replace(
            'glob = "verl/experimental/**/shell/*.sh"', 'glob = "launch/*.sh"'
        ),
        encoding="utf-8",
    )
    (repo / "launch").mkdir()
    (repo / "launch" / "run.sh").write_text(
        # rollout.name is `???` in verl's config: a launch that does not give it is an error of its own (issue 50).
        "python3 -m verl.trainer.main_ppo \\\n    trainer.val_before_train=False \\\n"
        "    trainer.total_training_steps=5 \\\n    trainer.project_name=demo actor_rollout_ref.rollout.name=vllm\n",
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "settings")
    trainer = repo / "verl/trainer/config/ppo_trainer.yaml"
    # A rename in place (the value unchanged) and a whole subtree moved under another parent.
    _edit(trainer, "  val_before_train: True", "  validate_before_train: True")
    text = trainer.read_text(encoding="utf-8")
    assert "\nglobal_profiler:" in text
    _edit(trainer, "\nglobal_profiler:", "\nprofiling:\n  global_profiler:")
    lines = trainer.read_text(encoding="utf-8").splitlines()
    start = lines.index("  global_profiler:")
    end = next(i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" "))
    lines[start + 1 : end] = ["  " + line if line else line for line in lines[start + 1 : end]]
    trainer.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--format", "json", cwd=repo)
    document = result.json()
    moved = [f for c in document["cases"] for f in c["findings"] if f["kind"] == "moved"]
    assert {(f["old"], f["new"]) for f in moved} == {
        ("trainer.val_before_train", "trainer.validate_before_train"),
        ("global_profiler", "profiling.global_profiler"),
    }
    # One moved finding per case: the matrix case's, and (issue 30: a launch's values are compared like a case's) one
    # for each launch that leaves the key to the config; the launch whose override of it fails has its launch finding.
    renamed = [
        (c["id"], f["value"])
        for c in document["cases"]
        for f in c["findings"]
        if f["kind"] == "moved" and f["old"] == "trainer.val_before_train"
    ]
    assert ("ppo_trainer/base/default", True) in renamed and all(value is True for _, value in renamed)
    assert len(renamed) == len({case for case, _ in renamed}) and ("cmd/launch/run.sh#1", True) not in renamed
    case = next(c for c in document["cases"] if c["id"] == "ppo_trainer/base/default")
    assert not [f for f in case["findings"] if f["kind"] in ("removed", "added") and "profiler" in f["path"]]
    launch = [f for f in launch_findings(document) if f["case"] == "cmd/launch/run.sh#1"]
    assert [(f["path"], f["fix"], f["origin"]) for f in launch] == [
        ("trainer.val_before_train", "trainer.validate_before_train=False", "introduced")
    ]


def test_no_script_code_runs(tmp_path, cli):
    repo = clone(tmp_path, "main-2026-08-22")
    victim = tmp_path / "created-by-the-script"
    (repo / "launch").mkdir()
    (repo / "launch" / "run.sh").write_text(
        f"touch {victim}\nSTEPS=$(touch {victim}; echo 5)\nmkdir -p {victim}.d && echo hi > {victim}.txt\n"
        f"python3 -m verl.trainer.main_ppo trainer.total_training_steps=$STEPS trainer.project_name=$(touch {victim}) "
        "actor_rollout_ref.rollout.name=vllm\n",
        encoding="utf-8",
    )
    (repo / "harness.toml").write_text(SETTINGS.replace("examples/**/*.sh", "launch/*.sh"), encoding="utf-8")
    listing = cli("--settings", "harness.toml", "list", "--format", "json", "--case", "cmd/launch/*", cwd=repo).json()["cases"]
    assert [row["id"] for row in listing] == ["cmd/launch/run.sh#1"]
    assert listing[0]["overrides"][0] == "trainer.total_training_steps=$STEPS"  # never run: the script's own text
    assert cli("--settings", "harness.toml", "check", "--case", "cmd/launch/*", cwd=repo).code == 0
    assert not victim.exists() and not Path(f"{victim}.d").exists() and not Path(f"{victim}.txt").exists()
