"""What a composition read, so a cached composition is reused only while everything it read is unchanged.

While a composition runs, every question Hydra asks a config source (does this group exist, which options
does it list, what does this file hold) is recorded with its answer, and so is every environment value an
interpolation reads on the way (`${oc.env:...}` in a defaults entry or a search path). A file's answer is
the digest of its parsed content, so a comment or whitespace edit keeps it. Later, a cached composition
is taken only if asking the same questions again gives the same answers: edits elsewhere in the tree,
files in symlinked folders, search-path folders and `..` paths are all covered by the same rule.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from hydra.core.object_type import ObjectType
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource

from harness.composition import hydra_compat
from harness.composition.policy import PURE_RESOLVERS
from harness.composition.session import current
from harness.gates.confine import package_is_loaded, project_package_folder

# A query is (scheme, source path, method, argument); its answer is a small comparable value.
Query = tuple[str, str, str, str]
Trace = tuple[tuple[Query, Any], ...]
ENV = "env"

# Resolvers whose result depends on nothing but the config itself (the policy's); any other resolver that runs
# during a composition (a clock, a custom function) makes it uncacheable.
ENV_RESOLVERS = frozenset({"oc.env", "env"})


class Recorder:
    """The queries and answers of one composition, in first-asked order."""

    def __init__(self) -> None:
        self.answers: dict[Query, Any] = {}
        self.cacheable = True

    def note(self, query: Query, answer: Any) -> None:
        self.answers.setdefault(query, answer)

    @property
    def trace(self) -> Trace:
        return tuple(self.answers.items())


@contextmanager
def recording() -> Iterator[Recorder]:
    """Record what the compositions inside the block read (not reentrant: compositions never nest)."""
    session = current()
    recorder = Recorder()
    previous, session.recorder = session.recorder, recorder
    try:
        yield recorder
    finally:
        session.recorder = previous


# A folder below the session's anchor (the config folder of the composition) is named relative to it, so that the
# same tree at another place (a copy, a clone, a test's own folder) asks the same questions and finds its
# compositions in the cache; its answers are still asked again there before one is reused. Only the folders the
# harness itself names (compose.SCHEME: the config folder and the settings' search path) move with the tree: a
# folder a config or an override names (`file:///abs/conf/x`, `file://@/x` relative to the working folder) means
# that folder wherever the tree is, so it is named as it is.
ANCHORED = "@"
ANCHORED_SCHEME = "harness"


def located(path: str, scheme: str) -> str:
    """A config source's folder as a trace names it: relative to the session's anchor when the harness named it
    and it lies below the anchor."""
    anchor = current().anchor
    if scheme == ANCHORED_SCHEME and anchor and (path == anchor or path.startswith(anchor + "/")):
        return ANCHORED + path[len(anchor) :]
    return path


def absolute(path: str, scheme: str) -> str:
    """The folder a trace's name stands for in this session."""
    if scheme == ANCHORED_SCHEME and path.startswith(ANCHORED):
        return current().anchor + path[len(ANCHORED) :]
    return path


def located_url(url: str) -> str:
    """A search path entry (`scheme://folder`) with its folder as a trace names it."""
    scheme, separator, rest = url.partition("://")
    return f"{scheme}{separator}{located(rest, scheme)}" if separator else url


# `pkg://name` of the project's own package is a folder found from the working folder (compose's
# LoadedPackages): which folder, if any, is a question of the trace too, so that a composition cached
# where `name` was one folder is not reused where it is another (another checkout, another working folder).
PACKAGE_FOLDER = "pkg-folder"


def package_folder(name: str) -> Path | None:
    """The folder `pkg://name` is read from as config files, or None (a package already imported, or refused);
    noted by the composition being recorded."""
    folder = None if package_is_loaded(name) else project_package_folder(name, current().scope or (Path.cwd(),))
    recorder = current().recorder
    if recorder is not None:
        recorder.note((PACKAGE_FOLDER, "", "folder", name), None if folder is None else str(folder))
    return folder


def content_digest(result: ConfigResult) -> bytes:
    """What a loaded config holds (header and nodes), independent of comments and layout."""
    digest: bytes | None = getattr(result, "content_digest", None)  # set by compose.py's parse-cached sources
    if digest is not None:
        return digest
    header = repr(sorted(result.header.items())).encode()
    return hashlib.blake2b(header + b"\0" + pickle.dumps(result.config, protocol=4), digest_size=20).digest()


# Sources whose answers cannot change while a process runs (installed package data, Python classes): each
# question is answered once per session. Config folders are asked again by each HydraSession (its Replayer).
STABLE_SCHEMES = frozenset({"pkg", "structured"})


def _answer(source: ConfigSource, method: str, argument: str) -> Any:
    """Ask a source one question; errors are answers too (their message)."""
    try:
        if method == "load":
            digest_of = getattr(source, "content_digest_of", None)  # a parse-cached file: no copy of its nodes
            return digest_of(argument) if digest_of is not None else content_digest(source.load_config(argument))
        if method == "group":
            return source.is_group(argument)
        if method == "config":
            return source.is_config(argument)
        if method == "available":
            return source.available()
        if method.startswith("list:"):
            filter_name = method[len("list:") :]
            return tuple(source.list(argument, None if filter_name == "None" else ObjectType[filter_name]))
    except Exception as error:  # a missing or broken file: the same error again is the same answer
        return ("error", type(error).__name__, str(error))
    raise ValueError(f"unknown query {method}")


class RecordingSource(ConfigSource):
    """Mixed in before a real config source (by hydra_compat.source_subclass): records each answer while a Recorder
    is active."""

    def _note(self, method: str, argument: str, answer: Any) -> None:
        recorder = current().recorder
        if recorder is not None:
            recorder.note((self.scheme(), located(self.path, self.scheme()), method, argument), answer)

    def load_config(self, config_path: str) -> ConfigResult:
        try:
            result = super().load_config(config_path)  # type: ignore[safe-super]
        except ConfigLoadError as error:
            self._note("load", config_path, ("error", type(error).__name__, str(error)))
            raise
        session = current()
        if session.recorder is not None:
            query = (self.scheme(), located(self.path, self.scheme()), "load", config_path)
            answer = session.stable_answers.get(query)
            if answer is None:
                answer = content_digest(result)
                if self.scheme() in STABLE_SCHEMES:
                    session.stable_answers[query] = answer
            session.recorder.note(query, answer)
        return result

    def is_group(self, config_path: str) -> bool:
        answer = super().is_group(config_path)  # type: ignore[safe-super]
        self._note("group", config_path, answer)
        return answer

    def is_config(self, config_path: str) -> bool:
        answer = super().is_config(config_path)  # type: ignore[safe-super]
        self._note("config", config_path, answer)
        return answer

    def available(self) -> bool:
        answer = super().available()  # type: ignore[safe-super]
        self._note("available", "", answer)
        return answer

    def list(self, config_path: str, results_filter: Any) -> list[str]:
        answer = super().list(config_path, results_filter)  # type: ignore[safe-super]
        name = "None" if results_filter is None else results_filter.name
        self._note(f"list:{name}", config_path, tuple(answer))
        return answer


def environment_answer(name: str) -> str | None:
    """What a trace records of an environment variable: a digest of its value (None when unset). A cached entry
    never holds the value itself, and an entry is reused only while the value is the same."""
    value = os.environ.get(name)
    return None if value is None else hashlib.blake2b(value.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def read_environment(name: str) -> str | None:
    """An environment variable's value for a composition (a search path entry's `${oc.env:NAME}`), recorded in the
    composition's trace so a cached composition is reused only while the value is the same."""
    recorder = current().recorder
    if recorder is not None:
        recorder.note((ENV, "", "get", name), environment_answer(name))
    return os.environ.get(name)


def _recording_resolver(name: str, resolver: Callable[..., Any]) -> Callable[..., Any]:
    def resolve(config: Any, parent: Any, node: Any, args: tuple[Any, ...], args_str: tuple[str, ...]) -> Any:
        recorder = current().recorder
        if recorder is not None:
            if name in ENV_RESOLVERS and args and isinstance(args[0], str):
                recorder.note((ENV, "", "get", args[0]), environment_answer(args[0]))
            elif name not in PURE_RESOLVERS:
                recorder.cacheable = False
        return resolver(config, parent, node, args, args_str)

    resolve.recording = True  # type: ignore[attr-defined]
    return resolve


def recording_type(source_type: type[ConfigSource]) -> type[ConfigSource]:
    """The config source class with recording in front (itself when it records already)."""
    if issubclass(source_type, RecordingSource):
        return source_type
    return hydra_compat.source_subclass(RecordingSource, source_type)


def recording_installed() -> ExitStack:
    """While active, recording stands in front of every registered config source and resolver (entered before Hydra
    starts, by compose.HydraSession); on exit both registries are as they were."""
    installed = ExitStack()
    types = hydra_compat.source_types()
    installed.enter_context(hydra_compat.sources_standing_in({scheme: recording_type(t) for scheme, t in types.items()}))
    resolvers = {name: resolver for name, resolver in hydra_compat.resolver_table().items() if not getattr(resolver, "recording", False)}
    installed.enter_context(hydra_compat.resolvers_replaced({name: _recording_resolver(name, r) for name, r in resolvers.items()}))
    return installed


class Replayer:
    """Asks recorded questions again (each at most once per session) to tell whether a trace still holds."""

    def __init__(self) -> None:
        self._answers: dict[Query, Any] = {}
        self._sources: dict[tuple[str, str], ConfigSource] = {}

    def answer(self, query: Query) -> Any:
        """Today's answer to a recorded query."""
        if query not in self._answers:
            scheme, path, method, argument = query
            stable = current().stable_answers
            if query in stable:
                self._answers[query] = stable[query]
            elif scheme == ENV:
                self._answers[query] = environment_answer(argument)
            elif scheme == PACKAGE_FOLDER:
                folder = package_folder(argument)
                self._answers[query] = None if folder is None else str(folder)
            else:
                source = self._sources.get((scheme, path))
                if source is None:
                    source_type = hydra_compat.source_types()[scheme]
                    try:
                        source = source_type("config-harness", f"{scheme}://{absolute(path, scheme)}")
                    except Exception as error:  # a folder refused here (outside the scope now): not the recorded answer
                        self._answers[query] = ("refused", type(error).__name__, str(error))
                        return self._answers[query]
                    self._sources[(scheme, path)] = source
                self._answers[query] = _answer(source, method, argument)
                if scheme in STABLE_SCHEMES:
                    stable[query] = self._answers[query]
        return self._answers[query]

    def parsed(self, query: Query) -> Any:
        """Today's parsed file behind a recorded `load` query (compose.ParsedFile), or None when its source parses
        nothing itself (asked after `answer`, which opened the source)."""
        scheme, path, _, argument = query
        parsed_of = getattr(self._sources.get((scheme, path)), "parsed_of", None)
        try:
            return parsed_of(argument) if parsed_of is not None else None
        except (ConfigLoadError, OSError):  # unreadable or refused now: the full compose reports it
            return None

    def holds(self, trace: Trace) -> bool:
        """True when every recorded question gets the recorded answer today."""
        return all(self.answer(query) == answer for query, answer in trace)
