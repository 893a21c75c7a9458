"""Reports a reviewer reads in ten seconds, on verl's real matrix and on a real release upgrade."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harness.fetch import fetch_wheel_tree
from harness.settings import load_settings
from tests.conftest import ROOT, verl_tree

pytestmark = pytest.mark.e2e

TEMPERATURE = "actor_rollout_ref.rollout.temperature"


@pytest.fixture(scope="module")
def project_tree() -> Path:
    """The project's own pinned verl tree, fetched the way `make setup` does."""
    source = load_settings(start=ROOT).source
    return fetch_wheel_tree(source.wheel, source.unpack, source.into, python=source.python)


@pytest.fixture(scope="module")
def one_default_changed(project_tree, tmp_path_factory) -> Path:
    """A copy of verl 0.9.1's config tree with one default changed in rollout/rollout.yaml (read by every case)."""
    copy = shutil.copytree(project_tree, tmp_path_factory.mktemp("verl") / "config")
    rollout = copy / "rollout" / "rollout.yaml"
    text = rollout.read_text()
    assert "\ntemperature: 1.0\n" in text
    rollout.write_text(text.replace("\ntemperature: 1.0\n", "\ntemperature: 0.7\n"))
    return copy


def check(cli, tree, *arguments):
    return cli("--config-dir", str(tree), "check", *arguments, cwd=ROOT)


def test_one_changed_default_is_named_once_with_its_13_cases_in_text(one_default_changed, cli):
    result = check(cli, one_default_changed)
    assert result.code == 1
    lines = result.out.splitlines()
    assert len(lines) < 40, result.out  # 26 distinct waived warnings (16 contract, 10 target), one line each
    named = [line for line in lines if line.lstrip().startswith(("ERROR", "WARNING")) and f"{TEMPERATURE}:" in line]
    assert len(named) == 1 and f"{TEMPERATURE}: 1.0 -> 0.7  (all 13 cases; set by " in named[0]
    assert "rollout/rollout.yaml:" in named[0]
    # The summary comes first and the change comes before the waived warnings.
    assert lines[0].startswith("2 values changed on all 13 cases.")
    assert lines.index(named[0]) < next(i for i, line in enumerate(lines) if line.startswith("Waived warnings"))


def test_one_changed_default_is_one_row_and_one_group(one_default_changed, cli):
    markdown = check(cli, one_default_changed, "--format", "markdown").out
    rows = [line for line in markdown.splitlines() if f"`{TEMPERATURE}`" in line]
    assert len(rows) == 1 and "| `1.0` | `0.7` | all 13 cases |" in rows[0]
    report = check(cli, one_default_changed, "--format", "json").json()
    (group,) = [g for g in report["groups"] if g["path"] == TEMPERATURE]
    assert (group["kind"], group["old"], group["new"], len(group["cases"])) == ("changed", 1.0, 0.7, 13)
    assert group["source"].endswith("rollout/rollout.yaml:" + group["source"].rsplit(":", 1)[1])
    github = check(cli, one_default_changed, "--format", "github").out.splitlines()
    assert len([line for line in github if f"title=changed {TEMPERATURE}::" in line]) == 1


def test_a_clean_check_is_short_and_quiet_is_one_line(project_tree, cli):
    result = cli("check", cwd=ROOT)
    assert result.code == 0
    lines = result.out.splitlines()
    assert re.fullmatch(r"Nothing changed on all 13 cases\. \d+ waived warnings \(\d+ distinct\)\.", lines[0])
    assert len(lines) < 40 and not any("[waived:" in line for line in lines)
    quiet = cli("check", "--quiet", cwd=ROOT)
    assert quiet.code == 0 and len(quiet.out.splitlines()) == 1 and quiet.out.startswith("OK: 13 cases")


@pytest.fixture(scope="module")
def upgrade(project_tree):
    return verl_tree("0.8.0"), project_tree


def test_upgrade_report_opens_with_its_summary_and_fits_the_changed_defaults_on_one_screen(upgrade, cli):
    old, new = upgrade
    text = cli("diff", str(old), str(new), cwd=ROOT).out.splitlines()
    assert text[0].startswith("7 values changed (") and "keys removed" in text[0] and "(folded)" in text[0]
    changed = text.index("Changed values (7):")
    assert changed < 5 and text[changed + 8] == "Removed keys (27):"  # the changed defaults fit on one screen
    assert any(line.startswith("  actor_rollout_ref.rollout.max_num_seqs: 1024 -> 256  (all 13 cases; set by ") for line in text)
    # Literals that became interpolations with the same resolved value are folded away.
    assert "Refactors with unchanged values: 6 (folded; --verbose lists them)" in text
    assert not any("fsdp_config.entropy_checkpointing" in line for line in text)

    markdown = cli("diff", str(old), str(new), "--format", "markdown", "--title", "verl 0.8.0 → 0.9.1").out
    assert markdown.startswith("## verl 0.8.0 → 0.9.1\n\n7 values changed (")
    folded = markdown[markdown.index("<summary>Refactors with unchanged values (6)</summary>"):]
    assert "`actor_rollout_ref.actor.fsdp_config.entropy_checkpointing`" in folded
    assert markdown.count("`actor_rollout_ref.rollout.max_num_seqs`") == 1

    report = cli("diff", str(old), str(new), "--format", "json").json()
    (refactor,) = [g for g in report["groups"] if g["path"] == "actor_rollout_ref.actor.fsdp_config.entropy_checkpointing"]
    assert refactor["effective_same"] is True and refactor["old"] is False
    assert refactor["new"] == "${oc.select:actor_rollout_ref.actor.entropy_checkpointing,False}"
    findings = sum(len(case["findings"]) for case in report["cases"])
    assert report["summary"].startswith("7 values changed") and findings > 2 * len(report["groups"])
