"""The application's ConfigStore registrations: modules named in the settings' `schemas`, imported before composing.

Applications such as benchmarl, habitat-lab and fairseq register schemas and whole config nodes from Python
(`ConfigStore.instance().store(...)`); a defaults entry that names such a node composes only once the module
that registers it has been imported. The CLI and the pytest plugin both import them here, when a Hydra session
opens, so they compose the same configs. Importing runs the module's code: the list is trusted configuration,
taken in a review from the base's settings only (see the README's threat model).
"""

from __future__ import annotations

import difflib
import importlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.gates import linear
from harness.model.settings import SettingsError

# Hydra's words for a defaults entry (or config name) that no source provides.
MISSING_NODE = linear.compile(r"Could not (load|find) '([^']+)'")
HINT = "probably registered from Python (ConfigStore); name its module in the settings' `schemas`"


class SchemaImportError(SettingsError):
    """A module named in `schemas` could not be imported; the message is one line."""


def import_schemas(modules: Iterable[str]) -> None:
    """Import every module of the settings' `schemas`, so its ConfigStore registrations exist (once per process)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as error:  # any failure of the application's own code is one line naming the module
            summary = " ".join(f"{type(error).__name__}: {error}".split())
            raise SchemaImportError(f"schemas: cannot import {module!r} ({summary})") from None


# Hydra's warning for a search path entry it skips: a folder that does not exist, a package nothing provides.
NOT_AVAILABLE = linear.compile(r"^provider=.*?, path=(.+) is not available\.$")


def unavailable_folders(warned: Iterable[str]) -> list[str]:
    """The search path entries Hydra's warnings say it skipped ("provider=..., path=X is not available."), in order."""
    return [match.group(1) for match in map(NOT_AVAILABLE.match, (" ".join(text.split()) for text in warned)) if match]


def _why_absent(entry: str) -> str:
    """What a skipped folder entry lies in when that is an empty folder (a git submodule not checked out)."""
    path = Path(entry).absolute()
    for folder in path.parents:
        if folder.is_dir():
            if not any(folder.iterdir()):
                shown = os.path.relpath(folder)
                return f" ({shown}/ is an empty folder: a git submodule not checked out?)"
            return ""
    return ""


def missing_node_hint(
    message: str, options_of: dict[str, list[str]] | None = None, schemas: Iterable[str] = (), unavailable: Sequence[str] = ()
) -> str:
    """The one line said after Hydra's message when a defaults entry names a node that no file provides.

    Hydra "could not load" a config a defaults entry names directly (`- vmas_balance_config`, the way schemas are
    used) and "could not find" an option of a group. `options_of` maps the node's group to its options: a group
    option that is missing while the group has others, or a name close to one of them, is a typo and gets no
    hint. Empty when the message is about something else.
    """
    match = MISSING_NODE.search(message)
    if match is None:
        return ""
    verb, node = match.groups()
    group, _, name = node.rpartition("/")
    options = (options_of or {}).get(group, [])
    if verb == "find" and options:
        return ""  # an option of a group that has options (Hydra lists them): a typo, not a Python node
    if difflib.get_close_matches(name, [option.rpartition("/")[2] for option in options], n=1, cutoff=0.8):
        return ""
    if unavailable:
        # The search path names a folder that is not there (VAGEN's and RAGEN's verl submodule, not checked out): the
        # node is in it, not registered from Python.
        return f"{node!r} is in no folder the search path reaches: Hydra skipped {unavailable[0]!r}, which is not available{_why_absent(unavailable[0])}"
    named = list(schemas)
    if named:
        return f"{node!r} is not registered by the modules in `schemas` ({', '.join(named)}) and no file provides it"
    return f"{node!r}: {HINT}"
