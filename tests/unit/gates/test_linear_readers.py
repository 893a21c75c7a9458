"""Issue 53's readers of pull-request bytes that grew faster than their input, each rebuilt on its probe's shape and
held to linear work per doubling (tests/growth.py): CPU time, never a wall-clock bound."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness.composition.compose import names_entry
from harness.composition.provenance import SET_MARK, recorded_in
from harness.gates.budget import MAX_RECORDED_PATH_RATIO
from harness.readers.bash import PLACEHOLDER_MARK
from harness.readers.builders import build_sites, only_how_keywords
from harness.runner.launches import name_fits, root_configs, submodule_paths
from tests.growth import LIMIT, worst_doubling


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

    def probe(n: int):
        # The known parts found near the end of a long name: every gap is long.
        name, parts = "c" * n + "a" * n, ["c"] + ["a"] * 12 + ["b"]
        return lambda: [name_fits(name, parts) for _ in range(5000)]

    assert worst_doubling(probe, 50_000) < LIMIT


@given(st.text("ab_", max_size=8), st.lists(st.text("ab_", max_size=3), min_size=1, max_size=4))
def test_the_linear_match_is_the_regular_expression_it_replaces(name, parts):
    expression = ".+".join(re.escape(part) for part in parts)
    assert name_fits(name, parts) == bool(re.fullmatch(expression, name))


def test_gitmodules_is_read_in_linear_time(tmp_path):
    (tmp_path / ".gitmodules").write_bytes(b'[submodule "a"]\n\tpath = libs/a\n' + b"\n" * 40_000 + b"  path=  b/ \n")
    assert submodule_paths(tmp_path) == ["libs/a", "b"]

    def blank_lines(n: int):
        folder = tmp_path / str(n)
        folder.mkdir()
        (folder / ".gitmodules").write_bytes(b"\n" * n + b"[x]\n")  # each line start ran `\s*` to the end
        return lambda: submodule_paths(folder)

    assert worst_doubling(blank_lines, 40_000) < LIMIT


# The regular expression the builders reader used for "only keywords that change how a node is built".
_OLD_HOW = re.compile(rb"^\s*(?:(?:_convert_|_recursive_|_partial_|dataclass_type)\s*=[^,]*,?\s*)*$")


@given(
    st.lists(st.sampled_from([b"_partial_", b"_convert_", b"=", b",", b" ", b"x", b"\n", b"_recursive_x", b"dataclass_type"]), max_size=12)
)
def test_the_builders_keyword_check_is_the_regular_expression_it_replaces(tokens):
    rest = b"".join(tokens)
    assert only_how_keywords(rest) == bool(_OLD_HOW.match(rest)), rest


def test_builder_call_sites_are_read_in_linear_time():
    # The probe: `instantiate(cfg.x.y, _partial_=_partial_=...)`, each call 2^r for the old expression, and every call
    # site's line counted from the start of the file.
    def module(n: int):
        call = b"    instantiate(cfg.x.y, " + b"_partial_=" * 19 + b",1)\n"
        data = call * n
        return lambda: build_sites([("app.m", Path("app/m.py"), data)])

    found = build_sites([("app.m", Path("app/m.py"), b"\n" * 3 + b"instantiate(cfg.x.y, " + b"_partial_=" * 19 + b",1)\n")])
    assert found.builds_with_more("x.y") == "app/m.py:4"
    assert worst_doubling(module, 500) < LIMIT


def _old_entry(group: str, option: str) -> re.Pattern[str]:
    """The regular expression the defaults-line lookup used."""
    return re.compile(rf"\s*-\s*(override\s+)?{re.escape(group)}(@[^:]*)?\s*:\s*(['\"]?){re.escape(option)}\3\s*(#.*)?$")


@given(st.lists(st.sampled_from(["-", " ", "\t", "override", "override ", "g", "@", "p", ":", "'", '"', "o", "#", "x"]), max_size=10))
def test_the_defaults_line_lookup_is_the_regular_expression_it_replaces(tokens):
    line = "".join(tokens)
    for group, option in (("g", "o"), ("override", "o"), ("g", "override")):
        assert names_entry(line, group, option) == bool(_old_entry(group, option).match(line)), (line, group, option)


def test_the_defaults_line_lookup_is_linear_in_a_long_line():
    def line(n: int):
        text = "- backend@" + " " * n  # no `:`: the old expression retried `\s*:` from every split
        return lambda: [names_entry(text, "backend", "gpu") for _ in range(50)]

    assert names_entry("  - override backend@x:  'gpu'  # chosen", "backend", "gpu")
    assert worst_doubling(line, 20_000) < LIMIT


def test_a_forged_golden_header_costs_linear_work():
    # The probe: n recorded keys and n removed paths none of them holds (each source a scan of every key: 1.57 MB 41.7 s).
    def header(n: int):
        keys = {f"k{i}": i for i in range(n)}
        text = SET_MARK + json.dumps({"file": "conf/a.yaml", "at": "", "keys": keys}) + "\n"
        paths = [f"x{i}" for i in range(n)] + [f"k{i}" for i in range(0, n, 7)]

        def work():
            recorded = recorded_in(text)
            return [recorded.source_of(path) for path in paths]

        return work

    assert worst_doubling(header, 2_000) < LIMIT
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
