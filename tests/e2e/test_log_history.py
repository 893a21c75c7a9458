"""`log` on a synthetic history built from verl's released trees plus small edits: exactly the commits that changed the key."""

from __future__ import annotations

import pytest

from tests.conftest import CACHE
from tests.synthetic_history import CASE, KEY, build

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-history")]


def test_log_lists_exactly_the_commits_that_changed_the_key(tmp_path, cli):
    history = build(tmp_path / "repo", CACHE, edits=16)
    result = cli("log", KEY, "--case", CASE, "--format", "json", cwd=history.repository)
    assert result.code == 0, result.err
    changes = result.json()["changes"]
    first = changes[0]
    assert first["commit"] == history.releases["0.7.1"] and first["old"] is None and first["exists"] is True
    edits = set(history.edits)
    assert {c["commit"]: c["new"] for c in changes if c["commit"] in edits} == history.key_changes
    assert all(c["exists"] for c in changes)

    since = cli("log", KEY, "--case", CASE, "--since", history.releases["0.9.1"], "--format", "json", cwd=history.repository)
    assert [c["commit"] for c in since.json()["changes"]] == list(history.key_changes)
    text = cli("log", KEY, "--case", CASE, "--since", history.releases["0.9.1"], cwd=history.repository).out
    assert text.splitlines()[-1] == f"{len(history.key_changes)} change(s) of {KEY} in {CASE}"


def test_a_key_that_disappears_is_null_and_not_existing(tmp_path, cli):
    history = build(tmp_path / "repo", CACHE, edits=0)
    rollout = history.repository / "conf" / "rollout" / "rollout.yaml"
    rollout.write_text("\n".join(line for line in rollout.read_text().splitlines() if not line.startswith("temperature:")) + "\n")
    from tests.synthetic_history import commit

    gone = commit(history.repository, "drop temperature")
    changes = cli("log", KEY, "--case", CASE, "--format", "json", cwd=history.repository).json()["changes"]
    assert changes[-1]["commit"] == gone and changes[-1]["new"] is None and changes[-1]["exists"] is False
