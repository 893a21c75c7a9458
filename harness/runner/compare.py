"""Compare a composed case with its baseline and run the rules on it: pure functions that return findings."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from harness.baselines.goldens import same_golden
from harness.baselines.kinds import BaselineEntry
from harness.baselines.moves import fold_moves
from harness.composition import resolve
from harness.composition.compose import HydraWarning
from harness.composition.provenance import Source
from harness.composition.render import parse_yaml
from harness.gates.errors import describe_yaml_error
from harness.gates.escape import printable, suspicious
from harness.model import semantic_diff
from harness.model.findings import (
    DIFFERENCE_KINDS,
    ERROR,
    INFO,
    NEW_FALLBACK,
    WARNING,
    CaseChecker,
    Difference,
    Finding,
    Kind,
    Severity,
    Status,
)
from harness.model.matrix import Case
from harness.model.semantic_diff import describe_value, diff_trees
from harness.rules import contract_changes
from harness.rules.contracts import HYDRA, ChangeRecord
from harness.rules.protocol import TermChange


def change_finding(change: semantic_diff.Change, effective_same: bool = False) -> Finding:
    """A golden-vs-composed change as an error finding."""
    return Finding(
        Kind(change.kind),
        change.path,
        change.old,
        change.new,
        ERROR,
        semantic_diff.describe_change(change),
        detail=Difference(change.detail, change.subtree, effective_same),
    )


def fallback_findings(tree: Any, golden_tree: Any | None) -> list[Finding]:
    """Every `oc.select` that falls back to its default; one the golden did not have is an error."""
    old = resolve.fallbacks(golden_tree) if golden_tree is not None else None
    findings = []
    for path, fallback in sorted(resolve.fallbacks(tree).items()):
        is_new = old is not None and path not in old
        findings.append(
            Finding(
                Kind.FALLBACK,
                path,
                None,
                fallback.default,
                ERROR if is_new else INFO,
                f"{path} silently uses its default {fallback.default} because {fallback.key} is missing or ???"
                + (NEW_FALLBACK if is_new else ""),
            )
        )
    return findings


def effective_findings(
    config: DictConfig | None, tree: Any, golden_tree: Any, changes: list[semantic_diff.Change], budget: resolve.Budget | None = None
) -> list[Finding]:
    """Interpolations written the same in both trees whose resolved value changed.

    Only interpolations that read a changed leaf (directly or through other interpolations) are resolved:
    resolving is the slow part, and an interpolation whose inputs did not change resolves the same. The case's
    resolution budget bounds the work; once it is spent, one finding names how many were left unresolved.
    Without `config` (a launch's plain tree) it is built from `tree` only when something must be resolved.

    Over 60 lines: one loop carries the budget and the two configs, each built once at the first interpolation that
    needs resolving; the loop stops where the budget is spent, and its finding counts what the loop left.
    """
    budget = resolve.Budget() if budget is None else budget
    golden_config = None
    findings = []
    interpolations = resolve.interpolation_leaves(tree)
    affected = resolve.affected_interpolations(interpolations, {change.path for change in changes})
    too_long = sorted(affected & resolve.long_chains(interpolations))
    if too_long:
        findings.append(
            Finding(
                Kind.EFFECTIVE,
                too_long[0],
                None,
                None,
                ERROR,
                f"{len(too_long)} interpolation(s) from {too_long[0]} on are chains of more than {resolve.MAX_CHAIN} steps "
                "(or circular); their resolved values are not compared",
            )
        )
    candidates = [
        (path, written)
        for path, written in sorted(interpolations.items())
        # unaffected, or a changed text that is already a `changed` finding
        if path in affected and path not in too_long and resolve.lookup(golden_tree, path) == written
    ]
    for index, (path, written) in enumerate(candidates):
        if budget.spent:
            findings.append(
                Finding(
                    Kind.EFFECTIVE,
                    path,
                    None,
                    None,
                    ERROR,
                    f"{len(candidates) - index} interpolation(s) from {path} on are not compared: resolving them would "
                    f"take more than {resolve.RESOLUTION_BUDGET:,} values (interpolations that each read a big mapping)",
                )
            )
            break
        old = resolve.referenced_plain(golden_tree, written)
        if old is resolve.NOT_PLAIN:
            if golden_config is None:
                golden_config = OmegaConf.create(golden_tree)
            old = resolve.resolve_path(golden_config, path)
        if config is None:
            config = OmegaConf.create(tree)
        new = resolve.resolve_path(config, path)
        budget.spend(old, new)
        if isinstance(old, resolve.Unresolvable) and isinstance(new, resolve.Unresolvable):
            continue
        if isinstance(new, resolve.Unresolvable):
            findings.append(Finding(Kind.EFFECTIVE, path, None, None, ERROR, new.reason))
        elif isinstance(old, resolve.Unresolvable) or not semantic_diff.same_value(old, new):
            via = ", ".join(resolve.referenced_keys(path, written)) or written
            old_shown = old.reason if isinstance(old, resolve.Unresolvable) else semantic_diff.describe_value(old)
            findings.append(
                Finding(
                    Kind.EFFECTIVE,
                    path,
                    None if isinstance(old, resolve.Unresolvable) else old,
                    new,
                    ERROR,
                    f"{path} is still written {written} but now resolves to {semantic_diff.describe_value(new)} (was {old_shown}) through {via}",
                )
            )
    return findings


def compare_with_base(
    config: DictConfig | None, tree: Any, rendered: str, base: BaselineEntry | None, golden: str | None = None
) -> tuple[Status, list[Finding]]:
    """Status and findings of a composed config against what the baseline holds for its case.

    Severities are those of `check` (a difference is an error); a review softens them with `as_review`.
    `golden` names the golden a missing baseline should have had (check); without it a new case is just new.
    """
    if base is None:
        missing = [Finding(Kind.MISSING_GOLDEN, "", severity=ERROR, message=f"no golden at {golden}; run generate")] if golden else []
        return Status.NEW, missing + fallback_findings(tree, None)
    if base.error is not None:
        message = f"the baseline could not compose {base.display}: {base.error}"
        return Status.CHANGED, [Finding(Kind.ERROR, "", severity=INFO, message=message)] + fallback_findings(tree, None)
    # The order the program builds a collection of `_target_` nodes in (callbacks), where the baseline kept it: a
    # composed tree (a review's base, a tree diff), never a golden alone (its keys are sorted).
    ordered = base.order if base.order is not None else base.tree
    order = [change_finding(change) for change in semantic_diff.order_changes(ordered, tree)] if ordered is not None else []
    if base.text is not None and same_golden(base.text, rendered):
        # Same bytes (the comment header aside) means same tree, same fallbacks and same resolved values.
        return (Status.CHANGED if order else Status.OK), order + fallback_findings(tree, None)
    base_tree = base.tree
    if base.text is not None:
        try:
            base_tree = parse_yaml(base.text)
        except yaml.YAMLError as error:
            return Status.ERROR, [Finding(Kind.ERROR, "", severity=ERROR, message=f"golden {describe_yaml_error(error, base.display)}")]
    changes = semantic_diff.diff_trees(base_tree, tree)
    if base.text is not None:
        base_tree = resolve.in_order_of(base_tree, tree)  # resolved in Hydra's order, as the composition is
    if not changes and base.text is None:
        return (Status.CHANGED if order else Status.OK), order + fallback_findings(tree, None)
    budget = resolve.Budget()
    refactors = resolve.resolves_unchanged(base_tree, tree, [c.path for c in changes if c.kind == semantic_diff.CHANGED], budget)
    findings = [change_finding(change, change.path in refactors) for change in changes]
    # A removed key whose value reappears elsewhere is one `moved` finding, not a removal and an addition.
    findings = fold_moves(findings, (path for path, _ in semantic_diff.iter_leaves(tree)))
    findings += order + effective_findings(config, tree, base_tree, changes, budget)
    findings += fallback_findings(tree, base_tree)
    if not changes:
        findings.insert(
            0, Finding(Kind.FORMAT, "", severity=ERROR, message=f"{base.display} differs in text but not in meaning; regenerate it")
        )
    return Status.CHANGED, findings


def as_review(findings: list[Finding], differences: Severity) -> list[Finding]:
    """Findings against a baseline whose differences are news, not failures: info that was already true
    there (known fallbacks) is dropped, a difference gets the baseline's severity, and parity warns."""
    if differences == ERROR:
        return findings
    reviewed = []
    for finding in findings:
        if finding.severity == INFO and finding.kind != Kind.ERROR:
            continue
        if finding.kind in DIFFERENCE_KINDS:
            finding = replace(finding, severity=differences)
        elif finding.kind == Kind.PARITY and finding.severity == ERROR:
            finding = replace(finding, severity=WARNING)
        reviewed.append(finding)
    return reviewed


def parity_findings(case: Case, tree: Any, twin_tree: Any) -> list[Finding]:
    """Differences between a route and the case it must compose identically to."""
    return [
        Finding(
            Kind.PARITY,
            c.path,
            c.old,
            c.new,
            ERROR,
            f"{case.id} differs from {case.same_as}: {semantic_diff.describe_change(c)}",
            detail=Difference(c.detail),
        )
        for c in semantic_diff.diff_trees(twin_tree, tree)
    ]


def _strings(value: Any) -> Iterator[Any]:
    """Every string in a value: itself, or the keys and items of the lists and mappings inside it."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            pending += item


def hidden_text_findings(tree: Any) -> list[Finding]:
    """A warning for every leaf whose path or value holds characters a reader cannot see or that reorder what
    they see (a right-to-left override makes `/models/evil` read as `/models/good`); reports show them escaped."""
    # One pass over the tree's text first: nearly every tree holds none, and building every leaf's path to say so
    # was a tenth of a cold check. (A space joins them: never suspicious, and it cannot complete a sequence.)
    if not suspicious(" ".join(_strings(tree))):
        return []
    findings = []
    for path, value in semantic_diff.iter_leaves(tree):
        if suspicious(path) or any(suspicious(text) for text in _strings(value)):
            findings.append(
                Finding(
                    Kind.HIDDEN_TEXT,
                    path,
                    None,
                    value,
                    WARNING,
                    f"{printable(path)} holds control, bidi or zero-width characters (shown escaped): {printable(semantic_diff.describe_value(value))}",
                )
            )
    return findings


def semantic_findings(case: Case, config: Any, tree: Any, twin_tree: Any, extra_checks: Iterable[CaseChecker]) -> list[Finding]:
    """Findings that do not depend on the golden: route parity and every extra check (contracts, fallbacks)."""
    findings: list[Finding] = []
    if case.same_as is not None:
        if twin_tree is None:
            findings.append(Finding(Kind.PARITY, "", severity=ERROR, message=f"{case.id}: twin {case.same_as} could not be composed"))
        else:
            findings += parity_findings(case, tree, twin_tree)
    for check in extra_checks:
        findings += check(case, config, tree)
    return findings + hidden_text_findings(tree)


# Parts of the `hydra:` subtree that run code or touch the machine when the application starts: callbacks,
# environment variables, the working folder, output folders, the search path, launcher and sweeper, and the
# logging configuration (a handler may name a factory to call). A change there is an error unless recorded.
HYDRA_SENSITIVE = (
    "callbacks",
    "job.env_set",
    "job.env_copy",
    "job.chdir",
    "run.dir",
    "sweep.dir",
    "sweep.subdir",
    "searchpath",
    "launcher",
    "sweeper",
    "job_logging",
    "hydra_logging",
)


def hydra_findings(old: Any, new: Any, records: Iterable[ChangeRecord], old_job: Any = None, new_job: Any = None) -> list[Finding]:
    """One `hydra_change` finding per leaf of the composed `hydra:` subtree that differs from the base's; an error
    where the application would run or read something new, unless a `hydra:` change record gives the reason.

    With both sides' job configs (`old_job`, `new_job`), a changed text that resolves to the same value on both
    sides, as Hydra resolves `hydra.run.dir` against the whole config (`runs` -> `${trainer.run_root}` with
    `run_root: runs`), is a refactor: noted, never blocking (the resolver policy reads no environment)."""
    records = tuple(records)
    findings = []
    changes = diff_trees(old or {}, new or {})
    filled = {c.path[:i] for c in changes if c.kind == Kind.ADDED for i, char in enumerate(c.path) if char == "."}
    refactors: frozenset[str] = frozenset()
    changed = [f"hydra.{c.path}" for c in changes if c.kind == Kind.CHANGED]
    if changed and isinstance(old_job, dict) and isinstance(new_job, dict):
        refactors = resolve.resolves_unchanged({**old_job, "hydra": old}, {**new_job, "hydra": new}, changed)
    for change in changes:
        if change.kind == Kind.REMOVED and change.old in ({}, []) and change.path in filled:
            continue  # an empty mapping that now has keys: the keys are the change
        path = f"hydra.{change.path}"
        was = None if change.kind == Kind.ADDED else change.old
        now = None if change.kind == Kind.REMOVED else change.new
        description = f"{path}: {describe_value(was)} -> {describe_value(now)}"
        if path in refactors:
            same = describe_value(resolve.resolve_path(OmegaConf.create({**new_job, "hydra": new}), path))
            findings.append(
                Finding(
                    Kind.HYDRA_CHANGE,
                    path,
                    was,
                    now,
                    INFO,
                    f"{description} (both resolve to {same})",
                    detail=Difference(effective_same=True),
                )
            )
        elif any(change.path == part or change.path.startswith(part + ".") for part in HYDRA_SENSITIVE):
            term = TermChange(HYDRA, path, was, now, f"{description}: runs when the application starts")
            findings.append(contract_changes.change_finding(term, records, Kind.HYDRA_CHANGE))
        else:
            findings.append(Finding(Kind.HYDRA_CHANGE, path, was, now, INFO, description))
    return findings


def warning_findings(warned: Iterable[HydraWarning]) -> list[Finding]:
    """Hydra's warnings as findings: the file and line they are about, Hydra's own words."""
    return [
        Finding(
            Kind.HYDRA_WARNING,
            "",
            severity=WARNING,
            message=f"hydra warning: {w.message}",
            source=Source(w.file, w.line) if w.file else None,
        )
        for w in warned
    ]
