"""Which config file set a key: replay Hydra's ordered defaults list, last writer wins."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hydra.types import RunMode
from omegaconf import OmegaConf

from harness.compose import HydraSession
from harness.matrix import Case
from harness.resolve import MISSING, lookup


@dataclass(frozen=True)
class Write:
    """One defaults-list entry that writes a key, in composition order."""

    config_path: str
    package: str
    value: Any
    parent: str | None = None


def _relative(key: str, package: str) -> str | None:
    if not package:
        return key
    if key == package:
        return ""
    return key[len(package) + 1 :] if key.startswith(package + ".") else None


def writes_of(session: HydraSession, case: Case, key: str) -> list[Write]:
    """Every config file that writes `key` (or a mapping holding it), in the order Hydra merges them."""
    loader = session.loader
    defaults = loader.compute_defaults_list(case.config_name, list(case.overrides), RunMode.RUN).defaults
    writes = []
    for entry in defaults:
        package = entry.package or ""
        if entry.config_path is None or package == "hydra" or package.startswith("hydra."):
            continue
        relative = _relative(key, package)
        if relative is None:
            continue
        loaded = loader.repository.load_config(entry.config_path)
        if loaded is None:
            continue
        tree = OmegaConf.to_container(loaded.config, resolve=False)
        value = lookup(tree, relative) if relative else tree
        if value is not MISSING:
            writes.append(Write(entry.config_path, package, value, entry.parent))
    return writes


def override_for(case: Case, key: str) -> str | None:
    """The command-line override that sets `key` last, if any."""
    found = None
    for override in case.overrides:
        name = override.split("=", 1)[0].lstrip("+~")
        if name == key:
            found = override
    return found
