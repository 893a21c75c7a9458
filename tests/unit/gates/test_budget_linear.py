"""Issue 53's readers of pull-request bytes that grew faster than their input, rebuilt by hand: each agrees with what
it replaced (property tests against the old regular expression) and reads its probe's input without a crash or a
hang. Their growth per doubling is measured in tests/integration/test_reader_growth.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness.composition.compose import names_entry
from harness.composition.provenance import SET_MARK, Recorded, Source, recorded_in
from harness.gates.budget import MAX_EXPANDED_WORDS, MAX_RECORDED_PATH_RATIO, NOT_READ
from harness.readers.bash import launches_in
from harness.readers.bash_words import PLACEHOLDER_MARK
from harness.readers.builders import build_sites, only_how_keywords
from harness.runner.launches import known_parts, name_fits, root_configs, submodule_paths


def _written(parts: list[str]) -> str:
    """A `--config-name` as the bash reader writes it: the known parts around placeholders (`a${1}b`)."""
    return "".join(part + f"{PLACEHOLDER_MARK}{index}__" for index, part in enumerate(parts[:-1])) + parts[-1]


def test_a_config_name_with_unknown_parts_is_matched_in_linear_time(tmp_path):
    # The probe: a root config named with 200 `a` and `--config-name a${1}a${2}a${3}a${4}a${5}a${6}b` (six
    # placeholders ran past 120 s); a name that fits is still found.
    (tmp_path / ("a" * 200 + ".yaml")).write_text("x: 1\n")
    (tmp_path / "a_x_b.yaml").write_text("x: 1\n")
    assert root_configs(tmp_path, _written(["a"] * 6 + ["b"]) + ".yaml") == []
    assert root_configs(tmp_path, _written(["a", "b"]) + ".yaml") == ["a_x_b"]
    assert root_configs(tmp_path, _written(["a", "x", "b"])) == ["a_x_b"]


@given(st.text("ab_", max_size=8), st.lists(st.text("ab_", max_size=3), min_size=1, max_size=4))
def test_the_linear_match_is_the_regular_expression_it_replaces(name, parts):
    expression = ".+".join(re.escape(part) for part in parts)
    assert name_fits(name, parts) == bool(re.fullmatch(expression, name))


def test_gitmodules_is_read_in_linear_time(tmp_path):
    (tmp_path / ".gitmodules").write_bytes(b'[submodule "a"]\n\tpath = libs/a\n' + b"\n" * 40_000 + b"  path=  b/ \n")
    assert submodule_paths(tmp_path) == ["libs/a", "b"]


# The regular expression the builders reader used for "only keywords that change how a node is built".
_OLD_HOW = re.compile(rb"^\s*(?:(?:_convert_|_recursive_|_partial_|dataclass_type)\s*=[^,]*,?\s*)*$")


@given(
    st.lists(st.sampled_from([b"_partial_", b"_convert_", b"=", b",", b" ", b"x", b"\n", b"_recursive_x", b"dataclass_type"]), max_size=12)
)
def test_the_builders_keyword_check_is_the_regular_expression_it_replaces(tokens):
    rest = b"".join(tokens)
    assert only_how_keywords(rest) == bool(_OLD_HOW.match(rest)), rest


def test_a_builder_call_site_names_its_line():
    # The probe's call: `instantiate(cfg.x.y, _partial_=` x 19 `,1)`, 2^19 splits for the old expression.
    found = build_sites([("app.m", Path("app/m.py"), b"\n" * 3 + b"instantiate(cfg.x.y, " + b"_partial_=" * 19 + b",1)\n")])
    assert found.builds_with_more("x.y") == "app/m.py:4"


def _old_entry(group: str, option: str) -> re.Pattern[str]:
    """The regular expression the defaults-line lookup used."""
    return re.compile(rf"\s*-\s*(override\s+)?{re.escape(group)}(@[^:]*)?\s*:\s*(['\"]?){re.escape(option)}\3\s*(#.*)?$")


@given(st.lists(st.sampled_from(["-", " ", "\t", "override", "override ", "g", "@", "p", ":", "'", '"', "o", "#", "x"]), max_size=10))
def test_the_defaults_line_lookup_is_the_regular_expression_it_replaces(tokens):
    line = "".join(tokens)
    for group, option in (("g", "o"), ("override", "o"), ("g", "override")):
        assert names_entry(line, group, option) == bool(_old_entry(group, option).match(line)), (line, group, option)


def test_the_defaults_line_lookup_reads_a_long_line():
    assert names_entry("  - override backend@x:  'gpu'  # chosen", "backend", "gpu")
    assert not names_entry("- backend@" + " " * 40_000, "backend", "gpu")  # 5.45 s for the old expression


def test_a_removed_subtree_is_told_the_first_recorded_leaf_below_it():
    recorded = recorded_in(SET_MARK + json.dumps({"file": "f", "at": "", "keys": {"b": {"c": 1}, "a": {"d": 2, "c": 3}}}) + "\n")
    assert str(recorded.source_of("a")) == "f:2" and str(recorded.source_of("b")) == "f:1" and recorded.source_of("x") is None


def test_a_forged_header_never_reads_back_more_than_its_budget_nor_crashes():
    # One long parent over many leaves read back as the square of the header's size; JSON nested past the decoder's
    # depth was a RecursionError (exit 3).
    text = SET_MARK + json.dumps({"file": "f", "at": "", "keys": {"p" * 100_000: {f"k{i}": 1 for i in range(20_000)}}}) + "\n"
    recorded = recorded_in(text)
    assert sum(len(path) for path in recorded.keys or {}) <= MAX_RECORDED_PATH_RATIO * len(text)
    deep = SET_MARK + '{"file": "f", "keys": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001 + "\n"
    assert recorded_in(deep).keys == {}


def _launches(script: str) -> list:
    return launches_in("run.sh", script.encode(), lambda entry, is_module: entry.startswith("app."), lambda path: "missing")


def test_whole_array_expansions_past_the_budget_are_a_launch_not_extracted():
    # `"${A[@]}"` of n words on n lines was n*n words (3.48x per doubling); past the budget each expansion is one
    # placeholder, and a launch using one is not extracted.
    words = " ".join(f"x{i}=1" for i in range(1000))
    (launch,) = _launches(f"A=({words})\n" + 'echo "${A[@]}"\n' * (MAX_EXPANDED_WORDS // 1000) + 'python -m app.main "${A[@]}"\n')
    assert launch.error.startswith(f"{NOT_READ} the word budget") and not launch.overrides
    (launch,) = _launches('A=(a=1 b=2)\nf() { python -m app.main "$@"; }\nf "${A[@]}"\n')
    assert [o.text for o in launch.overrides] == ["a=1", "b=2"]


def test_an_array_index_or_a_shift_count_of_any_size_is_read_without_allocating_it():
    # `x[100000000]=1` (14 bytes) allocated 1.6 GB, `x[1000000000]=1` was exit 3, and 5,000 digits raised in `int()`.
    (launch,) = _launches("x[100000000]=1\npython -m app.main a=$x\n")
    assert launch.error.startswith(f"{NOT_READ} the word budget")
    huge = "9" * 5000
    (launch,) = _launches(f"x[{huge}]=1\nset -- b=1\nshift {huge}\npython -m app.main a=${{x[{huge}]}} $@\n")
    assert [o.text for o in launch.overrides] == ["a="]
    (launch,) = _launches("x[3]=1\npython -m app.main a=${x[3]}\n")
    assert [o.text for o in launch.overrides] == ["a=1"]


@given(st.lists(st.text("ab.", min_size=1, max_size=5), unique=True, max_size=40), st.text("ab.", max_size=3))
def test_the_first_recorded_leaf_below_a_path_is_the_scan_it_replaces(keys, path):
    recorded = Recorded((), {key: Source("f", line) for line, key in enumerate(keys)})
    scanned = next((Source("f", line) for line, key in enumerate(keys) if key.startswith(path + ".")), None)
    assert recorded.source_of(path) == (Source("f", keys.index(path)) if path in keys else scanned)


@given(st.lists(st.sampled_from([PLACEHOLDER_MARK, "__", "_", "a", "u"]), max_size=10))
def test_the_known_parts_of_a_config_name_are_the_split_they_replace(pieces):
    written = "".join(pieces)
    assert known_parts(written) == re.split(re.escape(PLACEHOLDER_MARK) + r".*?__", written)
