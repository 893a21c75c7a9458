"""`diff OLD NEW` of YAML documents as written: exit 1 exactly when they differ, naming each changed leaf; two
folders compare their same-named files, a file on one side only is said."""

import json


def test_two_files_differ_leaf_by_leaf(tmp_path, cli):
    (tmp_path / "old.yaml").write_text("trainer: {lr: 0.1, steps: 10}\nname: x\n")
    (tmp_path / "new.yaml").write_text("trainer: {lr: 0.2, steps: 10}\nextra: true\n")
    run = cli("diff", "old.yaml", "new.yaml", "--format", "json", cwd=tmp_path)
    assert run.code == 1
    changes = {(c["kind"], c["path"]) for c in run.json()["changes"]}
    assert changes == {("changed", "trainer.lr"), ("removed", "name"), ("added", "extra")}
    assert json.loads(cli("diff", "old.yaml", "old.yaml", "--format", "json").out)["changes"] == []
    assert cli("diff", "old.yaml", "old.yaml").code == 0


def test_the_same_value_written_otherwise_is_no_difference(tmp_path, cli):
    (tmp_path / "old.yaml").write_text("a: {b: [1, 2]}\n")
    (tmp_path / "new.yaml").write_text("a:\n  b:\n    - 1\n    - 2\n")
    assert cli("diff", "old.yaml", "new.yaml", cwd=tmp_path).code == 0
    (tmp_path / "new.yaml").write_text("a: {b: [1, 2.0]}\n")  # 2.0 is not 2: the type is part of the value
    assert cli("diff", "old.yaml", "new.yaml").code == 1


def test_two_folders_compare_same_named_files_and_name_the_file(tmp_path, cli):
    for side, value in (("old", 1), ("new", 2)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "same.yaml").write_text("k: 0\n")
        (tmp_path / side / "moved.yaml").write_text(f"k: {value}\n")
    (tmp_path / "new" / "only-new.yaml").write_text("k: 3\n")
    run = cli("diff", "old", "new", "--files", "--format", "json", cwd=tmp_path)
    assert run.code == 1
    # A file only the new folder has is all added; the file that is the same on both sides has no change.
    assert [(c["file"], c["kind"], c["path"]) for c in run.json()["changes"]] == [
        ("moved.yaml", "changed", "k"),
        ("only-new.yaml", "added", "k"),
    ]
    assert {(case["id"], case["status"]) for case in run.json()["cases"]} >= {("only-new.yaml", "new"), ("same.yaml", "ok")}


def test_a_file_that_is_not_yaml_is_bad_input(tmp_path, cli):
    (tmp_path / "old.yaml").write_text("a: [1\n")
    (tmp_path / "new.yaml").write_text("a: 1\n")
    run = cli("diff", "old.yaml", "new.yaml", cwd=tmp_path)
    assert run.code == 2 and run.err.count("\n") == 1 and "old.yaml" in run.err


def test_an_interpolation_whose_key_went_is_one_error_naming_it(tmp_path, cli):
    # Only the document diff says it: the new file still writes `${b}` as the old did (no `changed` finding), but
    # `b` is gone, so `a` no longer resolves. A composed case says it as its `unresolved` error instead.
    (tmp_path / "old.yaml").write_text("b: 1\na: ${b}\n")
    (tmp_path / "new.yaml").write_text("c: 1\na: ${b}\n")
    run = cli("diff", "old.yaml", "new.yaml", cwd=tmp_path)
    assert run.code == 1
    assert "ERROR a cannot be resolved: Interpolation key 'b' not found  (new.yaml)" in [line.strip() for line in run.out.splitlines()], (
        run.out
    )
    (finding,) = [
        f for case in cli("diff", "old.yaml", "new.yaml", "--format", "json").json()["cases"] for f in case["findings"] if f["path"] == "a"
    ]
    assert (finding["kind"], finding["severity"]) == ("effective", "error")
