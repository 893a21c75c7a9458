"""Flags that mean one thing in every command (issue 33 item 7): `--case GLOB` everywhere, init's outputs named
as outputs, `--format` and `--report` from the reporter registry wherever a command prints a report; and bad
input said in the same one line by both shells."""

from __future__ import annotations

import json
import tomllib

import pytest

from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree
from tests.synthetic_history import commit, git

SETTINGS = ("--settings", "harness.toml")


def test_explain_takes_case_globs_like_every_command_and_they_must_select_one_case(small_project, cli):
    cli.chdir(small_project)
    exact = cli(*SETTINGS, "explain", "device.count", "--case", "train/gpu/default", "--quiet")
    assert exact.code == 0 and exact.out == "device.count = 8   (case train/gpu/default)\n"
    # Repeatable, the union of the globs, as in check: a glob that matches nothing adds nothing.
    union = cli(*SETTINGS, "explain", "device.count", "--case", "train/gpu/d*", "--case", "nothing/*", "--quiet")
    assert (union.code, union.out) == (0, exact.out)
    two = cli(*SETTINGS, "explain", "device.count", "--case", "train/gpu/default", "--case", "train/cpu/default")
    assert two.code == 2 and two.out == ""
    assert two.err == (
        "config-harness: error: --case 'train/gpu/default', 'train/cpu/default' matches 2 cases "
        "(train/cpu/default, train/gpu/default); name exactly one, see `config-harness list`\n"
    )


def test_log_takes_case_globs_too_and_answers_in_a_registry_format_with_report_files(small_project, cli):
    cli.chdir(small_project)
    git(small_project, "init", "-q", "-b", "main")
    commit(small_project, "base")
    train = small_project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))
    commit(small_project, "lr 0.2")
    by_id = cli(*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--format", "json")
    by_globs = cli(
        *SETTINGS, "log", "trainer.lr", "--case", "train/cpu/def*", "--case", "x/*", "--format", "json", "--report", "text:log.txt"
    )
    assert by_id.code == by_globs.code == 0 and by_globs.out == by_id.out
    assert [(c["old"], c["new"]) for c in by_id.json()["changes"]] == [(None, 0.1), (0.1, 0.2)]
    text = cli(*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default")
    assert (small_project / "log.txt").read_text() == text.out and text.out.endswith("2 change(s) of trainer.lr in train/cpu/default\n")
    refused = cli(*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--format", "markdown")
    assert refused.code == 2 and "invalid choice: 'markdown' (choose from 'text', 'json')" in refused.err


def test_list_report_files_are_its_answers_in_other_formats(small_project, cli):
    cli.chdir(small_project)
    shown = cli(*SETTINGS, "list", "--format", "json", "--report", "text:list.txt", "--report", "json:list.json")
    assert shown.code == 0 and (small_project / "list.json").read_text() == shown.out
    assert (small_project / "list.txt").read_text() == cli(*SETTINGS, "list").out
    assert [row["id"] for row in json.loads(shown.out)["cases"]][:2] == ["train/cpu/default", "train/cpu/fast"]
    wrong = cli(*SETTINGS, "list", "--report", "sarif:x.sarif")
    assert wrong.code == 2 and "'sarif' is not a report format (formats: text, json)" in wrong.err


def test_generate_prints_its_report_in_any_format_and_keeps_its_text_answer(small_project, cli):
    cli.chdir(small_project)
    text = cli(*SETTINGS, "generate", "--case", "train/gpu/*")
    assert text.code == 0 and text.err == ""
    assert text.out.splitlines()[-2:] == [
        "3 golden(s) written: 3 new, 0 changed; 0 unchanged; 0 error(s)",
        "OK: 3 cases against goldens in snapshots: 3 ok",
    ]
    for golden in (small_project / "snapshots").iterdir():
        golden.unlink()
    as_json = cli(*SETTINGS, "generate", "--case", "train/gpu/*", "--format", "json", "--report", "junit:generate.xml")
    assert as_json.code == 0
    document = as_json.json()  # standard output is the JSON document alone; the written lines went to stderr
    assert document["ok"] is True and [c["status"] for c in document["cases"]] == ["ok"] * 3
    assert as_json.err.splitlines()[-1] == "3 golden(s) written: 3 new, 0 changed; 0 unchanged; 0 error(s)"
    assert "<testsuites" in (small_project / "generate.xml").read_text()
    gpu = small_project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    checked = cli(*SETTINGS, "generate", "--check", "--case", "train/gpu/*", "--format", "json")
    assert checked.code == 1 and {c["status"] for c in checked.json()["cases"]} == {"changed"}
    assert checked.err.splitlines()[-1] == "3 of 3 goldens would change"
    assert cli(*SETTINGS, "generate", "--check", "--case", "train/gpu/*").out.splitlines()[-1] == "3 of 3 goldens would change"


def test_init_names_its_outputs_as_outputs_and_the_old_spellings_still_work(tmp_path, cli):
    write_tree(tmp_path / "conf", SMALL_TREE)
    new = cli(
        "init",
        "--config-dir",
        "conf",
        "--write",
        "a.toml",
        "--write-snapshots",
        "goldens-a",
        "--write-contracts",
        "a.yaml",
        "--quiet",
        cwd=tmp_path,
    )
    old = cli("init", "--config-dir", "conf", "--write", "b.toml", "--snapshot-dir", "goldens-b", "--contracts", "b.yaml", "--quiet")
    assert new.code == old.code == 0 and new.err == old.err == ""
    assert (tmp_path / "goldens-a").is_dir() and (tmp_path / "a.yaml").is_file() and (tmp_path / "b.yaml").is_file()
    a, b = (tomllib.loads((tmp_path / f"{name}.toml").read_text()) for name in "ab")
    assert a["snapshot_dir"] == "goldens-a" and a["contracts"][0] == "a.yaml" and b["contracts"][0] == "b.yaml"
    assert {**a, "snapshot_dir": "X", "contracts": ["X"]} == {**b, "snapshot_dir": "X", "contracts": ["X"]}


PYPROJECT = "[tool.config-harness]\n" + SMALL_SETTINGS.replace("[presets]", "[tool.config-harness.presets]").replace(
    "[[routes]]", "[[tool.config-harness.routes]]"
)


@pytest.mark.parametrize(
    "contracts",
    [
        "contracts:\n  - name: x\n    bogus: 1\n",  # an unknown key
        "contracts: [\n",  # not YAML
        "contracts: []\n\xff\n",  # not UTF-8
    ],
)
def test_both_shells_say_bad_input_in_the_same_one_line(pytester: pytest.Pytester, cli, contracts):
    write_tree(pytester.path / "conf", SMALL_TREE)
    (pytester.path / "contracts.yaml").write_bytes(contracts.encode("latin-1"))
    table = PYPROJECT.replace("[tool.config-harness]\n", '[tool.config-harness]\ncontracts = ["contracts.yaml"]\n')
    (pytester.path / "pyproject.toml").write_text(table)
    command_line = cli("check", cwd=pytester.path)
    assert command_line.code == 2 and command_line.out == "" and len(command_line.err.splitlines()) == 1
    line = command_line.err.removeprefix("config-harness: error: ").rstrip("\n")
    session = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert session.ret == pytest.ExitCode.INTERRUPTED  # a collection error, as a usage error is in pytest
    assert f"config-harness: {line}" in session.stdout.lines
    assert "Traceback" not in session.stdout.str() + session.stderr.str()
