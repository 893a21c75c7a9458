"""The per-user cache of parsed files and compositions: a private folder the harness checks, entries signed.

A pull request controls the project (settings, configs, goldens), so nothing there may choose where pickles
are read from: the folder comes from `--cache-dir`, `CONFIG_HARNESS_CACHE_DIR` or the per-user default only,
must belong to this user and be writable by nobody else, and must not lie inside the project. A folder that
passes can still hold planted files (a CI cache restore), so every entry carries an HMAC made with a per-user
key kept outside the folder; an entry that does not verify is deleted unread.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import pickle
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra import __version__ as hydra_version
from omegaconf.version import __version__ as omegaconf_version

from harness import __version__ as harness_version
from harness.composition.session import current
from harness.gates.errors import BadInput
from harness.gates.escape import printable

ENTRY_SUFFIX = ".pickle"
MAGIC = b"config-harness cache v2\n"
KEY_ENV = "CONFIG_HARNESS_CACHE_KEY"  # hex; lets CI keep one key in a secret so a restored cache verifies
LIMIT_ENV = "CONFIG_HARNESS_CACHE_MAX_MB"
DEFAULT_LIMIT_MB = 512
MAX_AGE_SECONDS = 30 * 24 * 3600
PRUNE_EVERY_SECONDS = 600


def code_digest(package: Path = Path(__file__).parents[1]) -> bytes:
    """Every module of the whole package, subpackages included: entries hold what readers, rules and the runner made
    (a launch's findings, a comparison), so any change to the code never reads an old pickle."""
    digest = hashlib.blake2b(digest_size=16)
    for module in sorted(package.rglob("*.py")):
        digest.update(module.relative_to(package).as_posix().encode() + b"\0" + module.read_bytes())
    return digest.digest()


# Everything besides an entry's own key that shapes what it holds; part of every entry name.
CACHE_FORMAT = (
    f"config-harness {harness_version} hydra {hydra_version} omegaconf {omegaconf_version} python {sys.version_info[:2]} ".encode()
    + code_digest()
)


def tree_digest(*parts: Any) -> bytes | None:
    """A digest of plain values (composed trees, names): equal digests mean equal inputs, so a comparison's result
    can be reused. Pickled bytes tell 1, 1.0 and True apart, and keep key order, where == does not: two trees that
    compare equal yet differ in those ways only get two digests (a miss, never a wrong answer). None when a part
    does not pickle.

    Pickled without its memo (`fast`): the memo writes an object met twice as a reference to the first, so the same
    values pickled from a fresh composition (where strings are shared) and from the cache (where they are not) gave
    two digests, and a warm run after a cold one missed every entry."""
    digest = _Digest()
    pickler = pickle.Pickler(digest, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: bytes depend on the values only; a cycle raises instead of being referenced
    try:
        pickler.dump(parts)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return digest.hash.digest()


class _Digest:
    """A file-like sink for a pickler: hashes what it is given instead of holding the pickle."""

    def __init__(self) -> None:
        self.hash = hashlib.blake2b(digest_size=20)

    def write(self, data: bytes) -> int:
        self.hash.update(data)
        return len(data)


class CacheRefused(BadInput):
    """The cache folder (or its key) is not safe to read pickles from; the message says why."""


def euid() -> int:
    """This process's effective user id."""
    return os.geteuid()


def check_private(status: os.stat_result, path: Path, kind: str) -> None:
    """Refuse what another user owns or can write."""
    if status.st_uid != euid():
        raise CacheRefused(f"{kind} {path} belongs to uid {status.st_uid}, not to this user (uid {euid()})")
    if status.st_mode & 0o022:
        raise CacheRefused(f"{kind} {path} is writable by group or others (mode {stat.S_IMODE(status.st_mode):o})")


def project_of(folder: Path) -> Path:
    """The git top level holding `folder` (the folder itself outside git): the pull request's territory."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def open_folder(folder: Path, project: Path | None = None) -> Path:
    """Create (0700) or check the cache folder; raise CacheRefused when it is not private to this user."""
    folder = Path(os.path.abspath(folder))
    if project is not None:
        top = project_of(Path(os.path.abspath(project)))
        if folder == top or top in folder.parents:
            raise CacheRefused(f"cache folder {folder} is inside the project {top}, which a pull request controls")
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise CacheRefused(f"cannot create cache folder {folder}: {error.strerror}") from None
    status = folder.lstat()
    if not stat.S_ISDIR(status.st_mode):
        raise CacheRefused(f"cache folder {folder} is not a folder (a symlink or a file)")
    check_private(status, folder, "cache folder")
    return folder


def key_path(folder: Path) -> Path:
    """The signing key's file: beside the folder, so restoring the folder never restores the key."""
    return folder.parent / f"{folder.name}.key"


def load_key(folder: Path) -> bytes:
    """The per-user signing key: from CONFIG_HARNESS_CACHE_KEY, else a 0600 file beside the folder (made once)."""
    configured = os.environ.get(KEY_ENV)
    if configured:
        try:
            key = bytes.fromhex(configured)
        except ValueError:
            raise CacheRefused(f"{KEY_ENV} is not hex") from None
        if len(key) < 16:
            raise CacheRefused(f"{KEY_ENV} is shorter than 16 bytes")
        return key
    path = key_path(folder)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        pass
    except OSError as error:
        raise CacheRefused(f"cannot create cache key {path}: {error.strerror}") from None
    else:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(32))
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise CacheRefused(f"cannot open cache key {path}: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        check_private(status, path, "cache key")
        if status.st_mode & 0o077:
            raise CacheRefused(f"cache key {path} is readable by group or others (mode {stat.S_IMODE(status.st_mode):o})")
        key = handle.read()
    if len(key) != 32:
        raise CacheRefused(f"cache key {path} is not 32 bytes; delete it and a new one is made")
    return key


def limit_bytes() -> int:
    """The cache's size cap (CONFIG_HARNESS_CACHE_MAX_MB, default 512 MiB)."""
    try:
        return max(1, int(os.environ.get(LIMIT_ENV, DEFAULT_LIMIT_MB))) * 1024 * 1024
    except ValueError:
        return DEFAULT_LIMIT_MB * 1024 * 1024


def entries(folder: Path) -> Iterator[os.DirEntry[str]]:
    """The cache's entry files (and leftovers of interrupted writes)."""
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.name.endswith(ENTRY_SUFFIX) or entry.name.endswith(".tmp"):
                    yield entry
    except OSError:
        return


def prune(folder: Path, limit: int, now: float | None = None) -> int:
    """Delete entries unused for MAX_AGE_SECONDS, then the least recently used until under 80% of `limit`."""
    now = time.time() if now is None else now
    found = []
    for entry in entries(folder):
        try:
            status = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        found.append((status.st_mtime, status.st_size, entry.path))
    found.sort()
    total = sum(size for _, size, _ in found)
    target = limit * 0.8 if total > limit else limit
    removed = 0
    for mtime, size, path in found:  # oldest first
        if now - mtime <= MAX_AGE_SECONDS and total <= target:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _prune_now(folder: Path) -> bool:
    # Once per PRUNE_EVERY_SECONDS per folder: a stamp file's mtime says when the last prune ran.
    stamp = folder / ".pruned"
    try:
        if time.time() - stamp.stat().st_mtime < PRUNE_EVERY_SECONDS:
            return False
    except OSError:
        pass
    stamp.touch()
    return True


MAX_ENTRY_BYTES = 256 * 1024 * 1024


def _read_regular(path: Path) -> bytes | None:
    """An entry's bytes; None when absent. A planted symlink, FIFO, device or huge file is deleted unread."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError:  # a symlink (ELOOP) or something else unreadable: not ours
        path.unlink(missing_ok=True)
        return None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size <= MAX_ENTRY_BYTES:
            return handle.read()
    path.unlink(missing_ok=True)
    return None


@dataclass(frozen=True)
class SignedStore:
    """Pickles in a checked folder, each named by a digest of its key and signed with the user's key."""

    folder: Path
    key: bytes

    def path(self, key: bytes) -> Path:
        """The file of an entry."""
        return self.folder / f"{hashlib.blake2b(CACHE_FORMAT + key, digest_size=20).hexdigest()}{ENTRY_SUFFIX}"

    def _mac(self, name: str, payload: bytes) -> bytes:
        return hmac.new(self.key, name.encode() + b"\0" + payload, hashlib.sha256).digest()

    def get(self, key: bytes) -> Any:
        """The value stored under `key`, or None; an entry that does not verify is deleted without being read."""
        path = self.path(key)
        data = _read_regular(path)
        if data is None:
            return None
        head = len(MAGIC) + 32
        if not (data.startswith(MAGIC) and hmac.compare_digest(data[len(MAGIC) : head], self._mac(path.name, data[head:]))):
            path.unlink(missing_ok=True)
            return None
        try:
            value = pickle.loads(data[head:])
        except Exception:  # signed by us, yet unreadable (a class that moved): a miss, rewritten by the caller
            return None
        try:
            os.utime(path)  # recently used: pruning removes the least recently used first
        except OSError:
            pass
        return value

    def put(self, key: bytes, value: Any) -> None:
        """Store `value` under `key` atomically (a rename); a full or read-only disk just runs without it."""
        path = self.path(key)
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        data = MAGIC + self._mac(path.name, payload) + payload
        # No fsync: a torn entry fails its signature and is a miss, never a wrong answer.
        try:
            handle = tempfile.NamedTemporaryFile(dir=self.folder, prefix=f".{path.name}.", suffix=".tmp", delete=False)
        except OSError:
            return
        try:
            with handle:
                handle.write(data)
            os.replace(handle.name, path)
        except OSError:
            Path(handle.name).unlink(missing_ok=True)


def open_store(folder: Path, project: Path | None = None) -> SignedStore:
    """The signed store in `folder` (checked, created 0700, pruned now and then); raise CacheRefused."""
    checked = open_folder(folder, project)
    store = SignedStore(checked, load_key(checked))
    if _prune_now(checked):
        prune(checked, limit_bytes())
    return store


@contextlib.contextmanager
def store_open(folder: Path | None, project: Path) -> Iterator[None]:
    """The session's store open for `project` while the block runs (what `cache_get` and `cache_put` use outside a
    Hydra session: reading launch scripts), unless one is open already or the cache is off; a refused folder is said
    once and the block runs without it."""
    session = current()
    if folder is None or session.store is not None:
        yield
        return
    try:
        session.store = open_store(folder, project=project)
    except CacheRefused as error:
        warn_refused(error)
    try:
        yield
    finally:
        session.store = None


def warn_refused(error: CacheRefused) -> None:
    """Say once per session why the cache is off (the run goes on without it)."""
    message = f"config-harness: warning: cache off: {error}"
    if current().warn_once(message):
        print(printable(message), file=sys.stderr)


def cache_get(key: bytes) -> Any:
    """The value the session's store holds under `key`, or None (also when the cache is off)."""
    store = current().store
    return None if store is None else store.get(key)


def cache_put(key: bytes, value: Any) -> None:
    """Store `value` under `key` in the session's store (nothing when the cache is off)."""
    store = current().store
    if store is not None:
        store.put(key, value)


# How many entries one key keeps, each with what it read: a review composes the same config name and overrides in
# two trees (the working tree and its base, both named relative to their config folder), whose reads differ
# where the pull request changed a file; with one entry per key each side would evict the other's on every run.
VARIANTS = 4


def cache_variants(key: bytes) -> list[Any]:
    """The entries stored under `key` (newest first; empty when none, or when the cache is off)."""
    value = cache_get(key)
    return value if isinstance(value, list) else []


def cache_add_variant(key: bytes, value: Any, replaces: Callable[[Any], bool]) -> None:
    """Store `value` first among `key`'s entries, dropping those `replaces` says it stands for and the oldest past
    VARIANTS (two runs adding at once may lose one entry: a miss later, never a wrong answer)."""
    if current().store is None:
        return
    kept = [entry for entry in cache_variants(key) if not replaces(entry)]
    cache_put(key, [value, *kept[: VARIANTS - 1]])
