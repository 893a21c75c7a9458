"""`log`: the commits where one key of one case changed its composed value, walking the config tree's history.

Only commits that touch the config tree are visited. A commit that adds or removes no file, and whose edited
files the case either never read or read without a change that could reach the key (same `# @package`
header, same defaults list, same value at the key's path once parsed), cannot change the key's unresolved
value, so it is skipped without composing. One scratch copy of the tree is updated file by file; parsed
files are reused across commits by content.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from harness.baselines import gitrepo
from harness.baselines.gitrepo import GitError
from harness.composition import hydra_compat
from harness.composition.cases import open_matrix
from harness.composition.compose import ComposeError
from harness.composition.render import parse_yaml, to_plain
from harness.composition.resolve import MISSING, lookup
from harness.gates.errors import BadInput
from harness.gates.reader import InputLimitError, read_bytes
from harness.gates.writer import replace_file
from harness.model.semantic_diff import join_path, same_value
from harness.model.settings import Settings, SettingsError


class HistoryError(BadInput):
    """`log` cannot answer (an unknown case, a key the case never had, a `--since` that shares no history); one line."""


@dataclass(frozen=True)
class KeyChange:
    """One commit where the key's unresolved value changed; `old`/`new` are None where the key is absent.

    `old_present` and `new_present` say whether the key existed before and after the commit (a null value
    exists); `exists` is `new_present` under its first name, kept for readers of the first interface.
    """

    commit: str
    date: str
    subject: str
    old: Any
    new: Any
    old_present: bool
    new_present: bool
    exists: bool
    composes_from: str = ""  # the case first composes at this commit (after earlier ones): why it did not before


@dataclass(frozen=True)
class Since:
    """A `--since` REF that is not an ancestor of HEAD: the walk starts at their merge base, as `git log REF..HEAD`
    does, and the key's value at REF itself is told once."""

    ref: str
    commit: str
    merge_base: str
    value: Any  # the key's value at REF (None when absent)
    present: bool

    def line(self, key: str, shown: str) -> str:
        """The one line `log` says about the walk's start (`shown`: the value at REF as text)."""
        return (
            f"--since {self.ref} ({self.commit[:12]}) is not an ancestor of HEAD: walked from their merge base "
            f"{self.merge_base[:12]}, as git's {self.ref}..HEAD does; at {self.ref} {key} is {shown}"
        )


@dataclass(frozen=True)
class KeyLog:
    """`log`'s answer: the changes, oldest first, and how a `--since` off HEAD's line was walked."""

    changes: list[KeyChange]
    since: Since | None = None


Packages = dict[str, frozenset[str]]  # a file the composition read (relative to the tree) -> its packages


@dataclass(frozen=True)
class _Reading:
    """The case at one commit.

    `value` is the key's unresolved value (MISSING when absent or uncomposable), `read` the files the
    composition read (None when it was not composed), `listed` whether the matrix had the case; `case_ids`
    and `tree` are kept for the suggestion of an error.
    """

    value: Any = MISSING
    read: Packages | None = None
    listed: bool = False
    case_ids: tuple[str, ...] = ()
    tree: Any = None
    why: str = ""  # why the case was not composed: not in the matrix, or Hydra's first line


def _value_at(settings: Settings, case_id: str, key: str) -> _Reading:
    """What the case says about the key in the tree the settings point to."""
    try:
        with open_matrix(settings, strict=False) as (session, cases):
            case_ids = tuple(case.id for case in cases)
            case = next((c for c in cases if c.id == case_id), None)
            if case is None:
                return _Reading(case_ids=case_ids, why="the case was not in the matrix")
            try:
                config = session.compose(case.config_name, case.overrides)
                entries = session.defaults_entries(case.config_name, case.overrides)
            except ComposeError as error:
                return _Reading(listed=True, case_ids=case_ids, why=f"the case did not compose: {_first_line(error)}")
    except (ComposeError, SettingsError) as error:
        return _Reading(why=f"the settings described no matrix: {_first_line(error)}")
    # The files Hydra loaded from the config folder itself (search path folders are outside its history).
    read: dict[str, set[str]] = {}
    for entry in entries:
        if entry.folder == 0:
            read.setdefault(os.path.normpath(entry.file_name), set()).add(entry.package)
    tree = to_plain(config)
    packages = {path: frozenset(names) for path, names in read.items()}
    return _Reading(lookup(tree, key), packages, True, case_ids, tree)


def _first_line(error: BaseException) -> str:
    return " ".join(str(error).split("\n")[0].split())


def _since_commit(top: Path, since: str) -> tuple[str, str | None]:
    """The commit the walk starts after, and the commit `--since` names when that is not it: a REF off HEAD's line
    (a release tag on its own branch) is walked from the merge base, as `git log REF..HEAD` does."""
    try:
        commit = gitrepo.verify_ref(top, since)
    except GitError as error:
        near = difflib.get_close_matches(since, gitrepo.ref_names(top), n=1)
        raise HistoryError(f"--since: {error}" + (f"; nearest existing ref: {near[0]}" if near else "")) from None
    if gitrepo.is_ancestor(top, commit, "HEAD"):
        return commit, None
    base = gitrepo.merge_base(top, commit, "HEAD")
    if not base:
        raise HistoryError(f"--since {since} ({commit[:12]}) shares no history with HEAD: there is no range to walk")
    return base, commit


def _since_off_line(settings: Settings, top: Path, folder: str, since: str, commit: str, base: str, case_id: str, key: str) -> Since:
    """The key's value at a `--since` REF off HEAD's line, composed from REF's own tree."""
    scratch = Path(tempfile.mkdtemp(prefix="config-harness-log-since-"))
    try:
        tree = scratch / "tree"
        try:
            gitrepo.extract_folder(top, commit, folder, tree)
        except GitError:
            reading = _Reading()
        else:
            reading = _value_at(replace(settings, config_dir=tree / folder if folder else tree, cache_dir=None), case_id, key)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    present = reading.value is not MISSING
    return Since(since, commit, base, reading.value if present else None, present)


def key_log(settings: Settings, key: str, case_id: str, since: str | None = None) -> KeyLog:
    """Every commit (oldest first) after which `key` of `case_id` composes to another value, and how a `--since`
    REF off HEAD's line was walked (from the merge base, with REF's value).

    HistoryError when the question has no answer in the walked range: the case is in no commit's matrix, it
    never composed, or it never had the key.
    """
    changes, off_line = _walk(settings, key, case_id, since)
    return KeyLog(changes, off_line)


def _walk(settings: Settings, key: str, case_id: str, since: str | None) -> tuple[list[KeyChange], Since | None]:
    """The commits that changed `key` in `case_id`, oldest first, and the `Since` of a `--since` REF off HEAD's line.

    Over 60 lines: one walk over the commits through one scratch tree, extracted once and then updated by each
    commit's edits. What is carried from commit to commit (the previous commit, the last reading, whether one was
    read yet) decides whether the next commit is composed at all, and the scratch tree lives as long as the walk.
    """
    top = gitrepo.toplevel(settings.config_dir)
    folder = gitrepo.inside(top, settings.config_dir)
    start, off_line = _since_commit(top, since) if since is not None else (None, None)
    commits = gitrepo.history(top, folder, start)
    if not commits and start is None and not gitrepo.list_files(top, "HEAD", folder):
        raise HistoryError(f"{folder or '.'} is not in git (a fetched or ignored folder): log reads the history of committed configs")
    changes: list[KeyChange] = []
    seen = _Walked()
    scratch = Path(tempfile.mkdtemp(prefix="config-harness-log-"))
    try:
        tree = scratch / "tree"
        # Parsed files are reused in memory by content; one-off compositions are not worth the disk cache.
        here = replace(settings, config_dir=tree / folder if folder else tree, cache_dir=None)
        previous_commit = start
        reading = _Reading()
        if start is not None:
            gitrepo.extract_folder(top, start, folder, tree)
            reading = _value_at(here, case_id, key)
            seen.note(reading)
        walked = start is not None  # a commit before this one was read: a case appearing now composes from here on
        for commit in commits:
            if previous_commit is None:
                gitrepo.extract_folder(top, commit.id, folder, tree)
                edits = None
            else:
                edits = _update(top, previous_commit, commit.id, folder, tree)
            previous_commit = commit.id
            if edits is not None:
                # Case ids come from the settings and the engine group's file names, so only an added or
                # removed file (edits is None) can list a case the matrix did not have.
                if not reading.listed:
                    continue
                if reading.read is not None and not any(_may_change(edit, reading.read, key) for edit in edits):
                    continue
            new = _value_at(here, case_id, key)
            seen.note(new)
            if not _same(reading.value, new.value):
                old_present, new_present = reading.value is not MISSING, new.value is not MISSING
                # Not a key added here: the case itself did not compose before (a value would appear from nothing).
                appears = walked and reading.read is None and new.read is not None
                changes.append(
                    KeyChange(
                        commit.id,
                        commit.date,
                        commit.subject,
                        reading.value if old_present else None,
                        new.value if new_present else None,
                        old_present,
                        new_present,
                        new_present,
                        (reading.why or "the case did not compose") if appears else "",
                    )
                )
            reading = new
            walked = True
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    told = None
    if off_line is not None and since is not None and start is not None:
        told = _since_off_line(settings, top, folder, since, off_line, start, case_id, key)
        seen.present |= told.present
    span = "up to HEAD" if since is None else f"after --since {since} up to HEAD"
    seen.answerable(key, case_id, span if off_line is None else f"from the merge base of {since} and HEAD up to HEAD")
    return changes, told


@dataclass
class _Walked:
    """What one walk saw, so that a question it cannot answer is an error and not "0 change(s)"."""

    present: bool = False  # the key had a value at some commit
    listed: bool = False  # the matrix had the case at some commit
    case_ids: set[str] = field(default_factory=set)
    last_tree: Any = None  # the latest composition of the case (only one is kept: verl's trees are large)

    def note(self, reading: _Reading) -> None:
        """Add one commit's reading."""
        self.present |= reading.value is not MISSING
        self.listed |= reading.listed
        self.case_ids.update(reading.case_ids)
        if reading.read is not None:
            self.last_tree = reading.tree

    def answerable(self, key: str, case_id: str, span: str) -> None:
        """Raise HistoryError, naming the nearest existing case or key, when the walk cannot answer."""
        if self.present:
            return
        if not self.listed:
            near = difflib.get_close_matches(case_id, sorted(self.case_ids), n=1, cutoff=0.0)
            hint = f"nearest existing case: {near[0]}" if near else "see `config-harness list`"
            raise HistoryError(f"case {case_id} is in no commit's matrix {span}; {hint}")
        if self.last_tree is None:
            raise HistoryError(f"case {case_id} composes at no commit {span}, so it never had {key}")
        near = difflib.get_close_matches(key, sorted(set(_node_paths(self.last_tree))), n=1, cutoff=0.0)
        hint = f"; nearest existing key: {near[0]}" if near else ""
        raise HistoryError(f"case {case_id} never had the key {key} {span}{hint}")


def _node_paths(tree: Any, prefix: str = "") -> Iterator[str]:
    """Every dotted path `lookup` answers in a plain tree: each mapping key, leaves and inner nodes alike."""
    if isinstance(tree, dict):
        for name, value in tree.items():
            path = join_path(prefix, name)
            yield path
            yield from _node_paths(value, path)


@dataclass(frozen=True)
class _Edit:
    path: str  # relative to the config folder
    old: bytes
    new: bytes


def _update(top: Path, old: str, new: str, folder: str, tree: Path) -> list[_Edit] | None:
    """Bring the scratch tree from commit `old` to `new` and return the edited files, or None when a file
    was added or removed (group listings may change, so the case must be composed again)."""
    edits = []
    structural = False
    prefix = f"{folder}/" if folder else ""
    for path in gitrepo.changed_files(top, old, new, folder):
        target = tree / path
        data = gitrepo.read_file(top, new, path)
        if data is None or not target.exists():
            target.unlink(missing_ok=True)
            structural = True
            if data is None:
                continue
            previous = b""
        else:
            try:
                previous = read_bytes(target, (tree,))
            except (OSError, InputLimitError):
                previous, structural = b"", True  # a link or an oversized file: compose again, never guess
        replace_file(target, data, inside=tree)
        edits.append(_Edit(path[len(prefix) :], previous, data))
    return None if structural else edits


def _may_change(edit: _Edit, read: Packages, key: str) -> bool:
    """Whether an edited file can change the key's unresolved value in a composition that read `read`."""
    if edit.path not in read:
        return False
    try:
        before, after = _parsed(edit.old), _parsed(edit.new)
    except (yaml.YAMLError, UnicodeDecodeError):
        return True
    if before[0] != after[0] or before[1].get("defaults") != after[1].get("defaults"):
        return True
    for package in read[edit.path]:
        if package and (package == key or package.startswith(key + ".")):
            return before[1] != after[1]  # the file writes inside the key's value
        relative = key if not package else key[len(package) + 1 :] if key.startswith(package + ".") else None
        if relative is not None and not _same(lookup(before[1], relative), lookup(after[1], relative)):
            return True
    return False


def _parsed(data: bytes) -> tuple[dict[str, str | None], dict[Any, Any]]:
    text = data.decode("utf-8")
    tree = parse_yaml(text)
    return hydra_compat.header_of(text), tree if isinstance(tree, dict) else {"": tree}


def _same(old: Any, new: Any) -> bool:
    if old is MISSING or new is MISSING:
        return old is new
    return same_value(old, new)
