"""The TOML that init writes reads back as exactly the table it meant, whatever the strings hold; the flags it records
never lead it outside the project."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from harness.adopt.plan import toml_text
from harness.model.settings import TABLE

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(TEXT)
def test_a_toml_string_reads_back_as_the_same_text(text):
    assert tomllib.loads(toml_text({"key": text}, None))["key"] == text


@given(TEXT, st.lists(TEXT, max_size=3), TEXT)
def test_a_settings_table_reads_back_as_written(config_dir, roots, route):
    table = {
        "config_dir": config_dir,
        "roots": roots,
        "presets": {"default": [], route or "x": roots},
        "routes": [{"name": route, "config_name": route}],
    }
    nested = tomllib.loads("[project]\nname = 'x'\n" + toml_text(table, TABLE, ["a comment"]))
    assert nested["tool"]["config-harness"] == table and nested["project"] == {"name": "x"}
    assert tomllib.loads(toml_text(table, None)) == table


def test_a_recorded_line_never_leads_init_outside_the_project(tmp_path):
    from harness.adopt.plan import recorded_inputs

    (tmp_path / ".git").mkdir()
    assert recorded_inputs(" --config-dir conf --engine-group backend", tmp_path).config_dir == tmp_path / "conf"
    for flags in (" --config-dir /etc", " --config-dir ../..", " --search-path /", " --write-snapshots ../x", " --bogus 1", " '"):
        assert recorded_inputs(flags, tmp_path) is None, flags
