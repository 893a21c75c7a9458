"""Which config file set a key: replay Hydra's ordered defaults list, last writer wins."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import posixpath
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from harness.composition.compose import DefaultsEntry, HydraSession, parse_file, read_config
from harness.composition.render import key_lines
from harness.composition.resolve import MISSING, lookup
from harness.composition.session import current
from harness.gates.budget import MAX_RECORDED_PATH_RATIO
from harness.model.matrix import Case
from harness.model.semantic_diff import iter_leaves, join_path, split_path, unflatten
from harness.model.settings import display_path


@dataclass(frozen=True)
class Write:
    """One defaults-list entry that writes a key, in composition order."""

    config_path: str
    package: str
    value: Any
    parent: str | None = None
    line: int | None = None
    file: Path | None = None  # the config file Hydra loaded for the entry


@dataclass(frozen=True)
class Source:
    """Where a leaf's final value comes from: a config file and line, or a command-line override."""

    file: str | None = None
    line: int | None = None
    override: str | None = None
    at: str | None = None  # the git ref or tree the file was read from, when it is not the working tree

    def __str__(self) -> str:
        if self.override is not None:
            shown = f"override {self.override}"
        else:
            shown = f"{self.file}:{self.line}" if self.line else str(self.file)
        return f"{shown} at {self.at}" if self.at else shown


@dataclass(frozen=True)
class _FileLeaves:
    values: Any  # a mapping, or a list for a group option whose content is a list
    lines: dict[str, int]


def file_leaves(path: Path) -> _FileLeaves:
    """A config file's values (as OmegaConf reads them, `defaults` left out) and each key's line.

    Read once, through the one reader (confined to the session's scope, bounded), and parsed from those bytes.
    """
    display = display_path(path)
    data = read_config(str(path), display)
    key = (str(path), hashlib.blake2b(data, digest_size=16).digest())
    files = current().file_leaves
    cached = files.get(key)
    if cached is None:
        tree: Any = OmegaConf.to_container(parse_file(str(path), display, data).config, resolve=False)
        if isinstance(tree, dict):
            tree.pop("defaults", None)
        cached = _FileLeaves(tree, key_lines(data.decode("utf-8")))
        files[key] = cached
    return cached


def _relative(key: str, package: str) -> str | None:
    if not package:
        return key
    if key == package:
        return ""
    return key[len(package) + 1 :] if key.startswith(package + ".") else None


def config_file(session: HydraSession, entry: DefaultsEntry) -> Path:
    """The file Hydra loaded for a defaults entry (in whichever search path folder it found it).

    Entries may climb out of their group (`actor/../engine/megatron`). The operating system follows a symlinked
    folder before `..`, as Hydra's open did, so the path is resolved the same way (never joined lexically: `a/..`
    is not the folder holding `a` when `a` is a link).
    """
    return Path(os.path.realpath(session.source_folders[entry.folder] / entry.file_name))


def _value_at(leaves: _FileLeaves, relative: str) -> Any:
    if not relative:
        return leaves.values
    return lookup(leaves.values, relative) if isinstance(leaves.values, dict) else MISSING


def writes_of(session: HydraSession, case: Case, key: str) -> list[Write]:
    """Every config file that writes `key` (or a mapping holding it), in the order Hydra merges them."""
    writes = []
    for entry in session.defaults_entries(case.config_name, case.overrides):
        package = entry.package
        relative = _relative(key, package)
        if relative is None:
            continue
        path = config_file(session, entry)
        leaves = file_leaves(path)
        value = _value_at(leaves, relative)
        if value is not MISSING:
            line = leaves.lines.get(relative) if relative else 1
            writes.append(Write(entry.config_path, package, value, entry.parent, line, path))
    return writes


def override_key(override: str) -> str:
    """The key (or group) an override string names: `+a.b=1` -> `a.b`."""
    return override.split("=", 1)[0].lstrip("+~")


def override_for(case: Case, key: str) -> str | None:
    """The command-line override that sets `key` last, if any."""
    found = None
    for override in case.overrides:
        if override_key(override) == key:
            found = override
    return found


# What leaf_sources builds once per defaults list: (config name, group-selecting overrides) -> file_sources.
SourcesMemo = dict[tuple[str, tuple[str, ...]], dict[str, Source]]


def file_sources(session: HydraSession, config_name: str, overrides: tuple[str, ...]) -> dict[str, Source]:
    """For every leaf path the config files write, the file and line whose value wins (overrides left out)."""
    sources: dict[str, Source] = {}
    for entry in session.defaults_entries(config_name, overrides):
        path = config_file(session, entry)
        leaves = file_leaves(path)
        shown = display_path(path)
        package = entry.package
        if not isinstance(leaves.values, dict):
            # A list option is one value at its package, written by the whole file.
            sources[package] = Source(shown, 1)
            continue
        for relative, _ in iter_leaves(leaves.values):
            # `relative` is already a path (its keys quoted where needed); the package is a plain dotted prefix.
            sources[f"{package}.{relative}" if package else relative] = Source(shown, leaves.lines.get(relative))
    return sources


def leaf_sources(session: HydraSession, case: Case, memo: SourcesMemo | None = None) -> dict[str, Source]:
    """For every leaf path of the case, the file and line (or the override) whose value wins.

    Cases that differ only in value overrides share one defaults list, so `memo` builds its file map once.
    """
    selecting = tuple(o for o in case.overrides if session.selects_group(o))
    key = (case.config_name, selecting)
    memo = {} if memo is None else memo
    if key not in memo:
        memo[key] = file_sources(session, case.config_name, selecting)
    sources = dict(memo[key])
    for override in case.overrides:
        if override in selecting:
            continue
        name = override_key(override)
        for leaf in [p for p in sources if p == name or p.startswith(name + ".")] or [name]:
            sources[leaf] = Source(override=override)
    return sources


# ---- the provenance a golden carries in its comment header ----
#
# A golden records where its values came from, so a later run names the file and line that held a key that is gone
# (and the option file of a group a case selected) without git and without the old tree. It lives in the comment
# header: loaded as YAML a golden is still exactly the composed config, and two goldens that differ only in their
# header are still the same golden. Files are named relative to the project (no host path); the lines are JSON.

SELECTED_MARK = "# selected: "
SET_MARK = "# set: "


@dataclass(frozen=True)
class Selected:
    """One group option a case's defaults list selected, and its file (relative to the project)."""

    group: str
    option: str
    file: str

    @property
    def config_path(self) -> str:
        return f"{self.group}/{self.option}"


@dataclass(frozen=True)
class Recorded:
    """What a golden's header says about its case: the options it selected, and the file and line of each leaf."""

    selected: tuple[Selected, ...] = ()
    keys: Mapping[str, Source] | None = None  # leaf path -> Source (file relative to the project, line)

    def source_of(self, path: str) -> Source | None:
        """Where the leaf at `path` (or the first recorded leaf below it, for a removed subtree) was set."""
        keys = self.keys or {}
        if path in keys:
            return keys[path]
        first = self._below.first_in(path + ".", path + "/")  # "/" follows "." : the keys below `path` sort between
        return None if first is None else keys[self._below.keys[first]]

    @cached_property
    def _below(self) -> _FirstOfRange:
        return _FirstOfRange(list(self.keys or {}))


class _FirstOfRange:
    """Which of some keys comes first (in their given order) among those in a range of sorted order: the keys sorted
    once, and a segment tree of the first of each run (2n slots, a query in log n). A removed subtree's source was a
    scan of every recorded key per finding: n findings over a forged header of n keys took 41.7 s for 1.57 MB."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        order = sorted(range(len(keys)), key=keys.__getitem__)
        self.sorted = [keys[index] for index in order]
        self.tree = [0] * len(order) + order  # slot i > 0 holds the first of slots 2i and 2i + 1
        for slot in range(len(order) - 1, 0, -1):
            self.tree[slot] = min(self.tree[2 * slot], self.tree[2 * slot + 1])

    def first_in(self, low: str, high: str) -> int | None:
        """The index (in the given order) of the first key `k` with `low <= k < high`, or None."""
        size = len(self.sorted)
        start, end = bisect_left(self.sorted, low) + size, bisect_left(self.sorted, high) + size
        first = None
        while start < end:
            if start & 1:
                first = self.tree[start] if first is None else min(first, self.tree[start])
                start += 1
            if end & 1:
                end -= 1
                first = self.tree[end] if first is None else min(first, self.tree[end])
            start, end = start // 2, end // 2
        return first


def _project_relative(path: Path, project: Path) -> str | None:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return None  # a folder outside the project (read_outside, an installed package): no host path is written


def provenance_lines(session: HydraSession, case: Case, project: Path) -> str:
    """The header lines that record a case's selected options and the file and line of every leaf a file sets.

    One `# set:` line per file and package, its keys written as inside the file (below the package), so the
    header stays well below the size of the golden's body.
    """
    selecting = tuple(o for o in case.overrides if session.selects_group(o))
    project = Path(os.path.realpath(project))
    lines: list[str] = []
    winners: dict[str, tuple[tuple[str, str], str, int | None]] = {}
    places: list[tuple[str, str]] = []
    for entry in session.defaults_entries(case.config_name, selecting):
        path = config_file(session, entry)
        shown = _project_relative(path, project)
        if shown is None:
            continue
        config_path = posixpath.normpath(entry.config_path)  # `actor/../optim/fsdp` is the option fsdp of optim
        if "/" in config_path:
            group, option = config_path.rsplit("/", 1)
            lines.append(
                SELECTED_MARK + json.dumps({"group": group, "option": option, "file": shown}, ensure_ascii=False, separators=(",", ":"))
            )
        place = (shown, entry.package)
        if place not in places:
            places.append(place)
        leaves = file_leaves(path)
        if not isinstance(leaves.values, dict):
            winners[entry.package] = (place, "", 1)
            continue
        for relative, _ in iter_leaves(leaves.values):
            winners[f"{entry.package}.{relative}" if entry.package else relative] = (place, relative, leaves.lines.get(relative))
    by_place: dict[tuple[str, str], dict[str, Any]] = {place: {} for place in places}
    for place, relative, line in winners.values():
        node = by_place[place]
        *parents, last = split_path(relative) if relative else [""]
        for part in parents:  # nested as in the file: a long prefix is written once
            node = node.setdefault(part, {})
        node[last] = line
    for (file, package), keys in by_place.items():
        if keys:
            lines.append(SET_MARK + json.dumps({"file": file, "at": package, "keys": keys}, ensure_ascii=False, separators=(",", ":")))
    return "".join(line + "\n" for line in lines)


def recorded_in(text: str | None) -> Recorded:
    """The provenance a golden's header records (nothing for a golden written before headers carried it)."""
    if not text:
        return Recorded()
    selected: list[Selected] = []
    keys: dict[str, Source] = {}
    budget = MAX_RECORDED_PATH_RATIO * len(text)
    for line in text.splitlines():
        if not line.startswith("#"):
            break  # the header ends at the first line of YAML
        try:
            if line.startswith(SELECTED_MARK):
                item = json.loads(line[len(SELECTED_MARK) :])
                selected.append(Selected(str(item["group"]), str(item["option"]), str(item["file"])))
            elif line.startswith(SET_MARK):
                item = json.loads(line[len(SET_MARK) :])
                file, package = str(item["file"]), str(item.get("at", ""))
                pending: list[tuple[str, Any]] = [(package, dict(item["keys"]))]
                while pending:
                    prefix, node = pending.pop()
                    for key, value in node.items():
                        path = join_path(prefix, key) if key else prefix
                        budget -= len(path)
                        if budget < 0:
                            return Recorded(tuple(selected), keys)  # a forged header: what it recorded so far
                        if isinstance(value, dict):
                            pending.append((path, value))
                        else:
                            keys[path] = Source(file, value if isinstance(value, int) else None)
        except (ValueError, KeyError, TypeError, RecursionError):
            continue  # a hand-edited header line (or JSON nested past the decoder's depth): it records nothing
    return Recorded(tuple(selected), keys)


def written_hydra(session: HydraSession, case: Case) -> Any:
    """The `hydra:` keys the case's config files write (`hydra.run.dir: outputs/${name}`), merged in Hydra's order, or
    None when none does: what a run that does not keep the composed `hydra:` subtree can still check. (Hydra's own
    groups, `hydra/job_logging`, are not in the defaults entries; only files at the global package write `hydra:`.)"""
    selecting = tuple(o for o in case.overrides if session.selects_group(o))
    # Cases that select the same options read the same files: one answer per defaults list for the session (its
    # files do not change under it), a copy each time. Was a tenth of a cold check of 1,000 presets.
    key = (case.config_name, selecting)
    if key not in session.hydra_writes:
        merged: dict[str, Any] = {}
        for entry in session.defaults_entries(case.config_name, selecting):
            values = file_leaves(config_file(session, entry)).values
            node = values.get("hydra") if isinstance(values, dict) and not entry.package else None
            if isinstance(node, dict):
                merged.update(iter_leaves(node))
        session.hydra_writes[key] = unflatten(merged) if merged else None
    return copy.deepcopy(session.hydra_writes[key])
