"""What a config file at the top of a config folder is to `init`, read from its defaults list (YAML, never run):
a root, a fragment another root's defaults list includes (CARP-S's `logger.yaml`, a `# @package _global_` block
`base.yaml` lists), or a root that composes only once a mandatory group is chosen (foundry's `experiment: ???`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from harness.gates.reader import InputLimitError, read_text

MANDATORY = "???"


def defaults_list(config_file: Path) -> list[Any]:
    """A config file's `defaults:` list as written; empty when it has none or cannot be read."""
    try:
        text = read_text(config_file)
        document = yaml.safe_load(text) if "defaults" in text else None
    except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
        return []
    defaults = document.get("defaults") if isinstance(document, dict) else None
    return defaults if isinstance(defaults, list) else []


def _group_of(key: str) -> str:
    return key.removeprefix("override ").removeprefix("optional ").strip().partition("@")[0].strip("/")


def mandatory_groups(config_file: Path) -> list[str]:
    """The groups a config's defaults list leaves mandatory (`- experiment: ???`): Hydra composes it only with
    `experiment=OPTION`, so each option is a case of its own (an engine) or a preset."""
    found = []
    for entry in defaults_list(config_file):
        if isinstance(entry, dict) and len(entry) == 1:
            ((key, value),) = entry.items()
            if value == MANDATORY and isinstance(key, str) and _group_of(key):
                found.append(_group_of(key))
    return found


def included_configs(config_file: Path, config_dir: Path) -> set[str]:
    """The configs a config's defaults list includes by name (`- logger`, `- /common/base`), as names below the
    folder (`_self_` left out); group entries are not included configs."""
    here = config_file.parent.relative_to(config_dir).as_posix()
    names = set()
    for entry in defaults_list(config_file):
        if not isinstance(entry, str) or entry.strip() in ("", "_self_"):
            continue
        name = entry.strip().removeprefix("optional ").strip().removesuffix(".yaml")
        joined = name.lstrip("/") if name.startswith("/") else posixpath.normpath(posixpath.join(here, name))
        names.add(joined.removeprefix("./"))
    return names


def fragments(config_dir: Path, names: Iterable[str]) -> dict[str, str]:
    """Candidate roots that are parts of another candidate, not roots of their own: configs another one's defaults
    list includes by name and that have no defaults list themselves (CARP-S's `logger` in `base.yaml`), each with
    the first config that includes it. A config with a defaults list of its own stays a root even when another
    root builds on it (verl's `ppo_trainer`, which `ppo_megatron_trainer` lists: that one is a route, `same_as`)."""
    names = sorted(names)
    found: dict[str, str] = {}
    for includer in names:
        for name in sorted(included_configs(config_dir / f"{includer}.yaml", config_dir)):
            if name != includer and name in names and name not in found and not defaults_list(config_dir / f"{name}.yaml"):
                found[name] = includer
    return found


def required_group(config_file: Path, failure: str) -> str | None:
    """The mandatory group of the config's own defaults list that Hydra's failure asks for ("You must specify
    'experiment'"), or None when the config fails for another reason."""
    return next((group for group in mandatory_groups(config_file) if f"You must specify '{group}'" in failure), None)
