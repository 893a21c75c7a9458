"""The next-step table: each row's line starts with its lead, and the steps issue 56 found missing or wrong say what
to do where it is written (the line an interpolation reads a renamed key at, the line a removed key was set at, the
command that records the code's config writes). What running each step does: tests/integration/test_next_steps.py."""

from harness.composition.provenance import Source
from harness.model.findings import ERROR, CaseResult, ContractRef, Finding, Kind, MatrixResult, Status
from harness.model.grouping import group_findings
from harness.model.matrix import Case
from harness.pytest_report import next_lines
from harness.reporters.base import NextSteps, ReportOptions
from harness.reporters.steps import STEPS, next_steps

CHECK = ReportOptions(
    steps=NextSteps("config-harness --settings h.toml generate", "snapshots", generate="config-harness --settings h.toml generate")
)
REVIEW = ReportOptions(steps=CHECK.steps, review=True, base="adopted")
RENAMED = "critic.ppo_max_token_len_per_gpu"


def case(case_id, *findings):
    return CaseResult(Case(case_id, "ppo_trainer", ()), f"snapshots/{case_id}.yaml", Status.ERROR, findings)


def steps_of(options, *results, run=()):
    result = MatrixResult(cases=results, findings=run)
    return next_steps(group_findings(result.cases, result.findings), result, options)


def unresolved(source=None, old=None):
    written = "${.ppo_max_token_len_per_gpu}"
    message = f"critic.forward_max_token_len_per_gpu cannot be resolved: {written}: {RENAMED} is not in the config"
    return Finding(Kind.UNRESOLVED, "critic.forward_max_token_len_per_gpu", old, written, ERROR, message, source=source)


def test_a_renamed_key_an_interpolation_reads_names_the_line_that_reads_it_and_what_it_breaks():
    on_case = unresolved(Source("verl/trainer/config/critic/critic.yaml", 49), "${.ppo_max_token_len_per_gpu}")
    launches = [case(f"cmd/examples/run_{n}.sh#1", unresolved()) for n in range(3)]
    (step,) = steps_of(CHECK, case("ppo_trainer/dp/default", on_case), case("ppo_trainer/megatron/default", on_case), *launches)
    assert step == (
        "an interpolation reads a key the config no longer has (2 cases and 3 launches): edit "
        f"verl/trainer/config/critic/critic.yaml:49, the line that still reads it, or restore {RENAMED}"
    )
    # Only launches, no line known: the value named above, never "edit the script".
    (step,) = steps_of(REVIEW, *launches)
    assert step.endswith(f"(3 launches): edit the value named above, or restore {RENAMED}") and "script" not in step


def test_a_removed_key_traced_to_a_line_is_restored_there():
    traced = Finding(Kind.REMOVED, "actor.lora_rank", 8, None, ERROR, "REMOVED", source=Source("engine/megatron.yaml", 32))
    (restore, regenerate) = steps_of(CHECK, case("ppo_trainer/megatron/default", traced))
    assert restore == (
        "a key was removed: if that was not intended, restore it where the golden says it was set (actor.lora_rank at engine/megatron.yaml:32)"
    )
    assert regenerate == "if these changes are intended: run `config-harness --settings h.toml generate` and commit snapshots"
    untraced = Finding(Kind.REMOVED, "actor.lora_rank", 8, None, ERROR, "REMOVED")
    assert "`config-harness diff --base HEAD` names the file" in steps_of(CHECK, case("x", untraced))[0]


def test_a_config_write_the_record_lacks_names_the_command_that_records_it_in_every_shell():
    write = Finding(Kind.CONFIG_WRITE, "rollout.n", None, 4, ERROR, "rollout.n: a config write added", source=Source("main.py", 175))
    result = MatrixResult(cases=(case("ppo_trainer/dp/default"),), findings=(write,))
    (step,) = next_steps(group_findings(result.cases, result.findings), result, CHECK)
    assert "run `config-harness --settings h.toml generate` (it records them" in step
    # pytest's `--snapshot-update` writes goldens, not the record: its step names the CLI's generate.
    (line,) = next_lines(result, "snapshots", False, None, "h.toml")
    assert "run `config-harness --settings h.toml generate` (it records them" in line
    assert steps_of(REVIEW, run=(write,)) == []  # a review names writes as news


def test_a_loosening_names_where_its_record_goes_and_a_known_entry_the_command_with_the_base():
    loosened = Finding(Kind.SETTINGS_CHANGE, "presets.grpo", ["a"], None, ERROR, "presets.grpo removed without a recorded reason")
    (step,) = steps_of(REVIEW, run=(loosened,))
    assert step.startswith("a loosening has no recorded reason: add the `changes:` record its line above gives")
    known = Finding(Kind.CONTRACT_CHANGE, "", None, None, ERROR, "known entry added for x without a recorded reason")
    (step,) = steps_of(REVIEW, run=(known,))
    assert "`config-harness known --base adopted --reason 'WHY'`" in step


def test_every_row_says_its_lead_first():
    contract = Finding(Kind.CONTRACT, "a", 1, 2, ERROR, "c: a", detail=ContractRef("c", "contracts.yaml:2"))
    findings = [
        contract,
        Finding(Kind.ERROR, "", severity=ERROR, message="In 'train': Could not load 'x'"),
        unresolved(Source("c.yaml", 3)),
        Finding(Kind.TARGET, "a.b", None, None, ERROR, "undeclared"),
        Finding(Kind.LAUNCH, "a.b", None, "a.b=1", ERROR, "key removed: a.b"),
        Finding(Kind.REMOVED, "a.c", 1, None, ERROR, "REMOVED"),
    ]
    run = (Finding(Kind.CONFIG_WRITE, "a", None, 1, ERROR, "w"),)
    said = steps_of(CHECK, case("x", *findings), run=run)
    said += steps_of(ReportOptions(steps=NextSteps(in_commit_hook=True)), case("x", Finding(Kind.CHANGED, "a", 1, 2, ERROR, "c")))
    review = (
        Finding(Kind.SETTINGS_CHANGE, "engines", 1, 2, ERROR, "s"),
        Finding(Kind.CONTRACT_CHANGE, "", None, None, ERROR, "known entry added"),
        Finding(Kind.UNVERIFIED, "a.py", severity=ERROR, message="not verified: a write not resolved"),
        Finding(Kind.STALE_GOLDEN, "", severity=ERROR, message="stale"),
    )
    said += steps_of(REVIEW, run=review)
    result = MatrixResult(orphans=("snapshots/_generated_old.yaml",))
    said += next_steps([], result, CHECK)
    for step in STEPS:
        assert any(line.startswith(step.lead) for line in said), step.name
    assert all(any(line.startswith(step.lead) for step in STEPS) for line in said)


def test_a_removed_key_a_launch_sets_is_restored_where_it_was_set_even_when_the_removal_only_warns():
    """Issue 56: `sequence_parallel` deleted from verl's engine/megatron.yaml:32 (a warning: the Python default gives the
    same value) breaks a launch that sets it, and the only step was "edit the script"."""
    from harness.model.findings import WARNING, LaunchFix

    path = "actor_rollout_ref.actor.megatron.sequence_parallel"
    removal = Finding(Kind.REMOVED, path, True, None, WARNING, "REMOVED", source=Source("verl/trainer/config/engine/megatron.yaml", 32))
    launch = Finding(
        Kind.LAUNCH, path, None, f"{path}=True", ERROR, f"key removed: {path} is not in the config", detail=LaunchFix("key removed")
    )
    restore, edit = steps_of(REVIEW, case("ppo_trainer/megatron/default", removal), case("cmd/examples/run.sh#1", launch))
    assert restore == (
        f"a key was removed: if that was not intended, restore it where the golden says it was set ({path} at "
        "verl/trainer/config/engine/megatron.yaml:32); the launches that set it compose again"
    )
    assert edit.startswith("a launch no longer composes: edit the script")
