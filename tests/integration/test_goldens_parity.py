"""`pytest --snapshot-update` and `config-harness generate` leave the same snapshot folder, byte for byte (mode and
links included), on a small real Hydra tree in every state a golden can be in: changed, missing, under another
header, not YAML, of a case that no longer composes, an orphan, a killed write. Orphans stay with
--snapshot-no-cleanup (as without `--prune`) and go without it (as with `--prune`). verl's tree:
tests/e2e/test_goldens_parity_verl.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cli import main
from tests.integration.test_plugin_workflow import project, run  # noqa: F401 (a fixture)

ORPHAN = "_generated_gone__case.yaml"
LEFTOVER = "._generated_train__cpu__default.yaml.abc123.tmp"


def folder_state(folder: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every entry below `folder`, dot files included: a link as its target, a file as its bytes and mode."""
    state = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            state[name] = ("link", str(path.readlink()).encode(), 0)
        elif path.is_file():
            state[name] = ("file", path.read_bytes(), path.stat().st_mode & 0o777)
    return state


def every_state(root: Path) -> None:
    """Goldens generated, then one of each kind of trouble."""
    assert main(["--settings", str(root / "pyproject.toml"), "generate", "--quiet"]) == 0
    snapshots = root / "snapshots"
    changed = snapshots / "_generated_train__gpu__default.yaml"
    changed.write_text(changed.read_text().replace("count: 8", "count: 5"))
    changed.chmod(0o600)
    (snapshots / "_generated_train__cpu__fast.yaml").unlink()
    reheadered = snapshots / "_generated_train__cpu__sgd.yaml"
    reheadered.write_text("# written by an older release\n" + reheadered.read_text())
    (snapshots / "_generated_train__gpu__fast.yaml").write_text("a: [\n")  # not YAML: generate leaves it
    (snapshots / ORPHAN).write_text("a: 1\n")
    (snapshots / LEFTOVER).write_text("half a golden")  # a killed write: nothing holds its lock
    (snapshots / "README.md").write_text("what this folder is\n")
    (root / "conf" / "legacy.yaml").write_text("defaults:\n  - train\n  - override backend: nope\n  - _self_\n")


@pytest.fixture
def twins(project: pytest.Pytester, tmp_path: Path) -> tuple[pytest.Pytester, Path]:  # noqa: F811
    """The project in every state, and a copy of it for the CLI."""
    every_state(project.path)
    cli = tmp_path / "cli"
    shutil.copytree(project.path, cli, symlinks=True)
    return project, cli


def test_snapshot_update_leaves_the_goldens_generate_leaves_and_no_cleanup_keeps_orphans(twins, capsys) -> None:
    project, cli = twins  # noqa: F811 (the fixture's project, with its copy)
    before = folder_state(project.path / "snapshots")

    assert main(["--settings", str(cli / "pyproject.toml"), "generate", "--quiet"]) == 1  # the broken case
    kept = run(project, "--snapshot-update", "--snapshot-no-cleanup")
    assert kept.ret == 1
    after = folder_state(project.path / "snapshots")
    assert after == folder_state(cli / "snapshots")
    assert after[ORPHAN] == before[ORPHAN] and LEFTOVER not in after  # as generate without --prune
    for untouched in ("_generated_train__gpu__fast.yaml", "_generated_route__legacy.yaml", "_generated_train__cpu__sgd.yaml"):
        assert after[untouched] == before[untouched]
    assert after["_generated_train__gpu__default.yaml"][2] == 0o600  # rewritten, its mode kept
    kept.stdout.fnmatch_lines(
        [
            "*_ golden[[]train/gpu/fast[]] _*",
            "golden snapshots/_generated_train__gpu__fast.yaml:2: invalid YAML*",  # refused, as generate refuses it
            "2 snapshots failed. 3 snapshots passed. 1 snapshot generated. 1 snapshot updated. 1 snapshot unused.",
            "Unused golden (snapshots/_generated_gone__case.yaml)",
            "removed orphan golden snapshots/._generated_train__cpu__default.yaml.abc123.tmp",
            "warning: 1 golden with no case: *",
        ]
    )

    capsys.readouterr()
    assert main(["--settings", str(cli / "pyproject.toml"), "generate", "--prune", "--quiet"]) == 1
    pruned = run(project, "--snapshot-update")
    assert pruned.ret == 1
    after = folder_state(project.path / "snapshots")
    assert after == folder_state(cli / "snapshots")
    assert ORPHAN not in after and "README.md" in after and "_generated_route__legacy.yaml" in after
    pruned.stdout.fnmatch_lines([f"removed orphan golden snapshots/{ORPHAN}"])
    pruned.stdout.no_fnmatch_line("*unused*")


def test_update_never_deletes_the_golden_of_a_deselected_case_or_a_file_that_is_not_a_golden(project) -> None:  # noqa: F811
    """syrupy counts a deselected test's snapshot as unused when `-k` names its test's function (`golden`)."""
    assert main(["--settings", str(project.path / "pyproject.toml"), "generate", "--quiet"]) == 0
    snapshots = project.path / "snapshots"
    (snapshots / "README.md").write_text("what this folder is\n")
    (snapshots / "notes").mkdir()
    (snapshots / "notes" / "why.txt").write_text("because\n")
    before = folder_state(snapshots)
    result = run(project, "-k", "not cpu", "--snapshot-update")
    assert result.ret == 0 and "deselected" in result.parseoutcomes()
    assert folder_state(snapshots) == before
    result.stdout.no_fnmatch_line("*deleted*")


def test_a_golden_that_leads_out_of_the_project_is_refused_in_one_line_and_kept(project, tmp_path) -> None:  # noqa: F811
    assert main(["--settings", str(project.path / "pyproject.toml"), "generate", "--quiet"]) == 0
    golden = project.path / "snapshots" / "_generated_train__gpu__default.yaml"
    outside = tmp_path / "outside.yaml"
    outside.write_text(golden.read_text().replace("count: 8", "count: 3"))
    golden.unlink()
    golden.symlink_to(outside)
    assert main(["--settings", str(project.path / "pyproject.toml"), "generate"]) == 2  # generate refuses it
    result = run(project, "--snapshot-update")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["golden */_generated_train__gpu__default.yaml: leads outside the project *; it is not read"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*UnsafeInput*")
    assert golden.is_symlink() and "count: 3" in outside.read_text()
