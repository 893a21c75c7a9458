"""The TOML that init writes reads back as exactly the table it meant, whatever the strings hold."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from harness.adopt import TABLE, toml_text

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


def test_groups_a_root_leaves_off_become_routes_when_their_options_override_its_values(tmp_path):
    from harness.adopt import Guess, switch_routes, switched_groups
    from tests.conftest import write_tree

    conf = write_tree(
        tmp_path / "conf",
        {
            "train.yaml": "defaults:\n  - _self_\n  - debug: null\n  - logger: null\n  - override_me: null\ntrainer:\n  epochs: 10\n",
            "debug/fast.yaml": "# @package _global_\ntrainer:\n  epochs: 1\n",
            "debug/broken.yaml": "defaults:\n  - missing_group: x\n",
            "logger/csv.yaml": "path: logs\n",
        },
    )
    assert switched_groups(conf / "train.yaml") == ["debug", "logger", "override_me"]
    switches = switch_routes(conf, ["train"], Guess())
    assert switches.routes == ({"name": "train_debug_fast", "config_name": "train", "overrides": ["debug=fast"]},)
    reasons = {entry.name: entry.reason for entry in switches.left_out}
    assert reasons["train logger=csv"] == "they only add keys; they override none the root sets"
    assert "missing_group" in reasons["train debug=broken"]


def test_the_preset_without_overrides_is_plain_beside_an_engine_called_default():
    from harness.adopt import Discovery, Guess, readable_presets

    discovery = Discovery(("train",), engines=("cpu", "default"), same_as=(("big", "train/default/default"),))
    renamed, guess = readable_presets(discovery, Guess(), explicit=False)
    assert guess.presets == (("plain", ()),) and renamed.same_as == (("big", "train/default/plain"),)
    assert readable_presets(discovery, Guess(), explicit=True) == (discovery, Guess())  # --preset names it
    assert readable_presets(Discovery(("train",), engines=("cpu",)), Guess(), explicit=False)[1] == Guess()


def test_testpaths_that_hide_the_golden_tests_get_a_note_with_the_fix(tmp_path):
    from harness.adopt import pytest_hides_goldens

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.pytest.ini_options]\ntestpaths = "tests/"\n')
    assert pytest_hides_goldens(pyproject, tmp_path).endswith('write testpaths = ["tests/", "pyproject.toml"]')
    pyproject.write_text('[tool.pytest.ini_options]\ntestpaths = ["tests", "pyproject.toml"]\n')
    assert pytest_hides_goldens(pyproject, tmp_path) is None
    pyproject.write_text("[tool.pytest.ini_options]\naddopts = '-q'\n")
    assert pytest_hides_goldens(pyproject, tmp_path) is None  # no testpaths: pytest walks the rootdir
    assert pytest_hides_goldens(tmp_path / "harness.toml", tmp_path) is None  # its own file needs --config-harness-settings


def test_init_names_an_entry_point_whose_config_path_is_computed(tmp_path):
    from harness.adopt import computed_entry_points

    (tmp_path / "app" / "conf").mkdir(parents=True)
    (tmp_path / "app" / "train.py").write_text(
        "import hydra, os, pathlib\n\n"
        "@hydra.main(config_path=str(pathlib.Path(__file__).parent / 'conf'), version_base=None)\ndef main(cfg): ...\n"
    )
    (tmp_path / "app" / "other.py").write_text("import hydra, os\n\n@hydra.main(config_path=os.environ['CONF'])\ndef main(cfg): ...\n")
    said = computed_entry_points((tmp_path / "app" / "conf").resolve(), tmp_path)
    assert said == [
        "app/other.py:3: @hydra.main's config_path cannot be read without running it "
        "(`os.environ['CONF']` is neither a literal nor a path built from __file__)",
        "app/train.py:3: @hydra.main with config_path computed from __file__ (read, never run): app/conf",
    ]


LINES = st.lists(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=20), min_size=1, max_size=6
)


@given(LINES, TEXT, TEXT, st.data())
def test_fingerprinted_text_is_found_where_it_lies_and_any_change_to_it_is_an_edit(lines, before, after, data):
    from harness.adopt import fingerprinted, written_by_init

    body = "".join(f"{line}\n" for line in lines)
    before = before.replace("#", "") + "\n" if before else ""
    text = before + fingerprinted(body, "; the rest of the line") + after.replace("#", "")
    written = written_by_init(text)
    assert written is not None and written.unedited
    assert text[written.start : written.end] == fingerprinted(body, "; the rest of the line")
    # Change one character of the body, or drop its last line: the fingerprint no longer matches.
    at = data.draw(st.integers(0, len(body) - 1))
    changed = body[:at] + ("x" if body[at] != "x" else "y") + body[at + 1 :]
    assert not written_by_init(before + fingerprinted(body).split("\n", 1)[0] + "\n" + changed).unedited
    assert not written_by_init(fingerprinted(body).rsplit("\n", 2)[0] + "\n").unedited


def test_a_file_without_the_fingerprint_line_or_with_two_is_not_init_s_unedited_text():
    from harness.adopt import fingerprinted, written_by_init

    assert written_by_init("[tool.x]\na = 1\n") is None
    once = fingerprinted("a = 1\n")
    assert written_by_init(once + once).unedited is False
    assert written_by_init(once.split("\n")[0]).unedited is False  # the line alone, without the lines it counts


def test_a_root_s_entry_belongs_to_the_group_its_defaults_list_names():
    from harness.adopt import _selected_group

    # `- environment: pufferlib_ocean/bandit` selects from `environment`, not from a group `environment/pufferlib_ocean`
    assert _selected_group("environment/pufferlib_ocean/bandit", {"environment"}) == "environment"
    assert _selected_group("model/representation/painn", {"model/representation"}) == "model/representation"
    assert _selected_group("actor/dp_actor", {"actor"}) == "actor"
    assert _selected_group("a/b/c", set()) == "a"


def test_a_recorded_line_never_leads_init_outside_the_project(tmp_path):
    from harness.adopt import recorded_inputs

    (tmp_path / ".git").mkdir()
    assert recorded_inputs(" --config-dir conf --engine-group backend", tmp_path).config_dir == tmp_path / "conf"
    for flags in (" --config-dir /etc", " --config-dir ../..", " --search-path /", " --write-snapshots ../x", " --bogus 1", " '"):
        assert recorded_inputs(flags, tmp_path) is None, flags


def test_python_sources_start_above_a_namespace_package_the_entry_point_imports_through(tmp_path):
    """pyteia: the entry point lies in `teia/core` (a package) inside `teia/` (a namespace package, no __init__.py)
    and imports `teia.core....`; `_target_: teia.node.X` resolves only from the folder above `teia/`."""
    from harness.adopt import EntryGuess, python_sources_of
    from tests.conftest import write_tree

    write_tree(
        tmp_path,
        {
            "src/teia/core/__init__.py": "",
            "src/teia/core/run.py": "from teia.core.layers import primary\n",
            "src/teia/node/__init__.py": "",
            "lib/app/__init__.py": "",
            "lib/app/run.py": "from app.layers import primary\n",  # lib/ is no namespace the entry imports through
        },
    )
    assert python_sources_of(EntryGuess(None, "", tmp_path / "src/teia/core/run.py"), tmp_path) == ["src"]
    assert python_sources_of(EntryGuess(None, "", tmp_path / "lib/app/run.py"), tmp_path) == ["lib/app"]


def test_scripts_that_run_no_hydra_program_get_no_glob(tmp_path):
    """geoarches' evaluation/submit_eval.sh runs `python -m geoarches.evaluation.eval_multistep`, an argparse script:
    check skips it ("not a Hydra program"), so a glob for it only printed "0 launches checked of 0 found"."""
    from harness.adopt import command_globs
    from tests.conftest import write_tree

    main = 'import hydra\n@hydra.main(config_path="conf", config_name="train", version_base=None)\ndef main(c): ...\n'
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/main.py": main,
            "app/conf/train.yaml": "a: 1\n",
            "app/convert.py": "import argparse\n",
            "eval/submit.sh": "python -m app.convert --year 2020\n",
            "jobs/train.sh": "python -m app.main a=2\n",
            "tools/run.sh": "python app/convert.py --out x\n",
        },
    )
    assert command_globs(tmp_path, tmp_path / "app/conf") == ["jobs/**/*.sh"]


def test_a_fingerprint_line_counting_more_lines_than_int_reads_is_an_edit_not_a_crash():
    # A 5,000-digit count on the known file's first line was `ValueError: Exceeds the limit (4300 digits)`: exit 3.
    from harness.adopt import written_by_init

    line = "# Written by `config-harness init` (fingerprint 0123456789abcdef of the " + "9" * 5000 + " lines below)\n"
    assert written_by_init(line + "waivers: []\n").unedited is False
