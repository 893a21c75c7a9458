"""`diff`: which mode runs (two files, two snapshot folders, two config trees, or `--base REF`) is decided once,
and a flag that means nothing in that mode is refused in one line, never ignored."""

import pytest


@pytest.mark.parametrize(
    "argv, said",
    [
        (["diff", "a.yaml", "b.yaml", "--base", "main"], "diff takes either OLD NEW or --base REF, not both"),
        (["diff", "--base", "main", "--files"], "--files compares two folders file by file; a review (--base REF) compares cases"),
        (["diff", "a.yaml", "b.yaml", "--compose-base"], "--compose-base goes with --base REF"),
        (["diff", "a.yaml", "b.yaml", "--shard", "1/2"], "--shard goes with diff --base REF (and check, generate)"),
        (["diff", "a.yaml"], "diff needs OLD and NEW (two files or two folders), or --base REF"),
        (["diff", "a.yaml", "b.yaml", "--case", "x"], "--case selects cases, and a diff of two YAML files compares YAML files"),
        (["diff", "a.yaml", "b.yaml", "--strict-waivers"], "--strict-waivers is about contract waivers"),
        (["diff", "a.yaml", "conf"], "diff needs two files or two folders: conf is a folder and a.yaml is not"),
        (["diff", "a.yaml", "nowhere.yaml"], "nowhere.yaml: no such file or folder"),
    ],
)
def test_a_flag_or_operand_that_means_nothing_in_the_mode_is_refused(tmp_path, cli, argv, said):
    (tmp_path / "a.yaml").write_text("a: 1\n")
    (tmp_path / "b.yaml").write_text("a: 2\n")
    (tmp_path / "conf").mkdir()
    run = cli(*argv, cwd=tmp_path)
    assert run.code == 2 and run.out == "" and run.err.count("\n") == 1 and said in run.err, run.err


def test_a_folder_of_goldens_beside_a_config_tree_is_neither_mode(generated, cli):
    run = cli("--settings", "harness.toml", "diff", "snapshots", "conf")
    assert run.code == 2 and "snapshots holds only goldens and conf does not" in run.err


def test_two_config_trees_without_settings_say_how_to_go_on(tmp_path, cli):
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "train.yaml").write_text("a: 1\n")
    run = cli("diff", "old", "new", cwd=tmp_path)
    assert run.code == 2 and run.err.count("\n") == 1
    assert "old and new are config trees: a tree diff composes the cases of the settings" in run.err
    assert run.err.rstrip().endswith("give --settings FILE, or --files to compare same-named files instead")
