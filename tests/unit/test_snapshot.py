"""The syrupy extension's own decisions, without a pytest session: one golden file per case named after the
test's case id, the comparison `check` makes (a header-only difference is no difference), a failure message of
semantic changes, and a kept golden raised so syrupy writes nothing. (Real sessions: tests/integration/test_plugin_*.)"""

from types import SimpleNamespace

import pytest

from harness.snapshot import GoldenExtension, GoldenKept, Kept, case_id_of, semantic_diff_lines

GOLDEN = "# config-harness golden for case t/gpu/default\na:\n  b: 1\nc: x\n"


def location(name):
    return SimpleNamespace(nodename=name)


def test_the_case_id_comes_from_the_test_id_and_names_the_file():
    assert case_id_of(location("golden[ppo_trainer/dp/default]")) == "ppo_trainer/dp/default"
    assert case_id_of(location("golden[a[1]]")) == "a[1]"  # the last bracket closes it
    assert GoldenExtension.get_file_basename(test_location=location("golden[t/gpu/default]"), index=0) == "_generated_t__gpu__default"
    assert GoldenExtension.matches_test_location(
        test_location=location("golden[t/gpu/default]"), snapshot_location="s/_generated_t__gpu__default.yaml"
    )
    assert not GoldenExtension.matches_test_location(
        test_location=location("golden[t/gpu/default]"), snapshot_location="s/_generated_t__cpu__default.yaml"
    )


def test_a_header_only_difference_matches_and_a_value_does_not():
    extension = GoldenExtension()
    assert extension.matches(serialized_data="# another header\n" + GOLDEN.split("\n", 1)[1], snapshot_data=GOLDEN)
    assert not extension.matches(serialized_data=GOLDEN.replace("b: 1", "b: 2"), snapshot_data=GOLDEN)
    assert not extension.matches(serialized_data=GOLDEN, snapshot_data=None)


def test_the_failure_says_what_changed_semantically():
    extension = GoldenExtension()
    assert list(extension.diff_lines(GOLDEN, None)) == ["no golden yet; create it with --snapshot-update"]
    (line,) = semantic_diff_lines(GOLDEN, GOLDEN.replace("c: x\n", ""))
    assert line.startswith("REMOVED c")
    assert semantic_diff_lines(GOLDEN, GOLDEN.replace("c: x", "c:   x")) == [
        "the golden differs in text only (no semantic change); regenerate it"
    ]
    assert semantic_diff_lines("a: [unclosed\n", GOLDEN)[0].startswith("golden ")


def test_a_kept_golden_is_raised_so_nothing_is_written():
    with pytest.raises(GoldenKept, match="generate would keep it"):
        GoldenExtension().serialize(Kept("generate would keep it"))
    assert GoldenExtension().serialize("text") == "text"
