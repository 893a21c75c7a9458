"""Wire one run together: settings -> cases -> composed configs -> findings."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.check import check_composed, semantic_findings
from harness.findings import ERROR, SOURCED_KINDS, CaseChecker, CaseResult, Finding, MatrixResult
from harness.compose import Composed, HydraSession
from harness.goldens import find_orphans, golden_path, read_golden
from harness.matrix import Case, build_cases, select_engines
from harness.parallel import default_jobs, map_shards
from harness.provenance import leaf_sources
from harness.render import key_lines, line_of, to_plain
from harness.settings import Settings, SettingsError, check_name, display_path


@contextmanager
def open_matrix(settings: Settings) -> Iterator[tuple[HydraSession, list[Case]]]:
    """A Hydra session over the settings' config dir, with the cases of its matrix."""
    if not settings.config_dir.is_dir():
        raise SettingsError(f"{settings.origin}: config_dir {settings.config_dir} does not exist")
    with HydraSession(settings.config_dir, settings.cache_dir) as session:
        discovered = None
        if settings.engine_group and settings.engines is None:
            discovered = session.group_options(settings.engine_group)
            if not discovered:
                raise SettingsError(
                    f"{settings.origin}: engine_group {settings.engine_group!r} has no options in {settings.config_dir}"
                )
            for engine in discovered:
                check_name(engine, f"{settings.config_dir}/{settings.engine_group}")
        yield session, build_cases(settings, select_engines(settings, discovered))


def annotate(
    session: HydraSession,
    result: CaseResult,
    severities: Iterable[str],
    memo: dict | None = None,
    read_golden_text: Callable[[], str | None] = lambda: None,
) -> CaseResult:
    """The result with each finding of the given severities told which file (or override) sets its value,
    and where its path sits in the golden, for annotations. Both cost a little, so only on request.
    """
    severities = frozenset(severities)
    wanted = [f.severity in severities and bool(f.path) for f in result.findings]
    if not any(wanted):
        return result
    golden_lines = {}
    golden_text = read_golden_text()
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


def run_matrix(
    settings: Settings,
    extra_checks: list[CaseChecker] | None = None,
    write: bool = False,
    prune: bool = False,
    sourced: Iterable[str] = (ERROR,),
    read: Callable[[Path], str | None] = read_golden,
    show: Callable[[Path], str] = display_path,
    orphans: bool = True,
    plain: bool = False,
    on_start: Callable[[int], None] = lambda total: None,
    on_done: Callable[[Case], None] = lambda case: None,
) -> MatrixResult:
    """Compose and check every case (writing goldens when `write`), then report orphans.

    `plain` turns every optimization off (one full Hydra compose per case, no workers, no parse cache): the
    reference the optimized path is tested against.

    Cases are spread over `settings.jobs` forked workers (whole bases per worker); results keep case order.
    Findings of the `sourced` severities name the file that sets their value and their line in the golden.
    `read` and `show` fetch and name goldens (see check_composed); `orphans=False` skips the orphan scan.
    `on_start(total)` hears how many cases there are, and `on_done(case)` each finished case (a progress bar).
    """
    if plain:
        settings = replace(settings, cache_dir=None, jobs=1)
    with open_matrix(settings) as (_, cases):
        pass
    twin_ids = frozenset(case.same_as for case in cases if case.same_as)
    on_start(len(cases))

    def check_cases(shard: list[Case], done: Callable[[Case], None]) -> list[CaseResult]:
        results = []
        with HydraSession(settings.config_dir, settings.cache_dir) as session:
            memo: dict = {}
            composed = session.compose_cases(shard, shared_bases=not plain)
            for r in check_composed(composed, settings.snapshot_dir, extra_checks or [], write, twin_ids, read, show):
                results.append(annotate(session, r, sourced, memo, lambda r=r: read(golden_path(settings.snapshot_dir, r.case))))
                done(r.case)
        return results

    result = MatrixResult(cases=map_shards(check_cases, cases, settings.jobs or default_jobs(), on_done))
    for orphan in find_orphans(settings.snapshot_dir, cases) if orphans else []:
        if prune:
            orphan.unlink()
            result.pruned.append(display_path(orphan))
        else:
            result.orphans.append(display_path(orphan))
    return result


class MatrixStore:
    """The cases of one settings file, each composed lazily and at most once per process (for pytest)."""

    def __init__(self, settings: Settings, extra_checks: list[CaseChecker] | None = None) -> None:
        self.settings = settings
        self.extra_checks = extra_checks or []
        with open_matrix(settings) as (_, cases):
            self.cases = cases
        self.by_id = {case.id: case for case in cases}
        self._bases: dict = {}
        self._composed: dict[str, Composed] = {}
        self.extension: Any = None  # the syrupy extension class, bound by the pytest plugin

    def composed(self, case_id: str) -> Composed:
        """The composed case, composing it (and its base) on first use."""
        if case_id not in self.by_id:
            raise KeyError(f"no case {case_id!r}; known: {', '.join(self.by_id)}")
        if case_id not in self._composed:
            with HydraSession(self.settings.config_dir, self.settings.cache_dir) as session:
                self._composed[case_id] = next(session.compose_cases([self.by_id[case_id]], kept_bases=self._bases))
        return self._composed[case_id]

    def semantic_findings(self, case_id: str) -> list[Finding]:
        """Parity and extra-check findings of a case, independent of its golden."""
        composed = self.composed(case_id)
        case = composed.case
        if composed.config is None:
            return [Finding("error", "", message=composed.error or "compose failed")]
        twin = self.composed(case.same_as).config if case.same_as else None
        twin_tree = to_plain(twin) if twin is not None else None
        return semantic_findings(case, composed.config, to_plain(composed.config), twin_tree, self.extra_checks)
