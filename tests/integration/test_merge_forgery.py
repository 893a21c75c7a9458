"""A forged shard result ends `merge` in exit 0, 1 or 2, never 3 (issue 46's threat model: a shard's JSON is a file).

The shards come from the same CI run as the merge, but they are files a job uploads and another downloads: any value
in them may be wrong. Each example takes a real shard's JSON, replaces one value anywhere under its `shard` member
(a scalar, a list, an encoded tuple, mapping, enum or dataclass) and merges it with the other, untouched shard.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.commands.shard_results import TYPES
from tests.integration.test_shards import _project

NAMES = sorted(TYPES)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=10**6),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(NAMES + ["error", "warning", "changed", "cmd/x", ""]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.builds(lambda items: {"t": items}, st.lists(inner, max_size=3)),
        st.builds(lambda pairs: {"d": pairs}, st.lists(st.lists(inner, min_size=2, max_size=2), max_size=2)),
        st.builds(lambda name, value: {"e": name, "v": value}, st.sampled_from(NAMES), inner),
        st.builds(
            lambda name, fields: {"c": name, "v": fields}, st.sampled_from(NAMES), st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
    ),
    max_leaves=8,
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document, the document's own root included."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*at, index))
    return found


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    forged = copy.deepcopy(document)
    parent = forged
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return forged


def test_a_forged_shard_never_ends_merge_in_exit_3(small_project, cli, tmp_path):
    project = _project(small_project, cli)
    files = []
    for index in (1, 2):
        shard = cli("--settings", "harness.toml", f"--shard={index}/2", "check", "--format", "json", cwd=project)
        files.append(tmp_path / f"shard{index}.json")
        files[-1].write_text(shard.out)
    shard = json.loads(files[0].read_text())["shard"]
    places = _paths(shard)
    forged_file = tmp_path / "forged.json"

    @settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)
    @given(place=st.sampled_from(places), value=values)
    # A finding's old value as a mapping whose keys JSON cannot sort (found by CI's run; a config may mix key types)
    @example(place=("results", 1, "v", "findings", "t", 2, "v", "old"), value={"d": [[None, None], [False, None]]})
    @example(place=("launches", 0, 1), value=None)  # a shard's launch tally gone (found by a seed of the thorough profile)
    @example(place=("results", 1, "v", "findings", "t", 2, "v", "old"), value={"d": [[{"t": []}, None]]})  # a key JSON cannot write
    def merged(place: tuple[Any, ...], value: Any) -> None:
        forged_file.write_text(json.dumps({"shard": _replaced(shard, place, value)}))
        run = cli("merge", str(forged_file), str(files[1]), cwd=project)
        assert run.code in (0, 1, 2), (place, value, run.err)
        if run.code == 2:
            assert run.err.count("\n") == 1, run.err  # one line, no traceback (the cli fixture checks that too)

    merged()
