"""Identical findings across cases as one group, in the triage order every report shares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from functools import cached_property
from itertools import combinations
from types import MappingProxyType
from typing import Any

from harness.model.findings import (
    ERROR,
    INFO,
    CaseResult,
    Excused,
    Finding,
    Kind,
    MatrixResult,
    Origin,
    Severity,
    Status,
    TargetFacts,
    TargetReason,
)
from harness.model.matrix import LAUNCH_PREFIX
from harness.model.semantic_diff import value_text


class Tier(IntEnum):
    """Where a group sits in a report: the order a reviewer should read them in."""

    SETTINGS = -2  # a review: how the pull request's settings differ from the base's, which decided the review
    BROKEN = -1  # cases that cannot be composed, goldens that cannot be read: composition and YAML errors
    BLOCKING = 0  # unwaived contract errors, contract changes, parity
    CHANGED = 1  # values a program sees that moved, directly or through an interpolation
    REMOVED = 2
    ADDED = 3
    REGENERATE = 4  # missing goldens and text-only differences: housekeeping
    REFACTOR = 5  # the written value changed, the resolved one did not: folded away
    WAIVED = 6  # contract violations a waiver turned into warnings: summarized
    KNOWN = 7  # findings the repository already had when it adopted the harness (known entries): one count line
    NOTED = 8  # info that is not a difference (known fallbacks): only on request
    AT_BASE = 9  # a review: errors that already held at the base; they fail nothing, one line
    FIXED = 10  # a review: errors the base had that no longer hold, one line
    UNVERIFIED = 11  # a review: changes the review cannot compare, each named with its line (listed after the blocking tiers)


TIER_TITLES = MappingProxyType(
    {
        Tier.SETTINGS: "Settings changes",
        Tier.BROKEN: "Composition and YAML errors",
        Tier.BLOCKING: "Errors and contract changes",  # broken contracts, launches, parity, classes; contract edits
        Tier.CHANGED: "Changed values",
        Tier.REMOVED: "Removed keys",
        Tier.ADDED: "Added keys",
        Tier.REGENERATE: "Goldens to regenerate",
        Tier.REFACTOR: "Refactors with unchanged values",
        Tier.WAIVED: "Waived warnings",
        Tier.KNOWN: "Known findings",
        Tier.NOTED: "Notes",
        Tier.AT_BASE: "Errors already at the base",
        Tier.FIXED: "Errors the base had, fixed here",
        Tier.UNVERIFIED: "Changes not verified",
    }
)

# Kinds whose finding names a leaf and its old and new value.
VALUE_KINDS = frozenset({Kind.CHANGED, Kind.REMOVED, Kind.ADDED, Kind.PARITY})


def tier_of(finding: Finding) -> Tier:
    """The triage tier of one finding."""
    kind = finding.kind
    if kind == Kind.SETTINGS_CHANGE:
        return Tier.SETTINGS
    if kind == Kind.UNVERIFIED:
        return Tier.UNVERIFIED
    if finding.status == Excused.KNOWN:
        return Tier.KNOWN
    if finding.origin == Origin.AT_BASE:
        return Tier.AT_BASE
    if finding.origin == Origin.FIXED:
        return Tier.FIXED
    if kind == Kind.ERROR and finding.severity == ERROR:
        return Tier.BROKEN
    if kind == Kind.CONTRACT_CHANGE or (kind == Kind.CONTRACT and finding.severity == ERROR):
        return Tier.BLOCKING
    if kind in (Kind.CONTRACT, Kind.TARGET) and finding.waiver:
        return Tier.WAIVED
    if finding.severity == INFO and kind in (Kind.CONTRACT, Kind.FALLBACK, Kind.PARITY, Kind.TARGET, Kind.UNRESOLVED):
        return Tier.NOTED
    if kind == Kind.LAUNCH and finding.path and finding.severity != ERROR:
        return Tier.CHANGED  # a launch's effective value that moved under it (its default changed)
    if kind in (Kind.ERROR, Kind.PARITY, Kind.CONTRACT, Kind.TARGET, Kind.LAUNCH, Kind.HIDDEN_TEXT, Kind.HYDRA_WARNING) or kind in (
        Kind.UNRESOLVED,
        Kind.OPTION_GONE,
        Kind.CONFIG_READ,
    ):
        return Tier.BLOCKING
    if kind in (Kind.HYDRA_CHANGE, Kind.ENTRY_CHANGE, Kind.LAUNCH_GONE):  # what runs (or stops being checked): blocking unless recorded
        return Tier.BLOCKING if finding.severity == ERROR else Tier.NOTED
    if kind == Kind.NEW_LAUNCH or (kind == Kind.MOVED and finding.path.startswith(LAUNCH_PREFIX)):  # a launch added or moved
        return Tier.NOTED
    if kind == Kind.CHANGED:
        return Tier.REFACTOR if finding.effective_same else Tier.CHANGED
    if kind in (Kind.EFFECTIVE, Kind.FALLBACK, Kind.CONFIG_WRITE, Kind.ORDER):  # a value the job runs with changed (or its order)
        return Tier.CHANGED
    if kind in (Kind.REMOVED, Kind.MOVED):
        return Tier.REMOVED
    if kind == Kind.ADDED:
        return Tier.ADDED
    return Tier.REGENERATE


@dataclass(frozen=True)
class Group:
    """One distinct finding and every case that has it."""

    tier: Tier
    finding: Finding  # the first case's finding, with the source of the first case that knows one
    cases: tuple[str, ...]
    anchor: tuple[str, int | None] = ("", None)  # file and line an annotation points at
    # Every (case id, finding) the group holds, in report order: launches of one cause differ in where the script
    # writes it, the override's text and its fix, which a report lists (the first three, or all with --verbose).
    members: tuple[tuple[str, Finding], ...] = ()

    @property
    def launches(self) -> tuple[tuple[str, Finding], ...]:
        """The members that are launch commands (`cmd/...`), one per script line."""
        seen: dict[str, tuple[str, Finding]] = {}
        for case_id, finding in self.members:
            if case_id.startswith(LAUNCH_PREFIX):
                # A launch finding's source is the script line; any other's (a changed value) is a config file.
                line = str(finding.source) if finding.kind == Kind.LAUNCH and finding.source is not None else case_id
                seen.setdefault(line, (case_id, finding))
        return tuple(seen.values())

    @property
    def matrix_cases(self) -> tuple[str, ...]:
        """The group's cases that are not launch commands."""
        return tuple(case for case in self.cases if not case.startswith(LAUNCH_PREFIX))

    # The group's finding's fields, read through the group.
    @property
    def kind(self) -> Kind:
        return self.finding.kind

    @property
    def path(self) -> str:
        return self.finding.path

    @property
    def old(self) -> Any:
        return self.finding.old

    @property
    def new(self) -> Any:
        return self.finding.new

    @property
    def severity(self) -> Severity:
        return self.finding.severity

    @property
    def contract(self) -> str:
        return self.finding.contract

    @property
    def message(self) -> str:  # the same for every case unless it names the case
        return self.finding.message

    @property
    def source(self) -> Any:
        return self.finding.source

    @property
    def effective_same(self) -> bool:
        return self.finding.effective_same

    @property
    def waiver(self) -> str:
        return self.finding.waiver

    def as_dict(self) -> dict[str, Any]:
        """The group as the JSON `groups` array spells it: the finding's fields plus its cases."""
        sources = [str(f.source) for _, f in self.launches if f.source is not None]
        return {
            **self.finding.as_dict(),
            **({"sources": sources} if len(sources) > 1 else {}),
            "contract": self.contract or None,
            "cases": list(self.cases),
            "effective_same": self.effective_same,
            "tier": self.tier.name.lower(),
            "waiver": self.waiver or None,
        }


def _value_key(value: Any) -> str:
    # Lists and mappings are not hashable, and 1, 1.0 and True must stay distinct.
    return type(value).__name__ + ":" + value_text(value)


def _key(finding: Finding) -> tuple[Any, ...]:
    """What makes findings one group of a report: their cause, and a review's origin (a break already at the base is
    another line than the same break introduced)."""
    return (*cause(finding), str(finding.origin))


def cause(finding: Finding) -> tuple[Any, ...]:
    """What makes findings one cause, whichever run found it: kind, path, old and new value, severity, contract,
    waiver. A review's cause and `check`'s on the same head are the same cause (the promise: a review blocks on what
    `check` on its head would, tests/e2e/test_promise_history.py).

    A finding without a path (a compose error) says what it is only in its message. A launch's message names its
    cause (`key removed: K is not in the config`); the override's text (`new`), where the script writes it and the
    fix differ from launch to launch and are the group's members, not separate causes.
    """
    detail = finding.message if not finding.path and finding.kind in (Kind.ERROR, Kind.PARITY) else ""
    old, new = finding.old, finding.new
    if finding.kind == Kind.LAUNCH:
        detail = finding.message
        new = None
    if finding.kind == Kind.UNRESOLVED:
        # One interpolation that reads a key the config lacks is one cause on every case and launch it breaks: `old`
        # is what the baseline wrote there (a golden's; a launch has none), not part of the cause.
        old = None
    return (
        str(finding.kind),
        finding.path,
        _value_key(old),
        _value_key(new),
        str(finding.severity),
        finding.contract,
        finding.effective_same,
        detail,
        finding.waiver,
    )


def cause_count(groups: Iterable[Group]) -> int:
    """How many causes groups hold, as a verdict counts them: the excuse that holds one (a known entry's reason, a
    waiver's) does not make it another cause, so `known` and `check` count the same causes before and after."""
    return len({_key(replace(g.finding, waiver="", status=None)) for g in groups})


def annotation_target(case_result: CaseResult, finding: Finding) -> tuple[str, int | None]:
    """The file and line an annotation points at: the config line that sets the value, else the golden's line."""
    source = finding.source
    if source is not None and getattr(source, "at", None) is not None:  # read at the base: on no line of this checkout
        return "", None
    if source is not None and getattr(source, "file", None) is not None:
        return source.file, source.line
    return case_result.golden, case_result.golden_lines.get(finding.path)


_KIND_RANK = MappingProxyType({Kind.CONTRACT_CHANGE: 0, Kind.CONTRACT: 1})


def group_findings(results: Iterable[CaseResult], run_findings: Iterable[Finding] = (), notes: bool = True) -> list[Group]:
    """Every distinct finding once, with its cases, in triage order (tier, then path).

    `run_findings` are about the run as a whole (a contract loosened since the baseline): groups without cases.
    `notes`: False for a report that shows no notes (text and markdown without `verbose` or a review, SARIF): the
    program view's notes (each field left to its Python default, 3,182 on verl's 13 cases) are not grouped, a fifth
    of a warm check (issue 52).
    """
    members: dict[tuple[Any, ...], list[tuple[CaseResult, Finding]]] = {}
    for case_result in results:
        for finding in said_once(case_result.findings):
            if not notes and finding.kind == Kind.TARGET and tier_of(finding) == Tier.NOTED:
                continue
            members.setdefault(_key(finding), []).append((case_result, finding))
    groups = [
        Group(tier=tier_of(finding), finding=finding, cases=(), anchor=(getattr(finding.source, "file", None) or "", _line(finding)))
        for finding in run_findings
    ]
    for pairs in members.values():
        first_case, first = pairs[0]
        sourced = next(((r, f) for r, f in pairs if f.source is not None), (first_case, first))
        groups.append(
            Group(
                tier=tier_of(first),
                finding=replace(first, source=sourced[1].source),
                cases=tuple(dict.fromkeys(r.case.id for r, _ in pairs)),
                anchor=annotation_target(*sourced),
                members=tuple((r.case.id, f) for r, f in pairs),
            )
        )
    # A weakened contract is read before its effects, a broken contract before other blocking findings (the rules
    # a team wrote come first), and findings about the whole run before those of cases.
    return sorted(groups, key=lambda g: (g.tier, _KIND_RANK.get(g.kind, 2), bool(g.cases), g.path, g.kind, -len(g.cases)))


def said_once(findings: Iterable[Finding]) -> list[Finding]:
    """A case's findings with each cause said once: a value that cannot be resolved is its `unresolved` error, never
    also an `effective` change of the same path (a review compares a launch's resolved values too, and the broken
    one reads as changed)."""
    findings = list(findings)
    broken = {f.path for f in findings if f.kind == Kind.UNRESOLVED and f.severity == ERROR and f.path}
    return [f for f in findings if not (f.kind == Kind.EFFECTIVE and f.path in broken)] if broken else findings


def _line(finding: Finding) -> int | None:
    """The line a run-level finding's annotation points at: a change not verified, and a config write the code makes
    now, at its line (a write removed was on a line of the base, which this checkout may not have)."""
    if finding.kind == Kind.UNVERIFIED or (finding.kind == Kind.CONFIG_WRITE and (finding.new is not None or finding.old is None)):
        return getattr(finding.source, "line", None)
    return None


def _patterns(case_id: str) -> list[tuple[str, int]]:
    """Globs that cover `case_id` with whole segments replaced by `*`, each with its number of stars."""
    parts = case_id.split("/")
    return [
        ("/".join("*" if index in starred else part for index, part in enumerate(parts)), count)
        for count in range(1, len(parts))
        for starred in combinations(range(len(parts)), count)
    ]


class CaseIds(tuple[str, ...]):
    """The ids of the cases a report talks about, in report order, with the index `describe_cases` reads built
    once per report (so describing each group costs its own cases, not the whole matrix)."""

    @cached_property
    def lookup(self) -> CaseIndex:
        """Every segment glob of every case id, with the case ids it matches, and each id's position."""
        globs: dict[str, set[str]] = {}
        for case_id in self:
            for pattern, _ in _patterns(case_id):
                globs.setdefault(pattern, set()).add(case_id)
        return CaseIndex({pattern: frozenset(ids) for pattern, ids in globs.items()}, {c: i for i, c in enumerate(self)})


@dataclass(frozen=True)
class CaseIndex:
    """Segment globs of a matrix's case ids (`*/megatron/*` -> the ids it matches) and each id's position."""

    globs: dict[str, frozenset[str]]
    position: dict[str, int]


def describe_cases(case_ids: Sequence[str], all_ids: Sequence[str], counted: bool = True) -> str:
    """Case ids written compactly: `all 13 cases`, `ppo_trainer/megatron/*` when exactly those, or the list.

    `counted` puts the number of cases first when there is more than one (`4 cases: ...`). Linear in `case_ids`
    when `all_ids` is a CaseIds (reports pass `compared_ids(result)`).
    """
    wanted = dict.fromkeys(case_ids)
    if not wanted:
        return "reported once for the run"  # never "the whole run": a hoisted Hydra warning may be one case's
    launches = [case_id for case_id in wanted if case_id.startswith(LAUNCH_PREFIX)]
    if launches and len(launches) < len(wanted) or len(launches) > 1:
        # Launch ids are one script line each: counted, never listed in a line (a group's members name them).
        matrix = [case_id for case_id in wanted if not case_id.startswith(LAUNCH_PREFIX)]
        counted_launches = f"{plural(len(launches), 'launch', 'launches')}"
        if not matrix:
            return counted_launches
        return f"{describe_cases(matrix, [c for c in all_ids if not c.startswith(LAUNCH_PREFIX)], counted)} and {counted_launches}"
    index = (all_ids if isinstance(all_ids, CaseIds) else CaseIds(all_ids)).lookup
    known = [case_id for case_id in wanted if case_id in index.position]
    if len(wanted) > 1 and len(known) == len(wanted) == len(index.position):
        return f"all {len(wanted)} cases"
    # A glob names only wanted cases when as many wanted cases match it as cases match it at all.
    hits: dict[str, int] = {}
    for case_id in known:
        for pattern in {pattern for pattern, _ in _patterns(case_id)}:
            hits[pattern] = hits.get(pattern, 0) + 1
    # The matrix's order first, then ids it does not have, as given.
    ordered = sorted(known, key=index.position.__getitem__) + [c for c in wanted if c not in index.position]
    covered: set[str] = set()
    parts: list[str] = []
    for case_id in ordered:
        if case_id in covered:
            continue
        best, best_matches = case_id, frozenset({case_id})
        for pattern, _ in _patterns(case_id):
            matches = index.globs.get(pattern, frozenset())
            # A glob is worth writing only when it names exactly these cases, and more than one; the one that
            # covers most wins, and of equals the one with fewest stars (found first).
            if len(matches) > 1 and hits.get(pattern) == len(matches) and len(matches - covered) > len(best_matches - covered):
                best, best_matches = pattern, matches
        parts.append(best)
        covered |= best_matches
    text = ", ".join(parts)
    return text if len(wanted) == 1 or not counted else f"{len(wanted)} cases: {text}"


# What a tier's count counts: keys for values, causes (one line each) for what blocks.
KEY_TIERS = frozenset({Tier.CHANGED, Tier.REFACTOR})  # ("Removed keys" and "Added keys" say it already)
CAUSE_TIERS = frozenset({Tier.SETTINGS, Tier.BROKEN, Tier.BLOCKING})


def tier_heading(tier: Tier, groups: Sequence[Group]) -> str:
    """A tier's title with what it holds: `Changed values (5 keys)`, `Errors and contract changes (7 causes)`: keys
    for values, one cause per line listed for the rest (give the groups as the report lists them)."""
    count = len(groups) if tier in CAUSE_TIERS else count_paths(groups)
    unit = ("key", "keys") if tier in KEY_TIERS else ("cause", "causes") if tier in CAUSE_TIERS else None
    return f"{TIER_TITLES[tier]} ({count}{'' if unit is None else ' ' + unit[count != 1]})"


def count_paths(groups: Iterable[Group]) -> int:
    """Distinct paths (or messages, for pathless findings) among groups."""
    return len({group.path or group.message for group in groups})


# How many distinct case sets a summary names for one tier before it says "elsewhere".
SHOWN_CASE_SETS = 3

PHRASES = MappingProxyType(
    {
        Tier.CHANGED: ("value changed", "values changed"),
        Tier.REMOVED: ("key removed", "keys removed"),
        Tier.ADDED: ("key added", "keys added"),
        Tier.REFACTOR: ("refactor with an unchanged value", "refactors with unchanged values"),
    }
)


# A review's launches that are new or whose script moved: named in the summary and listed, never only counted.
LAUNCH_NEWS = frozenset({Kind.NEW_LAUNCH, Kind.MOVED})


def _script_move(group: Group) -> str:
    """`old.sh -> new.sh` of a moved launch's group."""
    return " -> ".join(str(side)[len(LAUNCH_PREFIX) :].rsplit("#", 1)[0] for side in (group.old, group.new))


# How a summary names the blocking causes of a kind it has no sentence of its own for (a kind without a row here is
# named by its own name: `3 option gone errors`).
KIND_PHRASES = MappingProxyType(
    {
        Kind.LAUNCH: ("cause that breaks a launch", "causes that break launches"),
        Kind.TARGET: ("node the program cannot build", "nodes the program cannot build"),
        Kind.CONFIG_READ: ("key the program reads that the config lacks", "keys the program reads that the config lacks"),
        Kind.SETTINGS_CHANGE: ("settings change", "settings changes"),
        Kind.HYDRA_CHANGE: ("hydra change without a recorded reason", "hydra changes without a recorded reason"),
        Kind.ENTRY_CHANGE: ("entry point change", "entry point changes"),
        Kind.LAUNCH_GONE: ("launch gone", "launches gone"),
        Kind.HIDDEN_TEXT: ("hidden character", "hidden characters"),
        Kind.FALLBACK: ("new silent fallback", "new silent fallbacks"),
        Kind.ERROR: ("error about the whole run", "errors about the whole run"),
    }
)


def plural(count: int, one: str, many: str | None = None) -> str:
    """`count` with its noun, plural past one (`many`, else the noun with an s): the one spelling of every count the
    reports write ("1 golden", "3 goldens", "2 launches")."""
    return f"{count} {one if count == 1 else many or one + 's'}"


def _where(groups: list[Group], all_ids: Sequence[str]) -> str:
    """Where a tier's groups are: ` on all 13 cases`, ` only on X`, or the largest case sets with their counts."""
    buckets: dict[tuple[str, ...], list[Group]] = {}
    if not groups:
        return ""
    for group in groups:
        buckets.setdefault(group.cases, []).append(group)

    def on(cases: tuple[str, ...]) -> str:
        if not cases:  # a config write, a settings change: about the run, on no case
            return "for the run"
        text = describe_cases(cases, all_ids, counted=False)
        return f"on {text}" if set(cases) >= set(all_ids) else f"only on {text}"

    if len(buckets) == 1:
        return " " + on(next(iter(buckets)))
    ranked = sorted(buckets.items(), key=lambda item: -count_paths(item[1]))
    shown = [f"{count_paths(members)} {on(cases).removeprefix('only ')}" for cases, members in ranked[:SHOWN_CASE_SETS]]
    rest = sum(count_paths(members) for _, members in ranked[SHOWN_CASE_SETS:])
    return " (" + "; ".join(shown + ([f"{rest} elsewhere"] if rest else [])) + ")"


def compared_ids(result: MatrixResult) -> CaseIds:
    """The ids of the cases a report talks about: every case but those only the baseline has."""
    return CaseIds(r.case.id for r in result.cases if r.status != Status.GONE)


def summary_paragraph(groups: Sequence[Group], result: MatrixResult) -> str:
    """One paragraph a reviewer reads first: what blocks, what moved, where."""
    all_ids = compared_ids(result)
    by_tier: dict[Tier, list[Group]] = {}
    for group in groups:
        by_tier.setdefault(group.tier, []).append(group)
    parts = []
    blocking = by_tier.get(Tier.BLOCKING, [])
    changes = [g for g in blocking if g.kind == Kind.CONTRACT_CHANGE]
    if changes:
        unexplained = sum(g.severity == ERROR for g in changes)
        parts.append(f"{plural(len(changes), 'contract change')}" + (f" ({unexplained} without a recorded reason)" if unexplained else ""))
    contract_errors = [g for g in blocking if g.kind == Kind.CONTRACT and g.severity == ERROR]
    if contract_errors:
        parts.append(
            f"{plural(len(contract_errors), 'unwaived contract error')}" + _where([g for g in contract_errors if g.cases], all_ids)
        )
    contract_warnings = [g for g in blocking if g.kind == Kind.CONTRACT and g.severity != ERROR]
    if contract_warnings:
        parts.append(f"{plural(len(contract_warnings), 'warning')} about the contracts themselves")
    # A case that cannot be composed is in the broken tier (an error of kind `error` on a case: harness.model.grouping.tier_of).
    broken = sorted({case for g in by_tier.get(Tier.BROKEN, []) if g.kind == Kind.ERROR for case in g.cases})
    if broken:
        parts.append(f"{plural(len(broken), 'case')} cannot be composed ({describe_cases(broken, all_ids)})")
    parity = [g for g in blocking if g.kind == Kind.PARITY]
    if parity:
        parts.append(f"{plural(count_paths(parity), 'route parity difference')}")
    # Every other blocking cause, by kind (a launch that no longer composes, a settings change...): a failing run's
    # summary never reads as if nothing happened.
    said = {Kind.CONTRACT_CHANGE, Kind.CONTRACT, Kind.PARITY}
    others: dict[Kind, int] = {}
    for group in [*by_tier.get(Tier.SETTINGS, []), *by_tier.get(Tier.BROKEN, []), *blocking]:
        if group.severity == ERROR and group.kind not in said and not (group.kind == Kind.ERROR and group.cases):
            others[group.kind] = others.get(group.kind, 0) + 1
    for kind, count in others.items():
        one, many = KIND_PHRASES.get(kind, (f"{kind.replace('_', ' ')} error", f"{kind.replace('_', ' ')} errors"))
        parts.append(f"{count} {one if count == 1 else many}")
    for tier, (one, many) in PHRASES.items():
        tier_groups = by_tier.get(tier, [])
        if tier_groups:
            count = count_paths(tier_groups)
            folded = " (folded)" if tier == Tier.REFACTOR else ""
            parts.append(f"{count} {one if count == 1 else many}{_where(tier_groups, all_ids)}{folded}")
    noted = by_tier.get(Tier.NOTED, [])
    new = sorted({case for g in noted if g.kind == Kind.NEW_LAUNCH for case in g.cases})
    if new:
        parts.append(f"{plural(len(new), 'new launch', 'new launches')} ({describe_cases(new, all_ids, counted=False)})")
    moved = [g for g in noted if g.kind == Kind.MOVED and g.path.startswith(LAUNCH_PREFIX)]
    if moved:  # said by script: a `git mv` moves all of a script's launches
        scripts = dict.fromkeys(_script_move(g) for g in moved)
        parts.append(
            f"{plural(len(moved), 'launch', 'launches')} moved with {'their scripts' if len(scripts) > 1 else 'its script' if len(moved) == 1 else 'their script'} ({', '.join(scripts)})"
        )
    gone = [r.case.id for r in result.cases if r.status == Status.GONE]
    if gone:
        parts.append(f"{plural(len(gone), 'case')} only in the baseline ({describe_cases(gone, [*gone, *all_ids], counted=False)})")
    regenerate = by_tier.get(Tier.REGENERATE, [])
    if regenerate:
        cases = {case for g in regenerate for case in g.cases or (str(g.finding.source),)}  # a run's: its file
        parts.append(f"{plural(len(cases), 'golden')} to regenerate")
    waived = by_tier.get(Tier.WAIVED, [])
    if waived:
        total = sum(len(g.cases) for g in waived)
        parts.append(f"{plural(total, 'waived warning')} ({len(waived)} distinct)")
    if result.orphans:
        parts.append(f"{plural(len(result.orphans), 'orphan golden')}")
    unverified = by_tier.get(Tier.UNVERIFIED, [])
    if unverified:
        parts.append(f"{plural(len(unverified), 'change')} not verified")
    failing = [r.case.id for r in result.cases if r.failed]
    if not parts and failing:  # a failure no sentence above names: never "nothing changed" above it
        parts.append(f"{plural(len(failing), 'case')} failing ({describe_cases(failing, all_ids, counted=False)})")
    if not parts:  # only when nothing at all is to be said: never above a failing verdict
        parts.append(f"nothing changed on {describe_cases(all_ids, all_ids, counted=False)}" if all_ids else "no cases")
    return " ".join(part[0].upper() + part[1:] + "." for part in parts)


def counts(findings: tuple[Finding, ...] | list[Finding]) -> dict[str, int]:
    """A case's target findings counted by reason (waived ones included)."""
    counted = {str(reason): 0 for reason in TargetReason if reason != TargetReason.BUILT_BY_PROGRAM}  # those are not problems
    for finding in findings:
        facts = finding.detail_as(TargetFacts)
        if finding.kind == Kind.TARGET and facts is not None and facts.reason in counted:
            counted[facts.reason] += 1
    return counted
