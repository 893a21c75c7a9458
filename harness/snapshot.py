"""A syrupy extension whose snapshot files are exactly the `_generated_*.yaml` goldens.

It compares, writes, reads and deletes through `harness.baselines.goldens.Goldens`, the owner `generate` uses, so
`pytest --snapshot-update` writes what `generate` writes and refuses what it refuses. syrupy sees only orphan
goldens as snapshots nobody uses: a golden whose test was deselected, skipped or failed is never deleted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from syrupy.data import Snapshot, SnapshotCollection, SnapshotCollections
from syrupy.extensions.single_file import SingleFileSnapshotExtension

from harness.baselines.goldens import Goldens, read_golden, remove_golden, same_golden, write_golden
from harness.composition.render import parse_yaml
from harness.gates.errors import describe_yaml_error
from harness.model import semantic_diff
from harness.model.matrix import GOLDEN_SUFFIX, golden_name

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation

SNAPSHOT_NAME = "golden"  # the one snapshot in every golden file
GOLDENS = pytest.StashKey[Goldens]()  # the run's goldens, in its pytest config (set by the plugin)


def case_id_of(test_location: PyTestLocation) -> str:
    """The case id carried in a test's parametrize id, e.g. `golden[ppo_trainer/dp/default]`."""
    name = test_location.nodename or ""
    return name[name.index("[") + 1 : name.rindex("]")] if "[" in name else name


def goldens_of(test_location: PyTestLocation) -> Goldens:
    """The run's goldens, for a hook of the extension: syrupy instantiates extensions itself and calls most hooks on
    the class, and each test location carries its item, whose config holds them (set by the plugin)."""
    return test_location.item.config.stash[GOLDENS]


def semantic_diff_lines(golden_text: str, composed_text: str) -> list[str]:
    """Lines such as "REMOVED a.b.c (was 'qkv')" between a golden and a fresh rendering."""
    try:
        changes = semantic_diff.diff_trees(parse_yaml(golden_text), parse_yaml(composed_text))
    except yaml.YAMLError as error:
        return [f"golden {describe_yaml_error(error, 'snapshot')}"]
    if not changes:
        return ["the golden differs in text only (no semantic change); regenerate it"]
    return [semantic_diff.describe_change(change) for change in changes]


@dataclass(frozen=True)
class Kept:
    """What a golden test asserts when generate would leave the case's golden as it is (`Goldens.kept`): syrupy
    records a failed snapshot, so it writes nothing and counts the golden as used (never deleted)."""

    reason: str


class GoldenKept(Exception):
    """Raised inside syrupy's assertion for a `Kept` golden: syrupy turns it into a failed snapshot."""


class GoldenExtension(SingleFileSnapshotExtension):
    """One readable YAML golden per case, written atomically, with a semantic failure message.

    Only syrupy's public hooks are overridden, each because a golden is not a syrupy snapshot file: its folder and
    name come from the settings and the case (`dirname`, `discovery_dirname`, `get_snapshot_name`,
    `get_file_basename`, `matches_test_location`), it is read, written and deleted by the goldens' one owner
    (`read_snapshot_data_from_location`, `write_snapshot_collection`, `delete_snapshots`), only orphans are
    discovered (`discover_snapshots`), a golden `generate` keeps is refused (`serialize`), and it compares and
    explains itself as `check` does (`matches`, `diff_lines`). Goldens are text, read and written here, so syrupy's
    text switch (its private `_write_mode`) is not needed.
    """

    file_extension = "yaml"

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(goldens_of(test_location).folder)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        return cls.dirname(test_location=test_location)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: Any = 0) -> str:
        # Each golden file holds one snapshot, named as syrupy names the test (`golden[...]` reads as `golden`),
        # so syrupy relates the two without a warning; the file's name carries the case.
        return SNAPSHOT_NAME

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: Any) -> str:
        return golden_name(case_id_of(test_location))[: -len(GOLDEN_SUFFIX)]

    def serialize(self, data: Any, **kwargs: Any) -> Any:
        if isinstance(data, Kept):
            raise GoldenKept(data.reason)
        if not isinstance(data, str):
            raise TypeError(f"a golden is text, got {type(data).__name__}")
        return data

    def discover_snapshots(self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None) -> SnapshotCollections:
        # Only orphan goldens: syrupy deletes the snapshots it discovers and nobody used, and it would count the golden
        # of a deselected case (`-k "not cpu"`) or of a case that failed, or any other file in the folder, as unused.
        discovered = SnapshotCollections()
        for path in goldens_of(test_location).orphans():
            collection = SnapshotCollection(location=str(path))
            collection.add(Snapshot(name=SNAPSHOT_NAME))
            discovered.add(collection)
        return discovered

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        # An orphan (the only goldens discovered), through the one deletion; gone already is fine. A pytest-xdist
        # controller calls this too, on the class it imports by name: no test location, no config, none needed.
        remove_golden(Path(snapshot_location))

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return Path(snapshot_location).name == golden_name(case_id_of(test_location))

    @classmethod
    def write_snapshot_collection(cls, *, snapshot_collection: SnapshotCollection, name_order: Any = None) -> None:
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):
            raise TypeError(f"a golden is text, got {type(data).__name__}")
        # The location is dirname() and a golden name: its folder is the snapshot folder. Whether to write at all
        # was decided by the golden test with `Goldens.kept`, as generate decides it.
        location = Path(snapshot_collection.location)
        write_golden(location, data, folder=location.parent)

    def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str, session_id: str) -> Any:
        # Through the one reader, as `check` reads goldens: confined, regular files only, bounded.
        return read_golden(Path(snapshot_location))

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        # The comparison `check` makes: a golden that differs only in its comment header says the same thing.
        return isinstance(serialized_data, str) and isinstance(snapshot_data, str) and same_golden(snapshot_data, serialized_data)

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        if snapshot_data is None:
            yield "no golden yet; create it with --snapshot-update"
            return
        yield from semantic_diff_lines(str(snapshot_data), str(serialized_data))
