"""The one core: cases × a baseline -> composed configs -> findings. The CLI and the pytest plugin only call this.

A run composes every selected case of the tree under test, compares it with what the baseline holds for it
(`check_case`), runs the rules (contracts, parity, fallbacks, effective values) and says which file sets
each reported value. Only the severity of a plain difference depends on the baseline. Writing goldens is
not done here: the shells do it at the edge with the rendered text a run can keep.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from harness.baselines import BaseEntry, Baseline, GoldenFolder
from harness.cases import open_matrix, select_cases
from harness.check import as_review, compare_with_base, semantic_findings
from harness.compose import Composed, HydraSession
from harness.contract_changes import run_findings
from harness.contracts import ContractSet
from harness.findings import (
    ERROR,
    SOURCED_KINDS,
    WARNING,
    CaseChecker,
    CaseResult,
    Finding,
    Kind,
    MatrixResult,
    Status,
)
from harness.goldens import golden_path
from harness.hints import case_hint
from harness.matrix import GOLDEN_PREFIX, GOLDEN_SUFFIX, Case
from harness.parallel import default_jobs, map_shards
from harness.provenance import leaf_sources
from harness.render import key_lines, line_of, render_golden, to_plain
from harness.settings import Settings, SettingsError, display_path


@dataclass(frozen=True)
class Run:
    """What one run checks: the settings, the baseline and the rules, and which findings name their source."""

    settings: Settings
    baseline: Baseline
    rules: tuple[CaseChecker, ...] = ()
    sourced: frozenset[str] = frozenset({ERROR})
    strict: bool = True  # the tree under test must have every engine and `same_as` case (check, generate)
    keep_rendered: bool = False  # keep each case's golden text for a shell that writes goldens
    contracts: ContractSet | None = None  # for the run-level contract findings (changes, hygiene, stale waivers)
    strict_waivers: bool = False  # a waiver that excuses nothing is an error, not a warning


def base_entry(baseline: Baseline, case: Case, routes_by_target: dict[str, Case]) -> BaseEntry | None:
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
    memo: dict | None = None,
) -> CaseResult:
    """Everything the harness says about one composed case against the run's baseline.

    `twin` is the plain tree of the case's `same_as` twin, None when it failed, or Kind.ERROR when the matrix
    has no such case (a baseline tree may lack it).
    """
    case = composed.case
    golden = display_path(golden_path(run.settings.snapshot_dir, case))
    if composed.config is None:
        failure = Finding(Kind.ERROR, "", severity=ERROR, message=composed.error or "compose failed")
        return CaseResult(case, golden, Status.ERROR, (failure,))
    tree = to_plain(composed.config)
    rendered = render_golden(case, composed.config, tree)
    entry = base_entry(run.baseline, case, routes_by_target)
    expects_golden = run.baseline.holds_goldens
    status, findings = compare_with_base(composed.config, tree, rendered, entry, golden if expects_golden else None)
    checked_case = case
    if case.same_as is not None and twin is Kind.ERROR:
        findings.append(Finding(Kind.PARITY, "", severity=WARNING, message=f"{case.id}: same_as {case.same_as!r} names no case in this tree"))
        checked_case = replace(case, same_as=None)
    findings += semantic_findings(checked_case, composed.config, tree, None if twin is Kind.ERROR else twin, run.rules)
    findings = as_review(findings, run.baseline.differences)
    if status == Status.OK and any(f.severity == ERROR for f in findings):
        status = Status.ERROR  # a contract error is not "ok", whatever the golden says
    result = CaseResult(
        case, golden if expects_golden else (entry.display if entry else golden), status, tuple(findings),
        rendered=rendered if run.keep_rendered else None, base_id=(entry.case_id or case.id) if entry else "",
    )
    return annotate(session, result, run.sourced, memo, entry.text if entry is not None else None)


def annotate(
    session: HydraSession, result: CaseResult, severities: Iterable[str], memo: dict | None, golden_text: str | None
) -> CaseResult:
    """The result with each finding of the given severities told which file (or override) sets its value,
    and where its path sits in the golden, for annotations. Both cost a little, so only on request.
    """
    severities = frozenset(severities)
    wanted = [f.severity in severities and bool(f.path) for f in result.findings]
    if not any(wanted):
        return result
    golden_lines = {}
    if golden_text is not None:
        lines = key_lines(golden_text)
        paths = {f.path for f, want in zip(result.findings, wanted) if want}
        golden_lines = {path: line for path in paths if (line := line_of(lines, path)) is not None}
    findings = result.findings
    if any(want and f.kind in SOURCED_KINDS for f, want in zip(findings, wanted)):
        try:
            sources = leaf_sources(session, result.case, memo)
        except Exception:  # provenance is a courtesy; a case that composed but cannot be replayed keeps its findings
            sources = {}
        findings = tuple(
            replace(f, source=sources.get(f.path)) if want and f.kind in SOURCED_KINDS else f
            for f, want in zip(findings, wanted)
        )
    return replace(result, findings=findings, golden_lines=golden_lines)


def _routes_by_target(cases: Iterable[Case]) -> dict[str, Case]:
    return {case.became: case for case in cases if case.became}


def _gone_result(name: str) -> CaseResult:
    """A case only the baseline has (named by a golden or a case id)."""
    case_id = name
    leaf = name.rsplit("/", 1)[-1]
    if leaf.startswith(GOLDEN_PREFIX) and leaf.endswith(GOLDEN_SUFFIX):
        case_id = leaf[len(GOLDEN_PREFIX) : -len(GOLDEN_SUFFIX)].replace("__", "/")
    return CaseResult(Case(case_id, "", ()), name, Status.GONE)


def run_matrix(
    run: Run,
    case_glob: str | None = None,
    plain: bool = False,
    on_start: Callable[[int], None] = lambda total: None,
    on_done: Callable[[Case], None] = lambda case: None,
) -> MatrixResult:
    """Compose and check every selected case against the run's baseline.

    `plain` turns every optimization off (one full Hydra compose per case, no workers, no parse cache): the
    reference the optimized path is tested against. Cases are spread over `settings.jobs` forked workers
    (whole bases per worker); results keep case order. `on_start(total)` hears how many cases there are and
    `on_done(case)` each finished case (a progress bar).
    """
    settings = run.settings
    if plain:
        settings = replace(settings, cache_dir=None, jobs=1)
        run = replace(run, settings=settings)
    with open_matrix(settings, strict=run.strict) as (_, all_cases):
        pass
    selected = select_cases(all_cases, case_glob)
    if not selected:
        if case_glob is None:
            raise SettingsError(f"{settings.origin}: the settings describe no case in {settings.config_dir}")
        raise SettingsError(f"--case {case_glob!r} matches no case{case_hint(case_glob, [c.id for c in all_cases])}; see `config-harness list`")
    by_id = {case.id: case for case in all_cases}
    chosen = {case.id for case in selected}
    # Parity needs a twin's tree even when --case left the twin out.
    needed = [c for c in all_cases if c.id in chosen or any(s.same_as == c.id for s in selected)]
    twin_ids = frozenset(case.same_as for case in needed if case.same_as in by_id)
    routes = _routes_by_target(all_cases)
    run.baseline.prepare(needed)  # before workers fork, so a baseline tree is composed once
    on_start(len(selected))

    def check_shard(shard: list[Case], done: Callable[[Case], None]) -> list[CaseResult]:
        results = []
        twins: dict[str, Any] = {}
        with HydraSession.for_settings(settings) as session:
            memo: dict = {}
            for composed in session.compose_cases(shard, shared_bases=not plain):
                case = composed.case
                twin = None if case.same_as is None else twins.get(case.same_as) if case.same_as in by_id else Kind.ERROR
                results.append(check_case(run, session, composed, twin, routes, memo))
                if case.id in twin_ids and composed.config is not None:
                    twins[case.id] = to_plain(composed.config)
                done(case)
        return results

    def report_done(case: Case) -> None:
        if case.id in chosen:
            on_done(case)

    outcomes = map_shards(check_shard, needed, settings.jobs or default_jobs(), report_done)
    result = MatrixResult(cases=[r for r in outcomes if r.case.id in chosen], baseline=run.baseline.description)
    if run.contracts is not None:
        result.findings[:0] = run_findings(
            run.contracts, run.baseline.contract_texts(), [case.id for case in all_cases], result.cases,
            run.strict_waivers, whole_matrix=len(selected) == len(all_cases),
        )
    gone = run.baseline.gone(all_cases)
    if run.baseline.holds_goldens:
        result.orphans = gone  # interface: check reports goldens without a case as orphans
    else:
        result.cases += [_gone_result(name) for name in gone]
        result.cases = [_with_base_provenance(run.baseline, r) for r in result.cases]
    return result


def _with_base_provenance(baseline: Baseline, result: CaseResult) -> CaseResult:
    """Removed keys carry the baseline's provenance: which file set them there."""
    removed = [f for f in result.findings if f.kind == Kind.REMOVED]
    if not removed or not result.base_id:
        return result
    sources = baseline.removed_sources(result.case, result.base_id)
    if not sources:
        return result
    findings = tuple(
        replace(f, source=sources[f.path])
        if f.kind == Kind.REMOVED and f.path in sources else f
        for f in result.findings
    )
    return replace(result, findings=findings)


class CaseStore:
    """The cases of one settings file checked against their goldens lazily, each at most once per process.

    The pytest plugin's items read it; every result comes from `check_case`, so a test reports exactly the
    findings `check` reports for its case.
    """

    def __init__(self, settings: Settings, rules: Sequence[CaseChecker] = ()) -> None:
        self.run = Run(settings, GoldenFolder(settings.snapshot_dir), tuple(rules), keep_rendered=True)
        with open_matrix(settings) as (_, cases):
            self.cases = cases
        self.by_id = {case.id: case for case in cases}
        self._routes = _routes_by_target(cases)
        self._bases: dict = {}
        self._composed: dict[str, Composed] = {}
        self._results: dict[str, CaseResult] = {}
        self.extension: Any = None  # the syrupy extension class, bound by the pytest plugin

    @property
    def settings(self) -> Settings:
        return self.run.settings

    def composed(self, case_id: str, session: HydraSession | None = None) -> Composed:
        """The composed case, composing it (and its base) on first use, in `session` when one is open."""
        if case_id not in self.by_id:
            raise KeyError(f"no case {case_id!r}; known: {', '.join(self.by_id)}")
        if case_id not in self._composed:
            if session is None:
                with HydraSession.for_settings(self.settings) as own:
                    return self.composed(case_id, own)
            self._composed[case_id] = next(session.compose_cases([self.by_id[case_id]], kept_bases=self._bases))
        return self._composed[case_id]

    def result(self, case_id: str) -> CaseResult:
        """The case's result against its golden, with the same findings `check` gives."""
        if case_id not in self._results:
            # One session composes the case (and its twin) and says where each reported value comes from.
            with HydraSession.for_settings(self.settings) as session:
                composed = self.composed(case_id, session)
                same_as = composed.case.same_as
                twin = None
                if same_as is not None:
                    twin_config = self.composed(same_as, session).config
                    twin = None if twin_config is None else to_plain(twin_config)
                self._results[case_id] = check_case(self.run, session, composed, twin, self._routes)
        return self._results[case_id]
