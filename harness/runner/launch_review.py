"""A review of the launch commands beyond "does it still compose": what each launch composes to at the base and in
the pull request, which entry points now start from another config, and which launches are gone.

A pull request can change what a program runs without touching a config file: re-point `@hydra.main` at another
root, map a module to another config, delete or rename the script, or change a Python default the YAML leaves to
the class. Each is a finding here, from the launches both sides composed (harness/runner/launches.py), never from running
anything.

Over 800 lines because it is one review with one way in (`review_commands`; the run also reads `views_digest`):
every other function is a step of it (pairing the base's launches with this change's, moved and new scripts, value
comparisons, gone launches, entry points, and what the base could not read).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from harness.baselines import gitrepo
from harness.baselines.kinds import BaselineEntry
from harness.composition.cases import id_matches
from harness.composition.parallel import beside
from harness.composition.provenance import Source
from harness.composition.session import current
from harness.composition.store import tree_digest
from harness.gates.reader import InputLimitError, read_bytes
from harness.model.findings import ERROR, INFO, CaseResult, Finding, Kind, LaunchTally, Origin, Status
from harness.model.grouping import plural
from harness.model.matrix import Case
from harness.model.semantic_diff import describe_value, order_changes, same_tree
from harness.readers.bash import PLACEHOLDER_MARK
from harness.rules.contract_changes import change_finding
from harness.rules.contracts import ENTRY, LAUNCH, ChangeRecord
from harness.rules.protocol import TermChange
from harness.runner.launches import (
    NO_SUCH_KEY,
    NOT_EXTRACTED,
    Checked,
    CommandCase,
    _base_key,
    _base_launches,
    _base_reads,
    _checked_commands,
    _store,
    _stored,
    _touches,
    as_written,
    case_result,
    changed_scripts,
    command_cases,
    composer_of,
    find_scripts,
    launch_reason,
    leaf_paths,
    module_path,
    moved_override,
    origins,
    outside_globs,
    project_of,
    readings_under,
    script_texts,
    tally,
    text_as_written,
)

# The @hydra.main arguments that decide which config an entry point composes, and how.
MAIN_ARGUMENTS = ("config_path", "config_name", "version_base")
MAPPED = "commands.modules"  # the settings' mapping of a module to a config name, beside its @hydra.main arguments
NOT_GIVEN = "(not given)"  # an argument the decorator does not pass: Hydra's default applies
SHOWN_LAUNCHES = 3


def modules_of(commands: Any) -> dict[str, str]:
    """The union of the `modules` tables of a settings `commands` list, as the settings file writes it."""
    modules: dict[str, str] = {}
    for entry in commands if isinstance(commands, list) else ():
        table = entry.get("modules") if isinstance(entry, dict) else None
        if isinstance(table, dict):
            modules.update({str(k): str(v) for k, v in table.items()})
    return modules


def head_modules(base_modules: Mapping[str, str], changes: Iterable[Any]) -> dict[str, str]:
    """The pull request's `[commands.modules]`: the base's, unless a settings change of `commands` says otherwise."""
    for change in changes:
        if change.key == "commands":
            return modules_of(change.new)
    return dict(base_modules)


# Reads an entry point's source: (entry, is_module) -> (its path relative to the project, its text), or None.
EntryReader = Callable[[str, bool], "tuple[str, str] | None"]


def tree_reader(project: Any) -> EntryReader:
    """Entry points as the working tree holds them (through the one bounded, confined reader)."""

    def read(entry: str, is_module: bool) -> tuple[str, str] | None:
        path = project.entry_file(entry, is_module)
        if path is None:
            return None
        try:
            return path.relative_to(project.root).as_posix(), read_bytes(path, (project.root,)).decode("utf-8", "replace")
        except (OSError, InputLimitError):
            return None

    return read


def git_reader(top: Path, commit: str, root: Path) -> EntryReader:
    """Entry points as `commit` holds them, read from git (no copy of the base is needed; the base's launch results
    may come from the cache)."""
    from harness.baselines import gitrepo

    # Joined as text, never resolved: a link in the working tree must not choose which of the base's files is read.
    prefix = gitrepo.inside(top, root)
    prefix = "" if prefix == "." else prefix + "/"

    def read(entry: str, is_module: bool) -> tuple[str, str] | None:
        candidates = [module_path(entry) + ".py", module_path(entry) + "/__main__.py"] if is_module else [entry]
        for candidate in candidates:
            if PurePosixPath(candidate).is_absolute() or ".." in PurePosixPath(candidate).parts:
                continue  # never outside the project
            try:
                data = gitrepo.read_file(top, commit, prefix + PurePosixPath(candidate).as_posix())
            except gitrepo.GitError:
                data = None
            if data is not None:
                return candidate, data.decode("utf-8", "replace")
        return None

    return read


def entry_arguments(read: EntryReader, entry: str, is_module: bool, modules: Mapping[str, str]) -> tuple[dict[str, Any], Source | None]:
    """What starts an entry point: its `@hydra.main` literal arguments (read with `ast`) and its mapped config name,
    and the decorator's line. Empty when the project has no such file and no mapping."""
    from harness.readers.entries import as_shown, hydra_main

    arguments: dict[str, Any] = {}
    source = None
    found = read(entry, is_module)
    if found is not None:
        path, text = found
        main = hydra_main(text)
        if main is not None:
            arguments = {name: as_shown(main.get(name, NOT_GIVEN)) for name in MAIN_ARGUMENTS}  # NotStatic as its text
            line = next(
                (n for n, written in enumerate(text.splitlines(), 1) if "main(" in written and written.lstrip().startswith("@")), None
            )
            source = Source(path, line)
    if entry in modules:
        arguments[MAPPED] = modules[entry]
    return arguments, source


def _shown(arguments: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in arguments.items())


def entry_changes(
    head: EntryReader,
    base_read: EntryReader,
    now: Sequence[Any],
    base: Sequence[Any],
    modules: tuple[Mapping[str, str], Mapping[str, str]],
    records: Iterable[ChangeRecord],
) -> list[Finding]:
    """One `entry_change` per entry point whose arguments differ between the base and the pull request (an error
    unless a `changes:` record names it), with the launches that run it. An entry only one side has is not one:
    its launches say they are new, or that their entry point is gone."""
    records = tuple(records)
    base_modules, now_modules = modules
    entries: dict[tuple[str, bool], list[str]] = {}
    for checked in base:
        if checked.case.launch.entry:
            entries.setdefault((checked.case.launch.program, checked.case.launch.is_module), [])
    for checked in now:
        if checked.case.launch.entry:
            entries.setdefault((checked.case.launch.program, checked.case.launch.is_module), []).append(checked.case.id)
    for module in (*base_modules, *now_modules):
        entries.setdefault((module, True), [])
    findings = []
    for (entry, is_module), launch_ids in sorted(entries.items()):
        old, _ = entry_arguments(base_read, entry, is_module, base_modules)
        new, source = entry_arguments(head, entry, is_module, now_modules)
        if not old or not new or old == new:
            continue
        names = [name for name in (*MAIN_ARGUMENTS, MAPPED) if old.get(name) != new.get(name)]
        was, now_is = {n: old.get(n, NOT_GIVEN) for n in names}, {n: new.get(n, NOT_GIVEN) for n in names}
        runs = (
            f"; {len(launch_ids)} launch{'es' if len(launch_ids) != 1 else ''} run it ("
            + ", ".join(launch_ids[:SHOWN_LAUNCHES])
            + (", ..." if len(launch_ids) > SHOWN_LAUNCHES else "")
            + ")"
            if launch_ids
            else "; no launch found runs it"
        )
        term = TermChange(ENTRY, entry, was, now_is, f"entry point {entry}: {_shown(was)} -> {_shown(now_is)}{runs}")
        finding = replace(change_finding(term, records, Kind.ENTRY_CHANGE), source=source)
        findings.append(replace(finding, origin=Origin.INTRODUCED if finding.severity == ERROR else None))
    return findings


def _signature(checked: Any) -> tuple[Any, ...]:
    signature: tuple[Any, ...] = checked.case.signature
    return signature


def place(checked: Any) -> tuple[Any, ...]:
    """Where a launch sits: its script, its number there, the root a computed config name takes and its sweep's point.
    A reading under an environment (`#1 (only when X is set)`) sits where its plain launch does."""
    launch = checked.case.launch
    return launch.script, launch.index, checked.case.id.rpartition("@")[2] if checked.case.candidate else "", checked.case.point


def paired(now: Sequence[Any], base: Sequence[Any]) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """Each launch of the pull request with the base's launch it is (same script, aligned by what the commands run,
    as a diff aligns lines: removing a script's second command leaves its third the third, not a changed second),
    and the base's launches left without one: gone. A reading under an environment is the base's reading under the
    same environment of the launch its plain launch is, never a plain launch nor another condition's reading."""
    pairs, gone = _paired_plain([c for c in now if not c.case.launch.environment], [c for c in base if not c.case.launch.environment])
    base_place = {place(c): place(b) for c, b in pairs}
    readings = {(place(b), b.case.launch.environment): b for b in base if b.case.launch.environment}
    # A launch only a reading has (a loop's pass more under that environment) has no plain launch: aligned with the
    # base's readings of that kind under the same environment as plain launches are.
    plain_now = {place(c) for c in now if not c.case.launch.environment}
    plain_base = {place(b) for b in base if not b.case.launch.environment}
    left: dict[Any, tuple[list[Any], list[Any]]] = {}
    for checked in now:
        where = base_place.get(place(checked))
        if checked.case.launch.environment:
            found = readings.pop((where, checked.case.launch.environment), None) if where is not None else None
            if found is not None:
                pairs.append((checked, found))
            elif place(checked) not in plain_now:
                left.setdefault(checked.case.launch.environment, ([], []))[0].append(checked)
    for (at, environment), checked in readings.items():
        if at in plain_base:
            gone.append(checked)
        else:
            left.setdefault(environment, ([], []))[1].append(checked)
    for now_left, base_left in left.values():
        more, lost = _paired_plain(now_left, base_left)
        pairs += more
        gone += lost
    return pairs, gone


def otherwise(new: Sequence[Any], pairs: Sequence[tuple[Any, Any]], base: Sequence[Any]) -> dict[str, Any | None]:
    """For each new reading under an environment (a branch on it the pull request adds), what the base ran there: the
    base's reading of the launch its plain launch is under the most of that environment it tests, else that plain
    launch itself (a script that does not test a variable runs the same whatever it holds). Never a launch found by
    its command alone: a script's second launch is not its first. None where that is not known (the new reading is
    then named, not compared)."""
    base_place = {place(c): place(b) for c, b in pairs if not c.case.launch.environment}
    at_base = {place(b): b for b in base if not b.case.launch.environment}
    readings: dict[tuple[Any, ...], list[Any]] = {}
    for checked in base:
        if checked.case.launch.environment:
            readings.setdefault(place(checked), []).append(checked)
    found: dict[str, Any | None] = {}
    for checked in new:
        environment = set(checked.case.launch.environment)
        where = base_place.get(place(checked))
        if not environment or where is None:
            continue
        there = readings.get(where, [])
        under = [b for b in there if set(b.case.launch.environment) <= environment]
        most = max((len(b.case.launch.environment) for b in under), default=0)
        closest = [b for b in under if len(b.case.launch.environment) == most] or [at_base[where]]
        names = {name for name, _ in environment}
        # Not known, so none: two readings as close (X set; Y set; the new one under both), or a base reading under
        # another value of one of its variables (the base tests DEVICE=npu; the new reading is DEVICE=xpu).
        other = any(names & {name for name, _ in b.case.launch.environment} for b in there if b not in under)
        found[checked.case.id] = closest[0] if len(closest) == 1 and not other else None
    return found


def _paired_plain(now: Sequence[Any], base: Sequence[Any]) -> tuple[list[tuple[Any, Any]], list[Any]]:
    by_script: dict[str, tuple[list[Any], list[Any]]] = {}
    for checked in base:
        by_script.setdefault(checked.case.launch.script, ([], []))[0].append(checked)
    for checked in now:
        by_script.setdefault(checked.case.launch.script, ([], []))[1].append(checked)
    pairs, gone = [], []
    for old, new in by_script.values():
        matcher = difflib.SequenceMatcher(None, [_signature(c) for c in old], [_signature(c) for c in new], autojunk=False)
        for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
            if tag == "equal":
                pairs += [(new[new_start + i], old[old_start + i]) for i in range(old_end - old_start)]
                continue
            # A replaced run: the same commands, edited. Aligned by what each command is (its content identity: the
            # program, the config and the overrides' keys), so a launch inserted before another never takes the
            # other's place; what is left is paired in order.
            found, left = _edited(old[old_start:old_end], new[new_start:new_end])
            pairs += found
            gone += left
    return pairs, gone


def _edited(old: Sequence[Any], new: Sequence[Any]) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """The launches of a replaced run paired: by content identity first, then the rest of each unmatched stretch in
    order; the base's left without one."""
    pairs: list[tuple[Any, Any]] = []
    gone: list[Any] = []
    matcher = difflib.SequenceMatcher(None, [c.case.identity for c in old], [c.case.identity for c in new], autojunk=False)
    for _, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        both = min(old_end - old_start, new_end - new_start)
        pairs += [(new[new_start + i], old[old_start + i]) for i in range(both)]
        gone += old[old_start + both : old_end]
    return pairs, gone


def twins(new: Sequence[Any], base: Sequence[Any]) -> dict[str, Any]:
    """For each new launch, the base's launch of the same script that runs the same command (the same content
    identity), when there is one: a launch inserted as a copy of another with the base's values leaves the real one
    `new`, and its values are compared with the base's launch it copies, never with nothing."""
    # A sweep's new point (a value the sweep now takes, an option a `glob` now finds) copies no other point.
    by_identity: dict[tuple[str, str, tuple[str, ...]], Any] = {}
    for checked in base:
        by_identity.setdefault((checked.case.launch.script, checked.case.identity, checked.case.point), checked)
    found = {}
    for checked in new:
        twin = by_identity.get((checked.case.launch.script, checked.case.identity, checked.case.point))
        if twin is not None:
            found[checked.case.id] = twin
    return found


def _script_text(launches: Sequence[Any]) -> tuple[Any, ...]:
    """What a script's launches say, line by line: equal for two scripts that hold the same text."""
    return tuple((_signature(c), c.case.launch.line, c.case.launch.error) for c in launches)


def moved_scripts(
    gone: Sequence[Any], new: Sequence[Any], now: Sequence[Any], base: Sequence[Any]
) -> tuple[list[tuple[Any, Any]], list[Any], list[Any]]:
    """The launches of scripts that moved with the same text (a `git mv`): each new launch paired with the base's
    launch it is, then the base's launches still gone and the launches still new. A script moved when the pull
    request has none of its launches where it was, the base none where it is now, and the launches read the same."""
    kept_scripts = {c.case.launch.script for c in now}
    base_scripts = {c.case.launch.script for c in base}
    left: dict[str, list[Any]] = {}
    arrived: dict[str, list[Any]] = {}
    for checked in gone:
        if checked.case.launch.script not in kept_scripts:
            left.setdefault(checked.case.launch.script, []).append(checked)
    for checked in new:
        if checked.case.launch.script not in base_scripts:
            arrived.setdefault(checked.case.launch.script, []).append(checked)
    by_text: dict[tuple[Any, ...], list[list[Any]]] = {}
    for launches in left.values():
        if len(launches) == sum(c.case.launch.script == launches[0].case.launch.script for c in base):  # all of it left
            by_text.setdefault(_script_text(launches), []).append(launches)
    pairs: list[tuple[Any, Any]] = []
    for launches in arrived.values():
        candidates = by_text.get(_script_text(launches))
        if candidates:  # two copies of one script moved: paired in path order, as git's rename detection would
            pairs += list(zip(launches, candidates.pop(0), strict=True))
    moved_now = {c.case.id for c, _ in pairs}
    moved_base = {b.case.id for _, b in pairs}
    return pairs, [c for c in gone if c.case.id not in moved_base], [c for c in new if c.case.id not in moved_now]


def moved_launch(result: CaseResult, now: Any, base: Any) -> CaseResult:
    """A launch whose script moved with the same text: one `moved` finding (info), the base's case id to this one."""
    source = Source(now.case.launch.script, now.case.launch.line)
    finding = Finding(
        Kind.MOVED,
        base.case.id,
        base.case.id,
        result.case.id,
        INFO,
        f"MOVED {base.case.id} -> {result.case.id} (its script moved with the same text: {base.case.launch.script} -> {now.case.launch.script})",
        source=source,
    )
    return replace(result, findings=(finding, *result.findings))


def _new_launch_note(case: CommandCase, said: str) -> Finding:
    """A `new_launch` note (info) on a launch's script line: `said`, then what the launch runs
    (`python -m app.main with config train, 2 overrides`)."""
    launch = case.launch
    if case.problem_kind == NOT_EXTRACTED:
        runs = "its command could not be extracted"
    else:
        program = f"python -m {launch.entry}" if launch.is_module else f"python {launch.entry}"
        program += f" (from {launch.folder}/)" if launch.folder and launch.is_module else ""
        count = len(launch.overrides)
        runs = f"{program} with config {case.config_name or '(unknown)'}, {plural(count, 'override')}"
    return Finding(Kind.NEW_LAUNCH, case.id, None, case.config_name, INFO, f"{said}{runs}", source=Source(launch.script, launch.line))


def new_launch(result: CaseResult, checked: Any, twin: Any = None) -> CaseResult:
    """A launch the base does not have: one `new_launch` finding (info) naming its script line and config, and the
    status `new` unless it fails; its values are not compared with anything, so they are not listed, unless the base
    has a launch of its script that runs the same command, or a new reading under an environment what the base ran
    there (`twin`): then they were compared with that one's, and the note says which."""
    how = f"what the base runs {checked.case.launch.when}" if checked.case.launch.environment else "the same command"
    said = (
        "new launch: "
        if twin is None
        else f"new launch, compared with {twin.case.launch.script}:{twin.case.launch.line} at the base ({how}): "
    )
    finding = _new_launch_note(checked.case, said)
    status = result.status if result.status == Status.ERROR else Status.NEW
    return replace(result, findings=(finding, *result.findings), status=status)


def unglobbed_launch(case: CommandCase) -> CaseResult:
    """A launch in a script this change adds or edits that no `[[commands]]` glob of the base matches (TinyZero's
    `scripts/train_tiny_zero.sh`, added where the base had no launch): a `new_launch` note (info) that says it is
    not checked and which glob would check it; it is neither composed nor counted."""
    script = case.launch.script
    glob = f"{script.split('/', 1)[0]}/**/*.sh" if "/" in script else "*.sh"
    finding = _new_launch_note(case, "launch outside the settings' commands globs, not checked: ")
    finding = replace(finding, message=f"{finding.message} (a glob such as `{glob}` checks it)")
    return CaseResult(Case(case.id, case.config_name or "", case.overrides), case.launch.where, Status.NEW, (finding,))


def gone_launches(gone: Iterable[Any], records: Iterable[ChangeRecord]) -> list[CaseResult]:
    """A `launch_gone` result for each launch the base extracted that the pull request no longer has (script deleted,
    renamed, moved out of the base's globs, or the command removed): an error when it composed at the base, unless
    a `changes:` record names it; a note when it did not compose there either."""

    records = tuple(records)
    results = []
    for checked in gone:
        case = checked.case
        if case.problem_kind == NOT_EXTRACTED:
            continue
        where = case.launch.where
        source = Source(case.launch.script, case.launch.line)
        if checked.failures:
            finding = Finding(
                Kind.LAUNCH_GONE,
                case.id,
                where,
                None,
                INFO,
                f"{case.id} ({where} at the base) is gone; it did not compose there either",
                source=source,
            )
        else:
            term = TermChange(
                LAUNCH,
                case.id,
                where,
                None,
                f"launch {case.id} composed at the base ({where}) and is gone from this change "
                "(script deleted or renamed, moved out of the globs, or the command removed)",
            )
            finding = replace(change_finding(term, records, Kind.LAUNCH_GONE), source=source)
            if finding.severity == ERROR:
                finding = replace(finding, origin=Origin.INTRODUCED)
        status = Status.ERROR if finding.severity == ERROR else Status.GONE
        results.append(CaseResult(Case(case.id, case.config_name or "", case.overrides), where, status, (finding,)))
    return results


def compared_trees(base_tree: Any, tree: Any, base_id: str) -> tuple[Finding, ...]:
    """A launch's composed tree against its base's, as any case's changes are reported in a review (info): changed,
    added, removed and moved values, refactors folded the same way. A pure function of the two trees."""
    from harness.runner.compare import as_review, compare_with_base

    if same_tree(base_tree, tree) and not order_changes(base_tree, tree):  # the comparison diffs only what differs
        return ()
    entry = BaselineEntry(f"{base_id} at the base", tree=base_tree)
    _, found = compare_with_base(None, tree, "", entry)  # the config is built only if a value must be resolved
    return tuple(as_review(found, INFO))


def views_digest(views: tuple[Any, ...]) -> bytes | None:
    """What a launch's Python defaults read besides its two trees: each side's sources (`ProgramView.digest`) and the
    working folder (reports show a class's file relative to it). None when a side's files were cut short by their
    budget: a file past the cut could change unseen."""
    parts = [view.digest() for view in dict.fromkeys(views)]  # one view for both sides is read once
    return None if None in parts else tree_digest(str(Path.cwd()), *parts)


@dataclass(frozen=True)
class Comparisons:
    """Each launch's comparison with its base by what it reads: its values (`compared_trees`) by the digest of both
    trees and the base's name, its Python defaults (`default_changes`) by that digest and the sources' (`views_key`,
    None: not reused). A warm review compares the same pairs as the last review of that base did, and two launches
    that compose alike at both sides are compared once. `known`: what the cache held; `used`: what this review
    compared or took."""

    known: Mapping[bytes, tuple[Finding, ...]] = field(default_factory=dict)
    used: dict[bytes, tuple[Finding, ...]] = field(default_factory=dict)
    views_key: bytes | None = None

    def of(
        self, base_tree: Any, tree: Any, base_id: str, views: tuple[Any, Any] | None = None, inputs: bytes | None = None
    ) -> list[Finding]:
        """`inputs`: what decided both launches, when it was the same (`Checked.inputs`): the trees are equal, so
        nothing is compared but the Python defaults, which may differ under the same tree."""
        from harness.runner.targets import default_changes

        if inputs is not None:
            digest = tree_digest(b"same inputs", inputs, base_id)
            found = []
        else:
            digest = tree_digest(base_tree, tree, base_id)
            found = list(self._reused(digest, lambda: compared_trees(base_tree, tree, base_id)))
        if views is not None:
            key = None if digest is None or self.views_key is None else tree_digest(b"python defaults", self.views_key, digest)
            found += self._reused(key, lambda: tuple(default_changes(views[0], views[1], base_tree, tree, INFO)))
        return found

    def _reused(self, digest: bytes | None, compute: Callable[[], tuple[Finding, ...]]) -> tuple[Finding, ...]:
        if digest is None:
            return compute()
        found = self.used.get(digest)
        if found is None:
            found = self.known.get(digest)
            found = compute() if found is None else found
            self.used[digest] = found
        return found

    def changed(self) -> bool:
        """True when the cache should hold what this review used: something compared now, or a pair gone."""
        return self.used.keys() != self.known.keys()


def _comparisons_key(base_key: bytes) -> bytes:
    return b"launch-comparisons (order)\0" + base_key  # an entry kept before `order` was compared lacks it


def _stored_comparisons(cache_dir: Path | None, top: Path, base_key: bytes, views: tuple[Any, Any] | None) -> Comparisons:
    """The comparisons the last review of this base stored (the signed per-user cache), else none."""
    from harness.composition.store import CacheRefused, open_store

    if cache_dir is None:
        return Comparisons()
    views_key = views_digest(views) if views is not None else None
    try:
        value = open_store(cache_dir, project=top).get(_comparisons_key(base_key))
    except CacheRefused:
        return Comparisons(views_key=views_key)
    if not (isinstance(value, dict) and all(isinstance(k, bytes) and isinstance(v, tuple) for k, v in value.items())):
        return Comparisons(views_key=views_key)
    return Comparisons(known=value, views_key=views_key)


def _store_comparisons(cache_dir: Path | None, top: Path, base_key: bytes, comparisons: Comparisons) -> None:
    """Keep only this review's comparisons (one entry per base, as many pairs as launches: it never grows)."""
    from harness.composition.store import CacheRefused, open_store

    if cache_dir is None or not comparisons.changed():
        return
    try:
        open_store(cache_dir, project=top).put(_comparisons_key(base_key), dict(comparisons.used))
    except CacheRefused:
        return


def value_findings(
    now: Any,
    base: Any,
    ref: str,
    views: tuple[Any, Any] | None = None,
    moves: Mapping[str, str] | None = None,
    comparisons: Comparisons | None = None,
) -> list[Finding]:
    """What one launch composes to now against what it composed to at the base, as any case's changes are reported
    in a review (info): changed, added, removed and moved values, refactors folded the same way, and with both
    sides' program views each Python default the YAML leaves to a class that changed. A key an override that failed
    on either side touches is left out: its launch finding is the news there. `comparisons`: the trees' comparisons
    this review may reuse (none: each is compared)."""
    if now.tree is None or base.tree is None:
        return []
    same = now.inputs if now.inputs is not None and now.inputs == base.inputs else None
    findings = (comparisons or Comparisons()).of(base.tree, now.tree, base.case.id, views, same)
    failed = [f.override.text for f in (*now.failures, *base.failures) if f.override is not None]
    # A failing override of a key that moved: where it moved to is the launch finding's news too (its fix says so).
    failed += [moved for text in failed if (moved := moved_override(text, moves or {})) is not None]
    keys = {text.lstrip("+~").partition("=")[0] for text in failed}

    def reads_failed(finding: Finding) -> bool:  # `logging.name: ${training.rng_seed}` under a failed seed override
        return any(isinstance(side, str) and any("${" + key + "}" in side for key in keys) for side in (finding.old, finding.new))

    kept = [f for f in findings if not any(_touches(text, f.path) for text in failed) and not reads_failed(f)]
    setters = (_setters(now.case.launch), _setters(base.case.launch))  # once per launch, not once per finding
    return [_as_written(_at_override(f, now, base, ref, setters), now, base) for f in kept]


def _as_written(finding: Finding, now: Any, base: Any) -> Finding:
    """A launch's value finding as the scripts write it: a value the script cannot know (`$save_path`, `$2`) is shown
    in its own text on each side, never as the placeholder Hydra composed. Where two different unknowns are written
    alike (`$out` set from `$2`, then from `$3`) the variables they stand for are shown instead."""
    if PLACEHOLDER_MARK not in f"{finding.old!r} {finding.new!r}":
        return finding
    sides = (base.case.launch.overrides, now.case.launch.overrides)
    texts = [script_texts(overrides) for overrides in sides]
    old, new = as_written(finding.old, texts[0]), as_written(finding.new, texts[1])
    if old == new:
        texts = [script_texts(overrides, whole=False) for overrides in sides]
        old, new = as_written(finding.old, texts[0]), as_written(finding.new, texts[1])
    # The message spells old, then new; what is left (a list's inner changes) names each placeholder's variable.
    message = finding.message
    if old != finding.old:
        before, was, after = message.partition(describe_value(finding.old))
        message = before + describe_value(old) + after if was else message
    if new != finding.new:
        head, was, tail = message.rpartition(describe_value(finding.new))
        message = head + describe_value(new) + tail if was else message
    names = {**script_texts(sides[0], whole=False), **script_texts(sides[1], whole=False)}
    return replace(finding, old=old, new=new, message=text_as_written(message, names))


def _at_override(finding: Finding, now: Any, base: Any, ref: str, setters: tuple[Setters, Setters] | None = None) -> Finding:
    """A launch's value finding with the script line that sets its key (or a parent of it) as its source: this
    side's last such override (Hydra applies them in order), else the base's (an override the change deleted);
    unchanged when neither script sets it. `setters`: both launches' `_setters`, when the caller has them."""
    if finding.source is not None or not finding.path:
        return finding
    sides = setters or (_setters(now.case.launch), _setters(base.case.launch))
    for (checked, at), keyed in zip(((now, None), (base, ref)), sides):
        setting = _setting(keyed, finding.path)
        if setting is not None:  # the base's line is `at` the base: this checkout's line of that number holds something else
            return replace(finding, source=Source(setting.file or checked.case.launch.script, setting.line, at=at))
    return finding


Setters = dict[str, tuple[int, Any]]


def _setters(launch: Any) -> Setters:
    """Each key a launch's overrides write -> (its place, the last override that writes it)."""
    return {o.text.lstrip("+~").partition("=")[0]: (place, o) for place, o in enumerate(launch.overrides)}


def _setting(setters: Setters, path: str) -> Any | None:
    """The last override that writes `path`: its key is the path or one of its parents (`a.b` for `a.b.c`)."""
    keys = [path, *(path[:i] for i, letter in enumerate(path) if letter == ".")]
    found = [setters[key] for key in keys if key in setters]
    return max(found, key=lambda placed: placed[0])[1] if found else None


def with_values(result: CaseResult, values: Sequence[Finding]) -> CaseResult:
    """A launch's result with its changed values: `changed`, as a matrix case whose values changed is, unless it fails."""
    if not values:
        return result
    status = Status.CHANGED if result.status == Status.OK else result.status
    return replace(result, findings=result.findings + tuple(values), status=status)


def not_extracted_now(result: CaseResult, base: Any | None) -> CaseResult:
    """A launch the base extracted that the pull request's reader cannot: its warning becomes an error, since what
    it runs is no longer checked."""

    if base is None or base.case.problem_kind == NOT_EXTRACTED:
        return result
    findings = tuple(
        replace(
            f,
            severity=ERROR,
            origin=Origin.INTRODUCED,
            message=f"{f.message}; the base extracted it ({base.case.launch.where}), so what it runs is no longer checked",
        )
        if f.kind == Kind.LAUNCH and launch_reason(f) == NOT_EXTRACTED
        else f
        for f in result.findings
    )
    status = Status.ERROR if any(f.severity == ERROR for f in findings) else result.status
    return replace(result, findings=findings, status=status)


def review_commands(
    settings: Any,
    ref: str,
    moves: Mapping[str, str] | None = None,
    case_glob: str | Sequence[str] | None = None,
    changes: Iterable[Any] = (),
    records: Iterable[Any] = (),
    views: tuple[Any, Any] | None = None,
) -> tuple[list[CaseResult], LaunchTally, list[Finding]]:
    """The command cases now, each launch finding with its origin against the scripts and tree at `ref`. Each
    launch's composed values are compared
    with the base's (harness/runner/py), launches the base had and this change lost are `launch_gone`, and
    the run-level findings returned are the entry points whose arguments changed (`changes`: the review's settings
    changes; `records`: the `changes:` records; `views`: the base's and this change's program views).

    Over 60 lines: each step is a function of its own; what stays here is the data they pass on (the base's cache
    key, the pairs, gone, moved and new launches), each step reading what an earlier one paired, in this order."""
    records = tuple(records)
    project = project_of(settings)
    scripts = find_scripts(project.root, settings.command_globs, project.submodules)
    found = composer_of(settings).expanded(command_cases(project, scripts, settings.search_path, settings.cache_dir))
    top = gitrepo.toplevel(settings.origin)
    commit = gitrepo.verify_ref(top, ref)
    reads = _base_reads(settings, top, found, project)
    key = _base_key(settings, commit, reads, case_glob)
    base = _stored(settings.cache_dir, top, key)

    def this_side() -> tuple[list[Checked], list[CommandCase]]:
        return _checked_commands(settings, case_glob=case_glob, trees=True, found=found)

    if base is None:  # the base's launches in a worker of their own while this side's are composed (cold: both)
        base, (now, skipped) = beside(lambda: _base_launches(settings, top, commit, reads, case_glob), this_side, settings.jobs or 2)
        _store(settings.cache_dir, top, key, base)
        composed = [c.reused for c in base if c.reused is not None]
        current().reuse["launch"] = (composed.count(True), composed.count(False))
    else:  # an earlier review of this base: every launch there is reused
        now, skipped = this_side()
        current().reuse["launch"] = (sum(1 for c in base if c.tree is not None), 0)
    modules = (dict(settings.command_modules), head_modules(dict(settings.command_modules), changes))
    entries = entry_changes(
        tree_reader(project_of(settings)),
        git_reader(top, commit, settings.origin.parent),
        now,
        base,
        modules,
        records,
    )
    pairs, gone = paired(now, base)
    again = read_again(settings, project, now, gone, case_glob)
    if again:  # the base's readings under an environment this change's scripts no longer test, read here too
        now = [*now, *again]
        pairs, gone = paired(now, base)
    paired_now = {c.case.id for c, _ in pairs}
    moved, gone, new = moved_scripts(gone, [c for c in now if c.case.id not in paired_now], now, base)
    pairs += moved
    base_of = {c.case.id: b.case.id for c, b in pairs}
    # An override whose key the base's launch had is `key removed`; one the base never had either is `no such key`.
    had = {c.case.id: leaf_paths(b.tree) for c, b in pairs if any(f.reason == NO_SUCH_KEY for f in c.failures)}
    reviewed = origins([case_result(c, moves, had.get(c.case.id, ())) for c in now], [case_result(c) for c in base], base_of)
    # Each launch's values compared with its base's, as any case's are: what moved under an unchanged script is a
    # changed value of that launch, grouped with the matrix's cases of the same cause (no parallel warning).
    comparisons = _stored_comparisons(settings.cache_dir, top, key, views)
    values = {c.case.id: value_findings(c, b, ref, views, moves, comparisons) for c, b in pairs}
    # A new launch that runs what a launch of its script ran at the base is compared with that launch too.
    # A new reading under an environment (a branch the pull request adds) with what the base ran there.
    copied = {i: c for i, c in (twins(new, base) | otherwise(new, pairs, base)).items() if c is not None}
    values.update({c.case.id: value_findings(c, copied[c.case.id], ref, views, moves, comparisons) for c in new if c.case.id in copied})
    _store_comparisons(settings.cache_dir, top, key, comparisons)
    values = only_under_condition(values, now)
    at_base = {c.case.id: b for c, b in pairs}
    results = [not_extracted_now(with_values(r, values.get(r.case.id, [])), at_base.get(r.case.id)) for r in reviewed]
    moved_from = {c.case.id: (c, b) for c, b in moved}
    new_ones = {c.case.id: c for c in new}
    results = [
        moved_launch(r, *moved_from[r.case.id])
        if r.case.id in moved_from
        else new_launch(r, new_ones[r.case.id], copied.get(r.case.id))
        if r.case.id in new_ones
        else r
        for r in results
    ]
    outside = outside_globs(project, top, changed_scripts(top, commit), scripts)
    unglobbed = [unglobbed_launch(case) for case in outside if id_matches(case.id, case_glob)]
    entries += base_blind(now, base, top, commit, ref)
    return results + gone_launches(gone, records) + unglobbed, tally(now, skipped), entries


def only_under_condition(values: Mapping[str, list[Finding]], now: Sequence[Checked]) -> dict[str, list[Finding]]:
    """Each launch's changed values, a reading under an environment (`only when ...`) without those its plain launch
    shows too (the same kind, key, old and new value): the plain launch's line names them, and a reading names what
    changes only under its condition (a change of the config tree under every launch is one launch's, not each
    reading's again)."""
    plain = {place(c): c.case.id for c in now if not c.case.launch.environment}
    kept = dict(values)
    for checked in now:
        if checked.case.launch.environment and checked.case.id in kept and (same := plain.get(place(checked))) is not None:
            shown = {(f.kind, f.path, repr(f.old), repr(f.new)) for f in values.get(same, [])}
            kept[checked.case.id] = [f for f in values[checked.case.id] if (f.kind, f.path, repr(f.old), repr(f.new)) not in shown]
    return kept


def read_again(settings: Any, project: Any, now: Sequence[Checked], gone: Sequence[Checked], case_glob: Any) -> list[Checked]:
    """The base's readings of a launch under an environment its script tests (`only when CUDA_VISIBLE_DEVICES is set`)
    that the pull request has no reading under (its script no longer tests it): the pull request's script read under
    each such environment and composed, so what runs there is compared with the base's reading, never called gone
    while the script is there."""
    have = {(c.case.launch.script, c.case.launch.environment) for c in now}
    wanted = {
        (c.case.launch.script, c.case.launch.environment): c.case.launch.when
        for c in gone
        if c.case.launch.environment and (c.case.launch.script, c.case.launch.environment) not in have
    }
    cases = [
        case
        for (script, environment), when in wanted.items()
        for case in readings_under(project, script, environment, when, settings.search_path)
    ]
    return _checked_commands(settings, case_glob=case_glob, trees=True, found=cases)[0] if cases else []


def base_blind(now: Sequence[Checked], base: Sequence[Checked], top: Path, commit: str, ref: str) -> list[Finding]:
    """Errors where launches that compose now were not composed at the base as it was, so what they run is not
    compared (every launch would look new or unchanged). Said and blocking, never "nothing changed" (issue 50):
    - the launches whose config lies (through links or not) in a git submodule whose checkout lacks the commit the
      base pins it at: one error per submodule and commit, naming both;
    - else, when no launch composed at the base although their scripts are there (a link or a folder the base's copy
      lacks, an untracked folder): one error with the first failure there."""
    composed = [checked for checked in now if checked.tree is not None]
    failed_there = {checked.case.id for checked in base if checked.tree is None}
    unreadable: dict[str, list[Checked]] = {}
    for checked in composed:
        if checked.case.id in failed_there and (reason := _unreadable_config(checked, top, commit)) is not None:
            unreadable.setdefault(reason, []).append(checked)
    if unreadable:
        return [
            Finding(
                Kind.ERROR,
                "",
                severity=ERROR,
                message=f"{len(launches)} launch{'es' if len(launches) > 1 else ''} that compose now not compared at {ref}: {reason}",
                source=Source(launches[0].case.launch.script),
            )
            for reason, launches in sorted(unreadable.items())
        ]
    if not composed or any(checked.tree is not None for checked in base):
        return []
    scripts = sorted({checked.case.launch.script for checked in composed})
    try:
        there = [script for script, data in gitrepo.read_files(top, commit, scripts).items() if data is not None]
    except gitrepo.GitError:
        there = []
    if not there:
        return []  # the change adds every script that composes: nothing at the base to compare with
    cause = next((failure.message for checked in base for failure in checked.failures), "")
    message = (
        f"no launch composed at {ref} ({len(base)} found there), although {len(there)} of the scripts whose launches "
        f"compose now are there: the base was not composed as it was (a git submodule or a link its copy lacks?), "
        f"so what {len(composed)} launches run is not compared" + (f"; the first failure there: {cause}" if cause else "")
    )
    return [Finding(Kind.ERROR, "", severity=ERROR, message=message, source=Source(there[0]))]


def _unreadable_config(checked: Checked, top: Path, commit: str) -> str | None:
    """Why the launch's config (its folder, or its root file through the working tree's links) cannot be read at the
    base commit: a submodule whose checkout lacks the commit the base pins (gitrepo.unreadable_at); None otherwise."""
    folder, name = checked.case.config_dir, checked.case.config_name
    if folder is None:
        return None
    for path in (folder, folder / f"{name}.yaml") if name else (folder,):
        try:
            reason = gitrepo.unreadable_at(top, commit, gitrepo.inside(top, path))
        except gitrepo.GitError:
            continue  # outside the repository: no commit holds it
        if reason is not None:
            return reason
    return None
