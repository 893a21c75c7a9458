"""The signed disk cache: a value comes back only from an entry this user's key signed; a tampered, planted or
foreign entry is a miss and is deleted unread; the key is private; old and least recently used entries go first.
(Cache folders the CLI refuses, and a cache restored in CI: tests/integration/test_cache_security.py.)"""

import os
import stat
from pathlib import Path

import pytest

from harness.composition.store import (
    KEY_ENV,
    LIMIT_ENV,
    MAX_AGE_SECONDS,
    CacheRefused,
    SignedStore,
    entries,
    limit_bytes,
    load_key,
    open_store,
    prune,
)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    return open_store(tmp_path / "cache")


def test_a_value_comes_back_and_another_key_misses(store):
    store.put(b"k", {"tree": [1, 2]})
    assert store.get(b"k") == {"tree": [1, 2]} and store.get(b"other") is None
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700 and stat.S_IMODE((store.folder.parent / "cache.key").stat().st_mode) == 0o600


def test_a_tampered_or_foreign_entry_is_a_miss_and_is_deleted(store):
    store.put(b"k", "value")
    path = store.path(b"k")
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert store.get(b"k") is None and not path.exists()
    SignedStore(store.folder, b"another user's key, 32 bytes....").put(b"k", "planted")
    assert store.get(b"k") is None and not path.exists()


def test_a_planted_link_is_deleted_unread(store, tmp_path):
    (tmp_path / "target").write_text("secret")
    store.path(b"k").symlink_to(tmp_path / "target")
    assert store.get(b"k") is None and not store.path(b"k").is_symlink() and (tmp_path / "target").read_text() == "secret"


def test_the_key_from_the_environment_is_checked(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "zz")
    with pytest.raises(CacheRefused, match="is not hex"):
        load_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, "00" * 8)
    with pytest.raises(CacheRefused, match="shorter than 16 bytes"):
        load_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, "ab" * 16)
    assert load_key(tmp_path) == bytes.fromhex("ab" * 16)


def test_a_key_others_can_read_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    folder = tmp_path / "cache"
    folder.mkdir()
    load_key(folder)
    (tmp_path / "cache.key").chmod(0o644)
    with pytest.raises(CacheRefused, match="readable by group or others"):
        load_key(folder)


def test_pruning_removes_old_entries_then_the_least_recently_used(store):
    for name in ("a", "b", "c"):
        store.put(name.encode(), "x" * 1000)
    paths = {name: store.path(name.encode()) for name in ("a", "b", "c")}
    now = 10**9
    os.utime(paths["a"], (now - MAX_AGE_SECONDS - 1,) * 2)
    os.utime(paths["b"], (now - 10,) * 2)
    os.utime(paths["c"], (now,) * 2)
    assert prune(store.folder, 10**6, now=now) == 1 and not paths["a"].exists()
    size = paths["b"].stat().st_size
    # Over the cap by one byte: the least recently used goes, until under 80% of the cap.
    assert prune(store.folder, 2 * size - 1, now=now) == 1 and not paths["b"].exists() and paths["c"].exists()
    assert [entry.name for entry in entries(store.folder)] == [paths["c"].name]


def test_the_size_cap_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, "3")
    assert limit_bytes() == 3 * 1024 * 1024
    monkeypatch.setenv(LIMIT_ENV, "lots")
    assert limit_bytes() == 512 * 1024 * 1024


def test_the_code_digest_covers_every_subpackage(tmp_path):
    # Entries hold what rules and the runner made (a launch's findings): editing a module below the package root,
    # in any subpackage, must never read an old pickle (the digest once covered only composition/).
    from harness.composition.store import code_digest

    (tmp_path / "runner").mkdir()
    (tmp_path / "__init__.py").write_text("")
    module = tmp_path / "runner" / "launches.py"
    module.write_text("X = 1\n")
    before = code_digest(tmp_path)
    module.write_text("X = 2\n")
    assert code_digest(tmp_path) != before
    moved = code_digest(tmp_path)
    module.rename(tmp_path / "launches.py")  # the same bytes in another module are other code
    assert code_digest(tmp_path) not in (before, moved)
    import harness

    assert code_digest() == code_digest(Path(harness.__file__).parent)


def test_a_digest_depends_on_the_values_only_never_on_which_objects_are_shared():
    # A fresh composition shares its strings, the cache's copy does not: one digest for both, or a warm review
    # after a cold one misses every entry it keeps.
    from harness.composition.store import tree_digest

    text = "actor_rollout_ref.rollout"
    shared = {"a": text, "b": text, "c": [text]}
    fresh = {"a": "".join(["actor_rollout_ref", ".rollout"]), "b": text[:], "c": ["actor_rollout_ref." + "rollout"]}
    assert tree_digest(shared) == tree_digest(fresh) is not None
    # Equal values of other types or in another order are other inputs; a cycle has no digest.
    assert len({tree_digest({1: 2}), tree_digest({True: 2}), tree_digest({1.0: 2}), tree_digest({"1": 2})}) == 4
    assert tree_digest({"a": 1, "b": 2}) != tree_digest({"b": 2, "a": 1})
    cycle: list = []
    cycle.append(cycle)
    assert tree_digest(cycle) is None
