"""`log`: the commits where one key of one case changed its composed value, walking the config tree's history.

Only commits that touch the config tree are visited, and a commit whose changed files the case never read
(and that adds or removes no file) cannot change the composition, so it is skipped without composing.
One scratch copy of the tree is updated file by file; parsed files are reused across commits by content.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness import gitrepo
from harness.cases import open_matrix
from harness.compose import ComposeError
from harness.resolve import MISSING, lookup
from harness.render import to_plain
from harness.settings import Settings, SettingsError


@dataclass(frozen=True)
class KeyChange:
    """One commit where the key's unresolved value changed (`exists` says whether it exists after it)."""

    commit: str
    date: str
    subject: str
    old: Any
    new: Any
    exists: bool


def _value_at(settings: Settings, case_id: str, key: str) -> tuple[Any, frozenset[str] | None]:
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
    read = frozenset(os.path.normpath(f"{entry.config_path}.yaml") for entry in entries)
    return lookup(to_plain(config), key), read


def key_history(settings: Settings, key: str, case_id: str, since: str | None = None) -> list[KeyChange]:
    """Every commit (oldest first) after which `key` of `case_id` composes to another value."""
    top = gitrepo.toplevel(settings.config_dir)
    folder = gitrepo.inside(top, settings.config_dir)
    commits = gitrepo.history(top, folder, since)
    changes: list[KeyChange] = []
    scratch = Path(tempfile.mkdtemp(prefix="config-harness-log-"))
    try:
        tree = scratch / "tree"
        here = replace(settings, config_dir=tree / folder if folder else tree)
        previous_commit = None
        value: Any = MISSING
        read: frozenset[str] | None = None
        if since is not None:
            previous_commit = gitrepo.verify_ref(top, since)
            gitrepo.extract_folder(top, previous_commit, folder, tree)
            value, read = _value_at(here, case_id, key)
        for commit in commits:
            if previous_commit is None:
                gitrepo.extract_folder(top, commit.id, folder, tree)
                touched = None
            else:
                touched = _update(top, previous_commit, commit.id, folder, tree)
            previous_commit = commit.id
            if touched is not None and read is not None and not touched & read:
                continue  # nothing the case reads changed, and no file came or went
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


def _update(top: Path, old: str, new: str, folder: str, tree: Path) -> frozenset[str] | None:
    """Bring the scratch tree from commit `old` to `new`; the edited files (relative to the config folder),
    or None when a file was added or removed (group listings may change, so everything must recompose)."""
    edited = set()
    structural = False
    prefix = f"{folder}/" if folder else ""
    for path in gitrepo.changed_files(top, old, new, folder):
        target = tree / path
        data = gitrepo.read_file(top, new, path)
        if data is None:
            target.unlink(missing_ok=True)
            structural = True
            continue
        structural = structural or not target.exists()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        edited.add(path[len(prefix):])
    return None if structural else frozenset(edited)


def _same(old: Any, new: Any) -> bool:
    from harness.diff import same_value

    if old is MISSING or new is MISSING:
        return old is new
    return same_value(old, new)
