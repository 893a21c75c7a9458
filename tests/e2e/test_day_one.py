"""Green on day one, every line earned (issue 29), on verl's whole repository (../shared/data/verl-full.bundle).

A maintainer adopts the harness with the README's commands (`init`, `generate`) at a real commit: the next `check`
is green and short, the findings the repository already had are recorded in `config-harness/known.yaml` with their
reasons, a pull request that fixes one is told to remove its entry, one that adds an entry needs a record, an
innocent pull request gets a short green review, and PR #5848 names its four damages at the top of a short review.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.e2e.real_trees import SHARED_DATA
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

BUNDLE = SHARED_DATA / "verl-full.bundle"
ADOPT = ["init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine"]
# A maintainer's contracts for the Megatron-only keys PR #5848 lost and the lora alias it left disagreeing.
CONTRACTS = """\
contracts:
  - name: megatron-critical
    cases: "*megatron*"
    require:
      - actor_rollout_ref.rollout.layer_name_map.qkv_layer_name
      - actor_rollout_ref.rollout.layer_name_map.gate_proj_layer_name
      - actor_rollout_ref.model.override_config.moe_config.freeze_moe_router
    equal:
      actor_rollout_ref.model.use_remove_padding: false
  - name: lora-alias
    agree:
      - [actor_rollout_ref.model.lora_alpha, actor_rollout_ref.model.lora.alpha]
"""


def run(repository: Path, *args: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(repository)
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out.out


def adopt(folder: Path, tag: str, contracts: str | None = None) -> Path:
    """verl's repository at `tag`, adopted as the README says (the contracts written first, when given), committed on
    branch `adopted`."""
    if not BUNDLE.is_file():
        pytest.skip(f"verl's whole repository is not beside the project: {BUNDLE}")
    repository = folder / "verl"
    git(ROOT, "clone", "--quiet", str(BUNDLE), str(repository))
    git(repository, "checkout", "-q", "-b", "adopted", tag)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        if contracts is not None:
            (repository / "config-harness").mkdir()
            (repository / "config-harness" / "contracts.yaml").write_text(contracts)
        assert main(ADOPT) == 0
        assert main(["generate"]) == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness")
    return repository


def apply_pull_request(repository: Path, base: str, head: str) -> None:
    """The pull request's own diff (verl's tree objects, so exactly PR's change) on branch `pr`, with its goldens
    regenerated as its author regenerated verl's (a review fails on stale ones)."""
    git(repository, "checkout", "-q", "-b", "pr")
    diff = subprocess.run(
        ["git", "-C", str(repository), "diff", "--binary", base, head, "--", ".", ":!pyproject.toml"], check=True, capture_output=True
    ).stdout
    subprocess.run(["git", "-C", str(repository), "apply", "--index"], input=diff, check=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        main(["generate", "--quiet"])  # exit 1 where the change breaks a contract: the goldens are written all the same
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", f"{head}")


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return adopt(tmp_path_factory.mktemp("parent"), "pr5848-parent")


@pytest.fixture(scope="module")
def main_branch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return adopt(tmp_path_factory.mktemp("main"), "main-2026-08-22")


@pytest.mark.parametrize("which", ["parent", "main_branch"])
def test_check_right_after_adoption_is_green_and_short_and_the_known_file_says_why(which, request, capsys, monkeypatch):
    repository = request.getfixturevalue(which)
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0, out
    assert len(out.splitlines()) <= 3, out
    assert re.search(r"\d+ known findings?", out.splitlines()[0]), out  # the verdict, said once: the run passes
    known = (repository / "config-harness" / "known.yaml").read_text()
    entries = re.findall(r"^- finding: (\w+)$", known, flags=re.M)
    assert entries and set(entries) >= {"launch"}, known[:500]
    # Each entry's reason is its finding line: what broke and the script line that breaks it.
    assert re.search(
        r"reason: .known at adoption \(\d{4}-\d\d-\d\d\): (key removed|no such key): [\w.]+ is not in the config"
        r"(; did you mean '+[\w.]+'+\?)? \([\w/.-]+\.sh:\d+\)",
        known,
    )
    # Helpers that were never Hydra applications are no finding at all, and the submodule is no error.
    assert "has no @hydra.main" not in known and "recipe" not in known


def test_programs_that_are_no_hydra_application_are_named_once_by_list_verbose(parent, capsys, monkeypatch):
    code, out = run(parent, "list", "--verbose", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0
    others = [line for line in out.splitlines() if line.startswith("not a launch: ")]
    assert any(line.startswith("not a launch: scripts/converter_hf_to_mcore.py: has no @hydra.main") for line in others), others
    assert any("recipe.dapo.main_dapo: lies in the git submodule recipe, which is not checked out" in line for line in others)
    assert len({line.split(":")[1] for line in others}) == len(others)  # each program once


def test_a_fixed_known_launch_is_told_to_remove_its_entry_and_an_added_entry_needs_a_record(parent, capsys, monkeypatch):
    git(parent, "checkout", "-q", "-B", "fix-and-hide", "adopted")
    try:
        script = parent / "examples" / "cispo_trainer" / "run_cispo_qwen2_5_0_5b_gsm8k.sh"
        text = script.read_text()
        assert "actor_rollout_ref.model.torch_dtype=bfloat16" in text
        script.write_text(re.sub(r"^.*actor_rollout_ref\.model\.torch_dtype=bfloat16.*\n", "", text, flags=re.M))
        code, out = run(parent, "check", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0, out
        stale = [line for line in out.splitlines() if "known finding fixed" in line]
        assert len(stale) == 1 and "remove its entry (config-harness/known.yaml:" in stale[0], out
        assert "actor_rollout_ref.model.torch_dtype" in stale[0]
        git(parent, "commit", "-q", "-am", "fix the cispo script")

        # A new break, hidden by a known entry the pull request adds: a loosening the base does not have.
        other = parent / "examples" / "grpo_trainer" / "run_qwen2-7b.sh"
        other.write_text(other.read_text().replace("trainer.logger=", "actor_rollout_ref.model.no_such_key=1 \\\n    trainer.logger=", 1))
        code, out = run(parent, "known", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0 and out.startswith("1 finding recorded"), out
        git(parent, "commit", "-q", "-am", "a new break, recorded as known")
        code, out = run(parent, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 1, out
        added = [line for line in out.splitlines() if "known entry added" in line]
        assert len(added) == 1 and "without a recorded reason" in added[0] and "actor_rollout_ref.model.no_such_key" in added[0], out
        record = re.search(r"add to `changes:` in \S+ (\{.*?reason: WHY\})", added[0]).group(1).replace("WHY", "the key lands next week")
        contracts = parent / "config-harness" / "contracts.yaml"
        contracts.write_text(contracts.read_text().replace("contracts: []", f"contracts: []\nchanges:\n  - {record}"))
        git(parent, "commit", "-q", "-am", "record why")
        code, out = run(parent, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0, out
        assert "[recorded reason: the key lands next week]" in out
    finally:
        git(parent, "checkout", "-q", "-f", "adopted")


def test_an_innocent_pull_request_on_main_gets_a_short_green_review_that_names_the_change(main_branch, capsys, monkeypatch):
    git(main_branch, "checkout", "-q", "-B", "innocent", "adopted")
    try:
        actor = main_branch / "verl" / "trainer" / "config" / "actor" / "actor.yaml"
        actor.write_text(actor.read_text().replace("ppo_mini_batch_size: 256", "ppo_mini_batch_size: 128", 1))
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(main_branch)
            assert main(["generate", "--quiet"]) == 0  # the goldens the push to main checks
        git(main_branch, "add", "-A")
        git(main_branch, "commit", "-q", "-m", "smaller mini-batches")
        code, out = run(main_branch, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0, out
        lines = out.splitlines()
        assert len(lines) <= 12, out
        assert any("actor_rollout_ref.actor.ppo_mini_batch_size: 256 -> 128" in line for line in lines), out
        assert not any(line.lstrip().startswith(("ERROR", "WARNING")) for line in lines), out
    finally:
        git(main_branch, "checkout", "-q", "-f", "adopted")


def test_a_pull_request_that_does_not_regenerate_its_goldens_fails_its_review_as_check_fails_on_main(main_branch, capsys, monkeypatch):
    """Issue 50's first reproducer: `trainer.total_epochs` 30 -> 15 without `generate`. The review passed (16 changed)
    while `check` on the same commit, which the push to main runs, failed with 5 goldens to regenerate."""
    git(main_branch, "checkout", "-q", "-B", "stale", "adopted")
    try:
        trainer = main_branch / "verl" / "trainer" / "config" / "ppo_trainer.yaml"
        trainer.write_text(trainer.read_text().replace("total_epochs: 30", "total_epochs: 15", 1))
        git(main_branch, "commit", "-q", "-am", "fewer epochs, goldens not regenerated")
        code, out = run(main_branch, "diff", "--base", "adopted", "--format", "json", capsys=capsys, monkeypatch=monkeypatch)
        review = json.loads(out)
        check_code, check_out = run(main_branch, "check", "--format", "json", capsys=capsys, monkeypatch=monkeypatch)
        check = json.loads(check_out)
        assert code == check_code == 1 and review["counts"]["goldens"] == check["counts"]["goldens"] == 5, review["verdict"]
        assert "5 goldens to regenerate" in review["verdict"] and "5 goldens to regenerate" in check["verdict"]
        stale = {c["id"] for c in review["cases"] for f in c["findings"] if f["kind"] == "stale_golden"}
        assert stale == {c["id"] for c in check["cases"] if c["status"] != "ok" and not c["id"].startswith("cmd/")}
        assert any(step.startswith("goldens to regenerate: run `config-harness generate`") for step in review["next_steps"])
    finally:
        git(main_branch, "checkout", "-q", "-f", "adopted")


@pytest.fixture(scope="module")
def pr5848(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = adopt(tmp_path_factory.mktemp("pr5848"), "pr5848-parent", CONTRACTS)
    apply_pull_request(repository, "pr5848-parent", "pr5848")
    return repository


def test_pr_5848_review_is_short_and_names_its_four_damages_first(pr5848, capsys, monkeypatch):
    code, out = run(pr5848, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) <= 60, out
    top = "\n".join(lines[:25])
    assert re.search(r"ERROR lora-alias: .*lora_alpha=16, actor_rollout_ref\.model\.lora\.alpha=32", top), top
    assert "ERROR megatron-critical: actor_rollout_ref.rollout.layer_name_map.qkv_layer_name is required but missing" in top
    assert "ERROR megatron-critical: actor_rollout_ref.model.use_remove_padding must equal False but is True" in top
    merge = [line for line in lines[:25] if "run_qwen3-4b_gsm8k_grpo_lora_merge.sh" in line]
    assert len(merge) == 1, top
    assert (
        "examples/grpo_trainer/run_qwen3-4b_gsm8k_grpo_lora_merge.sh:30: +actor_rollout_ref.model.lora.merge=True; "
        "fix: write actor_rollout_ref.model.lora.merge=True"
    ) in merge[0]
    # The new megatron case is what the megatron route was: the route's lora disagreement at the base stays at_base.
    report = json.loads(run(pr5848, "diff", "--base", "adopted", "--format", "json", capsys=capsys, monkeypatch=monkeypatch)[1])
    megatron = next(c for c in report["cases"] if c["id"] == "ppo_trainer/megatron/default")
    lora = [f for f in megatron["findings"] if f["kind"] == "contract" and f["path"].startswith("actor_rollout_ref.model.lora")]
    assert lora and all(f["origin"] == "at_base" for f in lora), lora


def test_pr_5848_markdown_review_shows_what_blocks_open_and_fits_1000_px(pr5848, capsys, monkeypatch, tmp_path):
    from tests.e2e.test_reports_verl import chromium, render_github

    code, markdown = run(pr5848, "diff", "--base", "adopted", "--format", "markdown", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1
    start = markdown.index("### Errors")
    end = markdown.find("\n### ", start + 1)
    errors = markdown[start : end if end != -1 else len(markdown)]
    assert "<details>" not in errors.split("| finding | where | fix |", 1)[0]  # the errors' table is not folded
    merge = next(line for line in errors.splitlines() if "run_qwen3-4b_gsm8k_grpo_lora_merge.<wbr>sh:30" in line)
    assert merge.endswith("| write actor_rollout_ref.<wbr>model.<wbr>lora.<wbr>merge=True |"), merge  # the fix column
    page = tmp_path / "review.html"
    page.write_text(render_github(markdown), encoding="utf-8")
    dom = chromium(tmp_path, page, "--dump-dom", "--virtual-time-budget=5000")
    probe = json.loads(re.search(r'data-probe="([^"]*)"', dom).group(1).replace("&quot;", '"'))
    # Every table fits, so the fix column (the last) is on screen; the review of the old reporter hid 408 px.
    assert probe["viewport"] == 1000 and probe["tables"] >= 2
    assert probe["page"] == probe["viewport"] and probe["hidden"] == [], probe


def test_pr_7082_names_the_async_script_once_with_both_overrides_and_the_fix(tmp_path, capsys, monkeypatch):
    repository = adopt(tmp_path, "pr7082-parent")
    apply_pull_request(repository, "pr7082-parent", "pr7082")
    code, out = run(repository, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1
    named = [line for line in out.splitlines() if "grpo_qwen35_35b_megatron_async.sh" in line]
    assert len(named) == 1, out
    assert "+algorithm.filter_groups.enable=True" in named[0] and "+algorithm.filter_groups.max_num_gen_batches=10" in named[0]
    assert "fix: write algorithm.filter_groups.enable=True and algorithm.filter_groups.max_num_gen_batches=10" in named[0]


def test_program_view_turned_on_later_is_recorded_by_known_and_check_is_green_again(tmp_path, capsys, monkeypatch):
    repository = adopt(tmp_path, "pr5848-parent")
    settings = repository / "pyproject.toml"
    text = settings.read_text()
    if "python_sources" not in text:  # init may already write it (issue 29 item 9)
        settings.write_text(text.replace("[tool.config-harness]\n", '[tool.config-harness]\npython_sources = ["verl"]\n', 1))
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    if code == 1:  # classes verl never builds from that node: errors the repository already has
        code, out = run(repository, "known", capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0 and re.match(r"\d+ findings? recorded in config-harness/known\.yaml", out), out
    known = (repository / "config-harness" / "known.yaml").read_text()
    assert re.search(
        r"^- finding: target\n  path: \S+\n  source: \S*\n  what: (missing_class|undeclared|required)\n  reason: .known at adoption",
        known,
        flags=re.M,
    ), known[-800:]
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and len(out.splitlines()) <= 3, out
