"""The config trees of a repository as `init` sees them before composing anything (files read, nothing run): the
folders that look like a Hydra config folder, named when the entry points compute theirs (classy builds a
temporary folder at run time), and the trees init did not adopt (foundry's `rf3/`, `rfd3/` and `rfd3na/configs`),
each with the command that adopts it in a settings file of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.gates import linear
from harness.gates.reader import InputLimitError, read_text

DEFAULTS_LINE = linear.compile(r"^defaults\s*:", linear.M)


@dataclass(frozen=True)
class LooksLikeConfigs:
    """A folder that looks like a Hydra config folder: its configs with a defaults list, and its group folders."""

    folder: Path
    roots: int
    groups: int

    def shown(self, base: Path) -> str:
        where = Path(os.path.relpath(self.folder, base)).as_posix()
        return f"{where} ({self.roots} config(s) with a defaults list, {self.groups} group folder(s))"


def bounded_walk(base: Path, entered: Callable[[str, list[str]], list[str]], limit: int) -> Iterator[tuple[str, list[str], list[str]]]:
    """(folder, the subfolders entered, file names) of the folders below `base`, at most `limit` of them, entering the subfolders
    `entered(folder, subfolders)` keeps: a repository's size cannot make a walk of init's unbounded."""
    for walked, (folder, subfolders, names) in enumerate(os.walk(base), start=1):
        subfolders[:] = entered(folder, subfolders)
        if walked > limit:
            return
        yield folder, subfolders, names


def candidate_folders(base: Path, entered: Callable[[str, list[str]], list[str]], limit: int = 5000) -> list[LooksLikeConfigs]:
    """The folders below `base` whose own YAML files include one with a `defaults:` list (what a primary config has),
    most such configs first, then most group folders; at most `limit` folders are walked, entering the subfolders
    `entered(folder, subfolders)` keeps."""
    found = []
    for folder, subfolders, names in bounded_walk(base, entered, limit):
        roots = 0
        for name in sorted(names):
            if not name.endswith(".yaml"):
                continue
            try:
                roots += bool(DEFAULTS_LINE.search(read_text(Path(folder, name))))
            except (OSError, UnicodeDecodeError, InputLimitError):
                continue
        if roots:
            groups = sum(1 for sub in subfolders if any(Path(folder, sub).glob("*.yaml")))
            found.append(LooksLikeConfigs(Path(folder).resolve(), roots, groups))
    return sorted(found, key=lambda item: (-item.roots, -item.groups, item.folder.as_posix()))


def own_settings_flags(folder: Path, base: Path) -> str:
    """The flags that adopt another config tree beside the one the main table holds: a settings file, snapshot
    folder and contracts of its own (two tables sharing a snapshot folder would overwrite each other's goldens)."""
    relative = Path(os.path.relpath(folder, base)).as_posix()
    name = linear.compile(r"[^\w.-]+").sub("-", relative).strip("-.") or "configs"
    return (
        f"--config-dir {relative} --write config-harness-{name}.toml --write-snapshots config-harness/{name}/snapshots "
        f"--write-contracts config-harness/{name}/contracts.yaml"
    )


def other_trees_note(adopted: Path, folders: Sequence[Path], base: Path) -> str | None:
    """What init says of the config trees the entry points name besides the one it adopted, with the command that
    adopts the first of them; None when there is no other."""
    others = [folder for folder in folders if folder != adopted]
    if not others:
        return None
    shown = ", ".join(Path(os.path.relpath(folder, base)).as_posix() for folder in others)
    return (
        f"{len(others)} other config tree(s) the entry points name are not adopted: {shown}; adopt each in a settings "
        f"file of its own, e.g. config-harness init {own_settings_flags(others[0], base)}"
    )
