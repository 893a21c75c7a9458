"""Each case's result kept by its inputs (issue 52): a warm `check` with nothing changed composes, renders and
judges nothing, and after any edit its report is byte for byte the report of a run without a cache.

Counted in calls, not seconds: the same answer on a loaded machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.composition.compose import HydraSession
from harness.runner import launches as launches_module
from harness.runner import run as run_module
from tests.conftest import add_contracts, count_calls, write_tree

PRESET = 'plus = ["+extra=1"]\n'  # a value today; a group selection once conf/extra/ exists
ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
LAUNCHES = (
    "source scripts/names.sh\n"
    "python -m app.main trainer.name=$FIRST trainer.lr=0.3\n"
    "python -m app.main trainer.name=b trainer.lrr=0.3\n"
    "python -m app.main trainer.name=c +extra=2\n"
)


@pytest.fixture
def project(small_project: Path, cli, tmp_path_factory) -> tuple[Path, tuple[str, ...]]:
    add_contracts(small_project, "contracts:\n  - name: lr\n    cases: 'train/*'\n    equal: {trainer.lr: 0.1}\n")
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text().replace("[presets]\n", "[presets]\n" + PRESET))
    train = small_project / "conf" / "train.yaml"  # Hydra 1.1's semantics warn of its defaults list, citing its line
    train.write_text(train.read_text().replace("  - _self_\n", ""))
    settings.write_text('version_base = "1.1"\n' + settings.read_text() + '[[commands]]\nglob = "scripts/*.sh"\n')
    # Launches: one that composes, one whose override names no key (a hint), one whose override may become a group.
    write_tree(small_project, {"app/__init__.py": "", "app/main.py": ENTRY, "scripts/run.sh": LAUNCHES, "scripts/names.sh": "FIRST=a\n"})
    flags = ("--settings", "harness.toml", "--cache-dir", str(tmp_path_factory.mktemp("kept") / "cache"))
    cli(*flags, "generate", cwd=small_project)  # exit 1: the fast preset breaks the contract (a case judged each run)
    return small_project, flags


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many compositions, goldens rendered, cases judged and scripts read with bash's grammar a run in this
    process does (`jobs = 1`)."""
    return count_calls(
        monkeypatch,
        {
            "compose": (HydraSession, "compose"),
            "render": (run_module, "render_golden"),
            "judge": (run_module, "judged_case"),
            "read": (launches_module, "launches_in"),
        },
    )


def reports(cli, flags: tuple[str, ...]) -> tuple[tuple[int, str], tuple[int, str]]:
    """The text and JSON reports of `check` with the cache, and the same without any."""
    kept = cli(*flags, "check", "--format", "json")
    cold = cli(*flags, "--no-cache", "check", "--format", "json")
    kept_text, cold_text = cli(*flags, "check"), cli(*flags, "--no-cache", "check")
    return (kept.code, kept.out + kept_text.out), (cold.code, cold.out + cold_text.out)


def test_a_warm_check_judges_no_case_whatever_its_status(project, cli, counted):
    root, flags = project
    first = cli(*flags, "check", "--format", "json")
    assert first.code == 1  # the contract the fast preset breaks
    failing = [case["id"] for case in first.json()["cases"] if case["status"] != "ok" and not case["id"].startswith("cmd/")]
    assert failing == ["train/cpu/fast", "train/gpu/fast"]
    counted.update(compose=0, render=0, judge=0, read=0)
    warm = cli(*flags, "check", "--format", "json")
    assert warm.out == first.out and warm.code == first.code
    # The two failing cases are kept too (they were judged again on every run, and with them their parity twins: a
    # warm check of a one-file verl edit judged 7 of its 9 cases).
    assert counted["judge"] == counted["render"] == counted["compose"] == 0, counted
    cold = cli(*flags, "--no-cache", "check", "--format", "json")
    assert cold.out == warm.out and cold.code == warm.code


def test_nothing_changed_costs_no_composition_at_all(project, cli, counted):
    root, flags = project
    contracts = root / "contracts.yaml"
    contracts.write_text(contracts.read_text().replace("train/*", "train/cpu/default"))
    script = root / "scripts" / "run.sh"
    script.write_text(script.read_text().replace("trainer.lrr=", "trainer.lr="))
    cli(*flags, "generate")
    assert cli(*flags, "check").code == 0
    counted.update(compose=0, render=0, judge=0, read=0)
    assert cli(*flags, "check").code == 0
    assert counted == {"compose": 0, "render": 0, "judge": 0, "read": 0}


EDITS = {
    # A comment above the `defaults:` line Hydra's warning cites: same parsed content, another line number.
    "a comment shifts a cited line": lambda root: (root / "conf/train.yaml").write_text(
        "# moved down\n" + (root / "conf/train.yaml").read_text()
    ),
    "a value changed": lambda root: (root / "conf/backend/cpu.yaml").write_text(
        (root / "conf/backend/cpu.yaml").read_text().replace("count: 1", "count: 2")
    ),
    "a golden edited by hand": lambda root: next((root / "snapshots").glob("*gpu__default*")).write_text(
        next((root / "snapshots").glob("*gpu__default*")).read_text().replace("count: 8", "count: 9")
    ),
    "a group appears under a preset's override": lambda root: write_tree(root, {"conf/extra/1.yaml": "size: 3\n"}),
    "a contract tightened": lambda root: (root / "contracts.yaml").write_text(
        (root / "contracts.yaml").read_text() + "  - name: epochs\n    cases: 'train/*'\n    equal: {trainer.epochs: 3}\n"
    ),
    "a launch's script changed": lambda root: (root / "scripts/run.sh").write_text(
        (root / "scripts/run.sh").read_text().replace("trainer.lr=0.3", "trainer.lr=0.4 trainer.epochs=x")
    ),
    # Split unquoted as bash splits it: an override naming no key appears in the launch.
    "a file a script sources changed": lambda root: (root / "scripts/names.sh").write_text('FIRST="z trainer.nokey=1"\n'),
    "a script's program is no longer the project's": lambda root: (root / "app/main.py").rename(root / "app/other.py"),
    "a key a launch names appears": lambda root: (root / "conf/train.yaml").write_text(
        (root / "conf/train.yaml").read_text().replace("  lr: 0.1\n", "  lr: 0.1\n  lrr: 0.2\n")
    ),
    "the twin of a route changed": lambda root: (root / "conf/backend/gpu.yaml").write_text(
        (root / "conf/backend/gpu.yaml").read_text().replace("kind: cuda", "kind: rocm")
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_after_an_edit_the_kept_report_is_the_report_without_a_cache(project, cli, edit):
    root, flags = project
    cli(*flags, "check")  # warm: every case kept
    cli(*flags, "check")
    EDITS[edit](root)
    kept, cold = reports(cli, flags)
    assert kept == cold
    if edit == "a file a script sources changed":
        assert "trainer.nokey" in cold[1]
    if edit == "a comment shifts a cited line":
        assert "conf/train.yaml:2" in cold[1] and "conf/train.yaml:1)" not in cold[1]
    again, _ = reports(cli, flags)  # and the run after, from what the edited run kept
    assert again == cold


def test_an_edit_read_only_by_a_route_judges_the_route_alone_and_composes_its_twin_for_parity(project, cli, counted):
    """The route's twin (`same_as`) is kept: it is composed for the tree parity compares with, not judged again (every
    twin of an edited case was judged on each first run after the edit)."""
    root, flags = project
    assert cli(*flags, "check").code == 1
    legacy = root / "conf" / "legacy.yaml"
    legacy.write_text(legacy.read_text() + "extra_key: 1\n")
    counted.update(compose=0, render=0, judge=0, read=0)
    edited = cli(*flags, "check", "--format", "json")
    assert counted["judge"] == 1, counted
    route = next(case for case in edited.json()["cases"] if case["id"] == "route/legacy")
    assert route["status"] == "changed"
    cold = cli(*flags, "--no-cache", "check", "--format", "json")
    assert cold.out == edited.out and cold.code == edited.code
