"""The YAML documents `diff OLD NEW` compares as written: a mapping OmegaConf can hold, read through the bounded
reader; anything else is one line naming the file; two folders pair their same-named files."""

import re

import pytest

from harness.composition.documents import DocumentError, file_pair, folder_pairs, is_snapshot_folder, read_document


def test_a_mapping_is_a_document_with_its_text_and_tree(tmp_path):
    (tmp_path / "a.yaml").write_text("a: {b: 1}\nc: ${a.b}\n")
    document = read_document(tmp_path / "a.yaml")
    assert document.tree == {"a": {"b": 1}, "c": "${a.b}"} and document.config.c == 1 and document.text.startswith("a:")


@pytest.mark.parametrize(
    "content, said",
    [
        (b"- 1\n- 2\n", "a list at the top, not a mapping: diff compares configs"),
        (b"a: [1\n", "a.yaml"),
        (b"\xff\xfe", "not UTF-8 (offset 0)"),
        (b"? [1, 2]\n: x\n", "invalid YAML: found unhashable key"),
        (b"c: !!set {x, y}\n", "not a config OmegaConf can hold (Value 'set' is not a supported primitive type)"),
    ],
)
def test_what_is_not_a_config_is_one_line_naming_the_file(tmp_path, content, said):
    (tmp_path / "a.yaml").write_bytes(content)
    with pytest.raises(DocumentError, match=re.escape(said)) as error:
        read_document(tmp_path / "a.yaml")
    assert "\n" not in str(error.value) and "a.yaml" in str(error.value)
    with pytest.raises(DocumentError, match="nothing.yaml: no such file"):
        read_document(tmp_path / "nothing.yaml")


def test_two_files_are_one_pair_named_after_the_new_one(tmp_path):
    (tmp_path / "old.yaml").write_text("a: 1\n")
    (tmp_path / "new.yaml").write_text("a: 2\n")
    (pair,) = file_pair(tmp_path / "old.yaml", tmp_path / "new.yaml")
    assert pair.name == str(tmp_path / "new.yaml") and pair.old.tree == {"a": 1} and pair.new.tree == {"a": 2}


def test_two_folders_pair_by_name_and_a_lone_file_pairs_with_none(tmp_path):
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "both.yaml").write_text(f"side: {side}\n")
    (tmp_path / "old" / "gone.yaml").write_text("a: 1\n")
    (tmp_path / "new" / "notes.txt").write_text("not yaml, not compared\n")
    pairs = folder_pairs(tmp_path / "old", tmp_path / "new")
    assert [(p.name, p.old is not None, p.new is not None) for p in pairs] == [("both.yaml", True, True), ("gone.yaml", True, False)]


def test_a_snapshot_folder_holds_goldens_only(tmp_path):
    assert not is_snapshot_folder(tmp_path)  # empty
    (tmp_path / "_generated_a.yaml").write_text("a: 1\n")
    assert is_snapshot_folder(tmp_path)
    (tmp_path / "conf.yaml").write_text("a: 1\n")
    assert not is_snapshot_folder(tmp_path)
