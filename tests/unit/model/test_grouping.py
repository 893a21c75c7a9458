"""Grouping identical findings across cases, the triage order, compact case lists and refactor detection."""

from __future__ import annotations

from dataclasses import replace

from harness.composition.resolve import resolves_unchanged
from harness.model.findings import ERROR, INFO, WARNING, CaseResult, ContractRef, Difference, Excused, Finding, Kind, MatrixResult, Status
from harness.model.grouping import Tier, describe_cases, group_findings, summary_paragraph
from harness.model.matrix import Case

IDS = [f"ppo_trainer/{e}/{p}" for e in ("dp", "megatron", "veomni") for p in ("default", "grpo", "lora")] + ["route/ppo_megatron_trainer"]


def test_cases_are_written_compactly():
    megatron = [i for i in IDS if "megatron" in i]
    assert describe_cases(IDS, IDS) == "all 10 cases"
    assert describe_cases(megatron, IDS) == "4 cases: ppo_trainer/megatron/*, route/ppo_megatron_trainer"
    assert describe_cases([i for i in IDS if i.endswith("/lora")], IDS) == "3 cases: ppo_trainer/*/lora"
    assert describe_cases(IDS[:-1], IDS) == "9 cases: ppo_trainer/*/*"
    # No glob that would also name a case that does not have the finding.
    assert describe_cases(IDS[:2], IDS) == "2 cases: ppo_trainer/dp/default, ppo_trainer/dp/grpo"
    assert describe_cases(["route/ppo_megatron_trainer"], IDS) == "route/ppo_megatron_trainer"


def result_of(findings_by_case: dict[str, list[Finding]]) -> MatrixResult:
    return MatrixResult(
        cases=tuple(
            CaseResult(Case(case_id, "ppo_trainer", ()), f"snapshots/{case_id}.yaml", Status.CHANGED, tuple(findings))
            for case_id, findings in findings_by_case.items()
        )
    )


def test_identical_findings_across_cases_are_one_group_and_different_values_are_not():
    same = Finding(Kind.CHANGED, "a.temperature", 1.0, 0.7, ERROR, "CHANGED a.temperature: 1.0 -> 0.7")
    result = result_of({case_id: [same] for case_id in IDS})
    (group,) = group_findings(result.cases)
    assert group.cases == tuple(IDS) and (group.kind, group.path, group.old, group.new) == ("changed", "a.temperature", 1.0, 0.7)

    other = Finding(Kind.CHANGED, "a.temperature", 1.0, 0.5, ERROR, "CHANGED a.temperature: 1.0 -> 0.5")
    as_int = Finding(Kind.CHANGED, "a.temperature", 1.0, 1, ERROR, "CHANGED a.temperature: 1.0 -> 1")
    as_bool = Finding(Kind.CHANGED, "a.temperature", 1.0, True, ERROR, "CHANGED a.temperature: 1.0 -> True")
    result = result_of({IDS[0]: [same], IDS[1]: [other], IDS[2]: [same], IDS[3]: [as_int], IDS[4]: [as_bool]})
    groups = group_findings(result.cases)
    assert sorted((g.new, g.cases) for g in groups if g.new is not True) == [(0.5, (IDS[1],)), (0.7, (IDS[0], IDS[2])), (1, (IDS[3],))]
    assert len(groups) == 4  # 1, 1.0 and True are three different values


def test_a_report_without_notes_groups_no_field_left_to_its_python_default_and_keeps_every_other_finding():
    """Issue 52 item 3: 3,182 such notes on verl's 13 cases were grouped on every warm check whose report shows none."""
    defaulted = Finding(Kind.TARGET, "a.lr", None, 0.1, INFO, "a.lr is not in the config; the program uses the Python default 0.1")
    required = Finding(Kind.TARGET, "a.b", None, None, ERROR, "a.b: building the node fails")
    waived = replace(Finding(Kind.TARGET, "a.c", None, None, WARNING, "a.c undeclared"), waiver="known")
    new_launch = Finding(Kind.NEW_LAUNCH, "", None, None, INFO, "new launch")
    result = result_of({IDS[0]: [defaulted, required, waived, new_launch], IDS[1]: [defaulted]})
    every = {(g.kind, g.path) for g in group_findings(result.cases)}
    assert every == {("target", "a.lr"), ("target", "a.b"), ("target", "a.c"), ("new_launch", "")}
    assert {(g.kind, g.path) for g in group_findings(result.cases, notes=False)} == every - {("target", "a.lr")}


def test_triage_order_blocking_then_changed_removed_added_then_refactors_and_waivers():
    findings = [
        Finding(Kind.ADDED, "a.new", None, 1, ERROR, "ADDED"),
        Finding(Kind.CHANGED, "a.refactor", False, "${oc.select:x,False}", ERROR, "CHANGED", detail=Difference(effective_same=True)),
        Finding(
            Kind.CONTRACT,
            "a.req",
            "present",
            None,
            WARNING,
            "c: a.req is required [waived: known]",
            detail=ContractRef("c"),
            status=Excused.WAIVED,
            waiver="known",
        ),
        Finding(Kind.REMOVED, "a.gone", 1, None, ERROR, "REMOVED"),
        Finding(Kind.CHANGED, "a.moved", 1, 2, ERROR, "CHANGED"),
        Finding(Kind.FALLBACK, "a.known", None, "x", INFO, "known fallback"),
        Finding(Kind.CONTRACT, "b.pinned", True, False, ERROR, "c: b.pinned must equal True", detail=ContractRef("c")),
        Finding(Kind.EFFECTIVE, "a.through", 1, 2, ERROR, "a.through now resolves to 2"),
    ]
    groups = group_findings(result_of({IDS[0]: findings}).cases)
    assert [g.path for g in groups] == ["b.pinned", "a.moved", "a.through", "a.gone", "a.new", "a.refactor", "a.req", "a.known"]
    assert [g.tier for g in groups] == [
        Tier.BLOCKING,
        Tier.CHANGED,
        Tier.CHANGED,
        Tier.REMOVED,
        Tier.ADDED,
        Tier.REFACTOR,
        Tier.WAIVED,
        Tier.NOTED,
    ]


def test_summary_paragraph_names_what_moved_and_where():
    removed = Finding(Kind.REMOVED, "a.layer_map", "qkv", None, INFO, "REMOVED")
    changed = Finding(Kind.CHANGED, "a.max_num_seqs", 1024, 256, INFO, "CHANGED")
    by_case = {case_id: [changed] + ([removed] if "megatron" in case_id else []) for case_id in IDS}
    paragraph = summary_paragraph(group_findings(result_of(by_case).cases), result_of(by_case))
    assert paragraph == ("1 value changed on all 10 cases. 1 key removed only on ppo_trainer/megatron/*, route/ppo_megatron_trainer.")


def test_a_literal_that_became_an_interpolation_with_the_same_resolved_value_is_a_refactor():
    old = {"actor": {"flag": False, "seqs": 1024, "list": [1, 2]}, "ref": {"flag": False, "seqs": 1024}}
    new = {
        "actor": {"flag": False, "seqs": 256, "list": [1, "${actor.other}"], "other": 2},
        "ref": {"flag": "${oc.select:actor.flag,True}", "seqs": "${actor.seqs}"},
    }
    paths = ["actor.seqs", "actor.list", "ref.flag", "ref.seqs"]
    # ref.flag resolves to False on both sides; ref.seqs now follows actor.seqs (256): a real change.
    assert resolves_unchanged(old, new, paths) == {"ref.flag", "actor.list"}
    fell_back = {"actor": {}, "ref": {"flag": "${oc.select:actor.flag,False}"}}
    assert resolves_unchanged({"actor": {}, "ref": {"flag": False}}, fell_back, ["ref.flag"]) == {"ref.flag"}
    # Two different literals never resolve alike; an interpolation that cannot resolve is not "the same".
    assert resolves_unchanged({"a": 1}, {"a": 2}, ["a"]) == frozenset()
    assert resolves_unchanged({"a": None}, {"a": "${missing.key}"}, ["a"]) == frozenset()
    # Host lookups stay opaque: an environment value never makes two values "the same".
    assert resolves_unchanged({"a": "x"}, {"a": "${oc.env:HOME,x}"}, ["a"]) == frozenset()


def test_findings_about_the_whole_run_come_first_without_cases():
    loosened = Finding(
        Kind.CONTRACT_CHANGE, "b.pinned", True, None, ERROR, "c: equal b.pinned removed since the baseline", detail=ContractRef("c")
    )
    result = replace(result_of({IDS[0]: [Finding(Kind.CHANGED, "a.moved", 1, 2, ERROR, "CHANGED")]}), findings=(loosened,))
    groups = group_findings(result.cases, result.findings)
    assert [(g.tier, g.path, g.cases) for g in groups] == [(Tier.BLOCKING, "b.pinned", ()), (Tier.CHANGED, "a.moved", (IDS[0],))]
    assert describe_cases(groups[0].cases, IDS) == "reported once for the run"
    assert summary_paragraph(groups, result) == (
        "1 contract change (1 without a recorded reason). 1 value changed on ppo_trainer/dp/default."
    )


def test_a_change_on_no_case_is_said_to_be_for_the_run():
    # A config write the code makes is about the run, on no case: never "only on reported once for the run".
    write = Finding(Kind.CONFIG_WRITE, "w", 3, 4, WARNING, "w: a config write changed")
    result = replace(result_of({IDS[0]: []}), findings=(write,))
    assert summary_paragraph(group_findings(result.cases, result.findings), result) == "1 value changed for the run."


def test_an_interpolation_that_reads_a_renamed_key_is_one_cause_on_every_case_and_launch():
    """Issue 56: verl's critic.yaml:49 reads `${.ppo_max_token_len_per_gpu}`; renamed, `check` listed it twice (the
    cases, whose golden wrote the value, and the launches, which have none) and a review a third time, as the
    launches' resolved value changed. One group: every case and launch, the line that reads it."""
    from harness.composition.provenance import Source

    written = "${.ppo_max_token_len_per_gpu}"
    path = "critic.forward_max_token_len_per_gpu"
    message = f"{path} cannot be resolved: {written}: critic.ppo_max_token_len_per_gpu is not in the config"
    on_case = Finding(Kind.UNRESOLVED, path, written, written, ERROR, message, source=Source("critic.yaml", 49))
    on_launch = Finding(Kind.UNRESOLVED, path, None, written, ERROR, message)
    resolved = Finding(Kind.EFFECTIVE, path, 32768, None, INFO, f"{path} cannot be resolved: Interpolation key not found")
    result = result_of({IDS[0]: [on_case], IDS[1]: [on_case], "cmd/a.sh#1": [on_launch, resolved], "cmd/b.sh#1": [on_launch, resolved]})
    (group,) = group_findings(result.cases)
    assert group.kind == Kind.UNRESOLVED and group.cases == (IDS[0], IDS[1], "cmd/a.sh#1", "cmd/b.sh#1")
    assert str(group.source) == "critic.yaml:49" and group.matrix_cases == (IDS[0], IDS[1])


def test_the_summary_never_says_nothing_changed_above_failing_cases():
    """Issue 56: a case that cannot be composed (three apps: a missing Hydra plugin, a removed option) was summed up
    as "Nothing changed on all N cases" above its FAILED verdict; so were changes a review could not verify."""
    broken = Finding(Kind.ERROR, "", severity=ERROR, message="conf/train.yaml:2: In 'train': 'adamw' is not an option of optim")
    result = result_of({IDS[0]: [broken], IDS[1]: []})
    result = replace(result, cases=(replace(result.cases[0], status=Status.ERROR), replace(result.cases[1], status=Status.OK)))
    said = summary_paragraph(group_findings(result.cases), result)
    assert said == f"1 case cannot be composed ({IDS[0]})."
    unverified = Finding(Kind.UNVERIFIED, "app/main.py", severity=ERROR, message="not verified: a write not resolved")
    review = replace(result_of({IDS[0]: []}), findings=(unverified,))
    assert summary_paragraph(group_findings(review.cases, review.findings), review) == "1 change not verified."
