"""`init`: adopt a folder: the settings table, an empty contracts file, a known file and the snapshot folder; an
engine group only when the evidence (or `--engine-group`) decides it; `--quiet` is the one line naming the file."""

import tomllib

from harness.model.settings import load_settings


def test_adopting_writes_the_settings_and_asks_about_the_engines(tiny, cli):
    (tiny / "harness.toml").unlink()
    run = cli("init", "--config-dir", "conf", "--write", "adopted.toml")
    assert run.code == 0
    lines = run.out.splitlines()
    assert lines[0] == "wrote adopted.toml"
    # Two options of one group and one root: nothing decides that `backend` holds engines, so init asks.
    assert "question: which group's options are the engines? The evidence does not decide, so init wrote none:" in lines
    assert any(line.split()[:2] == ["candidate", "backend:"] for line in lines)
    table = tomllib.loads((tiny / "adopted.toml").read_text())
    assert (table["config_dir"], table["roots"], table["presets"]) == ("conf", ["train"], {"default": []})
    assert "engine_group" not in table
    assert (tiny / "config-harness" / "snapshots").is_dir() and (tiny / "config-harness" / "contracts.yaml").is_file()
    assert [case.id for case in _cases(tiny / "adopted.toml")] == ["train/base/default"]


def test_an_engine_group_given_is_written_and_quiet_is_one_line(tiny, cli):
    (tiny / "harness.toml").unlink()
    run = cli("init", "--config-dir", "conf", "--write", "adopted.toml", "--engine-group", "backend", "--quiet")
    assert run.code == 0 and run.out == "wrote adopted.toml\n"
    assert tomllib.loads((tiny / "adopted.toml").read_text())["engine_group"] == "backend"
    assert [case.id for case in _cases(tiny / "adopted.toml")] == ["train/cpu/default", "train/gpu/default"]


def test_the_old_spelling_still_works_and_says_so(tiny, cli):
    (tiny / "harness.toml").unlink()
    run = cli("init", "--config-dir", "conf", "--settings", "old.toml", "--quiet")
    assert run.code == 0 and (tiny / "old.toml").is_file()
    assert "--settings is deprecated, use --write" in run.err


def test_a_folder_that_is_not_there_is_bad_input(tmp_path, cli):
    run = cli("init", "--config-dir", "nowhere", "--write", "h.toml", cwd=tmp_path)
    assert run.code == 2 and run.err.count("\n") == 1 and "nowhere" in run.err and not (tmp_path / "h.toml").exists()


def test_a_pyproject_whose_tool_is_an_array_of_tables_is_one_line_exit_2(tiny, cli):
    # `[[tool]]` was an AttributeError in init (exit 3); a table appended below it would be read as tool[-1]'s.
    (tiny / "harness.toml").unlink()
    (tiny / "pyproject.toml").write_text("[[tool]]\nx = 1\n")
    run = cli("init", "--config-dir", "conf")
    assert run.code == 2 and run.err.count("\n") == 1 and "`tool` is an array of tables ([[tool]])" in run.err, run.err
    assert (tiny / "pyproject.toml").read_text() == "[[tool]]\nx = 1\n"


def _cases(settings_file):
    from harness.composition.cases import open_matrix

    with open_matrix(load_settings(settings_file)) as (_, cases):
        return cases


def test_a_known_file_whose_first_line_counts_5000_digits_of_lines_is_one_line_exit_2(tmp_path, cli):
    # Issue 53: `int()` of the count raised `ValueError: Exceeds the limit (4300 digits)`, exit 3. It is an edit.
    import re

    from tests.conftest import write_tree

    conf = {"train.yaml": "defaults:\n  - backend: cpu\nlr: 1\n", "backend/cpu.yaml": "dev: cpu\n", "backend/gpu.yaml": "bad: ${nope}\n"}
    write_tree(tmp_path / "conf", conf)
    assert cli("init", "--config-dir", "conf", "--quiet", cwd=tmp_path).code == 0
    known = tmp_path / "config-harness" / "known.yaml"
    text, count = re.subn(r"of the \d+ lines below", "of the " + "9" * 5000 + " lines below", known.read_text(), count=1)
    assert count == 1
    known.write_text(text)
    run = cli("init", "--config-dir", "conf", "--engine-group", "backend", cwd=tmp_path)
    assert run.code == 2 and run.err.count("\n") == 1 and "known.yaml: edited since init wrote it" in run.err, run.err
