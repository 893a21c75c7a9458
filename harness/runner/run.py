"""The one core: cases × a baseline -> composed configs -> findings. The CLI and the pytest plugin only call this.

A run composes every selected case of the tree under test, compares it with what the baseline holds for it
(`check_case`), runs the rules (contracts, parity, fallbacks, effective values) and says which file sets
each reported value. Only the severity of a plain difference depends on the baseline. Writing goldens is
not done here: the shells do it at the edge with the rendered text a run can keep.

YAML documents (`diff` of two files or two folders of them) are not composed: `compare_documents` compares
each pair with the same comparison and rules (`check_document`), and the same reporters render the result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from harness.baselines.gitrepo import GitError
from harness.baselines.goldens import Goldens, golden_path
from harness.baselines.kinds import Baseline, BaselineEntry, GoldenFolder
from harness.composition.cases import case_globs, open_matrix, select_cases, unmatched_glob
from harness.composition.compose import Composed, HydraSession, Stems
from harness.composition.documents import DocumentPair
from harness.composition.parallel import default_jobs, map_shards
from harness.composition.provenance import Recorded, Source, SourcesMemo, leaf_sources, provenance_lines, recorded_in, written_hydra
from harness.composition.render import golden_body, key_lines, line_of, parse_yaml, render_golden, to_plain
from harness.composition.resolve import MISSING, lookup
from harness.composition.shards import Shard
from harness.composition.store import CacheRefused, cache_add_variant, cache_get, cache_put, cache_variants, open_store, tree_digest
from harness.gates.budget import InputLimitError
from harness.gates.confine import UnsafeInput, project_root
from harness.gates.errors import courtesy_failed
from harness.gates.reader import read_bytes
from harness.model.findings import (
    ERROR,
    INFO,
    RECORDED_KINDS,
    SOURCED_KINDS,
    WARNING,
    Approvals,
    CaseChecker,
    CaseResult,
    Comparison,
    ContractRef,
    Excused,
    Finding,
    Kind,
    LaunchTally,
    MatrixResult,
    Origin,
    Refiner,
    Status,
    ViaDefault,
    regenerates,
)
from harness.model.hints import case_hint
from harness.model.matrix import GOLDEN_PREFIX, GOLDEN_SUFFIX, LAUNCH_PREFIX, Case, is_golden_name
from harness.model.semantic_diff import describe_value, diff_trees, same_value, split_path
from harness.model.settings import Settings, SettingsError, display_path
from harness.rules import invariants, known_entries
from harness.rules.contract_changes import run_findings
from harness.rules.contracts import ChangeRecord, ContractSet, load_contracts, utc_today
from harness.rules.review_rules import ReviewRules
from harness.runner.compare import as_review, compare_with_base, hydra_findings, semantic_findings, warning_findings
from harness.runner.config_writes import (
    entry_write_changes,
    golden_tree,
    launch_reads,
    program_writes,
    read_findings,
    record_findings,
    record_path,
    with_replaced,
    write_record,
)
from harness.runner.targets import case_rules, default_changes


class RunMode(StrEnum):
    """What a run is for; it decides what the run requires of the tree and what it checks besides the matrix."""

    CHECK = "check"  # against the committed goldens: every engine and `same_as` case must exist; launches too
    GENERATE = "generate"  # a check whose goldens are then written (launches have none, but they are judged as check does)
    REVIEW = "review"  # the working tree against a git ref's goldens (or its tree composed), under the ref's rules
    TREE_DIFF = "tree_diff"  # every case composed from two config trees (`diff OLD_TREE NEW_TREE`)


@dataclass(frozen=True)
class RuleSet:
    """The rules a run judges each case by (contract terms, target checks), and the contracts its run-level findings
    read (changes, hygiene, stale waivers). `RuleSet()` applies none."""

    rules: tuple[CaseChecker, ...] = ()
    refiners: tuple[Refiner, ...] = ()  # reread the differences (a dropped key a Python default fills; harness/runner/targets.py)
    contracts: ContractSet | None = None
    strict_waivers: bool = False  # a waiver that excuses nothing is an error, not a warning
    view: Any = None  # the program view the rules read (harness.runner.targets.ProgramView), read once per run

    @classmethod
    def of(cls, settings: Settings, strict_waivers: bool = False, base: ContractSet | None = None, view: Any = None) -> RuleSet:
        """The settings' contracts (and target checks, with their `python_sources`). In a review the settings are
        the base's (harness.rules.review_rules), so which Python sources are read is never the pull request's choice,
        and `base`, the base's contracts, judge each case too. `view`: the settings' program view, when the caller
        has it (harness.runner.targets.program_view)."""
        contract_set = load_contracts(settings.contracts, settings.read_scope)
        rules = case_rules(settings, contract_set, base=base, view=view)
        return cls(rules.checks, rules.refiners, contract_set, strict_waivers, rules.view)


EVERY_SEVERITY: frozenset[str] = frozenset({ERROR, WARNING, INFO})


@dataclass(frozen=True)
class HeadGoldens:
    """A review's promise to the merge: the pull request's own goldens, read as `check` on its head reads them (its
    settings' snapshot folder and matrix). A case whose golden there is not what the working tree composes is one
    `stale_golden` error, so a review never passes what the push to main then fails."""

    settings: Settings  # the pull request's settings: where its goldens are and which cases they are for
    cases: tuple[Case, ...]
    error: str = ""  # why `check` on the head cannot run at all (its settings describe no matrix there)

    @classmethod
    def of(cls, settings: Settings) -> HeadGoldens:
        try:
            with open_matrix(settings, strict=True) as (_, cases):
                return cls(settings, tuple(cases))
        except SettingsError as error:  # the review still runs under the base's rules; the merge would not check
            return cls(settings, (), str(error))

    @property
    def folder(self) -> GoldenFolder:
        return GoldenFolder(self.settings.snapshot_dir)

    def stale(self, case: Case, config: Any, tree: Any, rendered: str) -> list[Finding]:
        """The `stale_golden` error of a case composed by the review, when the head's matrix has the same case (its
        config name and overrides) and `check` there would find its golden missing or different."""
        if case not in self.cases:
            return []  # a case the head describes otherwise is composed as the head does in `unmatched`
        golden = display_path(golden_path(self.settings.snapshot_dir, case))
        entry = self.folder.entry(case)
        status, _ = compare_with_base(config, tree, rendered, entry, golden)
        return [] if status == Status.OK else [stale_golden(case, golden, entry is None)]

    def unmatched(self, composed: Iterable[Case]) -> list[Case]:
        """The head's cases the review did not compose as the head does (a preset or route the pull request changed)."""
        seen = set(composed)
        return [case for case in self.cases if case not in seen]


def stale_record(view: Any, snapshot_dir: Path) -> list[Finding]:
    """The `stale_golden` error of the pull request's record of the code's config writes, when `check` on its head
    would find a write the record lacks or holds otherwise (nothing when it has no record, as `check` says nothing)."""
    if not record_findings(view, snapshot_dir):
        return []
    record = display_path(record_path(snapshot_dir))
    message = "the pull request's record of the code's config writes is stale: `check` on the merged head fails on it"
    return [Finding(Kind.STALE_GOLDEN, "", severity=ERROR, message=message, source=Source(record), origin=Origin.INTRODUCED)]


def stale_golden(case: Case, golden: str, missing: bool) -> Finding:
    """One case's golden in the pull request that `check` on its head would fail."""
    what = "the pull request has no golden for this case" if missing else "the pull request's golden is stale"
    return Finding(
        Kind.STALE_GOLDEN,
        "",
        severity=ERROR,
        message=f"{what}: `check` on the merged head fails on it",
        source=Source(golden) if not missing else None,
        origin=Origin.INTRODUCED,  # the base's goldens are not the pull request's: this one is always its own
    )


@dataclass(frozen=True)
class Run:
    """What one run checks: its mode, the settings, the baseline and the rules, and which findings name their
    source. Built by the constructor of its mode (`Run.check`, `Run.generate`, `Run.review_of`, `Run.tree_diff`),
    which both shells call; the fields a mode does not use keep their defaults."""

    mode: RunMode
    settings: Settings
    baseline: Baseline
    rule_set: RuleSet = RuleSet()
    sourced: frozenset[str] = frozenset({ERROR})
    keep_rendered: bool = False  # keep each case's golden text for a shell that writes goldens
    review: ReviewRules | None = None  # a review: the base's rules, and how the pull request's settings differ
    base_rules: tuple[CaseChecker, ...] = ()  # a review: the base's contracts, to tell errors it already had
    # A review: the digest of all the base's rules read (`base_rules_key`); None: the base's errors are not kept.
    base_rules_digest: bytes | None = None
    program_views: tuple[Any, Any] | None = None  # a review with python_sources: the base's and this tree's (harness.runner.targets)
    comparison: Comparison | None = None  # a tree diff: its mode, stated in every format
    head: HeadGoldens | None = None  # a review: the pull request's own goldens, checked as `check` on its head would
    accounting: Any = None  # a review: every changed file classified (harness.runner.unverified.DiffAccounting)

    def __post_init__(self) -> None:
        if (self.review is not None) != (self.mode == RunMode.REVIEW) or (self.comparison is not None) != (self.mode == RunMode.TREE_DIFF):
            raise ValueError(f"a {self.mode} run: review rules go with a review, a comparison with a tree diff")

    @classmethod
    def check(
        cls,
        settings: Settings,
        rule_set: RuleSet,
        sourced: frozenset[str] = frozenset({ERROR}),
        keep_rendered: bool = False,
        baseline: Baseline | None = None,
    ) -> Run:
        """`check` (and the pytest plugin, which keeps each golden's text for `--snapshot-update`): every case
        against its golden in the settings' snapshot folder (or `baseline`); any difference is an error."""
        return cls(RunMode.CHECK, settings, baseline or GoldenFolder(settings.snapshot_dir), rule_set, sourced, keep_rendered)

    @classmethod
    def generate(cls, settings: Settings, rule_set: RuleSet, write: bool = True, sourced: frozenset[str] = frozenset({ERROR})) -> Run:
        """`generate`: the check whose goldens are written afterwards (`write`: keep their text for that)."""
        return cls(RunMode.GENERATE, settings, GoldenFolder(settings.snapshot_dir), rule_set, sourced, keep_rendered=write)

    @classmethod
    def review_of(
        cls,
        review: ReviewRules,
        baseline: Baseline,
        rule_set: RuleSet,
        base_rules: tuple[CaseChecker, ...] = (),
        program_views: tuple[Any, Any] | None = None,
        base_rules_digest: bytes | None = None,
        head: HeadGoldens | None = None,
    ) -> Run:
        """`diff --base REF`: the working tree against REF under REF's settings (`review.settings`); differences
        are news, so every finding names its source. (`review` is the field this constructor fills.)"""
        return cls(
            RunMode.REVIEW,
            review.settings,
            baseline,
            rule_set,
            EVERY_SEVERITY,
            review=review,
            base_rules=base_rules,
            base_rules_digest=base_rules_digest,
            program_views=program_views,
            head=head,
        )

    @classmethod
    def tree_diff(cls, settings: Settings, baseline: Baseline, rule_set: RuleSet, comparison: Comparison) -> Run:
        """`diff OLD_TREE NEW_TREE`: the new tree's cases (`settings`) against the old tree's (`baseline`)."""
        return cls(RunMode.TREE_DIFF, settings, baseline, rule_set, EVERY_SEVERITY, comparison=comparison)

    @property
    def strict(self) -> bool:
        """The tree under test must have every engine and `same_as` case (a baseline's tree may lack some)."""
        return self.mode in (RunMode.CHECK, RunMode.GENERATE)

    @property
    def launches(self) -> bool:
        """The settings' launch commands are checked too: by `generate` as well, which says OK only where `check`
        will (launches have no golden to write, and one that does not compose blocks both)."""
        return True

    @property
    def rules(self) -> tuple[CaseChecker, ...]:
        return self.rule_set.rules

    @property
    def refiners(self) -> tuple[Refiner, ...]:
        return self.rule_set.refiners

    @property
    def contracts(self) -> ContractSet | None:
        return self.rule_set.contracts

    @property
    def strict_waivers(self) -> bool:
        return self.rule_set.strict_waivers


def hoisted_warnings(cases: Sequence[CaseResult]) -> tuple[list[CaseResult], list[Finding]]:
    """Each Hydra warning once for the run, in the order first met (cases of one stem, launches of one config, a
    worker and the parent all raise the same one): the cases without them, and the warnings for the run's findings."""
    seen: dict[tuple[str, str], Finding] = {}
    out = []
    for case in cases:
        own = [f for f in case.findings if f.kind == Kind.HYDRA_WARNING]
        if own:
            for finding in own:
                seen.setdefault((finding.message, str(finding.source)), finding)
            case = replace(case, findings=tuple(f for f in case.findings if f.kind != Kind.HYDRA_WARNING))
        out.append(case)
    return out, list(seen.values())


def baseline_entry(baseline: Baseline, case: Case, routes_by_target: dict[str, Case]) -> BaselineEntry | None:
    """The baseline's entry for a case, or for the route that `became` it when the baseline lacks the case."""
    entry = baseline.entry(case)
    route = routes_by_target.get(case.id)
    if entry is None and route is not None:
        entry = baseline.entry(route)
        if entry is not None:
            entry = replace(entry, case_id=route.id, display=f"{entry.display} (became {case.id})")
    return entry


def check_case(
    run: Run,
    session: HydraSession,
    composed: Composed,
    twin: Any,
    routes_by_target: dict[str, Case],
    memo: SourcesMemo | None = None,
) -> CaseResult:
    """Everything the harness says about one composed case against the run's baseline.

    `twin` is the plain tree of the case's `same_as` twin, None when it failed, or Kind.ERROR when the matrix
    has no such case (a baseline tree may lack it).
    """
    return excused(run, judged_case(run, session, composed, twin, routes_by_target, memo))


def excused(run: Run, result: CaseResult) -> CaseResult:
    """A case's result with the known entries applied: they name a cause by the file that set its key, so they are
    judged once the findings carry their sources (and on a kept result, with today's entries and date)."""
    return known_entries.excuse_results([result], known_entries.known_entries(run.contracts), utc_today())[0]


def judged_case(
    run: Run,
    session: HydraSession,
    composed: Composed,
    twin: Any,
    routes_by_target: dict[str, Case],
    memo: SourcesMemo | None = None,
) -> CaseResult:
    """`check_case` before the known entries: what a kept result holds.

    Over 60 lines: the findings pass through stages whose order they depend on (refiners, rules, invariants, the
    review's classification, the program's reads, origins; the status last), which share the composed tree, the
    baseline entry and the base's tree parsed once (`at_base`) for the three review readers."""
    case = composed.case
    golden = display_path(golden_path(run.settings.snapshot_dir, case))
    warned = warning_findings(composed.warnings)
    if composed.config is None:
        from harness.runner.launches import absent_config

        absent = absent_config(run.settings, case.config_name) if "Cannot find primary config" in (composed.error or "") else ""
        failure = Finding(Kind.ERROR, "", severity=ERROR, message=(composed.error or "compose failed") + (f" ({absent})" if absent else ""))
        return CaseResult(case, golden, Status.ERROR, (failure, *warned))
    tree = to_plain(composed.config)
    rendered = render_golden(case, composed.config, tree, recorded_provenance(run, session, case))
    entry = baseline_entry(run.baseline, case, routes_by_target)
    expects_golden = run.baseline.missing_is_error
    status, findings = compare_with_base(composed.config, tree, rendered, entry, golden if expects_golden else None)
    for refine in run.refiners:
        findings = refine(findings, tree)
    checked_case = case
    if case.same_as is not None and twin is Kind.ERROR:
        findings.append(
            Finding(Kind.PARITY, "", severity=WARNING, message=f"{case.id}: same_as {case.same_as!r} names no case in this tree")
        )
        checked_case = replace(case, same_as=None)
    findings += semantic_findings(checked_case, composed.config, tree, None if twin is Kind.ERROR else twin, run.rules)
    findings = invariant_findings(findings, composed, tree, entry, session)
    findings = as_review(findings, run.baseline.differences) + warned
    # What the program reads (harness/runner/config_writes.py): a key its code reads that the baseline had is gone.
    view = run.program_views[1] if run.program_views is not None else run.rule_set.view
    if view is not None and entry is not None and entry.error is None:
        # A case that matches its baseline has the baseline's values: its own tree answers without parsing the golden
        # (a verl check parsed 12 of 13 goldens here, 13% of the run).
        findings += read_findings(view, case, tree, lambda: tree if status == Status.OK else base_tree(entry))
    if run.review is not None:
        # The base's golden parsed once for all three: a review's case spent a third of its time parsing it twice.
        at_base = (tree if status == Status.OK else base_tree(entry)) if entry is not None and entry.error is None else None
        if composed.hydra is not None and entry is not None and entry.hydra is not None:
            records = run.contracts.changes if run.contracts is not None else ()
            findings += hydra_findings(entry.hydra, composed.hydra, records, at_base, tree)
        if run.program_views is not None and at_base is not None:
            findings += default_changes(*run.program_views, at_base, tree, run.baseline.differences)
        findings = with_origins(findings, base_errors(run, case, entry, at_base))
        if run.head is not None:  # the pull request's own golden, as the push to main will check it
            findings += run.head.stale(case, composed.config, tree, rendered)
    if status == Status.OK and any(f.severity == ERROR for f in findings):
        status = Status.ERROR  # a contract error is not "ok", whatever the golden says
    result = CaseResult(
        case,
        golden if expects_golden else (entry.display if entry else golden),
        status,
        tuple(findings),
        rendered=rendered if run.keep_rendered else None,
        baseline_id=(entry.case_id or case.id) if entry else "",
        root_file=display_path(run.settings.config_dir / f"{case.config_name}.yaml"),
        digest=hashlib.sha256(golden_body(rendered).encode()).hexdigest() if run.review is not None else "",
    )
    return annotate(session, result, run.sourced, memo, entry.text if entry is not None else None)


def recorded_provenance(run: Run, session: HydraSession, case: Case) -> str:
    """The header lines a golden written now records (where its values came from); only for a run that writes goldens."""
    if not run.keep_rendered:
        return ""
    try:
        return provenance_lines(session, case, project_root(run.settings.origin.parent))
    except Exception as error:  # provenance is a courtesy: a case that composed but cannot be replayed is written without it
        courtesy_failed(error)
        return ""


def written_hydra_of(session: HydraSession, case: Case) -> Any:
    """What the case's config files write under `hydra:`, or None (also when the case cannot be replayed)."""
    try:
        return written_hydra(session, case)
    except Exception as error:  # a courtesy like provenance: the job config is still checked
        courtesy_failed(error)
        return None


def traced(findings: list[Finding], recorded: Recorded, session: HydraSession) -> list[Finding]:
    """The differences from a golden told where the golden's values came from, from the provenance its header records
    (no git, no old tree): a removed key names the file and line that held it; a key whose line vanished while a
    Python default keeps its value is that removal, a warning (the program sees no change); and an option the case
    selected when the golden was written that no longer exists is `option_gone`, naming its file."""
    if not recorded.selected and not recorded.keys:
        return findings
    out = []
    for finding in findings:
        via = finding.detail_as(ViaDefault)
        if finding.kind == Kind.CHANGED and via is not None and same_value(finding.old, finding.new):
            held = recorded.source_of(finding.path)
            if held is not None:
                finding = replace(
                    finding,
                    kind=Kind.REMOVED,
                    severity=WARNING if finding.severity == ERROR else finding.severity,
                    message=f"{finding.path}: removed from {held} (was {describe_value(finding.old)}); the program still gets "
                    f"{describe_value(finding.new)} from the Python default of {via.facts.owner} ({via.facts.source})",
                    source=held,
                )
        elif finding.kind == Kind.REMOVED and finding.source is None:
            finding = replace(finding, source=recorded.source_of(finding.path))
        out.append(finding)
    removed = [f for f in out if f.kind == Kind.REMOVED]
    if removed and recorded.selected:
        out += options_gone(recorded, removed, session)
    return out


def options_gone(recorded: Recorded, removed: list[Finding], session: HydraSession) -> list[Finding]:
    """An `option_gone` error for each option the golden's case selected that its group no longer has."""
    findings = []
    listed: dict[str, list[str]] = {}
    lost_of: dict[str, list[str]] = {}  # file -> the removed paths it set: one pass, not one per selected option
    for finding in removed:
        if finding.source is not None and isinstance(getattr(finding.source, "file", None), str):
            lost_of.setdefault(finding.source.file, []).append(finding.path)
    for selected in dict.fromkeys(recorded.selected):  # a line repeated says one thing once
        if selected.group not in listed:
            try:
                listed[selected.group] = session.group_options(selected.group, registered=True)
            except Exception as error:  # a group Hydra cannot list any more: none of its options exist
                courtesy_failed(error)
                listed[selected.group] = []
        if selected.option in listed[selected.group]:
            continue
        lost = lost_of.get(selected.file, [])
        findings.append(
            Finding(
                Kind.OPTION_GONE,
                selected.group,
                selected.option,
                None,
                ERROR,
                f"{selected.group}: the option {selected.option} this case selected ({selected.file}) no longer exists"
                + (f"; {len(lost)} key(s) it set are gone ({lost[0]}{', ...' if len(lost) > 1 else ''})" if lost else ""),
                source=Source(selected.file),
            )
        )
    return findings


def invariant_findings(
    findings: list[Finding], composed: Composed, tree: Any, entry: BaselineEntry | None, session: HydraSession
) -> list[Finding]:
    """The findings with the invariants of a runnable config added, computed on the fresh composition whatever the
    golden holds: an interpolation the program cannot resolve is one `unresolved` finding (an `effective` finding
    that says the same of its path goes), and the golden's recorded provenance traces what is gone."""
    if entry is not None and entry.text is not None and any(f.kind in (Kind.REMOVED, Kind.CHANGED) for f in findings):
        findings = traced(findings, recorded_in(entry.text), session)  # the header is read only when something went
    if composed.hydra is not None:
        unresolved = invariants.unresolved_findings(composed.config, tree, composed.hydra)
    else:
        # Without the composed `hydra:` subtree (check keeps its compositions relocatable in the cache), what the
        # config files write under `hydra:` (hydra.run.dir) is checked against the job config.
        unresolved = invariants.unresolved_findings(composed.config, tree, written_hydra_of(session, composed.case), whole_hydra=False)
    broken = {f.path for f in unresolved if f.severity == ERROR}
    if broken and entry is not None and entry.error is None:
        old_tree = base_tree(entry)  # `old`: what the baseline wrote there (a golden holds no `hydra:` subtree)
        olds = {path: lookup(old_tree, path) for path in broken if split_path(path)[0] != "hydra"}
        unresolved = [replace(f, old=olds[f.path]) if olds.get(f.path, MISSING) is not MISSING else f for f in unresolved]
    kept = [f for f in findings if not (f.kind == Kind.EFFECTIVE and f.path in broken)]
    return kept + unresolved


def check_document(pair: DocumentPair) -> CaseResult:
    """Two versions of one YAML document compared as `check` compares a case with its golden, never composed: the
    old one is the baseline and a difference is an error. The same diff, moves, effective values, fallbacks and
    hidden-text rule; annotations point at the document's own lines. A side only one folder has is empty."""
    old, new = pair.old, pair.new
    shown = new or old
    assert shown is not None, pair.name
    old_tree, new_tree = old.tree if old else {}, new.tree if new else {}
    case = Case(pair.name, "", ())
    config = new.config if new else OmegaConf.create({})
    status, findings = compare_with_base(config, new_tree, "", BaselineEntry(old.display if old else "(none)", tree=old_tree))
    findings += semantic_findings(case, config, new_tree, None, ())
    if old is None or new is None:
        status = Status.NEW if old is None else Status.GONE
    elif status == Status.OK and any(f.severity == ERROR for f in findings):
        status = Status.ERROR
    return CaseResult(
        case,
        shown.display,
        status,
        tuple(findings),
        golden_lines=path_lines(shown.text, {f.path for f in findings}),
        root_file=shown.display,
        changes=tuple(diff_trees(old_tree, new_tree)),
    )


def compare_documents(pairs: Iterable[DocumentPair], comparison: Comparison) -> MatrixResult:
    """The result of comparing YAML documents pair by pair: the old side is the baseline."""
    return MatrixResult(cases=tuple(check_document(pair) for pair in pairs), baseline=comparison.old, comparison=comparison)


def base_rules_key(settings: Settings, contract_texts: Any, view: Any) -> bytes | None:
    """What the base's rules read besides a case: the settings they run under (the resolver policy; how many workers
    and which cache are not), the contract files, the Python sources (`view`, None without) and the day (a waiver
    expires). None when the sources are too many to digest: the base's errors are then not kept."""
    from harness.runner.launch_review import views_digest

    sources = views_digest((view,)) if view is not None else b""
    if sources is None:
        return None
    return tree_digest(b"base rules", replace(settings, jobs=None, cache_dir=None), contract_texts, sources, utc_today().isoformat())


def base_errors(run: Run, case: Case, entry: BaselineEntry | None, tree: Any = None) -> list[Finding] | None:
    """The errors the base's own rules found on the base's version of the case (None: the base has no such case).
    `tree`: the entry's `base_tree`, when the caller has it. Kept in the session's cache by the base's rules and
    the case's golden there: a warm review judged each base case anew, a tenth of its time."""
    if entry is None:
        return None
    if entry.error is not None:
        return [Finding(Kind.ERROR, "", severity=ERROR, message=entry.error)]
    golden = entry.text if entry.text is not None else entry.tree
    key = None if run.base_rules_digest is None else tree_digest(b"base errors", run.base_rules_digest, case, golden, entry.hydra)
    if key is not None and isinstance(kept := cache_get(key), tuple) and all(isinstance(f, Finding) for f in kept):
        return list(kept)
    tree = base_tree(entry) if tree is None else tree
    try:
        config = OmegaConf.create(tree)
    except (OmegaConfBaseException, RecursionError):  # a golden at the base that OmegaConf cannot hold: nothing to compare with
        return []
    findings = semantic_findings(replace(case, same_as=None), config, tree, None, run.base_rules)
    findings += invariants.unresolved_findings(config, tree, entry.hydra)
    errors = [f for f in findings if f.severity == ERROR]
    if key is not None:
        cache_put(key, tuple(errors))
    return errors


def base_tree(entry: BaselineEntry) -> Any:
    """The plain tree the baseline holds for a case: its composed tree, or its golden parsed."""
    return entry.tree if entry.text is None else parse_yaml(golden_body(entry.text))


def with_origins(findings: list[Finding], at_base: list[Finding] | None) -> list[Finding]:
    """Each error marked introduced or at_base (the same kind, path and contract held at the base), plus one
    `fixed` finding for each base error that no longer holds."""

    def key(finding: Finding) -> tuple[str, str, str]:
        return (str(finding.kind), finding.path, finding.contract)

    before = {key(f): f for f in at_base or ()}
    # A known finding still holds (its entry excuses it): the base's error is not fixed.
    now = {key(f) for f in findings if f.severity == ERROR or f.status == Excused.KNOWN}
    marked = [replace(f, origin=Origin.AT_BASE if key(f) in before else Origin.INTRODUCED) if f.severity == ERROR else f for f in findings]
    fixed = [replace(f, severity=INFO, origin=Origin.FIXED) for k, f in before.items() if k not in now]
    return marked + fixed


def annotate(
    session: HydraSession, result: CaseResult, severities: Iterable[str], memo: SourcesMemo | None, golden_text: str | None
) -> CaseResult:
    """The result with each finding of the given severities told which file (or override) sets its value,
    and where its path sits in the golden, for annotations. Both cost a little, so only on request.
    """
    severities = frozenset(severities)
    wanted = [f.severity in severities and bool(f.path) for f in result.findings]
    if not any(wanted):
        return result
    paths = {f.path for f, want in zip(result.findings, wanted) if want}
    golden_lines = path_lines(golden_text, paths) if golden_text is not None else {}
    findings = result.findings
    if any(want and f.kind in SOURCED_KINDS for f, want in zip(findings, wanted)):
        try:
            sources = leaf_sources(session, result.case, memo)
        except Exception as error:  # provenance is a courtesy; a case that composed but cannot be replayed keeps its findings
            courtesy_failed(error)
            sources = {}
        findings = tuple(
            # A source a rule already knows (a Python default's class line) stays where no config file sets the path.
            replace(f, source=sources.get(f.path, f.source)) if want and f.kind in SOURCED_KINDS and not _written_by_code(f) else f
            for f, want in zip(findings, wanted)
        )
    return replace(result, findings=findings, golden_lines=golden_lines)


def _written_by_code(finding: Finding) -> bool:
    """A contract finding about a value the program's code writes: its source is the writing line, kept."""
    ref = finding.detail_as(ContractRef)
    return ref is not None and bool(ref.written_by)


def path_lines(text: str, paths: Iterable[str]) -> dict[str, int]:
    """The line in YAML text of each path (or of its nearest ancestor there), for annotations."""
    lines = key_lines(text)
    return {path: line for path in paths if path and (line := line_of(lines, path)) is not None}


def followed(results: list[CaseResult]) -> list[CaseResult]:
    """A review's new cases followed across the change: a case the base lacks that composes exactly what another case
    composes, one the base has (PR #5848's new `ppo_trainer/megatron/default` is what `route/ppo_megatron_trainer`
    was), keeps that case's errors at the base (or known there) as `at_base`, not as introduced."""
    by_digest: dict[str, CaseResult] = {}
    # The same error (kind, path, contract, words) that the base already had in some case, or knew it had: a new
    # case that shows it (PR #5848's new diffusion_trainer/megatron/default builds the same Megatron classes from
    # the same keys as the megatron route did) did not get it from this change.
    elsewhere = {
        (f.kind, f.path, f.contract, f.message)
        for r in results
        for f in r.findings
        if r.baseline_id and (f.origin == Origin.AT_BASE or f.status == Excused.KNOWN)
    }
    for result in results:
        if result.digest and result.baseline_id:
            by_digest.setdefault(result.digest, result)
    out = []
    for result in results:
        twin = by_digest.get(result.digest) if result.digest and not result.baseline_id else None
        if twin is None:
            if not result.baseline_id and not result.case.id.startswith(LAUNCH_PREFIX):
                result = replace(
                    result,
                    findings=tuple(
                        replace(f, origin=Origin.AT_BASE)
                        if f.origin == Origin.INTRODUCED and (f.kind, f.path, f.contract, f.message) in elsewhere
                        else f
                        for f in result.findings
                    ),
                )
            out.append(result)
            continue
        # What the twin already had: errors at the base, and findings the base's repository knew it had.
        held = {(f.kind, f.path, f.contract) for f in twin.findings if f.origin == Origin.AT_BASE or f.status == Excused.KNOWN}
        findings = tuple(
            replace(f, origin=Origin.AT_BASE) if f.origin == Origin.INTRODUCED and (f.kind, f.path, f.contract) in held else f
            for f in result.findings
        )
        out.append(replace(result, findings=findings, baseline_id=twin.baseline_id, golden=f"{twin.golden} (became {result.case.id})"))
    return out


def approvals(cases: Iterable[CaseResult], findings: Iterable[Finding], settings: Settings) -> Approvals | None:
    """How many loosenings of this review carry a recorded reason, and the files whose owners must approve them: the
    author of a pull request can write a reason as easily as the change, so the files that hold reasons need owners."""
    everything = [f for r in cases for f in r.findings] + list(findings)
    recorded = sum(f.kind in RECORDED_KINDS and f.severity == WARNING for f in everything)
    if not recorded:
        return None
    return Approvals(recorded, tuple(display_path(path) for path in (settings.origin, *settings.contracts)))


def _routes_by_target(cases: Iterable[Case]) -> dict[str, Case]:
    return {case.became: case for case in cases if case.became}


def _gone_result(name: str, review: ReviewRules | None, records: Sequence[ChangeRecord]) -> CaseResult:
    """A case only the baseline has (named by a golden or a case id). In a review it is an error unless a recorded
    settings change accounts for it: the base's rules still describe it, so the tree lost it."""
    case_id = name
    leaf = name.rsplit("/", 1)[-1]
    if is_golden_name(leaf):
        case_id = leaf[len(GOLDEN_PREFIX) : -len(GOLDEN_SUFFIX)].replace("__", "/")
    findings: tuple[Finding, ...] = ()
    if review is not None and not review.explains(case_id, records):
        findings = (
            Finding(
                Kind.ERROR,
                "",
                severity=ERROR,
                origin=Origin.INTRODUCED,
                message=f"{case_id}: the base has this case and this tree no longer composes it; "
                "if that is intended, record the settings change that removes it",
            ),
        )
    return CaseResult(Case(case_id, "", ()), name, Status.GONE, findings)


@dataclass
class KeptResults:
    """Each case's result in the signed cache, so that a warm `check` with nothing changed composes, renders and
    judges nothing (issue 52). A result is a function of its inputs, and it is kept by them: the key holds the case,
    its golden's bytes, the rules (settings, contract files, the Python sources' digest, the day: a waiver expires),
    the mode and the working folder (reports show paths relative to it); each entry holds what its composition asked
    Hydra's config sources with the answers (`Composed.reads`) and the bytes' digest of every file a finding names
    (a comment shifts a line the finding cites, though the parsed content is unchanged). Taken only while every
    answer and every digest holds.

    Kept: results of a run against the goldens (`check`), whatever their status, composed through recorded reads; a
    case with a `same_as` twin holds its twin's reads too (parity reads the twin's tree). Not kept: a run that keeps
    golden text (pytest, generate) or imports `schemas`. A case that differs from its golden is kept too: a review
    after the `check` of the same edit, or a second `check`, judges it no more than the others (when only `ok`
    results were kept, the case of a one-file edit and its parity twins were judged on every run: 7 of verl's 9).

    A review's results are kept the same way (its base does not move while a pull request is worked on): the key
    holds besides the base's entry whole (its tree, `hydra:` subtree, order and error), the base's rules, both sides'
    Python sources and the pull request's own golden of the case (`HeadGoldens`). The entry is the one the case is
    judged against: the route that became it, or none for a case the base lacks (such cases were judged on every
    run: 2 of PR #5848's, a third of its warm review with the Python sources they parse)."""

    session: HydraSession | None
    rules: bytes | None
    run: Run
    routes: dict[str, Case] = field(default_factory=dict)  # `baseline_entry`'s: the route that became a case
    _read_scope: tuple[Path, ...] | None = field(default=None, init=False, repr=False)

    def _scope(self) -> tuple[Path, ...]:
        if self._read_scope is None:  # found once (it looks for the project's git folder), only when a file is cited
            self._read_scope = self.run.settings.read_scope
        return self._read_scope

    @staticmethod
    def kept_for(runner: Runner) -> bool:
        """Whether the run's results are kept at all (the cache on, a `check` against the goldens)."""
        run = runner.run_spec
        return (
            ((run.mode == RunMode.CHECK and isinstance(run.baseline, GoldenFolder)) or run.mode == RunMode.REVIEW)
            and not run.keep_rendered
            and run.settings.cache_dir is not None
            and not run.settings.schemas
            and not runner.plain
        )

    @classmethod
    def of(cls, runner: Runner, session: HydraSession) -> KeptResults:
        eligible = cls.kept_for(runner) and session.state.store is not None
        return cls(session if eligible else None, runner.rules_key() if eligible else None, runner.run_spec, runner._routes)

    def _key(self, case: Case, entry: BaselineEntry | None) -> bytes | None:
        if self.session is None or self.rules is None:
            return None
        if self.run.mode != RunMode.REVIEW:
            return tree_digest(b"case result", self.rules, case, None if entry is None else (entry.display, entry.text))
        head = self.run.head
        golden = None if head is None or case not in head.cases else head.folder.entry(case)
        at_base = None if entry is None else (entry.display, entry.text, entry.tree, entry.hydra, entry.order, entry.error, entry.case_id)
        return tree_digest(b"review result", self.rules, case, at_base, None if golden is None else golden.text)

    def taken(self, shard: Sequence[Case]) -> dict[str, CaseResult]:
        """The kept results of a shard's cases (a twin that a case judged again needs is composed for its tree)."""
        return {case.id: result for case in shard if (result := self.get(case)) is not None}

    def get(self, case: Case) -> CaseResult | None:
        """The kept result of a case whose every read and cited file is unchanged, else None."""
        key = self._key(case, baseline_entry(self.run.baseline, case, self.routes)) if self.session is not None else None
        if key is None:
            return None
        assert self.session is not None
        for entry in cache_variants(key):
            if not (isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[2], CaseResult)):
                continue
            reads, files, result = entry[0], entry[1], entry[2]
            if self.session.holds(*reads) and all(file_digest(f, self._scope()) == d for f, d in files):
                return result
        return None

    def put(self, composed: Composed, result: CaseResult, twin_reads: Any = ()) -> None:
        """Keep a result composed through recorded reads (and its twin's: None when they were not recorded)."""
        if self.session is None or composed.reads is None or twin_reads is None:
            return
        if composed.case.same_as is not None and not twin_reads:
            return  # its twin was not composed here (another worker's, or absent): what parity read is unknown
        key = self._key(composed.case, baseline_entry(self.run.baseline, composed.case, self.routes))
        cited = sorted({f.source.file for f in result.findings if isinstance(f.source, Source) and f.source.file})
        files = tuple((name, file_digest(name, self._scope())) for name in cited)
        if key is None or any(digest is None for _, digest in files):
            return
        reads = composed.reads + tuple(twin_reads)
        cache_add_variant(key, (reads, files, result), lambda entry: isinstance(entry, tuple) and entry[:2] == (reads, files))


def file_digest(name: str, scope: tuple[Path, ...]) -> bytes | None:
    """The digest of a file's bytes (a path as findings show it, relative to the working folder) read within the
    settings' scope; None when it cannot be read there."""
    try:
        return hashlib.blake2b(read_bytes(name, scope), digest_size=20).digest()
    except (OSError, InputLimitError, UnsafeInput):
        return None


class Runner:
    """The one engine: a run's cases composed and checked against its baseline.

    The CLI calls `run()` for every selected case at once (in forked workers); the pytest plugin calls
    `result(case_id)` as each test needs it and `finish()` once. Both end in `finish()`, so both report the
    same per-case and run-level findings (stale waivers, contract changes, gone cases, orphan goldens).
    `plain` turns every optimization off (one full Hydra compose per case, no workers, no parse cache): the
    reference the optimized path is tested against.
    """

    def __init__(self, run: Run, case_glob: str | Sequence[str] | None = None, plain: bool = False, shard: Shard | None = None) -> None:
        if plain:
            run = replace(run, settings=replace(run.settings, cache_dir=None, jobs=1))
        self.run_spec, self.plain = run, plain
        with open_matrix(run.settings, strict=run.strict) as (_, cases):
            self.cases = cases
        self.goldens = Goldens(run.settings.snapshot_dir, tuple(cases))  # what both shells write and prune
        # `--case cmd/...` selects launch commands (issue 24), which finish() checks after the matrix; other globs
        # select cases of the matrix. Several globs select their union, and each must match something.
        globs = case_globs(case_glob) or ()
        matrix_globs = tuple(glob for glob in globs if not glob.startswith(LAUNCH_PREFIX))
        self.launch_glob = tuple(glob for glob in globs if glob.startswith(LAUNCH_PREFIX)) or None
        self.only_launches = self.launch_glob is not None and not matrix_globs
        if self.launch_glob is not None and not run.settings.command_globs:
            raise SettingsError(f"--case {self.launch_glob[0]!r}: the settings have no [[commands]]")
        unmatched = unmatched_glob(cases, matrix_globs)
        if unmatched is not None:
            raise SettingsError(
                f"--case {unmatched!r} matches no case{case_hint(unmatched, [c.id for c in cases])}; see `config-harness list`"
            )
        self.selected = [] if self.only_launches else select_cases(cases, matrix_globs or None)
        if not self.selected and not self.only_launches:
            raise SettingsError(f"{run.settings.origin}: the settings describe no case in {run.settings.config_dir}")
        # `--shard K/N`: this shard's share of what `--case` selected, and of the launches (harness.composition.shards);
        # a shard judges nothing that needs the whole run (stale waivers and known entries), `merge` does.
        self.shard = shard
        if shard is not None:
            self.selected = shard.cases(self.selected)
        self.launch_parts: tuple[list[CaseResult], LaunchTally, list[Finding]] | None = None  # `merge` gives them
        self.by_id = {case.id: case for case in cases}
        self._routes = _routes_by_target(cases)
        self._stems: Stems = {}
        self._composed: dict[str, Composed] = {}
        self._results: dict[str, CaseResult] = {}
        self._prepared = False

    @property
    def settings(self) -> Settings:
        return self.run_spec.settings

    def rules_key(self) -> bytes | None:
        """What judges a case besides its composition and its golden (`KeptResults`): the settings (how many workers
        and which cache aside), every contract file's bytes, the Python sources' digest, the day, the mode and which
        severities name their source, and the working folder. None when the sources are too many to digest."""
        if not hasattr(self, "_rules_key"):
            run = self.run_spec
            view = self.program
            sources = view.digest() if view is not None else b""
            texts = tuple((str(path), file_digest(str(path), run.settings.read_scope)) for path in run.settings.contracts)
            review = self._review_rules()
            self._rules_key = (
                None
                if sources is None or review is False
                else tree_digest(
                    b"rules",
                    replace(run.settings, jobs=None, cache_dir=None),
                    texts,
                    sources,
                    utc_today().isoformat(),
                    str(run.mode),
                    run.strict_waivers,
                    sorted(run.sourced),
                    str(Path.cwd()),
                    review,
                )
            )
        return self._rules_key

    def _review_rules(self) -> Any:
        """What judges a review's case besides the head's rules: the base's rules, both sides' Python sources and
        the pull request's goldens' settings and matrix (None outside a review; False when a side's sources are too
        many to digest: nothing is kept then)."""
        run = self.run_spec
        if run.mode != RunMode.REVIEW:
            return None
        from harness.runner.launch_review import views_digest

        views = views_digest(run.program_views) if run.program_views is not None else b"no views"
        base_rules = run.base_rules_digest if run.base_rules else b"no base rules"
        head = run.head
        goldens = None if head is None else (replace(head.settings, jobs=None, cache_dir=None), head.cases, head.error)
        if views is None or base_rules is None:
            return False
        return (views, base_rules, goldens)

    @property
    def program(self) -> Any:
        """The settings' program view (harness.runner.targets) for the record of config writes; None without python_sources."""
        if not hasattr(self, "_program"):
            from harness.runner.targets import program_view

            view = self.run_spec.rule_set.view  # the rules' own, when they read one: the sources are read once
            self._program = view if view is not None else program_view(self.settings) if self.settings.python_sources else None
        return self._program

    def _needed(self) -> list[Case]:
        """The selected cases plus the `same_as` twins they are compared with (parity needs the twin's tree)."""
        chosen = {case.id for case in self.selected}
        return [c for c in self.cases if c.id in chosen or any(s.same_as == c.id for s in self.selected)]

    def _prepare(self) -> None:
        if not self._prepared:
            if self.settings.cache_dir is not None and not self.plain:
                self.rules_key()  # once, before workers fork: it digests every Python source
            self.run_spec.baseline.prepare(self._needed())  # before workers fork, so a baseline tree is composed once
            self._prepared = True

    def run(
        self, on_start: Callable[[int], None] = lambda total: None, on_done: Callable[[Case], None] = lambda case: None
    ) -> MatrixResult:
        """Compose and check every selected case, spread over `settings.jobs` forked workers (whole stems per
        worker), then finish. `on_start(total)` hears how many cases there are and `on_done(case)` each one."""
        run, plain = self.run_spec, self.plain
        needed = self._needed()
        chosen = {case.id for case in self.selected}
        twin_ids = frozenset(case.same_as for case in needed if case.same_as in self.by_id)
        self._prepare()
        on_start(len(self.selected))

        def check_shard(shard: list[Case], done: Callable[[Case], None]) -> list[CaseResult]:
            results = []
            twins: dict[str, Any] = {}
            with HydraSession.for_settings(run.settings, hydra_subtree=run.review is not None) as session:
                memo: SourcesMemo = {}
                kept = KeptResults.of(self, session)
                twin_reads: dict[str, Any] = {}
                for composed in session.compose_cases(shard, shared_stems=not plain):
                    case = composed.case
                    if case.id not in tree_only:
                        twin = None if case.same_as is None else twins.get(case.same_as) if case.same_as in self.by_id else Kind.ERROR
                        judged = judged_case(run, session, composed, twin, self._routes, memo)
                        kept.put(composed, judged, twin_reads.get(case.same_as, ()) if case.same_as is not None else ())
                        results.append(excused(run, judged))
                    if case.id in twin_ids and composed.config is not None:
                        twins[case.id] = to_plain(composed.config)
                        twin_reads[case.id] = composed.reads
                    if case.id not in tree_only:
                        done(case)
            return results

        def report_done(case: Case) -> None:
            if case.id in chosen:
                on_done(case)

        # Kept results are taken here, before any worker forks: a warm run with nothing changed forks none.
        taken: dict[str, CaseResult] = {}
        if KeptResults.kept_for(self):
            with HydraSession.for_settings(run.settings) as session:
                taken = KeptResults.of(self, session).taken(needed)
        for case in needed:
            if case.id in taken:
                self._results[case.id] = excused(run, taken[case.id])
                report_done(case)
        # A kept case that a case judged now compares with (`same_as`) is composed for its tree, not judged again:
        # an edit under a preset judged every twin of the edited cases (12 of sheeprl's 21 on a one-file edit).
        tree_only = frozenset(case.same_as for case in needed if case.id not in taken and case.same_as in taken)
        todo = [case for case in needed if case.id not in taken or case.id in tree_only]
        if todo and self.run_spec.rule_set.view is not None:
            program_writes(self.run_spec.rule_set.view)  # once, before workers fork: the checks read the writes
        outcomes = map_shards(check_shard, todo, run.settings.jobs or default_jobs(), report_done) if todo else []
        self._results.update((r.case.id, r) for r in outcomes)
        return self.finish()

    def composed(self, case_id: str, session: HydraSession | None = None) -> Composed:
        """The composed case, composing it (and its stem) on first use, in `session` when one is open."""
        if case_id not in self.by_id:
            raise KeyError(f"no case {case_id!r}; known: {', '.join(self.by_id)}")
        if case_id not in self._composed:
            if session is None:
                with HydraSession.for_settings(self.settings) as own:
                    return self.composed(case_id, own)
            self._composed[case_id] = next(session.compose_cases([self.by_id[case_id]], kept_stems=self._stems))
        return self._composed[case_id]

    def result(self, case_id: str) -> CaseResult:
        """One case's result, checked on first use, with exactly the findings `run()` gives it."""
        if case_id not in self._results:
            self._prepare()
            # One session composes the case (and its twin) and says where each reported value comes from.
            with HydraSession.for_settings(self.settings, hydra_subtree=self.run_spec.review is not None) as session:
                composed = self.composed(case_id, session)
                same_as = composed.case.same_as
                twin: Any = None
                if same_as is not None and same_as not in self.by_id:
                    twin = Kind.ERROR
                elif same_as is not None:
                    twin_config = self.composed(same_as, session).config
                    twin = None if twin_config is None else to_plain(twin_config)
                self._results[case_id] = check_case(self.run_spec, session, composed, twin, self._routes)
        return self._results[case_id]

    def checked(self) -> tuple[list[CaseResult], tuple[list[CaseResult], LaunchTally, list[Finding]] | None]:
        """What a shard hands to `merge`: each selected case's result and the launches' as checked, before `finish()`
        judged the run as a whole (it moves Hydra's warnings to the run, follows cases, excuses known launches)."""
        return [self.result(case.id) for case in self.selected], self.launch_parts

    def adopt(self, results: Iterable[CaseResult], launch_parts: tuple[list[CaseResult], LaunchTally, list[Finding]] | None) -> None:
        """`merge`: the shards' results stand for composing the cases and launches again; `finish()` then judges the
        run once, as an unsharded run does."""
        self._results.update((result.case.id, result) for result in results)
        self.launch_parts = launch_parts

    def finish(self) -> MatrixResult:
        """The run's result: every selected case (checked now if not yet), and the findings about the run as a
        whole, which need every case: contract changes and hygiene, stale waivers, orphan goldens, gone cases.

        Over 60 lines: each step needs what the steps before it added (known entries after the launches, hoisted
        warnings after the known entries, unmatched records and approvals over every finding, origins last), and
        the findings' order is the report's (a review's settings changes first)."""
        run = self.run_spec
        cases = [self.result(case.id) for case in self.selected]
        findings: list[Finding] = []
        if run.contracts is not None:
            findings = run_findings(
                run.contracts,
                run.baseline.contract_texts(),
                [case.id for case in self.cases],
                cases,
                run.strict_waivers,
                whole_matrix=len(self.selected) == len(self.cases),
                review=run.review is not None,
            )
        records = run.contracts.changes if run.contracts is not None else ()
        rules, approved = None, None
        if run.review is not None:
            cases = followed(cases)
            rules = run.review.used()
            findings = run.review.findings(records) + findings  # settings changes first, in every format
        if run.review is not None and run.program_views is not None:  # code that writes the config after composing
            findings += entry_write_changes(*run.program_views)
        elif run.review is None and run.baseline.unclaimed_are_orphans and self.program is not None:  # check: the record
            findings += self._config_write_findings()
        # A code write's change from the YAML's value (`1 -> 4`), read from the goldens `check` on this tree reads.
        goldens = (run.head.cases, run.head.settings.snapshot_dir) if run.head is not None else (self.cases, self.settings.snapshot_dir)
        findings = with_replaced(findings, goldens[0], golden_tree(goldens[1]))
        launches_checked = bool(run.settings.command_globs and (run.launches or self.launch_glob is not None))
        tally = None
        if launches_checked:
            launch_cases, tally, entries = self._launches(cases)
            findings += entries
            cases += launch_cases
        findings += self._known_findings(cases, launches_checked)
        cases, warnings = hoisted_warnings(cases)  # after known entries are judged on the cases that carry them
        findings += warnings
        gone = run.baseline.gone(self.cases) if not self.only_launches else []
        orphans: list[str] = []
        if run.head is not None and not self.only_launches:
            # The pull request's goldens as `check` on its head reads them: those it describes otherwise, and orphans.
            if len(self.selected) == len(self.cases) and self.shard is None:
                findings += self._head_findings(run.head)
                if run.program_views is not None:  # the record of the code's writes, which `check` reads too
                    findings += stale_record(run.program_views[1], run.head.settings.snapshot_dir)
            orphans = run.head.folder.gone(run.head.cases) if not run.head.error else []
        if run.baseline.unclaimed_are_orphans:
            orphans = gone  # interface: check reports goldens without a case as orphans
        else:
            cases += [_gone_result(name, run.review, records) for name in gone]
            cases = [_with_base_provenance(run.baseline, r) for r in cases]
        if run.review is not None and run.contracts is not None and len(self.selected) == len(self.cases):
            from harness.rules.contract_changes import unmatched_records

            findings += unmatched_records(
                run.contracts.changes, run.baseline.contract_texts(), [f for r in cases for f in r.findings] + findings
            )
        if run.review is not None:  # every loosening with a recorded reason counted: launches' and known entries' too
            approved = approvals(cases, findings, run.settings)
        accounted: tuple[tuple[str, str, str, int | None], ...] = ()
        if run.review is not None and run.accounting is not None and not self.only_launches:
            # Every file the pull request changes: compared, not relevant, or named as not verified (never silent).
            classified = run.accounting.classify(cases)
            findings += run.accounting.findings(classified)
            accounted = tuple((a.file, a.verdict, a.reason, a.line) for a in classified)
        if run.review is not None:  # every finding of a review carries its origin: the run's are the change's own
            findings = [f if f.origin is not None else replace(f, origin=Origin.INTRODUCED) for f in findings]
        baseline = "launch commands" if launches_checked and self.only_launches else run.baseline.description
        return MatrixResult(
            cases=tuple(cases),
            orphans=tuple(orphans),
            baseline=baseline,
            findings=tuple(findings),
            rules=rules,
            launches=tally,
            approvals=approved,
            comparison=run.comparison,
            accounted=accounted,
        )

    def _config_write_findings(self) -> list[Finding]:
        """`check`'s findings on the code's config writes against their record, kept by the Python sources' digest,
        the record's bytes and the settings: a warm check parses no Python source when none changed."""
        view = self.program
        sources = view.digest()
        record = file_digest(str(record_path(self.settings.snapshot_dir)), self.settings.read_scope)
        store, key = None, None
        if sources is not None and self.settings.cache_dir is not None and not self.plain:
            try:  # the run's compositions are done: the store is opened here, outside any Hydra session
                store = open_store(self.settings.cache_dir, project=self.settings.config_dir)
            except CacheRefused:
                store = None  # said once already, where the compositions opened it
            key = tree_digest(b"config writes", sources, record, replace(self.settings, jobs=None, cache_dir=None), str(Path.cwd()))
        if (
            store is not None
            and key is not None
            and isinstance(kept := store.get(key), tuple)
            and all(isinstance(f, Finding) for f in kept)
        ):
            return list(kept)
        findings = record_findings(view, self.settings.snapshot_dir)
        if store is not None and key is not None:
            store.put(key, tuple(findings))
        return findings

    def _head_findings(self, head: HeadGoldens) -> list[Finding]:
        """`check` on the head for the cases its settings describe otherwise than the review's (a preset the pull
        request changed): a golden it would fail is `stale_golden`, a case it cannot compose an error."""
        from glob import escape

        if head.error:
            message = f"`check` on the merged head cannot run: {head.error}"
            return [Finding(Kind.ERROR, "", severity=ERROR, message=message)]
        todo = head.unmatched(self.cases)
        if not todo:
            return []
        runner = Runner(Run.check(head.settings, RuleSet()), case_glob=[escape(case.id) for case in todo])
        findings = []
        for case in todo:
            result = runner.result(case.id)
            if result.status == Status.ERROR and any(f.kind == Kind.ERROR for f in result.findings):
                cause = next(f.message for f in result.findings if f.kind == Kind.ERROR)
                message = f"{case.id}, as the pull request's settings describe it, does not compose: {cause}"
                findings.append(Finding(Kind.ERROR, "", severity=ERROR, message=message))
            elif any(regenerates(f) for f in result.findings):
                stale = stale_golden(case, result.golden, result.status == Status.NEW)
                findings.append(replace(stale, message=f"{case.id} (as the pull request's settings describe it): {stale.message}"))
        return findings

    def _launches(self, results: Sequence[CaseResult]) -> tuple[list[CaseResult], LaunchTally, list[Finding]]:
        """The settings' launch commands as cases (parsed, never run), each composed against this tree, their tally, and
        in a review the entry points' changes; each launch finding of a review says whether its override already failed
        the same way at the base."""
        from harness.baselines.moves import moved_paths

        if self.launch_parts is None:
            # A shard's launches take no moves: which keys moved is known only from every shard's cases (`merge`).
            moves = {} if self.shard is not None else moved_paths(f for r in results for f in r.findings)
            # The keys the goldens hold and the tree lost: an override naming one is `key removed`, not `no such key`.
            removed = (
                frozenset() if self.shard is not None else frozenset(f.path for r in results for f in r.findings if f.kind == Kind.REMOVED)
            )
            self.launch_parts = self._checked_launches(moves, removed)
        cases, counts, entries = self.launch_parts
        # What the program reads (harness/runner/config_writes.py): a key its code reads that a launch's override deletes.
        run = self.run_spec
        view = run.program_views[1] if run.program_views is not None else run.rule_set.view
        if view is not None:
            cases = [launch_reads(view, case) for case in cases]
        return known_entries.excuse_results(cases, known_entries.known_entries(self.run_spec.contracts), utc_today()), counts, entries

    def _checked_launches(
        self, moves: dict[str, str], removed: frozenset[str] = frozenset()
    ) -> tuple[list[CaseResult], LaunchTally, list[Finding]]:
        """The launches composed and checked (this shard's share of them), before known entries excuse any."""
        from glob import escape

        from harness.composition.cases import id_matches
        from harness.runner import launch_review, launches

        review = self.run_spec.review
        entries: list[Finding] = []
        if review is not None and self.shard is not None and self.shard.index > 1:
            # A review pairs each launch with the base's and finds those gone: the first shard does them all.
            return [], LaunchTally(0, 0, 0, 0), []
        if review is None:
            glob = self.launch_glob
            if self.shard is not None:  # each launch by its exact id (escaped); "" matches none
                found = [c.id for c in launches.discover(self.settings) if id_matches(c.id, glob)]
                glob = tuple(escape(launch) for launch in self.shard.launches(found)) or ("",)
            cases, counts = launches.check_commands(self.settings, moves, case_glob=glob, removed=removed)
        else:
            records = self.run_spec.contracts.changes if self.run_spec.contracts is not None else ()
            try:
                cases, counts, entries = launch_review.review_commands(
                    self.settings,
                    review.ref,
                    moves,
                    case_glob=self.launch_glob,
                    changes=review.changes,
                    records=records,
                    views=self.run_spec.program_views,
                )
            except GitError as error:
                raise SettingsError(str(error)) from None
        return cases, counts, entries

    def _known_findings(self, cases: Sequence[CaseResult], launches_checked: bool) -> list[Finding]:
        """Known entries that no longer match (on a whole run: a subset would make the others look fixed), and in a
        review every finding the pull request's entries excuse that the base's do not."""
        run = self.run_spec
        entries = known_entries.known_entries(run.contracts)
        findings: list[Finding] = []
        if entries and len(self.selected) == len(self.cases) and self.launch_glob is None:
            # An entry for a launch's cause can only be judged on a run that checked the launches.
            judged = [e for e in entries if launches_checked or not (e.cases.startswith(LAUNCH_PREFIX) or e.finding == Kind.LAUNCH)]
            # The roots and presets init left out are composed again: known while they fail, their entry stale after.
            stems = list(dict.fromkeys((c.config_name, c.stem_overrides) for c in self.cases if not c.id.startswith("route/")))
            left_out = known_entries.excuse(known_entries.composed_again(run.settings, entries, stems), entries, "", utc_today())
            findings += left_out
            findings += known_entries.stale_entries(judged, cases, left_out)
        findings += known_entries.unheeded_records(run.contracts)
        if run.review is not None and entries and not run.review.first_adoption:
            # At a first adoption the base has no rules to loosen: the pull request's apply, and every report says so.
            from harness.rules.contract_changes import read_contract_files
            from harness.rules.protocol import ContractError

            texts = run.baseline.contract_texts()
            try:
                base_entries = known_entries.known_entries(read_contract_files(texts)) if texts else ()
            except ContractError:
                base_entries = ()  # the run-level contract findings say what is wrong with them
            records = run.contracts.changes if run.contracts else ()
            owned = next((path for path in run.settings.contracts if not known_entries.is_known_file(path)), None)
            findings += known_entries.added_entries(
                cases, entries, base_entries, records, utc_today(), display_path(owned) if owned is not None else "", run.review.ref
            )
        return findings

    def write(self, result: MatrixResult, prune: bool) -> MatrixResult:
        """Write the goldens of a finished run (`generate`; pytest's update run writes through syrupy, with the same
        `Goldens`), then prune; return the run as it stands after (cases `written`, goldens pruned, orphans left).
        Only cases that composed and differ are rewritten."""
        if self.program is not None:
            write_record(self.program, self.settings.snapshot_dir)  # the code's config writes, beside the goldens
        return self.prune(self.goldens.write(result), prune)

    def prune(self, result: MatrixResult, every_orphan: bool) -> MatrixResult:
        """After the goldens are written (both shells): a killed write's temporary file always goes, orphan goldens
        only with `every_orphan`; the result returned says what went and which orphans are left."""
        pruned = result.pruned + tuple(display_path(path) for path in self.goldens.prune(every_orphan))
        orphans = () if every_orphan else tuple(name for name in result.orphans if name not in pruned)
        return replace(result, pruned=pruned, orphans=orphans)


def _with_base_provenance(baseline: Baseline, result: CaseResult) -> CaseResult:
    """Removed keys carry the baseline's provenance: which file set them there."""
    removed = [f for f in result.findings if f.kind == Kind.REMOVED]
    if not removed or not result.baseline_id:
        return result
    sources = baseline.removed_sources(result.case, result.baseline_id)
    if not sources:
        return result
    findings = tuple(replace(f, source=sources[f.path]) if f.kind == Kind.REMOVED and f.path in sources else f for f in result.findings)
    return replace(result, findings=findings)
