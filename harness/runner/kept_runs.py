"""A whole review, kept by everything that decides it (issue 52: nothing changed costs nothing).

A review's result is a function of its inputs, and a warm review with nothing changed takes it whole: it composes,
reads and compares nothing. What decides it, all in the key or checked again before the result is taken:

- the harness (its code and versions name every cache entry: `store.CACHE_FORMAT`), the command line, the working
  folder, the whole environment (a config may read any variable) and the day in UTC (waivers expire);
- the base's commit (what lies there never changes) and the working tree as git sees it: the commit checked out,
  `git status` with the bytes of every file it names changed or not yet added, and the ignored names git lists (an
  ignored folder as one name), so a file created, edited or deleted anywhere git looks is a new key;
- every folder the settings of either side name (config folders, search path with `pkg://` packages' installed
  folders, folders outside the project, Python sources, goldens, contracts, the wheel's unpacked tree): each
  entry's name, size, times and inode, ignored or not;
- every file the run asked the one reader for (gates.reader, in every process of the run): where it leads now and
  its bytes' digest, or that it is absent, checked again before the result is taken.

Not kept, so reviewed in full every time: without a cache (`--no-cache`), or where the settings import schema
modules (what they register lies outside the files a run reads). Left out knowingly: a file created inside a folder git
ignores, where the run read nothing, which no setting names (a script's `[ -f ignored/x ]` test); docs/performance.md
says so.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.baselines import gitrepo
from harness.composition.store import CacheRefused, SignedStore, open_store, tree_digest
from harness.gates.budget import InputLimitError
from harness.gates.confine import Scope, UnsafeInput
from harness.gates.reader import NotAFile, read_bytes
from harness.model.settings import Settings
from harness.rules.contracts import utc_today

KEPT_RUN = b"kept review\0"
# Entries of the folders the settings name, past which a review is not kept (a walk of a huge folder would cost
# what the review saves).
MAX_NAMED_ENTRIES = 200_000
MAX_SUBMODULE_DEPTH = 4
# Files `git status` names changed or new, past which a review is not kept (each is digested for the key).
MAX_STATUS_ENTRIES = 20_000


@dataclass(frozen=True)
class KeptRun:
    """Where a review's result is kept, and under which key (the inputs it was computed from)."""

    store: SignedStore
    key: bytes
    scope: Scope  # where a file may be read again: what either side's settings let the run read

    def taken(self) -> Any | None:
        """The kept result, when every file the run that kept it asked for is as it was then; else None."""
        entry = self.store.get(self.key)
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], tuple)):
            return None
        asked, value = entry
        return value if all(fingerprint(path, self.scope) == seen for path, seen in asked) else None

    def keep(self, value: Any, asked: Iterable[str]) -> None:
        """Keep `value` with the fingerprint of every file the run asked for."""
        self.store.put(self.key, (tuple((path, fingerprint(path, self.scope)) for path in sorted(asked)), value))


def kept_review(arguments: dict[str, Any], head: Settings, base: Settings | None, commit: str) -> KeptRun | None:
    """The place of this review's result in the cache, or None when it is not kept (see the module's docstring)."""
    cache_dir = head.cache_dir
    if cache_dir is None:
        return None
    if base is not None:  # what the review may read outside the project is the base's to say, never the change's
        head = replace(head, read_outside=base.read_outside)
    top = gitrepo.toplevel(head.origin)
    tree = working_tree(top)
    folders = named_folders(head, base)
    if tree is None or folders is None or any(s.schemas for s in (head, base) if s is not None):
        return None
    environment = hashlib.blake2b(repr(sorted(os.environ.items())).encode("utf-8", "surrogateescape")).digest()
    day = utc_today().isoformat()
    key = tree_digest(sorted(arguments.items()), os.getcwd(), environment, day, commit, tree, folders)
    if key is None:
        return None
    try:
        sides = [side for side in (head, base) if side is not None]
        scope = tuple(dict.fromkeys(folder for side in sides for folder in (*side.read_scope, *side.search_path)))
        return KeptRun(open_store(cache_dir, project=top), KEPT_RUN + key, scope)
    except CacheRefused:
        return None


def working_tree(top: Path, depth: int = 0) -> bytes | None:
    """The working tree as git sees it: the commit checked out and `git status` (every tracked file changed and every
    file not yet added, with the digest of its bytes), every ignored name (an ignored folder as one), and each
    submodule the same way when it is checked out (else its folder's entries). None past MAX_SUBMODULE_DEPTH or
    MAX_STATUS_ENTRIES."""
    if depth > MAX_SUBMODULE_DEPTH:
        return None
    status = gitrepo.git(top, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all")
    ignored = gitrepo.git(top, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
    digest = hashlib.blake2b(status + b"\0\0" + ignored)
    entries = status.split(b"\0")
    if len(entries) > MAX_STATUS_ENTRIES:
        return None
    for entry in entries:
        # Changed or new files: `1 XY ... path`, `2 XY ... path` (renamed; its old name follows as an entry of its
        # own), `u XY ... path` (unmerged), `? path`. Their bytes in the working tree, which `status` does not give.
        if entry[:2] in (b"1 ", b"2 ", b"u ", b"? "):
            name = entry.split(b" ", {b"1 ": 8, b"2 ": 9, b"u ": 10, b"? ": 1}[entry[:2]])[-1]
            digest.update(b"\0" + name + b"\0" + repr(fingerprint(str(top / os.fsdecode(name)), (top,))).encode())
    for name in ignored.split(b"\0"):
        if name and not name.endswith(b"/"):  # an ignored file: its size and times (it may be large: not its bytes)
            digest.update(b"\0" + name + b"\0" + repr(_entry_stat(str(top / os.fsdecode(name)))).encode())
    for link in sorted(gitrepo.gitlinks(top)):  # a submodule's files are not in the lists above
        folder = top / link
        digest.update(f"\0{link}\0{_entry_stat(str(folder))}".encode("utf-8", "surrogateescape"))
        if (folder / ".git").exists():
            inner = working_tree(folder, depth + 1)
            if inner is None:
                return None
            digest.update(inner)
        elif folder.is_dir():
            digest.update(repr(sorted(os.listdir(folder))).encode("utf-8", "surrogateescape"))
    return digest.digest()


def named_folders(*sides: Settings | None) -> bytes | None:
    """Every entry of every folder and file the settings of either side name: name, kind, size, times and inode
    (no bytes: the reader's record and git's status say what was read and changed); a `pkg://` entry is its
    installed folder. None past MAX_NAMED_ENTRIES."""
    paths: set[str] = set()
    for settings in sides:
        if settings is None:
            continue
        paths.update(str(p) for p in (settings.config_dir, settings.snapshot_dir, *settings.contracts, *settings.search_path))
        paths.update(str(p) for p in (*settings.read_outside, *settings.python_sources, *settings.named))
        if settings.source is not None:
            paths.add(str(settings.source.into))
    digest = hashlib.blake2b()
    count = 0
    for path in sorted(paths):
        digest.update(f"\0{path}\0{_entry_stat(path)}".encode("utf-8", "surrogateescape"))
        for folder, children, files in os.walk(path):
            children.sort()
            for name in sorted(files) + children:
                count += 1
                if count > MAX_NAMED_ENTRIES:
                    return None
                full = os.path.join(folder, name)
                digest.update(f"\0{full}\0{_entry_stat(full)}".encode("utf-8", "surrogateescape"))
    return digest.digest()


def _entry_stat(path: str) -> tuple[int, ...] | None:
    """What changes when an entry is written, replaced or swapped for a link (ctime cannot be set back)."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (stat.S_IFMT(found.st_mode), found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino)


def fingerprint(path: str, scope: Scope) -> tuple[str, str]:
    """Where `path` leads now and what the one reader gets there, confined to `scope` as the run was (a link out of
    it is never followed to be digested): the digest of its bytes, or why it gets none."""
    try:
        data = read_bytes(path, scope)
    except FileNotFoundError:
        return os.path.realpath(path), "absent"
    except (NotAFile, UnsafeInput, InputLimitError, OSError) as error:
        return os.path.realpath(path), type(error).__name__
    return os.path.realpath(path), hashlib.blake2b(data, digest_size=20).hexdigest()
