"""No pickle from anything a pull request controls: the settings cannot pick the cache folder, the folder must
be private to this user and outside the project, and every entry must carry this user's signature."""

from __future__ import annotations

import os
import pickle
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness.composition.session import forget_content
from harness.composition.store import MAGIC, CacheRefused, SignedStore, key_path, open_store, prune
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree


class Planted:
    """A pickle that, when loaded, creates a folder: proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def planted_entry(marker: Path, signature: bytes = b"\0" * 32) -> bytes:
    return MAGIC + signature + pickle.dumps(Planted(marker))


def plant_everywhere(folder: Path, marker: Path, names: list[str]) -> None:
    """Attacker's files under every name the harness could read (the names are computable offline)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(planted_entry(marker))


def entry_names(project: Path, cli, cache: Path) -> list[str]:
    """The entry names a run over the project uses (found with a clean cache of our own)."""
    assert cli("--settings", "harness.toml", "--cache-dir", str(cache), "generate", cwd=project).code == 0
    return sorted(p.name for p in cache.glob("*.pickle"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_tree(root / "conf", SMALL_TREE)
    (root / "harness.toml").write_text(SMALL_SETTINGS)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_settings_cannot_choose_the_cache_folder(project, cli, monkeypatch):
    (project / "harness.toml").write_text(
        SMALL_SETTINGS.replace('snapshot_dir = "snapshots"', 'snapshot_dir = "snapshots"\ncache_dir = "ci-cache"')
    )
    run = cli("--settings", "harness.toml", "check", cwd=project)
    assert run.code == 2 and "cache_dir is not a setting" in run.err and "CONFIG_HARNESS_CACHE_DIR" in run.err


def test_a_cache_folder_inside_the_project_is_refused(project, cli, monkeypatch, tmp_path):
    names = entry_names(project, cli, tmp_path / "clean")
    marker = tmp_path / "code-ran"
    plant_everywhere(project / "ci-cache", marker, names)
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(project / "ci-cache"))
    run = cli("--settings", "harness.toml", "check", cwd=project)
    assert run.code == 0 and not marker.exists()
    assert "cache off" in run.err and "inside the project" in run.err


def test_planted_entries_with_our_owner_are_dropped_unread(project, cli, monkeypatch, tmp_path):
    # As after an actions/cache restore: the folder is ours and private, the files in it are not.
    cache = tmp_path / "restored"
    names = entry_names(project, cli, cache)
    marker = tmp_path / "code-ran"
    plant_everywhere(cache, marker, names)
    forget_content()  # as a new process starts: every entry is looked up on disk again, none in memory
    run = cli("--settings", "harness.toml", "--cache-dir", str(cache), "check", cwd=project)
    assert run.code == 0 and not marker.exists(), run.err
    assert not any(cache.glob("*.pickle")) or all(
        not p.read_bytes().endswith(pickle.dumps(Planted(marker))) for p in cache.glob("*.pickle")
    )


def test_the_folder_is_created_private_and_the_key_lives_beside_it(tmp_path):
    folder = tmp_path / "fresh" / "cache"
    store = open_store(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    key = key_path(folder)
    assert key.parent == folder.parent and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert store.key == key.read_bytes() and len(store.key) == 32
    store.put(b"k", {"a": 1})
    assert store.get(b"k") == {"a": 1}
    assert SignedStore(folder, b"another user's key!!" + b"\0" * 12).get(b"k") is None  # and it is gone
    assert store.get(b"k") is None


def test_a_group_or_world_writable_folder_is_refused(project, cli, monkeypatch, tmp_path):
    cache = tmp_path / "shared-cache"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(cache))
    run = cli("--settings", "harness.toml", "check", cwd=project)
    assert "cache off" in run.err and "writable by group or others" in run.err
    assert not any(cache.glob("*.pickle"))


def other_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("needs root, to hand a folder to a second user (nobody)")
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no 'nobody' user on this machine")


def test_a_folder_owned_by_another_user_is_refused(project, cli, monkeypatch, tmp_path):
    nobody = other_user()
    cache = tmp_path / "foreign-cache"
    names = entry_names(project, cli, tmp_path / "clean")
    marker = tmp_path / "code-ran"
    plant_everywhere(cache, marker, names)
    cache.chmod(0o700)
    os.chown(cache, nobody.pw_uid, nobody.pw_gid)
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(cache))
    run = cli("--settings", "harness.toml", "check", cwd=project)
    assert run.code == 0 and not marker.exists()
    assert "cache off" in run.err and f"belongs to uid {nobody.pw_uid}" in run.err


def test_a_key_planted_by_another_user_is_refused(project, cli, monkeypatch, tmp_path):
    # Beside a cache folder in a shared place, another user may create the key file first.
    nobody = other_user()
    cache = tmp_path / "cache"
    key = key_path(cache)
    key.write_bytes(b"k" * 32)
    key.chmod(0o600)
    os.chown(key, nobody.pw_uid, nobody.pw_gid)
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(cache))
    run = cli("--settings", "harness.toml", "check", cwd=project)
    assert "cache off" in run.err and "cache key" in run.err
    assert not any(cache.glob("*.pickle"))


def test_as_the_second_user_a_root_owned_folder_is_foreign(tmp_path):
    # The same check from the other side: a forked child that became nobody refuses root's folder.
    nobody = other_user()
    shared = Path(tempfile.mkdtemp(prefix="config-harness-second-user-"))  # pytest's own folders are root-only
    shared.chmod(0o755)
    cache = shared / "root-owned"
    cache.mkdir(mode=0o755)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            try:
                open_store(cache)
                answer = "accepted"
            except CacheRefused as error:
                answer = f"refused: {error}"
            os.write(write_end, answer.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    with os.fdopen(read_end) as pipe:
        answer = pipe.read()
    shutil.rmtree(shared)
    assert answer.startswith("refused:") and "belongs to uid 0" in answer, answer


def test_cache_clear_works_outside_a_project(cli, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    store = open_store(cache)
    store.put(b"a", 1)
    store.put(b"b", 2)
    (cache / ".x.pickle.tmp").write_bytes(b"left by a killed run")
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(cache))
    elsewhere = tmp_path / "no-project"
    elsewhere.mkdir()
    (cache / "trees" / "0123abcd" / "conf").mkdir(parents=True)  # a base tree a review kept
    shown = cli("cache", cwd=elsewhere)
    assert shown.code == 0 and "3 entries" in shown.out and "1 kept base trees" in shown.out
    cleared = cli("cache", "--clear", cwd=elsewhere)
    assert cleared.code == 0 and cleared.out.startswith("cleared 3 entries and 1 kept base trees")
    assert not any(cache.glob("*.pickle")) and not any(cache.glob("*.tmp")) and not (cache / "trees").exists()
    assert cli("--no-cache", "cache", cwd=elsewhere).out.strip() == "cache: off"


def test_the_cache_is_capped_least_recently_used_first(tmp_path):
    store = open_store(tmp_path / "cache")
    for index in range(10):
        store.put(str(index).encode(), b"x" * 1000)
        os.utime(store.path(str(index).encode()), (1000 + index, 1_000_000_000 + index))
    store.get(b"0")  # used now: the newest
    removed = prune(store.folder, limit=6000, now=1_000_000_100)
    assert removed >= 5
    assert store.get(b"0") is not None and store.get(b"1") is None and store.get(b"9") is not None
    total = sum(p.stat().st_size for p in store.folder.glob("*.pickle"))
    assert total <= 6000


def test_entries_unused_for_a_month_are_pruned(tmp_path):
    store = open_store(tmp_path / "cache")
    store.put(b"old", 1)
    store.put(b"new", 2)
    old = store.path(b"old")
    os.utime(old, (0, old.stat().st_mtime - 40 * 24 * 3600))
    prune(store.folder, limit=10**9)
    assert not old.exists() and store.get(b"new") == 2


def test_planted_links_and_fifos_are_dropped_without_blocking(tmp_path):
    store = open_store(tmp_path / "cache")
    secret = tmp_path / "secret"
    secret.write_bytes(MAGIC + b"\0" * 32 + b"not ours")
    store.path(b"link").symlink_to(secret)
    os.mkfifo(store.path(b"fifo"))
    assert store.get(b"link") is None and store.get(b"fifo") is None
    assert not store.path(b"link").exists() and not os.path.lexists(store.path(b"fifo"))
    assert secret.exists()
