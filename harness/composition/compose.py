"""Compose cases in process through Hydra's real compose API, parsing each file once."""

from __future__ import annotations

import hashlib
import os
import pickle
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

import yaml
from hydra import compose as hydra_compose
from hydra.core.global_hydra import GlobalHydra
from hydra.core.object_type import ObjectType
from hydra.errors import ConfigCompositionException
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource
from hydra.types import RunMode
from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict

from harness.composition import carry, hydra_compat, trace
from harness.composition import overrides as harness_overrides
from harness.composition.policy import resolution_policy
from harness.composition.render import load_config_text
from harness.composition.schemas import MISSING_NODE, import_schemas, missing_node_hint, unavailable_folders
from harness.composition.session import Session, current
from harness.composition.store import CacheRefused, cache_add_variant, cache_get, cache_put, cache_variants, open_store, warn_refused
from harness.gates import linear
from harness.gates.budget import MAX_DEPTH
from harness.gates.confine import (
    Scope,
    UnsafeInput,
    defaults_problem,
    package_is_loaded,
    package_is_missing,
    project_root,
    resolved_search_path,
    search_path_problem,
    uses_resolver,
    within,
)
from harness.gates.errors import BadInput, courtesy_failed, describe_yaml_error, error_chain
from harness.gates.reader import InputLimitError, git_deletion, read_bytes, read_text
from harness.model.hints import did_you_mean, option_hint, override_hint
from harness.model.matrix import Case
from harness.model.semantic_diff import same_value
from harness.model.settings import display_path

SCHEME = trace.ANCHORED_SCHEME  # "harness"
# Hydra's own scheme for config folders; messages show it, since that is what Hydra users know.
SHOWN_SCHEME = "file"


def names_entry(line: str, group: str, option: str) -> bool:
    """True for a defaults-list line `- [override ]GROUP[@PACKAGE]: ['"]OPTION['"] [# comment]`: read piece by piece,
    linear in the line, where a regular expression (`(@[^:]*)?\\s*:`) retried its whitespace at every split of a
    long line (20 KB 2.0 s, 40 KB 5.45 s)."""
    item = line.lstrip()
    if not item.startswith("-"):
        return False
    item = item[1:].lstrip()
    heads = [item]
    if item.startswith("override") and item[8:9].isspace():
        heads.append(item[8:].lstrip())
    for head in heads:
        if not head.startswith(group):
            continue
        rest = head[len(group) :]
        if rest.startswith("@"):
            rest = rest[rest.find(":") :] if ":" in rest else ""
        rest = rest.lstrip()
        if not rest.startswith(":"):
            continue
        rest = rest[1:].lstrip()
        for quote in ("'", '"', ""):
            if rest.startswith(quote + option + quote):
                tail = rest[len(quote + option + quote) :].lstrip()
                if not tail or tail.startswith("#"):
                    return True
    return False


@dataclass(frozen=True)
class ParsedFile:
    """One config file as parsed once: its `# @package` header and its node tree, pickled.

    Loading from the pickle is about ten times faster than OmegaConf's deepcopy, and Hydra needs a fresh
    tree for every load (it pops `defaults` and adopts the nodes into the composed config).
    """

    header: dict[str, str | None]
    blob: bytes
    digest: bytes = b""  # of the header and the nodes: a comment or whitespace edit keeps it

    @property
    def config(self) -> DictConfig | ListConfig:
        """A fresh copy of the parsed tree."""
        return cast("DictConfig | ListConfig", pickle.loads(self.blob))


def parse_file(full_path: str, display: str, data: bytes | None = None) -> ParsedFile:
    """A config file's header and nodes, parsed once per content (and once per machine with the disk cache).

    `data` is the file's bytes when the caller read them already (through the reader, as here).
    """
    if data is None:
        data = read_config(full_path, display)
    # Keyed by (absolute path, content digest): an edit is a new key, never a stale hit.
    key = (full_path, hashlib.blake2b(data, digest_size=16).digest())
    session = current()
    parsed = session.parsed.get(key)
    if parsed is None:
        stored = cache_get(b"file\0" + data)
        parsed = ParsedFile(*stored) if isinstance(stored, tuple) and len(stored) == 3 else None
    if parsed is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigLoadError(f"{display}: not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") from None
        try:
            config = load_config_text(text)
        except yaml.YAMLError as error:
            raise ConfigLoadError(describe_yaml_error(error, display)) from None
        if not isinstance(config, (DictConfig, ListConfig)):
            raise ConfigLoadError(f"{display}: a config file must hold a mapping or a list, got a {type(config).__name__}")
        # A list is a valid group option (Hydra places it at the option's package like any other content).
        header = hydra_compat.header_of(text)
        blob = pickled(config)
        parsed = ParsedFile(header, blob, content_digest(header, blob))
        cache_put(b"file\0" + data, (parsed.header, parsed.blob, parsed.digest))
        # By content too: after an edit, the nodes a cached composition read are what a value edit is told from.
        cache_put(PARSED + parsed.digest, (parsed.header, parsed.blob))
    session.parsed[key] = parsed
    return parsed


PARSED = b"parsed\0"


def parsed_by_digest(digest: bytes) -> ParsedFile | None:
    """The parsed file with this content digest, when the cache holds it."""
    stored = cache_get(PARSED + digest)
    return ParsedFile(*stored, digest) if isinstance(stored, tuple) and len(stored) == 2 else None


def read_config(full_path: str, display: str) -> bytes:
    """A config file's bytes through the one reader, confined to the session's scope; ConfigLoadError naming it."""
    try:
        return read_bytes(full_path, current().scope, what=display)
    except (InputLimitError, UnsafeInput, FileNotFoundError) as error:
        raise ConfigLoadError(str(error) if not isinstance(error, FileNotFoundError) else f"Config not found : {display}") from None


# The harness's config sources are mixins over Hydra's public ConfigSource; hydra_compat puts each in front of the
# Hydra source it stands in for (file_source, package_source, structured_source), so no class here names one.


class ParsedSource(ConfigSource):
    """Mixed in before a Hydra config source whose `_parsed` gives a file's ParsedFile: every load is a fresh copy
    of nodes parsed once per content."""

    def _parsed(self, config_path: str) -> ParsedFile:
        raise NotImplementedError

    def _check(self, config_path: str, config: DictConfig | ListConfig) -> None:
        """Raise ConfigLoadError for content this source refuses (nothing by default)."""

    def load_config(self, config_path: str) -> ConfigResult:
        parsed = self._parsed(config_path)
        config = parsed.config
        self._check(config_path, config)
        # Hydra mutates what it loads (it pops `defaults`), so every load gets its own copy.
        result = ConfigResult(config=config, path=f"{self.scheme()}://{self.path}", provider=self.provider, header=dict(parsed.header))
        result.content_digest = parsed.digest  # type: ignore[attr-defined]  # read by the composition trace
        return result

    def content_digest_of(self, config_path: str) -> bytes:
        """The parsed content's digest of a config, without copying its nodes (replaying a trace)."""
        return self._parsed(config_path).digest

    def parsed_of(self, config_path: str) -> ParsedFile:
        """The parsed file itself (carrying a composition over a value edit reads its nodes)."""
        return self._parsed(config_path)


class CachedFiles(ParsedSource):
    """Before Hydra's file config source: parsing each file's bytes once per session, and reading nothing outside
    the session's scope (the project): a symlink or `..` that leads out is an error naming the file."""

    @property
    def scope(self) -> Scope:
        """Where files may be read from (set by the open HydraSession; empty outside one: no confinement)."""
        return current().scope

    @staticmethod
    def scheme() -> str:
        return SCHEME

    def _confined(self, relative: str, what: str) -> str:
        full_path = os.path.realpath(os.path.join(self.path, relative))
        if self.scope and not within(full_path, self.scope):
            raise ConfigLoadError(f"{what}: leads outside the project {self.scope[0]} (a symlink or '..'); it is not read")
        return full_path

    def is_group(self, config_path: str) -> bool:
        return os.path.isdir(self._confined(config_path, config_path or self.path))

    def is_config(self, config_path: str) -> bool:
        normalized = hydra_compat.config_file_name(config_path)
        return os.path.isfile(self._confined(normalized, normalized))

    def list(self, config_path: str, results_filter: ObjectType | None) -> list[str]:
        self._confined(config_path, config_path or self.path)
        return super().list(config_path, results_filter)  # type: ignore[safe-super]  # Hydra's file source, after this mixin

    def _parsed(self, config_path: str) -> ParsedFile:
        normalized = hydra_compat.config_file_name(config_path)
        full_path = self._confined(normalized, normalized)
        if not os.path.isfile(full_path):
            raise ConfigLoadError(f"Config not found : {normalized}")
        return parse_file(full_path, normalized)

    def _check(self, config_path: str, config: DictConfig | ListConfig) -> None:
        if not self.scope or not isinstance(config, DictConfig):
            return
        problem = defaults_problem(hydra_compat.child_node(config, "defaults"))
        if problem:
            raise ConfigLoadError(f"{hydra_compat.config_file_name(config_path)}: {problem}")


class ConfinedFiles(CachedFiles):
    """`file://` search paths (and plain folders) while a session runs: only folders inside the project."""

    @staticmethod
    def scheme() -> str:
        return "file"

    def __init__(self, provider: str, path: str) -> None:
        super().__init__(provider, path)
        problem = search_path_problem(f"file://{self.path}", self.scope) if self.scope else None
        if problem:
            raise ConfigCompositionException(problem)


class LoadedPackages(ParsedSource):
    """Before Hydra's package config source, for `pkg://` search paths while a session runs: served only from packages already imported (Hydra's own),
    because finding any other package would import it and run its code. The project's own package
    (`pkg://verl.trainer.config` in verl's checkout, as its fully_async configs and scripts name it) is its
    folder in the project, read as a file folder and never imported."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        provider, path = (*args, "", "")[:2]  # none when copied (copy and pickle make the object without arguments)
        location = str(path).partition("://")[2]
        folder = trace.package_folder(location) if location else None
        if folder is not None:
            return GUARDED_SOURCES["file"](provider, f"file://{folder}")
        if location and not package_is_loaded(location) and package_is_missing(location):
            return MISSING_PACKAGE(provider, path)
        return super().__new__(cls)

    def __init__(self, provider: str, path: str) -> None:
        problem = search_path_problem(path, current().scope or (Path.cwd(),))
        if problem:
            raise ConfigCompositionException(problem)
        super().__init__(provider, path)

    def _parsed(self, config_path: str) -> ParsedFile:
        # Hydra re-parses its own configs (hydra/job_logging/default.yaml, ...) in every composition; parsed
        # once per content instead, as config files are.
        normalized = hydra_compat.config_file_name(config_path)
        resource = resources.files(self.path).joinpath(normalized)
        if not resource.is_file():
            raise ConfigLoadError(f"Config not found : {normalized}")
        display = f"{self.scheme()}://{self.path}/{normalized}"
        return parse_file(str(resource), display, read_bytes(str(resource), what=display))

    @property
    def _on_disk(self) -> bool:
        return isinstance(resources.files(self.path), Path)

    def load_config(self, config_path: str) -> ConfigResult:
        if not self._on_disk:
            # A package inside an archive or spread over folders: Hydra's own loading (the source after ParsedSource).
            return super(ParsedSource, self).load_config(config_path)  # type: ignore[safe-super]
        return super().load_config(config_path)

    def content_digest_of(self, config_path: str) -> bytes:
        if not self._on_disk:
            return trace.content_digest(self.load_config(config_path))
        return super().content_digest_of(config_path)


class MissingPackage(ConfigSource):
    """Before Hydra's package config source, for a `pkg://` search path entry that no installed package provides
    (foundry's `pkg://configs`): a source that is not available and holds nothing, as Hydra's own is for such an
    entry, so Hydra skips it with its own warning ("... is not available"), recorded as every Hydra warning is.
    Nothing is imported to tell: see package_is_missing."""

    def available(self) -> bool:
        return False

    def is_group(self, config_path: str) -> bool:
        return False

    def is_config(self, config_path: str) -> bool:
        return False

    def list(self, config_path: str, results_filter: Any) -> list[str]:
        return []

    def load_config(self, config_path: str) -> ConfigResult:
        raise ConfigLoadError(f"Config not found : {hydra_compat.config_file_name(config_path)}")


class SharedStructuredSource(ConfigSource):
    """Mixed in before Hydra's structured (ConfigStore) source: each registered node is copied from a pickle
    made once, not deep-copied in every composition (Hydra's own `hydra/config` node costs milliseconds a copy)."""

    def _stored(self, config_path: str) -> tuple[Any, ParsedFile | None] | None:
        node = hydra_compat.stored_config(hydra_compat.config_file_name(config_path))
        if node is None:
            return None
        cache = current().structured
        entry = cache.get(id(node))
        if entry is None or entry[0] is not node:
            header = {"package": node.package}
            try:
                blob = pickled(node.node)
                parsed: ParsedFile | None = ParsedFile(header, blob, content_digest(header, blob))
            except (pickle.PicklingError, TypeError, AttributeError):
                parsed = None  # a class pytest imported twice, or one defined in a function: Hydra's own copy
            entry = cache[id(node)] = (node, parsed)
        return entry

    def load_config(self, config_path: str) -> ConfigResult:
        node, parsed = self._stored(config_path) or (None, None)
        if node is None or parsed is None:
            return super().load_config(config_path)  # type: ignore[safe-super]
        provider = node.provider if node.provider is not None else self.provider
        result = ConfigResult(config=parsed.config, path=f"{self.scheme()}://{self.path}", provider=provider, header=dict(parsed.header))
        result.content_digest = parsed.digest  # type: ignore[attr-defined]  # read by the composition trace
        return result


# The schemes a session serves with its own sources, so no config can import code or read outside the project;
# each records what it answers (harness.composition.trace), as every other source does while a session is installed.
CachedFileConfigSource = hydra_compat.file_source(CachedFiles)
GUARDED_SOURCES = MappingProxyType(
    {
        SCHEME: trace.recording_type(CachedFileConfigSource),
        "file": trace.recording_type(hydra_compat.file_source(ConfinedFiles)),
        "pkg": trace.recording_type(hydra_compat.package_source(LoadedPackages)),
        "structured": trace.recording_type(hydra_compat.structured_source(SharedStructuredSource)),
    }
)
MISSING_PACKAGE = trace.recording_type(hydra_compat.package_source(MissingPackage))


# Hydra's words for a defaults entry whose config it cannot find: the config holding the entry, and the node.
MISSING_ENTRY = linear.compile(r"In '([^']+)': Could not (?:load|find) '([^']+)'")


def refuse_steering_overrides(session: HydraSession, overrides: Iterable[str]) -> None:
    """ComposeError for an override that would let the environment or a foreign folder steer the composition:
    a resolver in an override that selects a config option, or a `hydra.searchpath` entry that is refused."""
    for text in overrides:
        try:
            override = harness_overrides.parse(text)
        except Exception:
            continue  # Hydra itself reports the bad syntax, with its own message
        if override.key_or_group == "hydra.searchpath":
            value = override.value()
            for entry in value if isinstance(value, list) else [value]:
                problem = search_path_problem(entry, current().scope or (Path.cwd(),))
                if problem:  # the harness's bound, not the tree's: its cause says so (a launch reads it as "not read")
                    raise ComposeError(f"override {text!r}: {problem}") from UnsafeInput(problem)
        elif uses_resolver(text.partition("=")[2]) and not session.is_value_override(override):
            raise ComposeError(
                f"override {text!r} selects a config option through a resolver; the environment must not choose which file is composed"
            )


@dataclass(frozen=True)
class Composed:
    """A case with its composed config, or the one-line reason it could not be composed."""

    case: Case
    config: DictConfig | None
    error: str | None = None
    hydra: Any = None  # the composed `hydra:` subtree as written (never resolved), when the session asked for it
    warnings: tuple[HydraWarning, ...] = ()  # what Hydra warned while composing it (or its stem), cached or not
    # Everything its composition asked Hydra's config sources, with the answers (the stem's compose, the presets'
    # overrides applied to it, a full compose): a result kept for the case holds while asking again gives the same
    # answers. None when a part is not recorded (an uncacheable composition): nothing of it is kept.
    reads: tuple[trace.Trace, ...] | None = None


@dataclass(frozen=True)
class HydraWarning:
    """A warning Hydra raised while composing (a defaults list without `_self_`, a deprecated form), once per text,
    with the config file and line it is about when its text names a config."""

    message: str
    file: str = ""
    line: int | None = None

    @property
    def where(self) -> str:
        """`FILE:LINE` (or `FILE`) of the config it is about; "" when it names none."""
        return f"{self.file}:{self.line}" if self.file and self.line else self.file


WARNED_CONFIG = linear.compile(r"^In '([^']+)'")


class ComposeError(BadInput):
    """A case that Hydra could not compose; the message is one line."""


def describe_error(error: BaseException) -> str:
    """One line for a composition failure, preferring the innermost message that names a file."""
    messages = [text for text in (" ".join(str(e).split()) for e in error_chain(error)) if text]
    chosen = next((message for message in reversed(messages) if ".yaml" in message), None)
    if chosen is None:
        chosen = messages[0] if messages else type(error).__name__
    # Hydra lists its whole search path after a config it cannot find: hundreds of characters no one acts on.
    chosen = chosen.split(" Config search path:", 1)[0]
    chosen = option_hint(chosen) or chosen  # a misspelled group option (an engine): the closest one, in our words
    return chosen.replace(f"{SCHEME}://", f"{SHOWN_SCHEME}://")


@dataclass(frozen=True)
class DefaultsEntry:
    """One config file in a composition's defaults list, and where Hydra found it.

    `folder` indexes the session's file folders (search path order) and `file_name` is the file below it, as
    Hydra resolves the entry (`buffer: default.yaml` and `buffer: default` are both `buffer/default.yaml`).
    """

    config_path: str
    package: str
    parent: str | None = None
    folder: int = 0
    file_name: str = ""


def config_entries(defaults: Iterable[Any], loader: Any) -> tuple[DefaultsEntry, ...]:
    """The defaults-list entries that are config files, in merge order (Hydra's own entries and structured configs left out)."""
    entries = []
    for entry in defaults:
        if entry.config_path is None or (entry.package or "").split(".")[0] == "hydra":
            continue
        found = hydra_compat.find_config_file(loader, entry.config_path)
        if found is not None:
            entries.append(DefaultsEntry(entry.config_path, entry.package or "", entry.parent, *found))
    return tuple(entries)


def content_digest(header: dict[str, str | None], blob: bytes) -> bytes:
    """A parsed file's identity for the composition cache: its header and its pickled nodes."""
    return hashlib.blake2b(repr(sorted(header.items())).encode() + b"\0" + blob, digest_size=20).digest()


def pickled(config: DictConfig | ListConfig) -> bytes:
    """A config as pickle bytes: a copy that loads far faster than OmegaConf's deepcopy."""
    return pickle.dumps(config, protocol=pickle.HIGHEST_PROTOCOL)


def parse_overrides(overrides: Iterable[str]) -> list[Any]:
    """Overrides parsed by Hydra's own parser; a bad one raises ComposeError naming it."""
    parsed = []
    for override in overrides:
        try:
            parsed.append(harness_overrides.parse(override))
        except Exception as error:
            raise ComposeError(f"bad override {override!r}: {describe_error(error)}") from error
    return parsed


def bounded(config: DictConfig) -> DictConfig:
    """The composed config, or ComposeError when it nests deeper than any walk of it may go (an override such as
    `+a=[[[...]]]` stacks levels no file has)."""
    depth = hydra_compat.nesting_depth(config, MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise ComposeError(f"the composed config nests more than {MAX_DEPTH} levels deep; refused")
    return config


@dataclass
class _Stem:
    """A stem: the composed (root, engine) config that its presets are applied to, pickled on first use."""

    config: DictConfig
    hydra: Any = None  # the stem's `hydra:` subtree, when the session keeps it
    blob: bytes | None = None


# At most this many files changed under one cached composition, and values in them, for it to be carried over their
# edits: a carry asks every merged file about every edited value, so a file of many edits is left to Hydra's compose.
MAX_CARRIED_FILES = 4
MAX_CARRIED_VALUES = 1000

# Stems by (config name, stem overrides): each composed once, or the ComposeError that composing it raised.
Stems = dict[tuple[str, tuple[str, ...]], _Stem | ComposeError]


class HydraSession:
    """An initialized GlobalHydra over one config dir (plus a search path); use as a context manager, never from threads.

    `search_path` lists more config folders, searched after `config_dir` as Hydra searches `hydra.searchpath`;
    `version_base` is Hydra's (None: this Hydra's own semantics, as `initialize(version_base=None)`);
    `hydra_subtree` also keeps each composition's `hydra:` subtree (a review compares it; goldens never hold it).
    """

    def __init__(
        self,
        config_dir: Path,
        cache_dir: Path | None = None,
        search_path: Iterable[Path] = (),
        version_base: str | None = None,
        read_also: Iterable[Path] = (),
        schemas: Iterable[str] = (),
        hydra_subtree: bool = False,
        search_path_env: Iterable[str] | None = None,
    ) -> None:
        self.config_dir = Path(config_dir).resolve()
        self.cache_dir = cache_dir
        self.search_path = tuple(Path(folder).resolve() for folder in search_path)
        self.version_base = version_base
        # Folders besides the project that config files may be read from (the settings' read_outside).
        self.read_also = tuple(Path(folder).resolve() for folder in read_also)
        self.schemas = tuple(schemas)  # modules whose ConfigStore registrations the configs use
        self.hydra_subtree = hydra_subtree
        # The variables a config's `hydra.searchpath` may read (the settings' search_path_env); None: any (init).
        self.search_path_env = frozenset(search_path_env) if search_path_env is not None else None
        self._deleted: dict[str, str] = {}  # a node no file provides -> how git knows its file was deleted ("": not)
        self._searched: dict[Path, None] = {}  # folders configs' own `hydra.searchpath` added, in the order met

    @classmethod
    def for_settings(cls, settings: Any, hydra_subtree: bool = False) -> HydraSession:
        """A session over the settings' config folders, cache, version_base and schema modules."""
        return cls(
            settings.config_dir,
            settings.cache_dir,
            settings.search_path,
            settings.version_base,
            settings.read_outside,
            settings.schemas,
            hydra_subtree,
            settings.search_path_env,
        )

    @property
    def folders(self) -> tuple[Path, ...]:
        """Every config folder, in search order."""
        return (self.config_dir, *self.search_path)

    def __enter__(self) -> HydraSession:
        for folder in self.folders:
            if not folder.is_dir():
                raise FileNotFoundError(f"config folder does not exist: {folder}")
        import_schemas(self.schemas)  # before Hydra starts, so the registered nodes are in its search path
        # Config files are read only inside the config folder's project, the settings' search path and the
        # folders read_outside names; pkg:// and file:// search paths from configs go through guarded sources.
        self._guards = ExitStack()
        # A session of our own when none is open (it holds the resolver policy); recording goes in before Hydra starts.
        self.state = self._guards.enter_context(Session()) if not current().installed else current()
        self.state.scope = (project_root(self.config_dir), *self.search_path, *self.read_also)
        self._guards.enter_context(trace.recording_installed())
        self._guards.enter_context(hydra_compat.sources_standing_in(GUARDED_SOURCES))
        self._guards.enter_context(hydra_compat.search_path_resolved(self._resolved_search_path))
        # Hydra's warnings become findings (see compose); none reaches stderr raw, also outside a composition.
        self._guards.enter_context(warnings.catch_warnings(record=True))
        self.warned: list[HydraWarning] = []  # in the order raised; each composition's, from the cache too
        extra = [f"{SCHEME}://{folder}" for folder in self.search_path]
        hydra_compat.start_hydra(f"{SCHEME}://{self.config_dir}", extra, self.version_base)
        # The folders of Hydra's file sources, in its search order (what a DefaultsEntry's `folder` indexes).
        self.source_folders = tuple(Path(folder) for folder in hydra_compat.file_source_folders(self.loader))
        self.state.store = None
        if self.cache_dir is not None:
            try:
                self.state.store = open_store(self.cache_dir, project=self.config_dir)
            except CacheRefused as error:
                warn_refused(error)
        self.replayer = trace.Replayer()
        self.composed_fresh: list[tuple[str, tuple[str, ...]]] = []  # compositions not taken from the cache
        self.reused: list[tuple[str, tuple[str, ...]]] = []  # compositions taken from the cache (everything they read unchanged)
        self.carried: list[tuple[str, tuple[str, ...]]] = []  # compositions carried over a value edit (harness.composition.carry)
        self._contents: dict[bytes, Any] = {}  # parsed files' nodes by content digest, read by carries (never changed)
        self.sharing = True  # share Hydra's repeated work between compositions (off on the plain path)
        self._heads: hydra_compat.MergedHeads = {}
        self._own_search_path: dict[str, bool] = {}
        self.defaults_lists: dict[tuple[str, tuple[str, ...]], tuple[DefaultsEntry, ...]] = {}
        self.hydra_writes: dict[tuple[str, tuple[str, ...]], Any] = {}  # provenance.written_hydra, by defaults list
        self.reads: dict[tuple[str, tuple[str, ...]], trace.Trace | None] = {}  # what each composition asked (None: not recorded)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.state.store = None
        self.state.scope = ()
        self.state.anchor = ""
        GlobalHydra.instance().clear()
        self._guards.close()

    def _resolved_search_path(self, config_name: str, entries: list[Any]) -> tuple[list[str], dict[str, str]]:
        """A primary config's `hydra.searchpath` as Hydra would use it: `${oc.env:NAME}` read (and recorded, so a
        cached composition keys on it), each entry checked; the error names the file, the entry and the variable."""
        try:
            pairs = resolved_search_path(entries, self.state.scope or (Path.cwd(),), trace.read_environment, self.search_path_env)
        except UnsafeInput as error:
            raise ConfigCompositionException(f"{hydra_compat.config_file_name(config_name)}: hydra.searchpath: {error}") from None
        for used, _ in pairs:  # the folders a config's own search path adds: where a deleted file may have been
            scheme, _, folder = used.partition("://")
            if scheme == "file":
                self._searched.setdefault(Path(folder).resolve(), None)
        return [used for used, _ in pairs], {used: written for used, written in pairs if used != written}

    def _has_own_search_path(self, config_name: str) -> bool:
        """True when the config file sets `hydra.searchpath` (asked once per config name and session)."""
        if config_name not in self._own_search_path:
            try:
                loaded = self.loader.repository.load_config(config_name)
            except Exception:  # unreadable: the full compose reports it
                loaded = None
            config = loaded.config if loaded is not None else None
            hydra = hydra_compat.child_node(config, "hydra") if isinstance(config, DictConfig) else None
            self._own_search_path[config_name] = isinstance(hydra, DictConfig) and "searchpath" in hydra
        return self._own_search_path[config_name]

    @property
    def loader(self) -> Any:
        return GlobalHydra.instance().config_loader()

    def group_options(self, group: str, registered: bool = False) -> list[str]:
        """The sorted options of a config group, as Hydra lists them (`group@package`: the group's).

        Options only Python registered (ConfigStore schemas) are left out unless `registered`: a schema is
        what an option file builds on, not an engine of its own.
        """
        name = group.partition("@")[0]
        if registered:
            return list(self.loader.get_group_options(name))
        return hydra_compat.file_group_options(self.loader, name)

    def holds(self, *reads: trace.Trace) -> bool:
        """True when every recorded question gets the recorded answer in this session's tree today (the folders a
        trace names relative to the config folder are this session's)."""
        self.state.anchor = str(self.config_dir)
        return all(self.replayer.holds(read) for read in reads)

    def compose(self, config_name: str, overrides: Iterable[str]) -> DictConfig:
        """Hydra compose; raises ComposeError with a one-line message.

        With a cache, a composition is stored with what it read (see harness.composition.trace) and reused only while every
        file, group listing and environment value it read is unchanged; its key holds the config name, the
        overrides, the search path and Hydra's version_base (the versions are in every entry's name).

        Every composition is computed and cached with its `hydra:` subtree, without `hydra.runtime` (this machine's
        folders, the only part that names where the tree is), and under names relative to the config folder: a
        session that keeps the subtree (a review) and one that drops it (check) share entries, and so do the same
        tree's files at another place. A review's base tree, kept in another folder, takes every composition whose
        reads a pull request left unchanged from the working tree's entries and recomposes only the others.
        """
        overrides = list(overrides)
        key = None
        self.state.anchor = str(self.config_dir)
        if self.state.store is not None:
            search_path = [(e.provider, trace.located_url(e.path)) for e in self.loader.get_search_path().get_path()]
            parts = [b"compose", repr((self.version_base, search_path)).encode(), config_name.encode()]
            key = b"\0".join(parts + [override.encode() for override in overrides])
            variants = [cached for cached in cache_variants(key) if isinstance(cached, tuple) and len(cached) == 5]
            for cached in variants:
                if self.holds(cached[0]):
                    self._remember_defaults(config_name, overrides, cached[2])
                    self.reads[(config_name, tuple(overrides))] = cached[0]
                    self.warned += [self._located(text) for text in cached[3]]
                    self.reused.append((config_name, tuple(overrides)))
                    return self._shaped(cast(DictConfig, pickle.loads(cached[1])))
            carried = self._carried(key, config_name, overrides, variants) if self.sharing else None
            if carried is not None:
                return carried
        with hydra_compat.recording_defaults_lists() as recorded, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # every composition's own warnings, not only a process's first
            try:
                refuse_steering_overrides(self, overrides)
                with resolution_policy(), trace.recording() as recorder:
                    with hydra_compat.shared_work(self._heads if self.sharing else None):
                        config = hydra_compose(config_name=config_name, overrides=overrides, return_hydra_config=True)
            except Exception as error:  # Hydra raises many types; each becomes one line.
                unavailable = [str(w.message) for w in caught]  # a search path entry Hydra skipped says why a node is missing
                raise ComposeError(self._entry_line(error) + self._hinted(describe_error(error), unavailable)) from error
        hydra = config.get("hydra") if isinstance(config, DictConfig) else None
        if isinstance(hydra, DictConfig) and "runtime" in hydra:
            with open_dict(hydra):
                hydra.pop("runtime")
        said = tuple(dict.fromkeys(" ".join(str(w.message).split()) for w in caught))
        self.warned += [self._located(text) for text in said]
        self.composed_fresh.append((config_name, tuple(overrides)))
        entries = config_entries(recorded[-1].defaults, self.loader) if recorded else None
        if entries is not None:
            self._remember_defaults(config_name, overrides, entries)
        self.reads[(config_name, tuple(overrides))] = recorder.trace if entries is not None and recorder.cacheable else None
        if key is not None and entries is not None and recorder.cacheable:
            # Every entry outside `hydra:` a config file: then `entries` is the whole merge order a carry needs.
            merged = [d for d in recorded[-1].defaults if (d.package or "").split(".")[0] != "hydra"]
            self._keep(key, recorder.trace, config, entries, said, len(merged) == len(entries))
        return self._shaped(config)

    def _keep(
        self, key: bytes, read: trace.Trace, config: DictConfig, entries: tuple[DefaultsEntry, ...], said: tuple[str, ...], files_only: bool
    ) -> None:
        cache_add_variant(
            key, (read, pickled(config), entries, said, files_only), lambda entry: isinstance(entry, tuple) and entry[0] == read
        )

    def _carried(self, key: bytes, config_name: str, overrides: list[str], variants: list[Any]) -> DictConfig | None:
        """A cached composition carried over value edits in the files it read (harness.composition.carry), kept as a
        computed one is; None when no entry can be (then Hydra composes it)."""
        for read, blob, entries, said, files_only in variants:
            if not files_only:
                continue
            changed = {query: answer for query, answer in read if self.replayer.answer(query) != answer}
            if not changed or len(changed) > MAX_CARRIED_FILES:
                continue
            if any(
                q[2] != "load" or not isinstance(a, bytes) or not isinstance(self.replayer.answer(q), bytes) for q, a in changed.items()
            ):
                continue
            config = self._carried_over(read, blob, entries, changed, overrides)
            if config is None:
                continue
            now = tuple((query, self.replayer.answer(query) if query in changed else answer) for query, answer in read)
            self._remember_defaults(config_name, overrides, entries)
            self.reads[(config_name, tuple(overrides))] = now
            self.warned += [self._located(text) for text in said]
            self.composed_fresh.append((config_name, tuple(overrides)))
            self.carried.append((config_name, tuple(overrides)))
            self._keep(key, now, config, entries, said, True)
            return self._shaped(config)
        return None

    def _carried_over(
        self, read: trace.Trace, blob: bytes, entries: tuple[DefaultsEntry, ...], changed: dict[trace.Query, Any], overrides: list[str]
    ) -> DictConfig | None:
        loads = {(os.path.normpath(trace.absolute(q[1], q[0])), hydra_compat.config_file_name(q[3])): q for q, _ in read if q[2] == "load"}
        merge_order: list[tuple[hydra_compat.KeyPath, Any]] = []
        edited: dict[int, hydra_compat.Edits] = {}
        edits_of: dict[trace.Query, hydra_compat.Edits | None] = {}
        for index, entry in enumerate(entries):
            query = loads.get((os.path.normpath(str(self.source_folders[entry.folder])), entry.file_name))
            parsed = None if query is None else self.replayer.parsed(query)
            if query is None or parsed is None:
                return None
            if parsed.digest not in self._contents:
                self._contents[parsed.digest] = parsed.config
            content = self._contents[parsed.digest]
            merge_order.append((carry.package_keys(entry.package), content))
            if query in changed:
                if query not in edits_of:
                    old = parsed_by_digest(changed[query])
                    edits_of[query] = (
                        None if old is None or old.header != parsed.header else hydra_compat.value_edits(old.config, content, same_value)
                    )
                found = edits_of[query]
                if found is None:
                    return None
                edited[index] = found
        if set(edits_of) != set(changed):
            return None  # a changed file no entry merges (read for its defaults only): Hydra decides
        if sum(len(edits) for edits in edited.values()) > MAX_CARRIED_VALUES:
            return None
        return carry.carried(cast(DictConfig, pickle.loads(blob)), merge_order, edited, self._written(overrides))

    def _written(self, overrides: list[str]) -> list[hydra_compat.KeyPath] | None:
        """The key paths the value overrides set (those selecting a group add files to the merge order instead);
        None when one's key path is not plain."""
        written = []
        try:
            parsed = parse_overrides(overrides)
        except ComposeError:
            return None
        for override in parsed:
            if self.is_value_override(override):
                key = override.key_or_group
                if "[" in key:
                    return None
                written.append(tuple(key.split(".")))
        return written

    def _remember_defaults(self, config_name: str, overrides: list[str], entries: tuple[DefaultsEntry, ...]) -> None:
        """The defaults list of a composition, by its overrides and by those of them that select a group: a value
        override changes no entry, and the invariants ask by the selecting ones (`provenance.written_hydra`).
        Hydra's defaults list was computed again for every case a preset composed in full (a fifth of an edit's
        check of sheeprl)."""
        self.defaults_lists[(config_name, tuple(overrides))] = entries
        try:
            selecting = tuple(o for o in overrides if self.selects_group(o))
        except Exception as error:  # an override Hydra cannot parse: the compose that took it said so already
            courtesy_failed(error)
            return
        self.defaults_lists.setdefault((config_name, selecting), entries)

    def hydra_node(self, config_name: str, overrides: Iterable[str]) -> Any:
        """The `hydra:` subtree of a composition (without `hydra.runtime`), whether or not this session keeps it: what
        the app's run mode and sweeper are (a launch's sweep). Raises ComposeError as `compose` does."""
        keep, self.hydra_subtree = self.hydra_subtree, True
        try:
            return self.compose(config_name, overrides).get("hydra")
        finally:
            self.hydra_subtree = keep

    def _shaped(self, config: DictConfig) -> DictConfig:
        """The composition as this session returns it: without the `hydra:` subtree unless the session keeps it,
        exactly as Hydra's compose drops it (`del cfg.hydra` under open_dict) for `return_hydra_config=False`."""
        if not self.hydra_subtree and "hydra" in config:
            with open_dict(config):
                del config["hydra"]
        return config

    def _located(self, text: str) -> HydraWarning:
        """A warning's text with the file it names (`In 'dp3': ...`), and the `defaults:` line for one about it."""
        named = WARNED_CONFIG.match(text)
        found = hydra_compat.find_config_file(self.loader, named.group(1)) if named else None
        if found is None:
            return HydraWarning(text)
        path = self.source_folders[found[0]] / found[1]
        line = None
        if "Defaults list" in text:
            try:
                lines = read_text(path, current().scope).splitlines()
            except (OSError, InputLimitError, UnsafeInput):
                lines = []
            line = next((number for number, row in enumerate(lines, 1) if linear.compile(r"defaults\s*:").match(row)), None)
        return HydraWarning(text, display_path(path), line)

    def _hinted(self, message: str, warned: Sequence[str] = ()) -> str:
        """Hydra's message, and for a node no file provides, the one line that says how to register it (or which
        search path entry Hydra skipped, from its warnings `warned`)."""
        match = MISSING_NODE.search(message)
        if match is None:
            return message
        gone = self.deleted_file(match.group(2))
        if gone:
            return f"{message} ({match.group(2)!r}: {gone}; restore it, or remove what names it)"
        group = match.group(2).rpartition("/")[0]
        skipped = unavailable_folders(warned)
        try:
            if group and match.group(1) == "find" and not hydra_compat.group_exists(self.loader, group):
                # An option of a group nothing provides: a misspelt or removed group, not a Python node, or one in a
                # search path entry Hydra skipped.
                parent, _, name = group.rpartition("/")
                groups = sorted(g for g in self.loader.list_groups(parent) if parent or g != "hydra")  # Hydra's own
                where = f" in {parent!r}" if parent else ""
                also = f", and Hydra skipped {skipped[0]!r}, which is not available" if skipped else ""
                hint = f"no config group {group!r}{did_you_mean(name, groups)}{also}; the groups{where}: {', '.join(groups) or 'none'}"
                return f"{message} ({hint})"
            options = {group: self.group_options(group, registered=True)} if group else {}
        except Exception as error:  # the hint is a courtesy; the message stands without it
            courtesy_failed(error)
            options = {}
        hint = missing_node_hint(message, options, self.schemas, skipped)
        return f"{message} ({hint})" if hint else message

    def deleted_file(self, node: str) -> str:
        """`conf/x.yaml was deleted by commit abc1234 (...)` for a node whose file git had in a config folder and the
        working tree lacks (asked once per node and session), else "": a file deleted is not a node Python registers."""
        if node not in self._deleted:
            files = [folder / f"{node}.yaml" for folder in (*self.folders, *self._searched)]
            said = ""
            if not any(file.exists() for file in files):
                said = next((f"{display_path(file)} {how}" for file in files if (how := git_deletion(file))), "")
            self._deleted[node] = said
        return self._deleted[node]

    def _entry_line(self, error: BaseException) -> str:
        """`FILE:LINE: ` of the defaults entry a composition error blames ("In 'train': Could not find 'group/x'"),
        or nothing when there is none (the option came from an override, or the error is of another kind)."""
        named = next(filter(None, (MISSING_ENTRY.search(" ".join(str(e).split())) for e in error_chain(error))), None)
        if named is None:
            return ""
        group = named.group(2).rpartition("/")[0]
        found = hydra_compat.find_config_file(self.loader, named.group(1)) if group else None
        if found is None:
            return ""
        path = self.source_folders[found[0]] / found[1]
        try:
            lines = read_text(path, current().scope).splitlines()
        except (OSError, InputLimitError, UnsafeInput):
            return ""
        # The entry must name the missing option itself: one an override chose instead is not this line's doing.
        option = named.group(2).rpartition("/")[2]
        for number, line in enumerate(lines, 1):
            if names_entry(line, group, option):
                return f"{display_path(path)}:{number}: "
        return ""

    def defaults_entries(self, config_name: str, overrides: Iterable[str]) -> tuple[DefaultsEntry, ...]:
        """The config files Hydra merges for this composition, in order (from the compose when it ran)."""
        key = (config_name, tuple(overrides))
        if key not in self.defaults_lists:
            with resolution_policy():
                defaults = self.loader.compute_defaults_list(config_name, list(key[1]), RunMode.RUN).defaults
            self.defaults_lists[key] = config_entries(defaults, self.loader)
        return self.defaults_lists[key]

    def is_value_override(self, override: Any) -> bool:
        """True when a parsed override sets a value rather than selecting a config group.

        The one place that decides it: composition (which overrides may skip a full compose) and provenance
        (which overrides change the defaults list) both ask here.
        """
        if override.package is not None or override.is_sweep_override():
            return False
        key = override.key_or_group
        if key == "hydra" or key.startswith("hydra.") or key.startswith("hydra/") or "/" in key:
            return False
        return isinstance(override.value(), dict) or not hydra_compat.group_exists(self.loader, key)

    def selects_group(self, override: str) -> bool:
        """True when an override string selects (adds, removes or changes) a defaults-list entry."""
        return not all(self.is_value_override(parsed) for parsed in parse_overrides([override]))

    def apply_value_overrides(self, base: DictConfig, overrides: tuple[str, ...], base_blob: bytes | None = None) -> DictConfig | None:
        """Apply value-only overrides to a copy of `base` with Hydra's own code; None if any selects a group.

        `base_blob` is `base` already pickled, so a base shared by many presets is serialized once.
        """
        parsed = parse_overrides(overrides)
        if not all(self.is_value_override(o) for o in parsed):
            return None
        config = cast(DictConfig, pickle.loads(base_blob if base_blob is not None else pickled(base)))
        try:
            # Hydra's override code resolves what it reads (`~a=x` compares a's resolved value): under the policy.
            with resolution_policy():
                hydra_compat.apply_overrides(parsed, config)
        except Exception as error:
            message = describe_error(error)
            # A misspelled key in a preset: name the closest key of the config, not Hydra's advice to add it.
            hint = override_hint(message, OmegaConf.to_container(base, resolve=False)) if "Could not override" in message else None
            raise ComposeError(hint or message) from error
        return config

    def compose_cases(self, cases: Iterable[Case], shared_stems: bool = True, kept_stems: Stems | None = None) -> Iterator[Composed]:
        """Compose cases in order; each stem (config, stem overrides) is composed once and presets applied to copies.

        Without `kept_stems` only the current stem is held (cases arrive grouped by stem, so memory stays
        flat); a caller that composes cases one at a time passes a dict that outlives the call.
        """
        stems: Stems = kept_stems if kept_stems is not None else {}
        self.sharing = shared_stems
        for case in cases:
            start = len(self.warned)
            try:
                if not shared_stems:
                    config, hydra = self._split(self.compose(case.config_name, case.overrides))
                    reads = self._reads_of((case.config_name, tuple(case.overrides)))
                    yield Composed(case, config, hydra=hydra, warnings=tuple(self.warned[start:]), reads=reads)
                    continue
                key = (case.config_name, case.stem_overrides)
                if key not in stems:
                    if kept_stems is None:
                        stems.clear()
                    try:
                        stems[key] = _Stem(*self._split(self.compose(case.config_name, case.stem_overrides)))
                    except ComposeError as error:
                        stems[key] = error
                with trace.recording() as derived:  # the presets' overrides ask which keys are groups
                    config, hydra = self._derive(case, stems[key])
                whole = (case.config_name, tuple(case.overrides))
                reads = self._reads_of(key, *([whole] if case.preset_overrides and whole in self.reads else []))
                if reads is not None and derived.cacheable:
                    reads += (derived.trace,)
                yield Composed(case, config, hydra=hydra, warnings=tuple(self.warned[start:]), reads=reads if derived.cacheable else None)
            except ComposeError as error:
                yield Composed(case, None, str(error), warnings=tuple(self.warned[start:]))

    def _reads_of(self, *keys: tuple[str, tuple[str, ...]]) -> tuple[trace.Trace, ...] | None:
        """The recorded reads of these compositions (config name, overrides), or None when one was not recorded."""
        found = tuple(self.reads.get(key) for key in keys)
        return None if any(read is None for read in found) else cast(tuple[trace.Trace, ...], found)

    def _split(self, config: DictConfig) -> tuple[DictConfig, Any]:
        """The job config (what goldens hold) and, when asked for, the `hydra:` subtree taken out of it, as written.

        Hydra's own compose drops the subtree the same way (`del cfg.hydra` under open_dict), so the job config is
        the one `return_hydra_config=False` gives. `hydra.runtime` (this machine's folders and versions) and
        `hydra.overrides` (the case's own overrides) say nothing about the tree and are left out. Every composition
        passes here, so here its depth is bounded (ComposeError) before anything walks it.
        """
        bounded(config)
        if not self.hydra_subtree or "hydra" not in config:
            return config, None
        with open_dict(config):
            node = config.pop("hydra")
        hydra = OmegaConf.to_container(node, resolve=False)
        if isinstance(hydra, dict):
            hydra.pop("runtime", None)
            hydra.pop("overrides", None)
        return config, hydra

    def _derive(self, case: Case, stem: _Stem | ComposeError) -> tuple[DictConfig, Any]:
        if isinstance(stem, ComposeError) and not case.preset_overrides:
            raise stem
        if isinstance(stem, _Stem):
            if not case.preset_overrides:
                return stem.config, stem.hydra
            if stem.blob is None:
                stem.blob = pickled(stem.config)
            # A root with a `hydra.searchpath` of its own has groups the session's loader does not list: a preset
            # `+opt=adam` may select one there, so only a full compose answers as Hydra does.
            derived = (
                None
                if self._has_own_search_path(case.config_name)
                else self.apply_value_overrides(stem.config, case.preset_overrides, stem.blob)
            )
            if derived is not None:
                return bounded(derived), stem.hydra  # value overrides never touch `hydra.` (those select a full compose)
        # A group-selecting preset, or one that might repair a broken stem, goes through full compose.
        return self._split(self.compose(case.config_name, case.overrides))
