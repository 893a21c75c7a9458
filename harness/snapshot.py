"""A syrupy extension whose snapshot files are exactly the `_generated_*.yaml` goldens."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from syrupy.data import Snapshot, SnapshotCollection

from harness import diff
from harness.errors import describe_yaml_error
from harness.goldens import read_golden
from harness.matrix import GOLDEN_SUFFIX, golden_name, is_golden_name
from harness.render import golden_body, parse_yaml
from harness.syrupy_compat import TextFileExtension
from harness.writer import write_atomic

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation

SNAPSHOT_NAME = "golden"  # the one snapshot in every golden file
# The run's snapshot folder, in its pytest config (set by the plugin): syrupy calls the extension's hooks on the
# class, and each test location carries its item, so the folder is read from there, not bound into a class.
SNAPSHOT_DIR = pytest.StashKey[Path]()


def case_id_of(test_location: PyTestLocation) -> str:
    """The case id carried in a test's parametrize id, e.g. `golden[ppo_trainer/dp/default]`."""
    name = test_location.nodename or ""
    return name[name.index("[") + 1 : name.rindex("]")] if "[" in name else name


def semantic_diff_lines(golden_text: str, composed_text: str) -> list[str]:
    """Lines such as "REMOVED a.b.c (was 'qkv')" between a golden and a fresh rendering."""
    try:
        changes = diff.diff_trees(parse_yaml(golden_text), parse_yaml(composed_text))
    except yaml.YAMLError as error:
        return [f"golden {describe_yaml_error(error, 'snapshot')}"]
    if not changes:
        return ["the golden differs in text only (no semantic change); regenerate it"]
    return [diff.describe_change(change) for change in changes]


class GoldenExtension(TextFileExtension):
    """One readable YAML golden per case, written atomically, with a semantic failure message."""

    file_extension = "yaml"

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(test_location.item.config.stash[SNAPSHOT_DIR])

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

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=SNAPSHOT_NAME))
        return collection

    def is_snapshot_location(self, *, location: str) -> bool:
        name = Path(location).name
        return is_golden_name(name)

    def owns_snapshot_collection(self, *, filepath: str, test_location: PyTestLocation) -> bool:
        return self.is_snapshot_location(location=filepath) and Path(filepath).parent == Path(self.dirname(test_location=test_location))

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return Path(snapshot_location).name == golden_name(case_id_of(test_location))

    @classmethod
    def write_snapshot_collection(cls, *, snapshot_collection: SnapshotCollection, name_order: Any = None) -> None:
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):
            raise TypeError(f"a golden is text, got {type(data).__name__}")
        location = Path(snapshot_collection.location)
        # The location is dirname() and a golden name (one path component): its folder is the snapshot folder.
        write_atomic(location, data, folder=location.parent)

    def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str, session_id: str) -> Any:
        # Through the one reader, as `check` reads goldens: confined, regular files only, bounded.
        return read_golden(Path(snapshot_location))

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        # A golden that differs only in its comment header says the same thing: header wording may change.
        if serialized_data == snapshot_data:
            return True
        return isinstance(serialized_data, str) and isinstance(snapshot_data, str) and (
            golden_body(serialized_data) == golden_body(snapshot_data)
        )

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        if snapshot_data is None:
            yield "no golden yet; create it with --snapshot-update"
            return
        yield from semantic_diff_lines(str(snapshot_data), str(serialized_data))
