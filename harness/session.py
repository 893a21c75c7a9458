"""The one owner of process state: caches, the composition recorder, the read scope, shared Hydra work,
the hand-off to forked workers and scratch folders. Nothing else in the package keeps module-level state.

`with Session():` installs what the harness puts into Hydra and OmegaConf (recording config sources and
resolvers) and removes it on exit, so that afterwards both are exactly as they were; scratch folders made
inside are deleted then. Sessions nest: an inner one shares the outer one's caches and installs nothing.
Code running outside any session (a library call, a unit test) gets an idle session: caches that live as
long as the call's objects, nothing installed, scratch folders removed at interpreter exit.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ContentCaches:
    """Caches keyed by content, so they live as long as the process: an edit is a new key, never a stale hit.

    Every session shares them, so a pytest run or a loop of commands parses Hydra's own configs and an unchanged
    file once; each is emptied when it grows past MAX_ENTRIES, so a long process stays bounded.
    """

    parsed: dict[tuple[str, bytes], Any] = field(default_factory=dict)  # compose.parse_file
    file_leaves: dict[tuple[str, bytes], Any] = field(default_factory=dict)  # provenance.file_leaves
    overrides: dict[str, Any] = field(default_factory=dict)  # overrides.parse: Hydra override text -> parsed
    # compose: a ConfigStore node (kept, so its id is never reused) -> its ParsedFile, or None when it cannot be pickled
    structured: dict[int, tuple[Any, Any]] = field(default_factory=dict)

    def bound(self, limit: int) -> None:
        """Empty every cache holding more than `limit` entries."""
        for cache in (self.parsed, self.file_leaves, self.overrides, self.structured):
            if len(cache) > limit:
                cache.clear()


MAX_ENTRIES = 20_000
_CONTENT = ContentCaches()


@dataclass(eq=False)
class Session:
    """Every piece of state the harness keeps between calls, for one command, one pytest run or one test."""

    parsed: dict[tuple[str, bytes], Any] = field(default_factory=lambda: _CONTENT.parsed)
    file_leaves: dict[tuple[str, bytes], Any] = field(default_factory=lambda: _CONTENT.file_leaves)
    overrides: dict[str, Any] = field(default_factory=lambda: _CONTENT.overrides)
    structured: dict[int, tuple[Any, Any]] = field(default_factory=lambda: _CONTENT.structured)
    # Answers of structured (ConfigStore) sources: ConfigStore registrations may change between sessions.
    stable_answers: dict[Any, Any] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)  # warnings said once
    scratch: list[Path] = field(default_factory=list)  # folders deleted when the session ends
    # State of the Hydra session that is open now (set and cleared by compose.HydraSession).
    scope: tuple[Path, ...] = ()  # where config files may be read from; empty: no confinement
    anchor: str = ""  # the config folder composition traces name files relative to (harness.trace.located)
    store: Any = None  # the signed disk cache (cache.SignedStore), or None when off
    recorder: Any = None  # trace.Recorder of the composition running now
    heads: dict | None = None  # merged heads of Hydra's own defaults, shared between compositions
    handoff: Any = None  # parallel: the work, cases and queue that forked workers inherit
    _restore: Any = field(default=None, repr=False)

    def __enter__(self) -> Session:
        outer = current()
        if _STACK:
            # A nested session shares the caches of the one it runs in; only the outermost installs.
            self.parsed, self.file_leaves, self.stable_answers = outer.parsed, outer.file_leaves, outer.stable_answers
            self.warned, self.overrides, self.structured = outer.warned, outer.overrides, outer.structured
        else:
            _CONTENT.bound(MAX_ENTRIES)
            from harness import trace  # trace reads the current session, so it is imported here, not above

            self._restore = trace.install()
        _STACK.append(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _STACK.remove(self)
        for folder in self.scratch:
            shutil.rmtree(folder, ignore_errors=True)
        self.scratch.clear()
        if self._restore is not None:
            self._restore()
            self._restore = None

    @property
    def installed(self) -> bool:
        """True inside `with Session():` (recording sources and resolvers stand in Hydra's registries)."""
        return self in _STACK

    def scratch_folder(self, prefix: str = "config-harness-") -> Path:
        """A new private temporary folder, deleted when the session ends."""
        folder = Path(tempfile.mkdtemp(prefix=prefix))
        if not self.scratch and self is _IDLE:
            atexit.register(_remove_idle_scratch)
        self.scratch.append(folder)
        return folder

    def warn_once(self, message: str) -> bool:
        """True the first time a message is given in this session (the caller prints it then)."""
        if message in self.warned:
            return False
        self.warned.add(message)
        return True


# The sessions open now, innermost last, and the one that serves calls made outside every session.
_STACK: list[Session] = []
_IDLE = Session()


def current() -> Session:
    """The innermost open session, or the idle one outside every session."""
    return _STACK[-1] if _STACK else _IDLE


def forget_content() -> None:
    """Empty the process's content caches, so the next read parses again (and consults the disk cache)."""
    _CONTENT.bound(0)


def _remove_idle_scratch() -> None:
    for folder in _IDLE.scratch:
        shutil.rmtree(folder, ignore_errors=True)
