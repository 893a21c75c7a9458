"""Every private Hydra (and OmegaConf) API the harness relies on, in one module (syrupy's sits in syrupy_compat).

Hydra has no public API for most of what a golden-file harness needs (a cached config source, the defaults
list a compose used, overrides applied to an existing config). Each use sits here, behind a small function,
and `tests/unit/composition/test_hydra_compat.py` pins each one: when a Hydra release moves or changes one of them, that
test fails by name instead of compositions silently drifting from plain Hydra.
"""

from __future__ import annotations

import copy
import pickle
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from enum import Enum
from typing import Any

from hydra import version as hydra_version
from hydra._internal import config_loader_impl as loader_module
from hydra._internal import defaults_list as defaults_module
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra._internal.core_plugins.file_config_source import FileConfigSource
from hydra._internal.core_plugins.importlib_resources_config_source import ImportlibResourcesConfigSource
from hydra._internal.core_plugins.structured_config_source import StructuredConfigSource
from hydra._internal.hydra import Hydra
from hydra._internal.sources_registry import SourcesRegistry
from hydra._internal.utils import create_config_search_path
from hydra.core.config_store import ConfigStore
from hydra.core.default_element import InputDefault, ResultDefault
from hydra.core.global_hydra import GlobalHydra
from hydra.core.object_type import ObjectType
from hydra.core.plugins import Plugins
from hydra.errors import ConfigCompositionException
from hydra.plugins.config_source import ConfigLoadError, ConfigSource
from hydra.version import VersionBase
from omegaconf import MISSING, AnyNode, Container, DictConfig, ListConfig, Node, OmegaConf, ValueNode, flag_override
from omegaconf import base as omegaconf_base
from omegaconf._utils import _raise, get_yaml_loader, is_float, is_int, yaml_is_bool
from omegaconf.basecontainer import BaseContainer
from omegaconf.errors import OmegaConfBaseException

try:
    from hydra.errors import Hydra14MigrationWarning
except ImportError:  # hydra-core < 1.3.5: no such class, and setbase("1.1") warns nothing there

    class Hydra14MigrationWarning(UserWarning):  # type: ignore[no-redef]
        """Stands in for the warning Hydra 1.3.5 and later give for a pre-1.2 version_base."""


# Only names of this module's own: a class or function of Hydra's private modules is never handed out (the
# private-API test fails on any use of one outside this module), so each use of Hydra's internals stays here.
__all__ = [
    "LentConfig",
    "apply_overrides",
    "basic_sweep",
    "errors_without_copies",
    "child_node",
    "config_file_name",
    "file_source_folders",
    "file_group_options",
    "file_source",
    "find_config_file",
    "group_exists",
    "is_basic_sweeper",
    "header_of",
    "stored_config",
    "is_file_source",
    "nesting_depth",
    "omegaconf_yaml_resolvers",
    "package_source",
    "reads_as_other_type",
    "recording_defaults_lists",
    "register_source",
    "resolver_table",
    "resolvers_replaced",
    "saved_state",
    "shared_work",
    "source_subclass",
    "source_types",
    "sources_standing_in",
    "search_path_resolved",
    "start_hydra",
    "structured_source",
    "written_at",
]

# Where the extra folders of a search path come from in Hydra's own listing (as `hydra.searchpath` does).
SEARCH_PATH_PROVIDER = "config-harness search path"


def register_source(source_class: type[ConfigSource]) -> None:
    """Make a config source class available for its scheme in every search path (Hydra's sources registry)."""
    SourcesRegistry.instance().register(source_class)


@contextmanager
def _entries_replaced(table: dict[str, Any], replacements: Mapping[str, Any]) -> Iterator[None]:
    """While active, these entries stand in the table (added where absent); then the table is as before."""
    saved = {name: table.get(name) for name in replacements}
    table.update(replacements)
    try:
        yield
    finally:
        for name, entry in saved.items():
            if entry is None:
                table.pop(name, None)
            else:
                table[name] = entry


def sources_standing_in(sources: Mapping[str, type[ConfigSource]]) -> AbstractContextManager[None]:
    """While active, these classes serve their schemes (`file`, `pkg`) in every search path Hydra builds."""
    return _entries_replaced(source_types(), sources)


def start_hydra(primary: str, extra: Sequence[str] = (), version_base: str | None = None) -> None:
    """Initialize GlobalHydra like `initialize_config_dir`, with extra search path entries appended after it.

    Extra folders go where Hydra puts `hydra.searchpath` entries: after every other entry but the schema source.
    """
    with warnings.catch_warnings():
        # Hydra warns that version_base "1.1" is a compatibility mode: here the settings chose it on purpose.
        warnings.simplefilter("ignore", Hydra14MigrationWarning)
        hydra_version.setbase(version_base)
    GlobalHydra.instance().clear()
    search_path = create_config_search_path(primary)
    if extra:
        # As Hydra does for `hydra.searchpath`: the extra entries go before the schema source, which must stay last.
        schema = search_path.get_path().pop(-1)
        for path in extra:
            search_path.append(SEARCH_PATH_PROVIDER, path)
        search_path.append(schema.provider, schema.path)
    Hydra.create_main_hydra2(task_name="config-harness", config_search_path=search_path)


def header_of(text: str) -> dict[str, str | None]:
    """The `# @package ...` style header of a config file's text, as Hydra reads it (first 512 characters)."""
    return ConfigSource._get_header_dict(text[:512])


def config_file_name(config_path: str) -> str:
    """The file name Hydra loads for a config path: `.yaml` appended unless already there."""
    return ConfigSource._normalize_file_name(config_path)


def _shallow_copy(source: ConfigSource, memo: dict[int, Any]) -> ConfigSource:
    # Hydra deep-copies its repository, sources included, in every composition, only so that replacing the
    # repository's list of sources leaves the original list alone. A source's own fields never change, and
    # deep-copying the structured source copies the whole ConfigStore, which costs more than composing a
    # small tree; a shallow copy keeps the same meaning.
    clone = copy.copy(source)
    memo[id(source)] = clone
    return clone


def source_subclass(mixin: type, source_type: type[ConfigSource], name: str | None = None) -> type[ConfigSource]:
    """`source_type` with `mixin` (a subclass of the public ConfigSource, abstract alone) in front, copied shallowly when Hydra
    copies its repository. Named `name`, or else as `source_type`: Hydra tells its schema source by class name
    (`StructuredConfigSource`), so a stand-in with another name fails every compose."""
    namespace = {"__module__": mixin.__module__, "__deepcopy__": _shallow_copy}
    return type(name or source_type.__name__, (mixin, source_type), namespace)


def file_source(mixin: type) -> type[ConfigSource]:
    """Hydra's source of a folder of config files (`file://`), with `mixin` in front, named as the mixin."""
    return source_subclass(mixin, FileConfigSource, mixin.__name__)


def package_source(mixin: type) -> type[ConfigSource]:
    """Hydra's source of a package's config files (`pkg://`), with `mixin` in front, named as the mixin. In the
    mixin, `super(<the mixin's own base>, self)` reaches Hydra's own methods."""
    return source_subclass(mixin, ImportlibResourcesConfigSource, mixin.__name__)


def structured_source(mixin: type) -> type[ConfigSource]:
    """Hydra's source of ConfigStore nodes (`structured://`), with `mixin` in front, under Hydra's class name."""
    return source_subclass(mixin, StructuredConfigSource)


def child_node(config: DictConfig, key: str) -> Any:
    """The node under `key` as written (the interpolations inside it unresolved), or None when the key is absent."""
    return config._get_node(key) if key in config else None


def written_at(config: Any, path: Sequence[str]) -> tuple[bool, Any]:
    """The value at a key path as written, as `OmegaConf.to_container(resolve=False, enum_to_str=True)` would give
    it (interpolations unresolved): (True, value), or (False, None) where the path does not exist."""
    node = config
    for part in path:
        content = node.__dict__.get("_content") if isinstance(node, Container) else None
        if isinstance(content, dict):
            node = content.get(part)
        # 19 digits: budget.MAX_INDEX_DIGITS (this module imports none of the package); `int()` refuses 4,300, and `²`
        elif isinstance(content, list) and part.isdecimal() and len(part) <= 19 and int(part) < len(content):
            node = content[int(part)]
        else:
            return False, None
        if node is None:
            return False, None
    if isinstance(node, Container) and not (node._is_none() or node._is_missing() or node._is_interpolation()):
        return True, OmegaConf.to_container(node, resolve=False, enum_to_str=True)
    value = node._value()
    return True, value.name if isinstance(value, Enum) else value


def is_file_source(source: ConfigSource) -> bool:
    """True for a source that reads a folder of files (Hydra's plugin scan may load its own copy of the class)."""
    return isinstance(source, FileConfigSource) or source.scheme() == "file"


def find_config_file(loader: Any, config_path: str) -> tuple[int, str] | None:
    """Which file Hydra loads for `config_path`: (index of the file source in the search path, file name).

    The first source that holds the config wins, as in Hydra's repository; None for a structured config.
    """
    index = 0
    for source in loader.get_sources():
        if source.is_config(config_path):
            return (index, config_file_name(config_path)) if is_file_source(source) else None
        index += is_file_source(source)
    return None


def file_source_folders(loader: Any) -> list[str]:
    """The folders of the search path's file sources, in search order (the indexes find_config_file returns)."""
    return [source.path for source in loader.get_sources() if is_file_source(source)]


def file_group_options(loader: Any, group: str) -> list[str]:
    """A group's options that some config folder or package provides (not those only ConfigStore registers), sorted."""
    options: set[str] = set()
    for source in loader.get_sources():
        if source.scheme() != "structured" and source.is_group(group):
            options.update(source.list(group, ObjectType.CONFIG))
    return sorted(options)


def stored_config(config_path: str) -> Any | None:
    """The ConfigNode ConfigStore holds for a config file name (`hydra/config.yaml`), itself, not a copy (never
    mutate it), or None when nothing is registered there."""
    try:
        return ConfigStore.instance()._load(config_path)
    except ConfigLoadError:
        return None


def group_exists(loader: Any, name: str) -> bool:
    """True when `name` is a config group in the loader's search path."""
    return bool(loader.repository.group_exists(name))


@contextmanager
def recording_defaults_lists() -> Iterator[list[Any]]:
    """Collect every defaults list Hydra computes inside the block (the last one is the compose's own).

    Hydra computes the defaults list while composing and then forgets it; keeping it spares provenance
    a second computation.
    """
    recorded: list[Any] = []
    # The name is patched where config_loader_impl bound it by import (the binding its compose calls), which
    # that module does not re-export: hence the attr-defined ignores.
    original = loader_module.create_defaults_list  # type: ignore[attr-defined]

    def record(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        recorded.append(result)
        return result

    loader_module.create_defaults_list = record  # type: ignore[attr-defined]
    try:
        yield recorded
    finally:
        loader_module.create_defaults_list = original  # type: ignore[attr-defined]


class _SearchPathStandIn:
    """What Hydra's search path step asks of a `hydra.searchpath` override: its key and its (resolved) entries."""

    def __init__(self, entries: list[str]) -> None:
        self.entries = entries

    def get_key_element(self) -> str:
        return "hydra.searchpath"

    def value(self) -> list[str]:
        return self.entries


@contextmanager
def search_path_resolved(resolve: Callable[[str, list[Any]], tuple[list[str], dict[str, str]]]) -> Iterator[None]:
    """While active, a primary config's own `hydra.searchpath` is handed to `resolve(config_name, entries as written)`,
    which checks them and returns the entries to use (and resolved -> written, for Hydra's warnings), before Hydra
    builds the search path from them. An override of `hydra.searchpath` replaces the config's entries, as in Hydra:
    they are then never read. Nothing else of Hydra's step changes."""
    original = ConfigLoaderImpl._process_config_searchpath

    def process(self: ConfigLoaderImpl, config_name: str | None, parsed_overrides: list[Any], repo: Any) -> None:
        shown: dict[str, str] = {}
        if config_name is not None and not any(v.get_key_element() == "hydra.searchpath" for v in parsed_overrides):
            loaded = repo.load_config(config_path=config_name)
            config = loaded.config if loaded is not None else None
            hydra = child_node(config, "hydra") if isinstance(config, DictConfig) else None
            node = child_node(hydra, "searchpath") if isinstance(hydra, DictConfig) else None
            written = OmegaConf.to_container(node, resolve=False) if OmegaConf.is_list(node) else None
            if isinstance(written, list):
                entries, shown = resolve(config_name, written)
                parsed_overrides = [_SearchPathStandIn(entries), *parsed_overrides]  # a copy: the caller's list stays
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            original(self, config_name, parsed_overrides, repo)
        for warning in caught:  # Hydra's "path=... is not available", with each entry as written
            message = str(warning.message)
            for resolved, text in shown.items():
                message = message.replace(f"path={resolved.partition('://')[2] or resolved} ", f"path={text} ")
            warnings.warn(message, warning.category, stacklevel=2)

    ConfigLoaderImpl._process_config_searchpath = process  # type: ignore[method-assign]
    try:
        yield
    finally:
        ConfigLoaderImpl._process_config_searchpath = original  # type: ignore[method-assign]


def is_basic_sweeper(target: str) -> bool:
    """True for the `_target_` of Hydra's own sweeper (`hydra/sweeper: basic`, the default): the one whose points
    the command line and `hydra.sweeper.params` say."""
    return target == f"{BasicSweeper.__module__}.{BasicSweeper.__name__}"


def basic_sweep(parsed_overrides: list[Any]) -> list[list[str]]:
    """The points of a multirun as Hydra's basic sweeper makes them from its parsed arguments (`hydra.sweeper.params`
    then the command line's task overrides): each point's overrides, in Hydra's order. It lists every point at once:
    the caller bounds their number first."""
    (batch,) = BasicSweeper.split_arguments(parsed_overrides, None)
    return batch


def apply_overrides(parsed_overrides: list[Any], config: Any) -> None:
    """Apply parsed value overrides to a composed config in place, with Hydra's own code."""
    ConfigLoaderImpl._apply_overrides_to_config(parsed_overrides, config)


def _plain_mapping(node: Any) -> bool:
    # A mapping that OmegaConf.update walks into as it is: not an interpolation, None or `???`, string keys.
    return (
        isinstance(node, DictConfig)
        and isinstance(node.__dict__["_content"], dict)
        and node._metadata.key_type in (Any, str)
        and not node._is_interpolation()
    )


# The values Hydra's override parser gives for a plain `key=value` that OmegaConf sets on a leaf as they are.
_SCALARS = (str, int, float, bool, type(None))


class LentConfig:
    """A composed config lent to one launch after another: each value override is applied to it with Hydra's own
    code (the same results and errors as `apply_overrides` on a fresh copy), and `give_back` undoes them all, so
    the next launch starts from the same config without unpickling a copy of its own.

    Applying an override changes one place: the mapping where its key path first leaves what exists (a key added
    there, a value or mapping replaced or deleted), a leaf's value in place, or a mapping or list merged into in
    place. The mapping's entries are kept (the same node objects), a leaf's value is kept, and a container an
    override may change in place is swapped for a copy first, so the original is never touched. A key path through
    an interpolation, a list, a `None` or `???` mapping or a key that is not plain text may change something
    elsewhere: after such an override the config is not given back (`give_back` says False).
    """

    def __init__(self, config: DictConfig) -> None:
        self.config = config
        self._undo: list[Callable[[], None]] | None = []
        self._resolved = _resolver_cache_of(config)
        # Where the overrides applied since the config was lent changed it: (the mapping's key path, the key); None
        # when one may have changed something elsewhere (`plain` then converts the whole config).
        self._touched: list[tuple[tuple[str, ...], str]] | None = []

    def apply(self, parsed: Any) -> None:
        """Apply one parsed value override in place; raises what Hydra raises."""
        place = self._place(parsed.key_or_group) if parsed.package is None else None
        if place is None:
            self._touched = None
        elif self._touched is not None:
            self._touched.append((place[4], place[1]))
        if place is not None:
            holder, key, child, leaf, _ = place
            if leaf and isinstance(child, ValueNode) and not (parsed.is_delete() or parsed.is_add() or parsed.is_force_add()):
                value = parsed.value()
                if type(value) in _SCALARS:
                    # What OmegaConf.update does at the end of this key path (the walk to `holder` changes nothing).
                    old = child._val
                    try:
                        setattr(holder, key, value)
                    except Exception:  # noqa: BLE001 - unchanged; Hydra's own code raises its own error below
                        pass
                    else:
                        self._keep(lambda: child.__dict__.__setitem__("_val", old))
                        return
            self._keep(self._undo_at(holder, key, child, leaf, parsed.is_delete()))
        else:
            self._undo = None
        ConfigLoaderImpl._apply_overrides_to_config([parsed], self.config)

    def give_back(self) -> bool:
        """Undo every override applied since the last call: True when the config is as it was, False when some
        change could not be undone (the config must then be dropped)."""
        undo, self._undo = self._undo, []
        self._touched = []
        if undo is None or _resolver_cache_of(self.config) != self._resolved:
            return False
        for step in reversed(undo):
            step()
        return True

    def _keep(self, step: Callable[[], None] | None) -> None:
        if step is None:
            self._undo = None
        elif self._undo is not None:
            self._undo.append(step)

    def plain(self, lent: Any) -> Any:
        """The config as `plain_tree` gives it, from `lent`, the plain tree of the config as it was lent: only the
        places the overrides changed are converted (a launch changes a few keys of a large config), the rest is
        `lent`'s own subtrees, shared. The same keys in the same order as `plain_tree(self.config)`."""
        touched = self._touched
        if touched is None or not isinstance(lent, dict):
            return plain_tree(self.config)
        changed = {(*holder, key) for holder, key in touched}
        keys: dict[tuple[str, ...], set[str]] = {}
        for holder, key in touched:
            # A place at or above another's mapping converts that mapping whole: it may be a new one.
            if not any(holder[:depth] in changed for depth in range(1, len(holder) + 1)):
                keys.setdefault(holder, set()).add(key)
        tree: dict[Any, Any] = dict(lent)
        copied: dict[tuple[str, ...], dict[Any, Any]] = {(): tree}
        for holder, names in sorted(keys.items(), key=lambda item: len(item[0])):
            node: Any = self.config
            was: Any = lent
            parent = tree
            for depth, part in enumerate(holder):
                node = node.__dict__["_content"].get(part)
                was = was[part] if isinstance(was, dict) and part in was else None
                if not isinstance(was, dict) or not isinstance(node, DictConfig):
                    return plain_tree(self.config)  # not the mapping it was lent as: converted whole
                if holder[: depth + 1] not in copied:
                    copied[holder[: depth + 1]] = parent[part] = dict(parent[part])
                parent = copied[holder[: depth + 1]]
            parent.clear()
            for key, child in node.__dict__["_content"].items():
                name = key.name if isinstance(key, Enum) else key
                if str(name) in names or name not in was:  # `1` and `"1"`: converted anew, never a stale value
                    parent[name] = plain_tree(child) if isinstance(child, Container) else _plain_value(child)
                else:
                    parent[name] = was[name]
        return tree

    def _place(self, path: Any) -> tuple[DictConfig, str, Any, bool, tuple[str, ...]] | None:
        """Where applying an override of `path` changes the config: (mapping, key, node there or None, whether the
        key is the path's last, the mapping's key path); None when the path goes through something OmegaConf
        resolves or does not walk."""
        if not isinstance(path, str) or not path or "[" in path or not _plain_mapping(self.config):
            return None
        parts = path.split(".")
        if not all(parts):
            return None
        holder: DictConfig = self.config
        for depth, part in enumerate(parts):
            child = holder.__dict__["_content"].get(part)
            leaf = depth == len(parts) - 1
            if leaf or not isinstance(child, Container):
                return holder, part, child, leaf, tuple(parts[:depth])
            if not isinstance(child, DictConfig) or not _plain_mapping(child):
                return None
            holder = child
        return None  # not reached: the last part returns

    @staticmethod
    def _undo_at(holder: DictConfig, key: str, child: Any, leaf: bool, delete: bool) -> Callable[[], None] | None:
        if child is not None and not isinstance(child, (Container, ValueNode)):
            return None  # a union node: it changes in place in ways not kept here
        if delete and not leaf:
            return None
        entries = dict(holder.__dict__["_content"])
        value = child._val if isinstance(child, ValueNode) else None
        if leaf and isinstance(child, Container) and not delete:
            holder.__dict__["_content"][key] = copy.deepcopy(child)  # merged into in place: work on a copy

        def undo() -> None:
            holder.__dict__["_content"] = entries
            if child is not None:
                if isinstance(child, ValueNode):
                    child.__dict__["_val"] = value
                child._invalidate_flags_cache()  # it may have been detached while flags changed

        return undo


def _resolver_cache_of(config: Any) -> dict[str, Any]:
    """A config's cache of resolver results (`use_cache=True` resolvers such as Hydra's `now`), as plain dicts."""
    return {name: dict(values) for name, values in config._metadata.resolver_cache.items() if values}


# Patched where omegaconf.base bound it by import (the binding its nodes call), which that module does not
# re-export: hence the attr-defined ignores.
_ORIGINAL_FORMAT_AND_RAISE = omegaconf_base.format_and_raise  # type: ignore[attr-defined]


def _format_and_raise_keeping_nodes(node: Any, key: Any, value: Any, msg: str, cause: Exception, type_override: Any = None) -> None:
    # OmegaConf's format_and_raise, re-typing an already formatted error without deep-copying its fields: they
    # name the config nodes involved, and a copy of them copies whole subtrees for a message that stays the same.
    if type_override is not None and isinstance(cause, OmegaConfBaseException) and cause._initialized:
        error = type_override(str(cause))
        error.__dict__ = dict(cause.__dict__)
        _raise(error, cause)
    _ORIGINAL_FORMAT_AND_RAISE(node, key, value, msg, cause, type_override)


@contextmanager
def errors_without_copies() -> Iterator[None]:
    """Within the block, OmegaConf's errors keep references to the config nodes they name instead of deep copies
    (same types, same messages): for failures whose exception is read only for its text."""
    omegaconf_base.format_and_raise = _format_and_raise_keeping_nodes  # type: ignore[attr-defined]
    try:
        yield
    finally:
        omegaconf_base.format_and_raise = _ORIGINAL_FORMAT_AND_RAISE  # type: ignore[attr-defined]


def nesting_depth(config: Any, limit: int) -> int:
    """How many levels of mappings and lists a config's nodes nest (walked without recursion, so a config too
    deep for OmegaConf's own recursive walks is measured, not crashed on); stops counting past `limit`."""
    deepest = 0
    pending = [(config, 0)]
    while pending:
        node, depth = pending.pop()
        content = getattr(node, "_content", None)
        if isinstance(content, dict):
            children = list(content.values())
        elif isinstance(content, list):
            children = content
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > limit:
            return deepest
        pending += [(child, depth + 1) for child in children]
    return deepest


def omegaconf_yaml_resolvers() -> dict[str, list[Any]]:
    """The implicit scalar resolvers of OmegaConf's YAML loader (its floats like `1e-6`, timestamps kept as text)."""
    return {first: list(resolvers) for first, resolvers in get_yaml_loader().yaml_implicit_resolvers.items()}


def reads_as_other_type(text: str) -> bool:
    """True when OmegaConf would read this string, written plainly, as a bool, an int or a float."""
    return bool(yaml_is_bool(text) or is_int(text) or is_float(text))


def source_types() -> dict[str, type[ConfigSource]]:
    """Hydra's registry of config source types by scheme, every plugin discovered (the live, mutable dict)."""
    Plugins.instance()  # discovers (and registers) every config source plugin first
    return SourcesRegistry.instance().types


def resolver_table() -> dict[str, Any]:
    """OmegaConf's registered resolvers by name (the live, mutable dict)."""
    return BaseContainer._resolvers


def resolvers_replaced(replacements: Mapping[str, Any]) -> AbstractContextManager[None]:
    """While active, these resolvers stand in OmegaConf's table (added where absent); then the table is as before."""
    return _entries_replaced(BaseContainer._resolvers, replacements)


def saved_state() -> Callable[[], None]:
    """Everything the harness may change in Hydra and OmegaConf, saved; the returned function restores it exactly.

    Hydra discovers its plugins once per process, on first use; that happens here, so that what is saved is
    the state every later composition starts from.
    """
    types = source_types()
    saved_types, saved_resolvers = dict(types), dict(BaseContainer._resolvers)
    version = VersionBase.instance().getbase()
    global_hydra = GlobalHydra.instance().hydra
    functions = (defaults_module._create_interpolation_map, ConfigLoaderImpl._compose_config_from_defaults_list)

    def restore() -> None:
        types.clear()
        types.update(saved_types)
        BaseContainer._resolvers.clear()
        BaseContainer._resolvers.update(saved_resolvers)
        VersionBase.instance().version_base = version
        GlobalHydra.instance().hydra = global_hydra
        defaults_module._create_interpolation_map = functions[0]
        ConfigLoaderImpl._compose_config_from_defaults_list = functions[1]  # type: ignore[method-assign]

    return restore


# Work Hydra repeats in every composition, done once per session: the merged head of Hydra's own configs,
# and the defaults-interpolation map, built only when a defaults entry reads it. Both replace private Hydra
# functions with versions that give the same result (tests compare goldens with plain Hydra byte for byte
# on verl, sheeprl and anemoi-training).

_ORIGINAL_MAP = defaults_module._create_interpolation_map
_ORIGINAL_COMPOSE = ConfigLoaderImpl._compose_config_from_defaults_list

# A session's merged heads: the pickled merge of a leading run of Hydra's own entries, keyed by those entries
# (their reprs) and the config sources (scheme, path) they were merged from.
MergedHeads = dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], bytes]


def _interpolation_map_when_read(overrides: Any, defaults_list: list[InputDefault], self_added: bool) -> Any:
    # Hydra builds this map (a DictConfig of every choice so far) for every node of the defaults tree, but
    # reads it only for children that are interpolations, and those are entries of `defaults_list`.
    if not any(isinstance(d, InputDefault) and d.is_interpolation() for d in defaults_list):
        return None
    return _ORIGINAL_MAP(overrides, defaults_list, self_added)


def _is_hydra_entry(default: Any) -> bool:
    return (default.package or "").split(".")[0] == "hydra"


def _merge(cfg: Any, loader: ConfigLoaderImpl, defaults: list[ResultDefault], repo: Any) -> None:
    with flag_override(cfg, "no_deepcopy_set_nodes", True):
        for default in defaults:
            loaded = loader._load_single_config(default=default, repo=repo)
            try:
                cfg.merge_with(loaded.config)
            except OmegaConfBaseException as e:
                raise ConfigCompositionException(
                    f"In '{default.config_path}': {type(e).__name__} raised while composing config:\n{e}"
                ).with_traceback(sys.exc_info()[2]) from e


def _compose_sharing_the_head(heads: MergedHeads, self: ConfigLoaderImpl, defaults: list[ResultDefault], repo: Any) -> Any:
    """Hydra's _compose_config_from_defaults_list, with the leading run of Hydra's own entries merged once
    per session into `heads` (keyed by the entries and the config sources, so an override of `hydra/...` is a new
    head)."""
    count = 0
    while count < len(defaults) and _is_hydra_entry(defaults[count]):
        count += 1
    if count == 0:
        return _ORIGINAL_COMPOSE(self, defaults, repo)
    key = (tuple(repr(d) for d in defaults[:count]), tuple((s.scheme(), s.path) for s in repo.get_sources()))
    blob = heads.get(key)
    if blob is None:
        cfg = OmegaConf.create()
        _merge(cfg, self, defaults[:count], repo)
        try:
            heads[key] = pickle.dumps(cfg, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            # A structured-config class that cannot be pickled here (its module was imported twice, as an
            # in-process pytest run does): this head is simply merged again next time.
            pass
    else:
        cfg = pickle.loads(blob)
    _merge(cfg, self, defaults[count:], repo)
    _strip_defaults(cfg)
    return cfg


def _strip_defaults(cfg: Any) -> None:
    # As Hydra does at the end of _compose_config_from_defaults_list: remove leftover defaults lists.
    if isinstance(cfg, DictConfig):
        if cfg._is_missing() or cfg._is_none():
            return
        with flag_override(cfg, ["readonly", "struct"], False):
            if cfg._get_flag("HYDRA_REMOVE_TOP_LEVEL_DEFAULTS"):
                cfg._set_flag("HYDRA_REMOVE_TOP_LEVEL_DEFAULTS", None)
                cfg.pop("defaults", None)
        for _key, value in cfg.items_ex(resolve=False):
            _strip_defaults(value)


@contextmanager
def shared_work(heads: MergedHeads | None) -> Iterator[None]:
    """Within the block, compositions share the merged heads kept in `heads` (a HydraSession's dict) and skip
    unread interpolation maps; None leaves Hydra as it is (the plain path)."""
    if heads is None:
        yield
        return

    def compose(self: ConfigLoaderImpl, defaults: list[ResultDefault], repo: Any) -> Any:
        return _compose_sharing_the_head(heads, self, defaults, repo)

    defaults_module._create_interpolation_map = _interpolation_map_when_read
    ConfigLoaderImpl._compose_config_from_defaults_list = compose  # type: ignore[method-assign]
    try:
        yield
    finally:
        defaults_module._create_interpolation_map = _ORIGINAL_MAP
        ConfigLoaderImpl._compose_config_from_defaults_list = _ORIGINAL_COMPOSE  # type: ignore[method-assign]


def plain_tree(config: Container) -> Any:
    """`OmegaConf.to_container(config, resolve=False, enum_to_str=True)`, read straight from each node's content: the
    same walk without a key lookup and validation per key (a review converts every launch's config, and this was
    a sixth of its time). Pinned against to_container by tests/unit/composition/test_hydra_compat.py."""
    if config._is_none():
        return None
    if config._is_missing():
        return MISSING
    if config._is_interpolation():
        return config._value()
    if isinstance(config, DictConfig):
        return {
            (key.name if isinstance(key, Enum) else key): plain_tree(node) if isinstance(node, Container) else _plain_value(node)
            for key, node in config._content.items()  # type: ignore[union-attr]
        }
    return [plain_tree(node) if isinstance(node, Container) else _plain_value(node) for node in config._content]


def _plain_value(node: Any) -> Any:
    value = node._value()
    while isinstance(value, Node):  # a Union-typed field (benchmarl's `target_entropy: float | str`) wraps its node
        value = value._value()
    return value.name if isinstance(value, Enum) else value


# Carrying a cached composition over a value edit (harness.composition.carry) rests on what OmegaConf's merge does
# with one value: these functions read nodes as the merge does (BaseContainer._map_merge, omegaconf 2.1 to 2.3).

# A node's place from the root of a config, key by key.
KeyPath = tuple[Any, ...]
# A value edit in one file: the key path inside the file -> (old node, new node).
Edits = dict[KeyPath, tuple[Node, Node]]

PLAIN_SCALARS = (str, int, float, bool)
# How two plain values are told apart (semantic_diff.same_value: the type too, and a float's exact bits), given by
# the caller: the quarantine imports nothing of the harness.
Equal = Callable[[Any, Any], bool]


def _special(node: Node) -> bool:
    """A container that holds no children: null, `???` or an interpolation."""
    return node._is_none() or node._is_missing() or node._is_interpolation()


def same_nodes(a: Node, b: Node, equal: Equal) -> bool:
    """Two nodes alike in type, metadata (flags included), content and key order, all the way down."""
    if type(a) is not type(b) or a._metadata != b._metadata:
        return False
    if isinstance(a, Container) and (_special(a) or _special(b)):
        return equal(a._value(), b._value())
    if isinstance(a, DictConfig) and isinstance(b, DictConfig):
        keys = list(a._content)  # type: ignore[arg-type]
        return keys == list(b._content) and all(_same_children(a._get_node(k), b._get_node(k), equal) for k in keys)  # type: ignore[arg-type]
    if isinstance(a, ListConfig) and isinstance(b, ListConfig):
        return len(a) == len(b) and all(_same_children(a._get_node(i), b._get_node(i), equal) for i in range(len(a)))
    return equal(a._value(), b._value())


def _same_children(a: Any, b: Any, equal: Equal) -> bool:
    return isinstance(a, Node) and isinstance(b, Node) and same_nodes(a, b, equal)


def _plain(node: Node) -> bool:
    """An untyped leaf holding a plain value: not null, not `???`, not an interpolation."""
    if type(node) is not AnyNode or node._is_missing() or node._is_interpolation():
        return False
    return type(node._value()) in PLAIN_SCALARS


def value_edits(old: Node, new: Node, equal: Equal) -> Edits | None:
    """The plain values an edit of a file changed, by key path; None when anything else about the file changed
    (a key added, removed or moved, a list, null, `???`, an interpolation, the top-level `defaults`)."""
    if not isinstance(old, DictConfig) or not isinstance(new, DictConfig):
        return None
    edits: Edits = {}
    return edits if _collect(old, new, (), edits, equal) else None


def _collect(a: DictConfig, b: DictConfig, at: KeyPath, edits: Edits, equal: Equal) -> bool:
    if type(a) is not type(b) or a._metadata != b._metadata:
        return False
    if _special(a) or _special(b):
        return same_nodes(a, b, equal)
    keys = list(a._content)  # type: ignore[arg-type]
    if keys != list(b._content):  # type: ignore[arg-type]
        return False
    for key in keys:
        x, y = a._get_node(key), b._get_node(key)
        if not isinstance(x, Node) or not isinstance(y, Node):
            return False
        if not at and key == "defaults":  # the defaults list decides which files merge: never carried
            if not same_nodes(x, y, equal):
                return False
        elif isinstance(x, DictConfig) and isinstance(y, DictConfig):
            if not _collect(x, y, (*at, key), edits, equal):
                return False
        elif not same_nodes(x, y, equal):
            if not (_plain(x) and _plain(y) and x._metadata == y._metadata):
                return False
            edits[(*at, key)] = (x, y)
    return True


def decides(content: Node, package: KeyPath, path: KeyPath) -> bool | None:
    """Whether merging `content` at `package` sets what ends up at `path`, whatever was there before: True when it
    holds a node there or replaces a node above it, False when it leaves `path` alone, None when the outcome
    depends on what was there (a `???` on the way keeps the earlier value)."""
    depth = len(package)
    if depth >= len(path):
        return package[: len(path)] == path
    if path[:depth] != package:
        return False
    node: Any = content
    for key in path[depth:]:
        if node._is_missing():
            return None
        if not isinstance(node, DictConfig) or node._is_none() or node._is_interpolation():
            return True  # a value, a list, null or an interpolation above `path` replaces what was below it
        try:
            node = node._get_node(key)
        except OmegaConfBaseException:  # a key the container cannot hold: the full compose says what it means
            return None
        if node is None:
            return False
    return None if node._is_missing() else True


def replace_value(config: DictConfig, path: KeyPath, old: Node, new: Node, equal: Equal) -> bool:
    """Put a copy of `new` where `config` holds `old`'s plain value, as the merge puts a file's node over an untyped
    one (it adopts the node: `dest.__setitem__(key, src_node)`); False, changing nothing, when the node there is not
    an untyped leaf with `old`'s value."""
    parent: Any = config
    for key in path[:-1]:
        parent = parent._get_node(key)
        if not isinstance(parent, DictConfig) or _special(parent):
            return False
    node = parent._get_node(path[-1])
    if node is None or not _plain(node) or not equal(node._value(), old._value()) or node._get_flag("readonly"):
        return False
    with flag_override(config, "no_deepcopy_set_nodes", True):
        parent[path[-1]] = copy.deepcopy(new)  # its own metadata; the parent is set anew
    return True
