"""Every private Hydra (and OmegaConf) API the harness relies on, in one module.

Hydra has no public API for most of what a golden-file harness needs (a cached config source, the defaults
list a compose used, overrides applied to an existing config). Each use sits here, behind a small function,
and `tests/unit/test_hydra_compat.py` pins each one: when a Hydra release moves or changes one of them, that
test fails by name instead of compositions silently drifting from plain Hydra.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hydra import version as hydra_version
from hydra._internal import config_loader_impl as loader_module
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra._internal.core_plugins.file_config_source import FileConfigSource
from hydra._internal.core_plugins.importlib_resources_config_source import ImportlibResourcesConfigSource
from hydra._internal.hydra import Hydra
from hydra._internal.sources_registry import SourcesRegistry
from hydra._internal.utils import create_config_search_path
from hydra.core.global_hydra import GlobalHydra
from hydra.core.plugins import Plugins
from hydra.errors import Hydra14MigrationWarning
from hydra.plugins.config_source import ConfigSource
from omegaconf._utils import get_yaml_loader, is_float, is_int, yaml_is_bool
from omegaconf.basecontainer import BaseContainer

__all__ = [
    "FileConfigSource",
    "ImportlibResourcesConfigSource",
    "apply_overrides",
    "config_file_name",
    "file_source_folders",
    "find_config_file",
    "group_exists",
    "header_of",
    "is_file_source",
    "omegaconf_yaml_resolvers",
    "reads_as_other_type",
    "recording_defaults_lists",
    "register_source",
    "resolvers_refusing",
    "sources_standing_in",
    "start_hydra",
]

# Where the extra folders of a search path come from in Hydra's own listing (as `hydra.searchpath` does).
SEARCH_PATH_PROVIDER = "config-harness search path"


def register_source(source_class: type[ConfigSource]) -> None:
    """Make a config source class available for its scheme in every search path (Hydra's sources registry)."""
    SourcesRegistry.instance().register(source_class)


@contextmanager
def sources_standing_in(sources: dict[str, type[ConfigSource]]) -> Iterator[None]:
    """While active, these classes serve their schemes (`file`, `pkg`) in every search path Hydra builds."""
    Plugins.instance()  # Hydra registers its own sources on first use; that must happen before ours stand in
    types = SourcesRegistry.instance().types
    saved = {scheme: types.get(scheme) for scheme in sources}
    types.update(sources)
    try:
        yield
    finally:
        for scheme, source in saved.items():
            if source is None:
                types.pop(scheme, None)
            else:
                types[scheme] = source


def _refuse(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"the resolver {name!r} may not choose what is composed")

    return refuse


@contextmanager
def resolvers_refusing() -> Iterator[None]:
    """While active, every OmegaConf resolver refuses to run. Hydra resolves interpolations in defaults
    entries, option-selecting overrides and search paths while composing (values it leaves as written), so
    a `${oc.env:...}` there becomes an error, never a lookup that picks a file or leaks a value."""
    saved = dict(BaseContainer._resolvers)
    try:
        for name in saved:
            BaseContainer._resolvers[name] = _refuse(name)
        yield
    finally:
        BaseContainer._resolvers.clear()
        BaseContainer._resolvers.update(saved)


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
    original = loader_module.create_defaults_list

    def record(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        recorded.append(result)
        return result

    loader_module.create_defaults_list = record
    try:
        yield recorded
    finally:
        loader_module.create_defaults_list = original


def apply_overrides(parsed_overrides: list[Any], config: Any) -> None:
    """Apply parsed value overrides to a composed config in place, with Hydra's own code."""
    ConfigLoaderImpl._apply_overrides_to_config(parsed_overrides, config)


def omegaconf_yaml_resolvers() -> dict[str, list[Any]]:
    """The implicit scalar resolvers of OmegaConf's YAML loader (its floats like `1e-6`, timestamps kept as text)."""
    return {first: list(resolvers) for first, resolvers in get_yaml_loader().yaml_implicit_resolvers.items()}


def reads_as_other_type(text: str) -> bool:
    """True when OmegaConf would read this string, written plainly, as a bool, an int or a float."""
    return bool(yaml_is_bool(text) or is_int(text) or is_float(text))
