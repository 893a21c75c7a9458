"""Which mode `diff OLD NEW` runs in: two files or `--files` compare documents, two snapshot folders goldens, any
other two folders config trees; a folder of goldens beside one that is not is refused, as is a flag the mode ignores."""

import pytest

from harness.baselines.diff_modes import detect, refused_flag
from harness.composition.documents import DocumentError
from harness.model.findings import Mode


@pytest.fixture
def sides(tmp_path):
    for name in ("goldens_a", "goldens_b", "tree_a", "tree_b"):
        (tmp_path / name).mkdir()
    for folder in ("goldens_a", "goldens_b"):
        (tmp_path / folder / "_generated_train.yaml").write_text("a: 1\n")
    for folder in ("tree_a", "tree_b"):
        (tmp_path / folder / "train.yaml").write_text("a: 1\n")
    (tmp_path / "one.yaml").write_text("a: 1\n")
    return tmp_path


def test_the_mode_follows_what_the_two_sides_are(sides):
    assert detect(sides / "one.yaml", sides / "one.yaml", False).mode == Mode.FILES
    assert detect(sides / "goldens_a", sides / "goldens_b", False).mode == Mode.GOLDENS
    assert detect(sides / "tree_a", sides / "tree_b", False).mode == Mode.TREES
    files = detect(sides / "tree_a", sides / "tree_b", True)
    assert files.mode == Mode.FILES and files.folders is True


def test_sides_of_two_kinds_are_refused(sides):
    with pytest.raises(DocumentError, match="goldens_a holds only goldens and .*tree_a does not"):
        detect(sides / "goldens_a", sides / "tree_a", False)
    with pytest.raises(DocumentError, match="diff needs two files or two folders: .*tree_a is a folder and .*one.yaml is not"):
        detect(sides / "one.yaml", sides / "tree_a", False)
    with pytest.raises(DocumentError, match="gone.yaml: no such file or folder"):
        detect(sides / "one.yaml", sides / "gone.yaml", False)
    # An empty folder holds no golden: it is a (bare) config tree, not a snapshot folder.
    (sides / "empty").mkdir()
    assert detect(sides / "empty", sides / "tree_a", False).mode == Mode.TREES


def test_a_flag_the_mode_ignores_is_refused_with_why(sides):
    documents = detect(sides / "one.yaml", sides / "one.yaml", False)
    assert refused_flag(documents, {"case": None, "strict_waivers": False}) is None
    assert refused_flag(documents, {"case": ["a"]}).startswith("--case selects cases, and a diff of two YAML files")
    assert refused_flag(documents, {"strict_waivers": True}).startswith("--strict-waivers is about contract waivers")
    trees = detect(sides / "tree_a", sides / "tree_b", False)
    assert refused_flag(trees, {"case": ["a"], "strict_waivers": True}) is None
