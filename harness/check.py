"""Compare composed cases with their goldens and collect findings; optionally write goldens."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from harness import diff, resolve
from harness.compose import Composed
from harness.findings import ERROR, INFO, CaseChecker, CaseResult, Finding, Status
from harness.goldens import golden_path, read_golden, write_atomic
from harness.matrix import Case
from harness.render import describe_yaml_error, parse_yaml, render_golden, to_plain
from harness.settings import display_path

OK = Status.OK
STATUS_CHANGED = Status.CHANGED
STATUS_NEW = Status.NEW
STATUS_ERROR = Status.ERROR


def change_finding(change: diff.Change) -> Finding:
    """A golden-vs-composed change as an error finding."""
    return Finding(change.kind, change.path, change.old, change.new, ERROR, diff.describe_change(change))


def fallback_findings(tree: Any, golden_tree: Any | None) -> list[Finding]:
    """Every `oc.select` that falls back to its default; one the golden did not have is an error."""
    old = resolve.fallbacks(golden_tree) if golden_tree is not None else None
    findings = []
    for path, fallback in sorted(resolve.fallbacks(tree).items()):
        is_new = old is not None and path not in old
        findings.append(Finding(
            "fallback", path, None, fallback.default, ERROR if is_new else INFO,
            f"{path} silently uses its default {fallback.default} because {fallback.key} is missing or ???"
            + (" (new: the golden did not fall back here)" if is_new else ""),
        ))
    return findings


def effective_findings(config: DictConfig, tree: Any, golden_tree: Any, changes: list[diff.Change]) -> list[Finding]:
    """Interpolations written the same in both trees whose resolved value changed.

    Only interpolations that read a changed leaf (directly or through other interpolations) are resolved:
    resolving is the slow part, and an interpolation whose inputs did not change resolves the same.
    """
    golden_config = None
    findings = []
    interpolations = resolve.interpolation_leaves(tree)
    affected = resolve.affected_interpolations(interpolations, {change.path for change in changes})
    for path, written in sorted(interpolations.items()):
        if path not in affected or resolve.lookup(golden_tree, path) != written:
            continue  # unaffected, or a changed text that is already a `changed` finding
        if golden_config is None:
            golden_config = OmegaConf.create(golden_tree)
        old = resolve.resolve_path(golden_config, path)
        new = resolve.resolve_path(config, path)
        if isinstance(old, resolve.Unresolvable) and isinstance(new, resolve.Unresolvable):
            continue
        if isinstance(new, resolve.Unresolvable):
            findings.append(Finding("effective", path, None, None, ERROR, new.reason))
        elif isinstance(old, resolve.Unresolvable) or not diff.same_value(old, new):
            via = ", ".join(resolve.referenced_keys(path, written)) or written
            old_shown = old.reason if isinstance(old, resolve.Unresolvable) else diff.describe_value(old)
            findings.append(Finding(
                "effective", path, None if isinstance(old, resolve.Unresolvable) else old, new, ERROR,
                f"{path} is still written {written} but now resolves to {diff.describe_value(new)} (was {old_shown}) through {via}",
            ))
    return findings


def compare_with_golden(
    config: DictConfig, tree: Any, golden_text: str | None, golden_display: str, rendered: str
) -> tuple[str, list[Finding]]:
    """Status and findings of a composed config against its golden text."""
    if golden_text is None:
        missing = Finding("missing_golden", "", severity=ERROR, message=f"no golden at {golden_display}; run generate")
        return STATUS_NEW, [missing] + fallback_findings(tree, None)
    if golden_text == rendered:
        # Same bytes means same tree, same fallbacks and same resolved values.
        return OK, fallback_findings(tree, None)
    try:
        golden_tree = parse_yaml(golden_text)
    except yaml.YAMLError as error:
        return STATUS_ERROR, [Finding("error", "", severity=ERROR, message=f"golden {describe_yaml_error(error, golden_display)}")]
    changes = diff.diff_trees(golden_tree, tree)
    findings = [change_finding(change) for change in changes]
    findings += effective_findings(config, tree, golden_tree, changes)
    findings += fallback_findings(tree, golden_tree)
    if not changes:
        findings.insert(0, Finding("format", "", severity=ERROR, message=f"{golden_display} differs in text but not in meaning; regenerate it"))
    return STATUS_CHANGED, findings


def parity_findings(case: Case, tree: Any, twin_tree: Any) -> list[Finding]:
    """Differences between a route and the case it must compose identically to."""
    return [
        Finding("parity", c.path, c.old, c.new, ERROR, f"{case.id} differs from {case.same_as}: {diff.describe_change(c)}")
        for c in diff.diff_trees(twin_tree, tree)
    ]


def semantic_findings(
    case: Case, config: Any, tree: Any, twin_tree: Any, extra_checks: Iterable[CaseChecker]
) -> list[Finding]:
    """Findings that do not depend on the golden: route parity and every extra check (contracts, fallbacks)."""
    findings: list[Finding] = []
    if case.same_as is not None:
        if twin_tree is None:
            findings.append(Finding("parity", "", severity=ERROR, message=f"{case.id}: twin {case.same_as} could not be composed"))
        else:
            findings += parity_findings(case, tree, twin_tree)
    for check in extra_checks:
        findings += check(case, config, tree)
    return findings


def check_composed(
    composed_cases: Iterable[Composed],
    snapshot_dir: Path,
    extra_checks: Iterable[CaseChecker] = (),
    write: bool = False,
    twin_ids: frozenset[str] = frozenset(),
    read: Callable[[Path], str | None] = read_golden,
    show: Callable[[Path], str] = display_path,
) -> Iterator[CaseResult]:
    """Check each composed case against its golden (writing it first when `write`), streaming results.

    Only the trees named in `twin_ids` (the targets of routes' `same_as`) are kept, so memory stays flat.
    `read` and `show` fetch and name a golden; the review report reads them from a git ref instead.
    """
    extra_checks = list(extra_checks)
    twins: dict[str, Any] = {}
    for composed in composed_cases:
        case = composed.case
        path = golden_path(snapshot_dir, case)
        display = show(path)
        if composed.config is None:
            # A case that cannot be composed never touches its golden.
            yield CaseResult(case, display, STATUS_ERROR, (Finding("error", "", severity=ERROR, message=composed.error or "compose failed"),))
            continue
        tree = to_plain(composed.config)
        rendered = render_golden(case, composed.config, tree)
        golden_text = read(path)
        written = False
        if write and golden_text != rendered:
            write_atomic(path, rendered)
            golden_text, written = rendered, True
        status, findings = compare_with_golden(composed.config, tree, golden_text, display, rendered)
        findings += semantic_findings(case, composed.config, tree, twins.get(case.same_as or ""), extra_checks)
        if case.id in twin_ids:
            twins[case.id] = tree
        yield CaseResult(case, display, status, tuple(findings), written)
