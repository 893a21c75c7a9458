"""The one owner of process state: caches, the composition recorder, the read scope, the resolver policy, the
hand-off to forked workers and scratch folders. Nothing else in the package keeps module-level state.

`with Session():` saves what the harness may change in Hydra and OmegaConf, holds the resolver policy (see
harness.composition.policy) while it is open, and on exit puts both back exactly as they were; scratch folders made inside
are deleted then. Both shells get the policy the same way: the CLI opens one session per command, the pytest
plugin enters its run's session around each use of the engine. Sessions nest: an inner one shares the outer
one's caches and installs nothing. Code running outside any session (a library call, a unit test) gets an idle
session: its own caches (bounded whenever a session opens), nothing installed, scratch folders removed at
interpreter exit.

This module sits below everything that reads the session (trace, compose, cache): it imports only the Hydra
quarantine and the policy, neither of which reads the session.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.override_parser.types import Override

from harness.composition import hydra_compat
from harness.composition.policy import resolution_policy

# Each content cache is emptied when it grows past this, so a long session (a pytest run) stays bounded.
MAX_ENTRIES = 20_000


@dataclass(eq=False)
class Session:
    """Every piece of state the harness keeps between calls, for one command, one pytest run or one test."""

    # Caches keyed by content, so they live as long as the session: an edit is a new key, never a stale hit.
    parsed: dict[tuple[str, bytes], Any] = field(default_factory=dict)  # compose.parse_file
    file_leaves: dict[tuple[str, bytes], Any] = field(default_factory=dict)  # provenance.file_leaves
    overrides: dict[str, Override] = field(default_factory=dict)  # overrides.parse: Hydra override text -> parsed
    # render: the emitter's text of a scalar, a key or a folded `key: value`, by value (render._BlockWriter)
    rendered: dict[tuple[Any, ...], str] = field(default_factory=dict)
    # compose: a ConfigStore node (kept, so its id is never reused) -> its ParsedFile, or None when it cannot be pickled
    structured: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    # Answers of structured (ConfigStore) sources: ConfigStore registrations may change between sessions.
    stable_answers: dict[Any, Any] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)  # warnings said once
    scratch: list[Path] = field(default_factory=list)  # folders deleted when the session ends
    # State of the Hydra session that is open now (set and cleared by compose.HydraSession).
    scope: tuple[Path, ...] = ()  # where config files may be read from; empty: no confinement
    anchor: str = ""  # the config folder composition traces name files relative to (harness.composition.trace.located)
    store: Any = None  # the signed disk cache (cache.SignedStore), or None when off
    recorder: Any = None  # trace.Recorder of the composition running now
    handoff: Any = None  # parallel: the work, cases and queue that forked workers inherit
    # A review's base: "case" or "launch" -> (how many taken from the cache, how many composed now), said on stderr
    reuse: dict[str, tuple[int, int]] = field(default_factory=dict)
    _installed: ExitStack | None = field(default=None, repr=False)

    def __enter__(self) -> Session:
        outer = current()
        if _STACK:
            # A nested session shares the caches of the one it runs in; only the outermost installs.
            self.parsed, self.file_leaves, self.stable_answers = outer.parsed, outer.file_leaves, outer.stable_answers
            self.warned, self.overrides, self.structured = outer.warned, outer.overrides, outer.structured
            self.rendered = outer.rendered
        else:
            self.forget_content(MAX_ENTRIES)
            _IDLE.forget_content(MAX_ENTRIES)  # what library calls outside every session cached, bounded too
            self._installed = ExitStack()
            self._installed.callback(hydra_compat.saved_state())  # last out: Hydra and OmegaConf exactly as found
            self._installed.enter_context(resolution_policy())
        _STACK.append(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _STACK.remove(self)
        for folder in self.scratch:
            shutil.rmtree(folder, ignore_errors=True)
        self.scratch.clear()
        if self._installed is not None:
            self._installed.close()
            self._installed = None

    @property
    def installed(self) -> bool:
        """True inside `with Session():` (the policy's resolvers stand in OmegaConf's table)."""
        return self in _STACK

    def forget_content(self, limit: int = 0) -> None:
        """Empty every content cache holding more than `limit` entries (all of them by default)."""
        for cache in (self.parsed, self.file_leaves, self.overrides, self.structured, self.rendered):
            if len(cache) > limit:
                cache.clear()

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
    """Empty the current session's content caches, so the next read parses again (and consults the disk cache)."""
    current().forget_content()


def _remove_idle_scratch() -> None:
    for folder in _IDLE.scratch:
        shutil.rmtree(folder, ignore_errors=True)
