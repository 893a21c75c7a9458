"""Work that Hydra repeats in every composition, done once: the merged head of Hydra's own configs, and the
defaults-interpolation map, built only when a defaults entry reads it.

Both replace private Hydra functions with versions that give the same result (tests compare goldens with
plain Hydra byte for byte on verl, sheeprl and anemoi-training). Install them for a session only.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hydra._internal import defaults_list as defaults_module
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.default_element import InputDefault
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf, flag_override
from omegaconf.errors import OmegaConfBaseException

_ORIGINAL_MAP = defaults_module._create_interpolation_map
_ORIGINAL_COMPOSE = ConfigLoaderImpl._compose_config_from_defaults_list


def _interpolation_map_when_read(overrides: Any, defaults_list: list, self_added: bool) -> Any:
    # Hydra builds this map (a DictConfig of every choice so far) for every node of the defaults tree, but
    # reads it only for children that are interpolations, and those are entries of `defaults_list`.
    if not any(isinstance(d, InputDefault) and d.is_interpolation() for d in defaults_list):
        return None
    return _ORIGINAL_MAP(overrides, defaults_list, self_added)


def _is_hydra_entry(default: Any) -> bool:
    return (default.package or "").split(".")[0] == "hydra"


class _Heads:
    """Merged heads of defaults lists (Hydra's own entries), pickled, for the current session."""

    store: dict[tuple, bytes] | None = None


def _merge(cfg: Any, loader: ConfigLoaderImpl, defaults: list, repo: Any) -> None:
    with flag_override(cfg, "no_deepcopy_set_nodes", True):
        for default in defaults:
            loaded = loader._load_single_config(default=default, repo=repo)
            try:
                cfg.merge_with(loaded.config)
            except OmegaConfBaseException as e:
                raise ConfigCompositionException(
                    f"In '{default.config_path}': {type(e).__name__} raised while composing config:\n{e}"
                ).with_traceback(sys.exc_info()[2]) from e


def _compose_sharing_the_head(self: ConfigLoaderImpl, defaults: list, repo: Any) -> Any:
    """Hydra's _compose_config_from_defaults_list, with the leading run of Hydra's own entries merged once
    per session (keyed by the entries and the config sources, so an override of `hydra/...` is a new head)."""
    heads = _Heads.store
    count = 0
    while count < len(defaults) and _is_hydra_entry(defaults[count]):
        count += 1
    if heads is None or count == 0:
        return _ORIGINAL_COMPOSE(self, defaults, repo)
    key = (tuple(repr(d) for d in defaults[:count]), tuple((s.scheme(), s.path) for s in repo.get_sources()))
    blob = heads.get(key)
    if blob is None:
        cfg = OmegaConf.create()
        _merge(cfg, self, defaults[:count], repo)
        heads[key] = pickle.dumps(cfg, protocol=pickle.HIGHEST_PROTOCOL)
    else:
        cfg = pickle.loads(blob)
    _merge(cfg, self, defaults[count:], repo)
    _strip_defaults(cfg)
    return cfg


def _strip_defaults(cfg: Any) -> None:
    # As Hydra does at the end of _compose_config_from_defaults_list: remove leftover defaults lists.
    from omegaconf import DictConfig

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
def shared_work(heads: dict | None) -> Iterator[None]:
    """Within the block, compositions share the merged heads kept in `heads` (a session's dict) and skip
    unread interpolation maps; None leaves Hydra as it is (the plain path)."""
    if heads is None:
        yield
        return
    _Heads.store = heads
    defaults_module._create_interpolation_map = _interpolation_map_when_read
    ConfigLoaderImpl._compose_config_from_defaults_list = _compose_sharing_the_head  # type: ignore[method-assign]
    try:
        yield
    finally:
        _Heads.store = None
        defaults_module._create_interpolation_map = _ORIGINAL_MAP
        ConfigLoaderImpl._compose_config_from_defaults_list = _ORIGINAL_COMPOSE  # type: ignore[method-assign]
