"""What every report format shares: the verdict line, values as people read them, and groups by triage tier.

Every format is built from the same groups (see grouping.py) in the same triage order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from harness.gates import linear
from harness.model.findings import (
    ERROR,
    VIA_PYTHON_DEFAULT,
    WARNING,
    Approvals,
    Difference,
    Finding,
    Kind,
    LaunchFix,
    LaunchTally,
    MatrixResult,
    Origin,
    RulesUsed,
    Status,
    ViaDefault,
    WriteFacts,
    fails,
    regenerates,
)
from harness.model.grouping import VALUE_KINDS, Group, Tier, cause_count, describe_cases, group_findings, plural
from harness.model.matrix import LAUNCH_PREFIX, launch_condition
from harness.model.semantic_diff import ABSENT, parent_path, show_value

# Tiers listed in full; refactors are folded and waived warnings summarized after them.
LISTED_TIERS = (Tier.SETTINGS, Tier.BROKEN, Tier.BLOCKING, Tier.UNVERIFIED, Tier.CHANGED, Tier.REMOVED, Tier.ADDED, Tier.REGENERATE)
EFFECTIVE_NOTE = "(resolved value; the written interpolation is unchanged)"
DETAIL_LINES = 5  # changes inside one list shown in a report line; JSON carries them all


STATUS_WORDS = MappingProxyType(
    {
        Status.OK: "ok",
        Status.CHANGED: "changed",
        Status.NEW: "new",
        Status.GONE: "gone",
        Status.ERROR: "failing",
    }
)


@dataclass(frozen=True)
class Tally:
    """What a run's verdict counts, the same numbers in every format (each named by what it counts).

    A cause is one line of a report (one group: the same finding over many cases or launches); a finding is one
    case's or launch's. Stale goldens are counted as goldens to regenerate, never as errors one per value.
    """

    causes: int  # blocking causes, goldens to regenerate aside
    findings: int  # the blocking findings those causes hold
    goldens: int  # cases whose golden a rewrite would settle (check: they block; a review shows them as news)
    warnings: int  # warnings that hold, waived ones included (a waiver turns an error into one)
    warning_causes: int
    at_base: int  # a review: errors that already held at the base (they fail nothing)
    orphans: int
    ok: bool
    unverified: int = 0  # a review: changes it could not compare (each a warning, or an error the base's settings block on)

    @property
    def verdict(self) -> str:
        return "OK" if self.ok else "FAILED"


def tally(result: MatrixResult, groups: Sequence[Group] | None = None) -> Tally:
    """The run's counts, from the verdict table (`harness.model.findings.VERDICTS`) and the report's groups."""
    groups = group_findings(result.cases, result.findings) if groups is None else groups
    findings = [f for r in result.cases for f in r.findings] + list(result.findings)
    blocking = [g for g in groups if any(fails(f) and not regenerates(f) for f in _members(g))]
    goldens = {r.case.id for r in result.cases if any(fails(f) and regenerates(f) for f in r.findings)}
    goldens |= {str(f.source) for f in result.findings if fails(f) and regenerates(f)}  # a review: the record of writes
    warned = [g for g in groups if g.severity == WARNING and g.finding.origin != Origin.AT_BASE and g.kind != Kind.UNVERIFIED]
    return Tally(
        causes=len(blocking),
        findings=sum(1 for g in blocking for f in _members(g) if fails(f)),
        goldens=len(goldens),
        warnings=sum(f.severity == WARNING and f.origin != Origin.AT_BASE and f.kind != Kind.UNVERIFIED for f in findings),
        warning_causes=len([g for g in warned if not g.waiver]),
        at_base=sum(f.severity == ERROR and f.origin == Origin.AT_BASE for f in findings),
        orphans=len(result.orphans),
        ok=result.ok,
        unverified=sum(f.kind == Kind.UNVERIFIED for f in findings),
    )


def _members(group: Group) -> tuple[Finding, ...]:
    """Every finding a group holds (a run-level group: its one finding)."""
    return tuple(f for _, f in group.members) or (group.finding,)


def count_of(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def tally_words(counted: Tally, unit: str = "case") -> list[str]:
    """The counts of a verdict, as every format words them: blocking causes (and their findings), goldens to
    regenerate, warnings, errors already at the base, orphan goldens; none that are zero."""
    words = []
    if counted.causes:
        more = f" ({count_of(counted.findings, 'finding')})" if counted.findings > counted.causes else ""
        words.append(count_of(counted.causes, "blocking cause") + more)
    if counted.goldens and unit != "case":  # a diff of files or snapshot folders: nothing to regenerate, they differ
        words.append(count_of(counted.goldens, f"{unit} that differs", f"{unit}s that differ"))
    elif counted.goldens:
        words.append(count_of(counted.goldens, "golden") + " to regenerate")
    if counted.warnings:
        causes = counted.warning_causes
        words.append(count_of(counted.warnings, "warning") + (f" ({count_of(causes, 'cause')})" if 0 < causes < counted.warnings else ""))
    if counted.at_base:
        words.append(count_of(counted.at_base, "error") + " already at base")
    if counted.orphans:
        words.append(count_of(counted.orphans, "orphan golden"))
    if counted.unverified:
        words.append(count_of(counted.unverified, "change") + " not verified")
    return words


def summary_line(result: MatrixResult, groups: Sequence[Group] | None = None) -> str:
    """The verdict: `OK` or `FAILED`, the cases by status (none that are zero), then the tally's counts."""
    counted = tally(result, groups)
    statuses = Counter(r.status for r in result.cases)
    against = f" against {result.baseline}" if result.baseline else ""
    by_status = ", ".join(f"{statuses[s]} {word}" for s, word in STATUS_WORDS.items() if statuses.get(s))
    parts = [counted_units(result) + against + (f": {by_status}" if by_status else "")]
    words = tally_words(counted, result.comparison.unit if result.comparison is not None else "case")
    if words:
        parts.append(", ".join(words))
    return f"{counted.verdict}: " + "; ".join(parts)


def rules_line(rules: RulesUsed | None) -> str:
    """A review's first line in every format: which settings decided what was checked ("" for any other run)."""
    if rules is None:
        return ""
    if rules.first_adoption:
        return f"settings: this change's {rules.file} ({rules.ref} has none: first adoption)"
    return f"settings: {rules.ref}'s {rules.file} (the base decides what is checked; this change's settings are reviewed)"


def approvals_line(approvals: Approvals | None) -> str:
    """How many loosenings of a review carry a recorded reason, and whose owners must approve them: the author of a
    pull request can write a reason as easily as the change, so the files that hold reasons need owners."""
    if approvals is None or not approvals.recorded:
        return ""
    count = approvals.recorded
    return (
        f"{count} contract, settings or hydra change{'s carry' if count != 1 else ' carries'} a recorded reason: "
        f"the owners of {', '.join(approvals.files)} must approve them (see templates/CODEOWNERS)"
    )


def launches_line(tally: LaunchTally | None) -> str:
    """`N launches checked of M found: ...`, and once per submodule that is not checked out, its launches ("" when the
    run checked no launch command)."""
    if tally is None:
        return ""
    under = f" ({tally.environments} of them read under an environment their script tests)" if tally.environments else ""
    text = (
        f"{count_of(tally.extracted, 'launch', 'launches')} checked of {tally.found} found{under}: {tally.composed} compose, {tally.failing} fail"
        + (f", {tally.found - tally.extracted} could not be extracted" if tally.found != tally.extracted else "")
    )
    for submodule, count in tally.unavailable:
        text += f"; {plural(count, 'launch', 'launches')} of programs in the git submodule {submodule} not checked (it is not checked out)"
    return text


def accounted_line(result: MatrixResult) -> str:
    """A review: how the pull request's changed files were accounted for (`changed files: 4 compared, 2 not relevant,
    1 not verified`; "" for any other run)."""
    if not result.accounted:
        return ""
    counts = Counter(verdict for _, verdict, _, _ in result.accounted)
    files = len({file for file, _, _, _ in result.accounted})
    shown = ", ".join(f"{counts[v]} {v}" for v in ("compared", "not relevant", "not verified") if counts.get(v))
    return f"{plural(files, 'changed file')}: {shown}"


def counted_units(result: MatrixResult) -> str:
    """How many results the run has, in its own unit: `7 cases`, `1 file`, `12 goldens`."""
    unit = result.comparison.unit if result.comparison is not None else "case"
    return f"{len(result.cases)} {unit}{'s' * (len(result.cases) != 1)}"


def mode_words(result: MatrixResult) -> str:
    """What a `diff OLD NEW` compared, in words: `two YAML files`, `two snapshot folders, 7 goldens` ("" for any
    other run)."""
    comparison = result.comparison
    if comparison is None:
        return ""
    return comparison.what + (f", {counted_units(result)}" if comparison.folders else "")


def mode_line(result: MatrixResult) -> str:
    """The one line that says which mode a `diff OLD NEW` ran in ("" for any other run); every format states it."""
    comparison = result.comparison
    if comparison is None:
        return ""
    return f"comparing {mode_words(result)}: {comparison.old} -> {comparison.new}"


def mode_properties(result: MatrixResult) -> dict[str, str]:
    """A `diff OLD NEW`'s mode as properties of a machine-read report: `mode` (its name) and `comparing` (its line)."""
    if result.comparison is None:
        return {}
    return {"mode": str(result.comparison.mode), "comparing": mode_line(result)}


def origin_count(groups: Sequence[Group], tier: Tier, listed: bool = False) -> str:
    """Errors already at the base, or fixed since, as one line: how many, on how many cases (`listed`: the lines
    that follow name them, as --verbose does)."""
    total = sum(max(len(g.cases), 1) for g in groups)
    cases = {case for g in groups for case in g.cases}
    what = "already at base" if tier == Tier.AT_BASE else f"at the base {'is' if total == 1 else 'are'} fixed here"
    return (
        f"{plural(total, 'error')} {what} ({plural(len(cases), 'case')}, "
        f"{len(groups)} distinct{'):' if listed else '; --verbose lists them)'}"
    )


def findings_of_causes(groups: Sequence[Group], adjective: str = "") -> str:
    """`13 known findings (5 causes)`: the findings groups hold (a run-level group is one), and their causes as the
    verdict counts them when fewer; the same words in `check`, `known` and pytest."""
    total = sum(max(len(g.cases), 1) for g in groups)
    count = cause_count(groups)
    causes = f" ({count_of(count, 'cause')})" if count < total else ""
    return count_of(total, f"{adjective} finding".strip()) + causes


def known_count(groups: Sequence[Group], listed: bool = False, lists: str = "--verbose") -> str:
    """Known findings as one line: how many, of how many causes, and where they are recorded (`lists`: the command
    line that lists them, unless they are `listed` below)."""
    return f"{findings_of_causes(groups, 'known')}, excused by the known file" + (":" if listed else f"; {lists} lists them")


def known_recorded(groups: Sequence[Group], entries: int, file: str) -> str:
    """What `known` recorded, in the words `check` counts it with: `13 findings (5 causes) recorded in F as 8 known
    entries` (a launch's cause is an entry per script line that shows it)."""
    if not groups:
        return f"0 findings recorded in {file}"
    entries_said = f" as {count_of(entries, 'known entry', 'known entries')}" if entries != cause_count(groups) else ""
    return f"{findings_of_causes(groups)} recorded in {file}{entries_said} (review it: an entry is a loosening)"


def waived_count(groups: Sequence[Group]) -> str:
    """Waived warnings as one line: how many, on how many cases, how many distinct."""
    total = sum(len(g.cases) for g in groups)
    cases = {case for g in groups for case in g.cases}
    return f"{plural(total, 'waived warning')} on {plural(len(cases), 'case')}, {len(groups)} distinct (--verbose lists them)"


SHOWN_LAUNCHES = 3  # script lines a group of launches names before it says how many more (--verbose: all)


def launch_place(case_id: str, finding: Any) -> str:
    """Where one launch of a group is: a launch finding's `FILE:LINE` with the override as the script writes it,
    else the launch itself (`examples/x.sh#1`: its value changed under it)."""
    launch = case_id.removeprefix(LAUNCH_PREFIX)
    when = f" ({condition})" if (condition := launch_condition(case_id)) else ""  # a reading under an environment
    if finding.kind != Kind.LAUNCH and getattr(finding.source, "file", None) == launch.rsplit("#", 1)[0]:
        return f"{finding.source}{when}"  # a value the launch's own script line sets (`train.sh:46`)
    if finding.kind != Kind.LAUNCH or finding.source is None:
        return launch
    override = finding.new if finding.path and isinstance(finding.new, str) else ""
    return f"{finding.source}{when}: {override}" if override else f"{finding.source}{when}"


def _script(case_id: str, finding: Any) -> str:
    if finding.kind == Kind.LAUNCH and finding.source is not None:
        return str(getattr(finding.source, "file", finding.source))
    return case_id.removeprefix(LAUNCH_PREFIX).rsplit("#", 1)[0]


def launch_where(group: Group, all_ids: Sequence[str], listed: bool = False) -> str:
    """Where a group is, without its fix: the matrix's cases (`2 cases: ...`), then its launches: one named with its
    line and override, or how many in how many scripts with the first few (`listed`: the lines below name them)."""
    launches = group.launches
    parts = [describe_cases(group.matrix_cases, all_ids)] if group.matrix_cases else []
    if len({case_id for case_id, _ in launches}) == 1:  # one launch: each line it writes the cause on
        places = [launch_place(case_id, f) for case_id, f in launches]
        file = _script(*launches[0])
        parts.append(", ".join([places[0], *(p.removeprefix(file) for p in places[1:])]))
    elif launches:
        scripts = {_script(case_id, f) for case_id, f in launches}
        count = sum(case_id.startswith(LAUNCH_PREFIX) for case_id in group.cases)  # as describe_cases counts them
        head = f"{count} launches in {plural(len(scripts), 'script')}"
        if listed:
            parts.append(head)
        else:
            shown = [launch_place(case_id, f).split(": ", 1)[0] for case_id, f in launches[:SHOWN_LAUNCHES]]
            more = count - len(shown)
            parts.append(f"{head}: {', '.join(shown)}" + (f" and {more} more" if more else ""))
    return parts[0] if len(parts) == 1 else f"{parts[0]}; also in {parts[1]}" if parts else ""


def cause_parts(group: Group, all_ids: Sequence[str], listed: bool = False) -> tuple[str, str]:
    """Where one cause is and what follows it on its line, as every format writes it: its cases, or its launches'
    script lines (`listed`: the lines below name them); then its fix in the script's text and the file that sets it."""
    if group.launches:
        fix = fix_text(group)
        where = launch_where(group, all_ids, listed)
        tail = (f"; {fix}" if fix and not listed else "") + (
            f"; {set_by(group)} {group.source}" if group.matrix_cases and group.source is not None else ""
        )
        return where, tail
    return describe_cases(group.cases, all_ids), f"; {set_by(group)} {group.source}" if group.source is not None else ""


def cause_text(group: Group, all_ids: Sequence[str], listed: bool = False, what: str | None = None) -> str:
    """One cause on one line, the same in the terminal, pytest's report and the pull-request comment: what it says
    (`what`, else `describe_group`), then where, its fix and the file that sets it."""
    where, tail = cause_parts(group, all_ids, listed)
    return f"{describe_group(group) if what is None else what}  ({where}{tail})"


def fix_text(group: Group) -> str:
    """What to write instead, in the script's own text: the one fix, every fix of one launch, or the first launch's
    where they differ from launch to launch."""
    fixes = [(case_id, f.source, fix) for case_id, f in group.launches if (fix := _fix(f))]
    if not fixes:
        return ""
    if len({fix for _, _, fix in fixes}) == 1:
        return f"fix: write {fixes[0][2]}"
    if len({case_id for case_id, _, _ in fixes}) == 1:
        return "fix: write " + " and ".join(fix for _, _, fix in fixes)
    return f"fix: write {fixes[0][2]} at {fixes[0][1]} (each launch with its own value)"


def merged_launches(groups: Sequence[Group]) -> list[Group]:
    """Launch groups of one reason that break exactly the same launches, as one group in place of the first: a
    pull request that adds `algorithm.filter_groups.*` breaks a script's two `+algorithm.filter_groups...`
    overrides with one cause, and the script is named once, with both overrides and both fixes."""

    def key(group: Group) -> tuple[Any, ...] | None:
        f = group.finding
        launch = f.detail_as(LaunchFix)
        if group.kind != Kind.LAUNCH or not group.path or launch is None or group.matrix_cases:
            return None
        return (group.tier, f.severity, f.origin, launch.reason, frozenset(group.cases))

    members: dict[tuple[Any, ...], list[Group]] = {}
    for group in groups:
        if (k := key(group)) is not None:
            members.setdefault(k, []).append(group)
    out: list[Group] = []
    for group in groups:
        k = key(group)
        together = members.get(k, []) if k is not None else []
        if len(together) < 2:
            out.append(group)
        elif together[0] is group and k is not None:
            reason = str(k[3])  # the launches' cause word
            said = "; ".join(g.message.removeprefix(f"{reason}: ") for g in together)
            finding = replace(group.finding, message=f"{reason} ({len(together)} overrides): {said}")
            out.append(replace(group, finding=finding, members=tuple(m for g in together for m in g.members)))
    return out


def member_lines(group: Group) -> list[str]:
    """One line per launch of a group, for --verbose: `FILE:LINE: OVERRIDE; fix: write ...`."""
    return [launch_place(case_id, f) + (f"; fix: write {fix}" if (fix := _fix(f)) else "") for case_id, f in group.launches]


def _fix(finding: Finding) -> str | None:
    launch = finding.detail_as(LaunchFix)
    return launch.fix if launch is not None else None


def old_present(group: Group) -> bool:
    """An added key had no old value: absent, not null."""
    return group.kind != Kind.ADDED


def new_present(group: Group) -> bool:
    """A removed key has no new value: absent, not null."""
    return group.kind != Kind.REMOVED


def set_by(group: Group) -> str:
    """How a source is introduced: a removed key's file set it at the baseline, any other sets it now."""
    if group.kind == Kind.STALE_GOLDEN:
        return "in"  # the golden file itself, which `generate` rewrites
    if group.kind == Kind.UNVERIFIED:
        return "at"  # the changed line the review could not compare
    return "was set by" if group.kind == Kind.REMOVED else "set by"


def without_waiver_note(message: str) -> str:
    """A contract message without its ` [waived: ...]` tail, which reports show once on their own."""
    cut = message.rfind(" [waived: ")
    return message[:cut] if cut != -1 else message


def detail_lines(group: Group) -> tuple[str, ...]:
    """A changed list's lines, one per element or key that changed inside it (none for any other finding)."""
    difference = group.finding.detail_as(Difference)
    return difference.lines if difference is not None else ()


def shows_detail(group: Group) -> bool:
    """A list holding mappings or lists is shown by what changed inside it; a list of scalars reads whole."""
    nested = any(isinstance(item, (dict, list)) for side in (group.old, group.new) if isinstance(side, list) for item in side)
    return bool(detail_lines(group)) and nested


def describe_group(group: Group) -> str:
    """What a group says, without its cases: `path: old -> new` for values, else its message.

    A changed list of mappings or lists says what changed inside it (its `detail`) rather than both lists.
    """
    if shows_detail(group):
        lines = detail_lines(group)
        shown = list(lines[:DETAIL_LINES])
        more = len(lines) - len(shown)
        return "; ".join(shown) + (f"; and {more} more inside {group.path}" if more else "")
    if group.kind in VALUE_KINDS and group.path:
        difference = group.finding.detail_as(Difference)
        via = f" (via {VIA_PYTHON_DEFAULT})" if group.finding.detail_as(ViaDefault) is not None else ""
        agrees = difference.agrees if difference is not None else None
        via += f" (the YAML now agrees with the Python default, {agrees.source})" if agrees is not None and agrees.source else ""
        return f"{group.path}: {show_value(group.old, old_present(group))} -> {show_value(group.new, new_present(group))}{via}"
    if group.kind == Kind.EFFECTIVE and group.path and group.new is not None:
        return f"{group.path}: {show_value(group.old)} -> {show_value(group.new)} {EFFECTIVE_NOTE}"
    if group.kind == Kind.MISSING_GOLDEN:
        return "no golden; run generate"
    if group.kind == Kind.FORMAT:
        return "golden differs in text but not in meaning; regenerate it"
    if group.kind == Kind.CONTRACT_CHANGE:
        return f"contract change: {group.message}"
    if group.kind == Kind.CONFIG_WRITE and (said := write_change(group)):
        return said
    return without_waiver_note(group.message)


def write_change(group: Group) -> str:
    """A code write as the change it makes, as a YAML change is shown (`trainer.epochs: 1 -> 4`), then its own words
    (the code and its line): added, from the YAML's value; removed, back to it; changed, from the base's write. Where
    the cases of its config hold different values, one change per value with its cases. "" when the YAML's value is
    not known (the write's key or config is not static, or no case has a golden): its words alone say it."""
    facts = group.finding.detail_as(WriteFacts)
    if facts is None or not group.path:
        return ""
    if facts.old_form and facts.new_form:
        changes = [f"{_written(group.old, facts.old_form)} -> {_written(group.new, facts.new_form)}"]
    elif not facts.replaces:
        return ""
    else:
        many = len(facts.replaces) > 1
        changes = []
        for held in facts.replaces:
            yaml_value = show_value(held.value, held.present)
            on = f" on {_some_cases(held.cases)}" if many else ""
            if facts.new_form:
                changes.append(f"{yaml_value} -> {_written(group.new, facts.new_form)}{on}")
            else:
                changes.append(f"{_written(group.old, facts.old_form)} -> {yaml_value}{on}")
    said = without_waiver_note(group.message).removeprefix(f"{group.path}: ")
    return f"{group.path}: {', '.join(changes)} ({said})"


def _written(value: Any, form: str) -> str:
    """A written value as a change shows it: the value, the code computing it as written, or absent for a `del`."""
    return ABSENT if form == "deleted" else str(value) if form == "code" else show_value(value)


def _some_cases(ids: Sequence[str]) -> str:
    return ", ".join(ids) if len(ids) <= 2 else f"{ids[0]} and {len(ids) - 1} more cases"


@dataclass(frozen=True)
class Fold:
    """Removed or added leaves that share their cases, read as one line: a whole subtree, or keys under one mapping.

    Seam for the `moved` kind: a removed fold and an added fold with the same leaves are one move; when that kind
    lands, its groups arrive here already paired and are listed as they are.
    """

    root: str
    groups: tuple[Group, ...]
    whole: bool = True  # the other side lacks `root` itself; else `root` exists on both sides and only these keys differ

    @property
    def first(self) -> Group:
        """The group that stands for the fold: its kind, severity, cases and tier are the fold's."""
        return self.groups[0]

    def describe(self) -> str:
        """`critic.model.fsdp_config.* (27 keys) removed`, or `data: 3 keys added (audio_key, tools, …)`."""
        if self.whole:
            return f"{self.root}.* ({len(self.groups)} keys) {self.first.kind}"
        names = ", ".join(g.path[len(self.root) + 1 :] for g in self.groups)
        shown = names if len(names) <= FOLD_NAMES else names[: FOLD_NAMES - 1] + "…"
        return f"{self.root}: {len(self.groups)} keys {self.first.kind} ({shown})"

    def source_file(self) -> str | None:
        """The one file every leaf was set by, when there is one."""
        files = {getattr(g.source, "file", None) for g in self.groups}
        (file,) = files if len(files) == 1 else (None,)
        return file

    def as_dict(self) -> dict[str, Any]:
        """The fold as the JSON `subtrees` array spells it: every leaf path stays listed."""
        first = self.first
        return {
            "kind": str(first.kind),
            "path": self.root,
            "keys": len(self.groups),
            "severity": str(first.severity),
            "cases": list(first.cases),
            "paths": [g.path for g in self.groups],
        }


FOLD_MIN = 2  # a subtree with one leaf reads best as that leaf
FOLD_SIBLINGS = 3  # keys added (or removed) beside others under one mapping are folded from this many on
FOLD_NAMES = 60  # characters of key names a sibling fold shows


def _fold(groups: Sequence[Group | Fold], key_of: Any, minimum: int, whole: bool) -> list[Group | Fold]:
    """`groups` with every set of plain groups that share a key (None: never) of `minimum` or more as one Fold."""
    members: dict[tuple[Any, ...], list[Group]] = {}
    for group in groups:
        if isinstance(group, Group) and group.kind in (Kind.REMOVED, Kind.ADDED) and key_of(group):
            members.setdefault((key_of(group), group.kind, group.severity, group.cases), []).append(group)
    items: list[Group | Fold] = []
    placed: set[tuple[Any, ...]] = set()
    for group in groups:
        key = (key_of(group), group.kind, group.severity, group.cases) if isinstance(group, Group) else None
        if key is None or key not in members or len(members[key]) < minimum:
            items.append(group)
        elif key not in placed:
            placed.add(key)
            items.append(Fold(key[0], tuple(members[key]), whole))
    return items


def folded(groups: Sequence[Group]) -> list[Group | Fold]:
    """The groups with each removed or added subtree (same cases) as one Fold, then keys beside others under one
    mapping as one Fold, each in place of its first leaf."""
    subtrees = _fold(groups, _subtree, FOLD_MIN, whole=True)
    return _fold(subtrees, lambda g: parent_path(g.path), FOLD_SIBLINGS, whole=False)


def _subtree(group: Group) -> str:
    difference = group.finding.detail_as(Difference)
    return difference.subtree if difference is not None else ""


def subtree_folds(groups: Sequence[Group]) -> list[Fold]:
    """Every removed or added subtree of a run, for JSON."""
    return [item for item in folded(groups) if isinstance(item, Fold) and item.whole]


def by_tier(groups: Sequence[Group]) -> dict[Tier, list[Group]]:
    """Groups by triage tier, each tier in the groups' order."""
    tiers: dict[Tier, list[Group]] = {}
    for group in groups:
        tiers.setdefault(group.tier, []).append(group)
    return tiers


# Tiers whose findings are excused or held before this change: a review never puts them on a line or in a count of
# what the pull request did (at-base and fixed errors, waived or known violations, notes).
NOT_INTRODUCED = frozenset({Tier.AT_BASE, Tier.FIXED, Tier.WAIVED, Tier.KNOWN, Tier.NOTED})


def introduced(group: Group) -> bool:
    """Whether a review's group is something this change did: an error or warning marked introduced (or one a
    review marks with no origin, a settings change), or a difference, and never one a waiver or baseline excuses."""
    if group.tier in NOT_INTRODUCED or group.waiver or group.finding.status:
        return False
    return group.finding.origin in (None, Origin.INTRODUCED)


# A key, file, script line or value: what differs between alike causes. The punctuation around it is the sentence's
# (`(actor.lr, ...`, `key:`), not the word's, so it is left out of the word.
# It was `[^\s(\[{"'`]*[./:#=_\d][^\s,;"'`]*(?<![:,;.)\]}])`: without lookbehind, the word ends on a character outside
# `:,;.)]}` (the inner class) or is its one marked character; the alternatives keep the order `re` tried lengths in.
ALIKE_WORD = linear.compile(r"[^\s(\[{\"'`]*(?:[./:#=_\d][^\s,;\"'`]*[^\s,;\"'`:.)\]}]|[/#=_\d])")
ALIKE_NAMES = 3  # the keys or entries an alike row names before it counts the rest


@dataclass(frozen=True)
class Alike:
    """Causes that read the same but for one key, file or entry (`known entry added ... for X`, eleven times): one
    row with a count, the first cause in full and the others by what differs."""

    first: Group
    others: tuple[Group, ...] = ()

    def prefix(self) -> str:
        """`11 alike: ` before the first cause's words (first, so that a shortened line keeps the count), or ""."""
        return f"{len(self.others) + 1} alike: " if self.others else ""

    def suffix(self) -> str:
        """` (also: a, b, c and 7 more)`: what names the others apart, or "" for a cause that stands alone."""
        if not self.others:
            return ""
        names = [_differing(self.first, other) for other in self.others]
        shown = ", ".join(names[:ALIKE_NAMES]) + (f" and {len(names) - ALIKE_NAMES} more" if len(names) > ALIKE_NAMES else "")
        return f" (also: {shown})"

    def describe(self) -> str:
        """The row's words: the count, the first cause as every report says it, the others by what differs."""
        return self.prefix() + describe_group(self.first) + self.suffix()


def _template(group: Group) -> str:
    return ALIKE_WORD.sub("…", describe_group(group))


def _differing(first: Group, other: Group) -> str:
    """What names `other` apart from `first`: the first word in which their texts differ."""
    mine, theirs = ALIKE_WORD.findall(describe_group(first)), ALIKE_WORD.findall(describe_group(other))
    return next((word for a, word in zip(mine, theirs, strict=False) if a != word), other.path or str(other.kind))


def alike_rows(groups: Sequence[Group]) -> list[Alike]:
    """The groups with causes that read alike (same kind, severity, tier and cases; the same words but for keys,
    files or values) as one row each, in the place of the first; a value's change is never folded this way."""
    rows: dict[tuple[Any, ...], list[Group]] = {}
    for group in groups:
        key = (group.kind, group.severity, group.tier, group.cases, _template(group)) if group.kind not in VALUE_KINDS else (id(group),)
        rows.setdefault(key, []).append(group)
    return [Alike(members[0], tuple(members[1:])) for members in rows.values()]


def cut_at_record(text: str, limit: int) -> str:
    """`text` shortened to `limit` characters at the end of a record (after `; ` or `, `), never inside a key or a
    value, with an ellipsis saying more was there."""
    if len(text) <= limit:
        return text
    head = text[: limit - 2]
    cut = max(head.rfind("; "), head.rfind(", "))
    return (head[:cut] if cut > limit // 3 else head.rsplit(" ", 1)[0]) + " …"
