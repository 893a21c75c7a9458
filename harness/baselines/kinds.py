"""What a case is compared with: goldens in a folder, goldens at a git ref, a tree at a git ref, a tree on disk.

Every baseline answers the same three questions: how it is described in a report, what it holds for a case
(a golden's text, or a composed tree, or why it cannot say), and which of its cases the matrix no longer has.
"""

from __future__ import annotations

import contextlib
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from harness.baselines import gitrepo
from harness.baselines.goldens import find_orphans, golden_path, read_golden
from harness.baselines.kept_trees import tree_at_commit
from harness.baselines.releases import fetch_wheel_tree
from harness.composition.cases import open_matrix
from harness.composition.provenance import Source, SourcesMemo, leaf_sources
from harness.composition.render import to_plain
from harness.composition.session import current
from harness.gates.budget import BudgetExceeded, toml_document
from harness.gates.confine import project_root
from harness.model.findings import ERROR, INFO, Severity
from harness.model.matrix import Case, is_golden_name
from harness.model.settings import Settings, SettingsError, check_requirement, display_path, parse_settings, table_of


@dataclass(frozen=True)
class BaselineEntry:
    """A case as the baseline has it: a golden's text, a composed plain tree, or why it has none."""

    display: str  # where it came from, for reports: a golden's path, `main:snapshots/...`, a tree and case
    text: str | None = None  # a golden's text (parsed only when it differs from the fresh rendering)
    tree: Any = None  # a composed plain tree (tree baselines)
    error: str | None = None  # the baseline could not compose this case
    hydra: Any = None  # the case's composed `hydra:` subtree there, as written (reviews compare it)
    case_id: str = ""  # the baseline's own case id, when another case stands in (a route that `became` it)


class Baseline(Protocol):
    """The seam: one small protocol, four implementations."""

    differences: Severity  # the severity of a difference from this baseline
    # The policy of `check`: a case it has no entry for is a `missing_golden` error (else a new case), and its
    # entries no case claims are orphan goldens to prune (else gone cases of a review).
    missing_is_error: bool
    unclaimed_are_orphans: bool

    @property
    def description(self) -> str:
        """Said in every format: which baseline was used."""

    def prepare(self, cases: Sequence[Case]) -> None:
        """Get ready to answer for these cases (called once, before any worker starts)."""

    def entry(self, case: Case) -> BaselineEntry | None:
        """What the baseline holds for the case; None when it has no such case."""

    def gone(self, cases: Sequence[Case]) -> list[str]:
        """The baseline's cases (or goldens) that no case of the matrix claims."""

    def contract_texts(self) -> dict[str, str | None] | None:
        """The contract files as the baseline had them (path -> text, None when absent); None if unknown."""

    def removed_sources(self, case: Case, baseline_id: str) -> dict[str, Source]:
        """For the baseline's case `baseline_id` (compared with `case`), which file set each leaf there, if known."""


@dataclass
class GoldenFolder:
    """The goldens in the snapshot folder: `check`. A difference is an error; a missing golden too."""

    snapshot_dir: Path
    differences: Severity = ERROR
    missing_is_error: bool = True
    unclaimed_are_orphans: bool = True
    _project: Path | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def description(self) -> str:
        return f"goldens in {display_path(self.snapshot_dir)}"

    def entry(self, case: Case) -> BaselineEntry | None:
        path = golden_path(self.snapshot_dir, case)
        if self._project is None:  # found once: a warm check reads every golden
            self._project = project_root(self.snapshot_dir)
        text = read_golden(path, self._project)
        return None if text is None else BaselineEntry(display_path(path), text=text)

    def gone(self, cases: Sequence[Case]) -> list[str]:
        return [display_path(path) for path in find_orphans(self.snapshot_dir, list(cases))]

    def contract_texts(self) -> dict[str, str | None] | None:
        return None

    def removed_sources(self, case: Case, baseline_id: str) -> dict[str, Source]:
        return {}

    def prepare(self, cases: Sequence[Case]) -> None:
        """Nothing to prepare: goldens are read per case."""


@dataclass
class ComposedTree:
    """Another config tree composed with the same settings: a release on disk, or the tree at a git ref."""

    settings: Settings  # the head's settings with config_dir pointing at this tree
    label: str  # how the tree is named in reports, e.g. `main:verl/trainer/config` or a folder
    show_as: str = ""  # how this tree's files are shown in provenance (the folder's name in the repository)
    at: str | None = None  # the git ref the tree was read at, said beside its provenance
    differences: Severity = INFO
    missing_is_error: bool = False
    unclaimed_are_orphans: bool = False
    contracts: dict[str, str | None] | None = None
    cases: list[Case] = field(default_factory=list)
    entries: dict[str, BaselineEntry] = field(default_factory=dict)
    composed: bool = False
    provenance_memo: SourcesMemo = field(default_factory=dict)  # cases sharing a defaults list replay it once
    hydra_subtree: bool = False  # also keep each case's `hydra:` subtree (a review compares it)
    # The working folder its compositions run in: for a tree at a git ref, the same place in a copy of the ref's
    # files, so that `pkg://` of the project's own package and relative `file://` search paths are the ref's
    # folders, never the working tree's (None: the working folder, for a tree on disk).
    workdir: Path | None = None

    @property
    def description(self) -> str:
        return f"config tree {self.label} (composed)"

    def compose(self) -> None:
        """Compose every case of the tree's matrix once (lenient: a baseline may lack engines or routes)."""
        if self.composed:
            return
        self.composed = True
        counts, seen, from_cache = [0, 0], (0, 0), False
        with self._in_workdir(), open_matrix(self.settings, strict=False, hydra_subtree=self.hydra_subtree) as (session, cases):
            self.cases = cases
            for result in session.compose_cases(cases):
                # Each case counted reused or recomposed (a review says how many): a case derived from a stem composed
                # for an earlier case counts as that one did.
                now = (len(session.composed_fresh), len(session.reused))
                from_cache = False if now[0] > seen[0] else True if now[1] > seen[1] else from_cache
                seen = now
                counts[0 if from_cache else 1] += 1
                display = f"{self.label} {result.case.id}"
                if result.config is None:
                    error = (result.error or "compose failed").replace(str(self.settings.config_dir), self.show_as or self.label)
                    self.entries[result.case.id] = BaselineEntry(display, error=error)
                else:
                    self.entries[result.case.id] = BaselineEntry(display, tree=to_plain(result.config), hydra=result.hydra)
        current().reuse["case"] = (counts[0], counts[1])

    def _in_workdir(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.chdir(self.workdir) if self.workdir is not None else contextlib.nullcontext()

    def entry(self, case: Case) -> BaselineEntry | None:
        self.compose()
        return self.entries.get(case.id)

    def gone(self, cases: Sequence[Case]) -> list[str]:
        self.compose()
        claimed = {case.id for case in cases}
        return [case.id for case in self.cases if case.id not in claimed]

    def contract_texts(self) -> dict[str, str | None] | None:
        return self.contracts

    def prepare(self, cases: Sequence[Case]) -> None:
        """Compose the tree before workers fork, so it is composed once."""
        self.compose()

    def removed_sources(self, case: Case, baseline_id: str) -> dict[str, Source]:
        by_id = {c.id: c for c in self.cases}
        if baseline_id not in by_id:
            return {}
        root = str(self.settings.config_dir)
        with self._in_workdir(), open_matrix(self.settings, strict=False) as (session, _):
            sources = leaf_sources(session, by_id[baseline_id], self.provenance_memo)
        shown = {}
        for path, source in sources.items():
            file = source.file
            if file is not None and self.workdir is not None and not os.path.isabs(file):
                file = str(self.workdir / file)  # shown relative to the workdir it was read in
            if file is not None and self.show_as and file.startswith(root):
                file = self.show_as + file[len(root) :]
            shown[path] = replace(source, file=file, at=self.at)
        return shown


@dataclass
class GoldensAtRef:
    """The goldens committed at a git ref; a case without one there falls back to the tree at the ref."""

    ref: str
    goldens: dict[str, tuple[str, str]]  # golden name -> (display, text)
    tree: ComposedTree | None  # the tree at the ref, composed only if some case has no golden there
    compose_all: bool = False  # --compose-base: ignore the goldens
    schemas: tuple[str, ...] = ()  # the base's `schemas`: the only modules a review imports (trusted side)
    differences: Severity = INFO
    # A review: a case without a golden at the ref is compared with the ref's tree, and is new when it has none.
    missing_is_error: bool = False
    unclaimed_are_orphans: bool = False
    without_golden: bool = False  # some case of the run has no golden at the ref (set by prepare, before workers fork)

    @property
    def description(self) -> str:
        if self.compose_all or not self.goldens:
            assert self.tree is not None
            reason = "--compose-base" if self.compose_all else f"no goldens at {self.ref}"
            return f"{self.tree.description} ({reason})"
        fallback = f"; cases without one: {self.tree.description}" if self.tree is not None and self.without_golden else ""
        return f"goldens at {self.ref}{fallback}"

    def entry(self, case: Case) -> BaselineEntry | None:
        if not self.compose_all and case.golden_name in self.goldens:
            display, text = self.goldens[case.golden_name]
            composed = self.tree.entry(case) if self.tree is not None and self.tree.hydra_subtree else None
            return BaselineEntry(display, text=text, hydra=composed.hydra if composed is not None else None)
        return self.tree.entry(case) if self.tree is not None else None

    def gone(self, cases: Sequence[Case]) -> list[str]:
        if self.compose_all or (not self.goldens and self.tree is not None):
            return self.tree.gone(cases) if self.tree is not None else []
        claimed = {case.golden_name for case in cases}
        return [display for name, (display, _) in sorted(self.goldens.items()) if name not in claimed]

    def contract_texts(self) -> dict[str, str | None] | None:
        return self.tree.contract_texts() if self.tree is not None else None

    def prepare(self, cases: Sequence[Case]) -> None:
        """Compose the tree at the ref when some case has no golden there, or when the `hydra:` subtree is compared."""
        self.without_golden = any(c.golden_name not in self.goldens for c in cases)
        if self.tree is not None and (self.compose_all or self.tree.hydra_subtree or any(c.golden_name not in self.goldens for c in cases)):
            self.tree.compose()

    def removed_sources(self, case: Case, baseline_id: str) -> dict[str, Source]:
        # A golden says what a key was, not which file set it: the tree at the ref says that (composed on demand).
        if self.tree is None:
            return {}
        self.tree.compose()
        return self.tree.removed_sources(case, baseline_id)


def _scratch_folder() -> Path:
    return current().scratch_folder("config-harness-base-")


def _workdir_at(folder: Path, config_inside: str, top: Path) -> Path:
    """The working folder of a composition of the tree `folder` (the config folder `config_inside` as extracted):
    where the working folder lies in the project, in the extracted copy of the project; an empty folder when that
    is not there. Never the working tree: what a base composition finds from the working folder is the base's."""
    copy = folder.parents[len(Path(config_inside).parts) - 1] if config_inside not in ("", ".") else folder
    try:
        inside = copy / Path.cwd().resolve().relative_to(top.resolve())
    except ValueError:
        inside = None
    if inside is not None and inside.is_dir() and not inside.is_symlink():
        return inside
    return _scratch_folder()


def _tree_at(settings: Settings, top: Path, commit: str, ref: str) -> tuple[Path, Path]:
    """The config tree as it was at the commit (from git when committed there, else the wheel pinned there), and
    the working folder to compose it in (see _workdir_at; an empty folder for a wheel's tree)."""
    config_inside = gitrepo.inside(top, settings.config_dir)
    if gitrepo.list_files(top, commit, config_inside):
        folder = tree_at_commit(top, commit, config_inside, settings.cache_dir, _scratch_folder())
        return folder, _workdir_at(folder, config_inside, top)
    source = settings.source
    if source is None or not settings.config_dir.is_relative_to(source.into):
        raise gitrepo.GitError(f"{config_inside} is not in git at {ref} and no [source] wheel pins it")
    pinned = _pinned_wheel(settings, top, commit) or source.wheel
    # Unpacked in a scratch folder: a review writes nothing into the project.
    unpacked = _scratch_folder() / "tree"
    fetch_wheel_tree(pinned, source.unpack, unpacked)
    return unpacked / settings.config_dir.relative_to(source.into), _scratch_folder()


def folders_at(settings: Settings, top: Path, commit: str) -> Settings:
    """The settings with their search path and Python source folders as they are at the commit, so the base never
    reads the working tree's (a pull request's edit there would be the base's too, and hide itself). A folder the
    settings reach through a symlink is where the commit's link leads, never where the working tree's does."""
    search = _written_at(settings, top, commit, "search_path", len(settings.search_path))
    sources = _written_at(settings, top, commit, "python_sources", len(settings.python_sources))
    python = tuple(
        _folder_at(top, commit, folder, written, settings.cache_dir) for folder, written in zip(settings.python_sources, sources)
    )
    moved = tuple(folder for folder, was in zip(python, settings.python_sources) if folder != was)
    return replace(
        settings,
        search_path=tuple(
            _folder_at(top, commit, folder, written, settings.cache_dir) for folder, written in zip(settings.search_path, search)
        ),
        python_sources=python,
        read_outside=(*settings.read_outside, *moved),
    )


def _written_at(settings: Settings, top: Path, commit: str, key: str, count: int) -> list[str | None]:
    """The folders of the settings' `key` as the commit's settings file writes them, relative to the top and not
    resolved (None for a `pkg://` entry, or for each when the commit's settings do not give `count` of them)."""
    none: list[str | None] = [None] * count
    try:
        data = gitrepo.read_file(top, commit, gitrepo.inside(top, settings.origin))
        table = table_of(toml_document(data.decode("utf-8"), str(settings.origin)), settings.origin) if data is not None else None
        base = gitrepo.inside(top, settings.origin.parent)
    except (gitrepo.GitError, tomllib.TOMLDecodeError, UnicodeDecodeError, SettingsError, BudgetExceeded):
        return none
    entries = table.get(key) if isinstance(table, dict) else None
    if not isinstance(entries, list) or len(entries) != count or not all(isinstance(entry, str) for entry in entries):
        return none
    return [
        None if entry.startswith("pkg://") else os.path.normpath(os.path.join(base, entry.removeprefix("file://"))) for entry in entries
    ]


def _folder_at(top: Path, commit: str, folder: Path, written: str | None = None, cache_dir: Path | None = None) -> Path:
    """A folder git tracks, as it is at the commit (extracted; an empty folder when the commit lacks it). A folder
    git does not track (fetched, ignored, outside the repository) stays as it is: no commit holds another.
    `written`: the folder as the settings write it (relative to the top): its links are followed as the commit
    holds them, so a pull request that re-points a link does not choose the base's folder. With `cache_dir` the
    copy is kept there (harness.baselines.kept_trees): a repeated review of the same base extracts it once."""
    try:
        inside = gitrepo.inside(top, folder)
    except gitrepo.GitError:
        inside = None
    at_commit = gitrepo.resolve_at(top, commit, written) if written is not None and not os.path.isabs(written) else None
    if at_commit is not None and at_commit != inside:
        if gitrepo.list_files(top, commit, at_commit):
            return tree_at_commit(top, commit, at_commit, cache_dir, _scratch_folder()).resolve()
        empty = _scratch_folder() / at_commit  # the working tree's link leads elsewhere: never its folder
        empty.mkdir(parents=True, exist_ok=True)
        return empty.resolve()
    if inside is None:
        return folder
    if gitrepo.list_files(top, commit, inside):
        return tree_at_commit(top, commit, inside, cache_dir, _scratch_folder()).resolve()
    if not gitrepo.list_files(top, "HEAD", inside):
        return folder
    empty = _scratch_folder() / inside
    empty.mkdir(parents=True, exist_ok=True)
    return empty.resolve()


def _pinned_wheel(settings: Settings, top: Path, commit: str) -> str | None:
    """The `[source] wheel` of the settings file as committed at `commit`, if it had one."""
    data = gitrepo.read_file(top, commit, gitrepo.inside(top, settings.origin))
    if data is None:
        return None
    try:
        document = toml_document(data.decode("utf-8"), f"{settings.origin.name} at {commit[:12]}")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, BudgetExceeded):
        return None
    table = table_of(document, settings.origin)
    source = table.get("source", {}) if isinstance(table, dict) else {}
    wheel = source.get("wheel") if isinstance(source, dict) else None
    if not isinstance(wheel, str):
        return None
    try:
        return check_requirement(wheel, f"{settings.origin.name} at {commit[:12]}: source.wheel")
    except SettingsError as error:
        raise gitrepo.GitError(str(error)) from None


def settings_at(settings: Settings, commit: str) -> tuple[Any, Settings | None]:
    """The settings table as committed at `commit` in the file the working tree's settings come from, and the
    settings it describes, read as the working tree's file would be; (None, None) when that commit has no usable
    table (a repository's first review)."""
    top = gitrepo.toplevel(settings.origin)
    data = gitrepo.read_file(top, commit, gitrepo.inside(top, settings.origin))
    if data is None:
        return None, None
    try:
        table = table_of(toml_document(data.decode("utf-8"), f"{settings.origin.name} at {commit[:12]}"), settings.origin)
        return (table, parse_settings(table, settings.origin)) if isinstance(table, dict) else (None, None)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, SettingsError, BudgetExceeded):
        return None, None


def _contracts_at(settings: Settings, top: Path, commit: str) -> dict[str, str | None]:
    texts: dict[str, str | None] = {}
    for path in settings.contracts:
        data = gitrepo.read_file(top, commit, gitrepo.inside(top, path))
        texts[display_path(path)] = None if data is None else data.decode("utf-8", "replace")
    return texts


def at_ref(
    settings: Settings, ref: str, compose_base: bool = False, base_settings: Settings | None = None, folders: Settings | None = None
) -> GoldensAtRef:
    """The baseline of a review: the goldens at `ref`, with the tree at `ref` for cases that have none.

    `base_settings` are the settings committed at `ref`: they say where its goldens and contracts are and which
    cases it has (a renamed root is then gone there and new here). A base without settings (the first
    adoption) is read with `settings`, the working tree's. `folders`: `folders_at` of those settings at `ref`, when
    the caller has them (each extraction checks every file of a kept tree).
    """
    top = gitrepo.toplevel(settings.origin)
    commit = gitrepo.verify_ref(top, ref)
    base_settings = base_settings or settings
    goldens: dict[str, tuple[str, str]] = {}
    snapshot_inside = None
    try:
        snapshot_inside = gitrepo.inside(top, base_settings.snapshot_dir)
    except gitrepo.GitError:
        pass  # goldens outside the repository: compose the base
    if snapshot_inside is not None and not compose_base:
        entries = [
            entry
            for entry in gitrepo.list_files(top, commit, snapshot_inside)
            if "/" not in entry[len(snapshot_inside) + 1 :] and is_golden_name(entry.rsplit("/", 1)[-1])
        ]
        for entry, data in gitrepo.read_files(top, commit, entries).items():
            if data is not None:
                goldens[entry.rsplit("/", 1)[-1]] = (f"{ref}:{entry}", data.decode("utf-8", "replace"))
    tree = None
    try:
        folder, workdir = _tree_at(base_settings, top, commit, ref)
        config_inside = gitrepo.inside(top, base_settings.config_dir)
        contract_paths = tuple(dict.fromkeys(base_settings.contracts + settings.contracts))
        tree = ComposedTree(
            replace(
                folders or folders_at(base_settings, top, commit),
                config_dir=folder.resolve(),
                cache_dir=settings.cache_dir,
                jobs=settings.jobs,
            ),
            f"{ref}:{config_inside}",
            show_as=config_inside,
            at=ref,
            hydra_subtree=True,
            workdir=workdir,
            contracts=_contracts_at(replace(base_settings, contracts=contract_paths), top, commit),
        )
    except gitrepo.GitError:
        if compose_base or not goldens:
            raise
    return GoldensAtRef(ref, goldens, tree, compose_all=compose_base, schemas=base_settings.schemas)


def on_disk(settings: Settings, folder: Path) -> ComposedTree:
    """The baseline of an upgrade report: another config tree on disk, composed with the same settings."""
    if not folder.is_dir():
        raise SettingsError(f"{folder}: no such config folder")
    return ComposedTree(
        replace(settings, config_dir=folder.resolve()), display_path(folder.resolve()), show_as=display_path(folder.resolve())
    )
