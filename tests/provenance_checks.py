"""A check shared by the provenance tests: every leaf of a composed case names the line (or override) that wrote it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.composition.compose import HydraSession
from harness.composition.provenance import leaf_sources
from harness.composition.render import key_lines
from harness.model.matrix import Case
from harness.model.semantic_diff import iter_leaves
from harness.model.settings import load_settings


def assert_every_leaf_names_its_writing_line(settings_file: Path, case: dict[str, Any], composed: Any) -> dict[str, str]:
    """Each leaf of `composed` (plain Hydra's tree of a `list --format json` case) has a source: an override of the
    case that sets it, or a file whose named line holds that key. Returns every leaf's source as text."""
    settings = load_settings(settings_file)
    with HydraSession.for_settings(settings) as session:
        sources = leaf_sources(session, Case(case["id"], case["config_name"], tuple(case["overrides"])))
    keys_by_line: dict[str, dict[int, str]] = {}
    for path, _value in iter_leaves(composed):
        source = sources.get(path)
        assert source is not None, (case["id"], path)
        if source.override is not None:
            assert source.override in case["overrides"], (case["id"], path, source.override)
            continue
        if source.file not in keys_by_line:
            lines = key_lines(Path(source.file).read_text(encoding="utf-8"))
            keys_by_line[source.file] = {line: key for key, line in lines.items()}
        written = keys_by_line[source.file].get(source.line, "")
        assert written.split(".")[-1] == path.split(".")[-1], (case["id"], path, str(source))
    return {path: str(source) for path, source in sources.items()}
