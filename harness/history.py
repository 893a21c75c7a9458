"""`log`: the commits where one key of one case changed its composed value, walking the config tree's history.

Only commits that touch the config tree are visited. A commit that adds or removes no file, and whose edited
files the case either never read or read without a change that could reach the key (same `# @package`
header, same defaults list, same value at the key's path once parsed), cannot change the key's unresolved
value, so it is skipped without composing. One scratch copy of the tree is updated file by file; parsed
files are reused across commits by content.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from harness import gitrepo, hydra_compat
from harness.cases import open_matrix
from harness.compose import ComposeError
from harness.reader import InputLimitError, read_bytes
from harness.render import parse_yaml, to_plain
from harness.resolve import MISSING, lookup
from harness.settings import Settings, SettingsError
from harness.writer import replace_file


@dataclass(frozen=True)
class KeyChange:
    """One commit where the key's unresolved value changed (`exists` says whether it exists after it)."""

    commit: str
    date: str
    subject: str
    old: Any
    new: Any
    exists: bool


Packages = dict[str, frozenset[str]]  # a file the composition read (relative to the tree) -> its packages


def _value_at(settings: Settings, case_id: str, key: str) -> tuple[Any, Packages | None]:
    """The key's unresolved value in the case (MISSING when absent or uncomposable) and the files it read."""
    try:
        with open_matrix(settings, strict=False) as (session, cases):
            case = next((c for c in cases if c.id == case_id), None)
            if case is None:
                return MISSING, None
            config = session.compose(case.config_name, case.overrides)
            entries = session.defaults_entries(case.config_name, case.overrides)
    except (ComposeError, SettingsError):
        return MISSING, None
    # The files Hydra loaded from the config folder itself (search path folders are outside its history).
    read: dict[str, set[str]] = {}
    for entry in entries:
        if entry.folder == 0:
            read.setdefault(os.path.normpath(entry.file_name), set()).add(entry.package)
    return lookup(to_plain(config), key), {path: frozenset(packages) for path, packages in read.items()}


def key_history(settings: Settings, key: str, case_id: str, since: str | None = None) -> list[KeyChange]:
    """Every commit (oldest first) after which `key` of `case_id` composes to another value."""
    top = gitrepo.toplevel(settings.config_dir)
    folder = gitrepo.inside(top, settings.config_dir)
    commits = gitrepo.history(top, folder, since)
    changes: list[KeyChange] = []
    scratch = Path(tempfile.mkdtemp(prefix="config-harness-log-"))
    try:
        tree = scratch / "tree"
        # Parsed files are reused in memory by content; one-off compositions are not worth the disk cache.
        here = replace(settings, config_dir=tree / folder if folder else tree, cache_dir=None)
        previous_commit = None
        value: Any = MISSING
        read: Packages | None = None
        if since is not None:
            previous_commit = gitrepo.verify_ref(top, since)
            gitrepo.extract_folder(top, previous_commit, folder, tree)
            value, read = _value_at(here, case_id, key)
        for commit in commits:
            if previous_commit is None:
                gitrepo.extract_folder(top, commit.id, folder, tree)
                edits = None
            else:
                edits = _update(top, previous_commit, commit.id, folder, tree)
            previous_commit = commit.id
            if edits is not None and read is not None and not any(_may_change(edit, read, key) for edit in edits):
                continue
            new_value, read = _value_at(here, case_id, key)
            if _same(value, new_value):
                continue
            exists = new_value is not MISSING
            changes.append(KeyChange(
                commit.id, commit.date, commit.subject,
                None if value is MISSING else value, new_value if exists else None, exists,
            ))
            value = new_value
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return changes


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
        edits.append(_Edit(path[len(prefix):], previous, data))
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


def _parsed(data: bytes) -> tuple[dict[str, str | None], Any]:
    text = data.decode("utf-8")
    tree = parse_yaml(text)
    return hydra_compat.header_of(text), tree if isinstance(tree, dict) else {"": tree}


def _same(old: Any, new: Any) -> bool:
    from harness.diff import same_value

    if old is MISSING or new is MISSING:
        return old is new
    return same_value(old, new)
