"""The command line's surface (issue 21 items 5 and 7): commands as modules, one spelling per idea, help everywhere,
old spellings that still work for a release and say so."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import harness.cli
from harness.cli import build_parser
from harness.commands import COMMANDS
from tests.conftest import SMALL_TREE, write_tree

CASE_SELECTING = ("list", "generate", "check", "diff")  # the commands whose --case is a repeatable glob


def subparsers() -> dict[str, argparse.ArgumentParser]:
    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def test_cli_py_only_builds_the_parser_and_runs_a_command():
    assert len(Path(harness.cli.__file__).read_text(encoding="utf-8").splitlines()) < 150
    assert isinstance(COMMANDS, tuple)  # an immutable registry: no module-level mutable state
    names = [command.NAME for command in COMMANDS]
    assert len(set(names)) == len(names) == 13
    assert list(subparsers()) == names


def test_every_subcommand_says_what_it_does_and_every_option_has_help(cli):
    for name, parser in subparsers().items():
        command = next(c for c in COMMANDS if c.NAME == name)
        assert command.HELP and "\n" not in command.HELP and parser.description == command.HELP
        result = cli(name, "--help")
        assert result.code == 0
        paragraphs = result.out.split("\n\n")
        assert paragraphs[0].startswith(f"usage: config-harness {name}")
        assert " ".join(paragraphs[1].split()) == command.HELP  # the first thing after the usage: what it does
        for action in parser._actions:
            assert action.help and action.help != argparse.SUPPRESS, f"{name} {action.option_strings or action.dest}: no help"
    for action in build_parser()._actions:
        assert action.help, action.option_strings


def test_quiet_wherever_there_is_output_and_case_is_a_repeatable_glob_where_cases_are_selected():
    for name, parser in subparsers().items():
        options = {option: action for action in parser._actions for option in action.option_strings}
        assert "--quiet" in options, name
        if name in CASE_SELECTING:
            assert isinstance(options["--case"], argparse._AppendAction) and options["--case"].metavar == "GLOB", name


def test_commands_take_after_their_name_only_the_global_flags_they_use(cli, tmp_path):
    assert cli("cache", "--settings", "x.toml", cwd=tmp_path).code == 2  # not offered: it means nothing there
    assert cli("fetch", "--jobs", "2").code == 2
    assert cli("log", "key", "--case", "a/b/c", "--no-cache").code == 2


def test_a_global_flag_a_command_does_not_use_is_named_and_ignored(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    result = cli("--settings", "nowhere.toml", "--jobs", "2", "cache", cwd=tmp_path)
    assert result.code == 0 and result.out.startswith(f"{tmp_path / 'cache'}: empty")
    assert result.err == "config-harness: warning: cache does not use --settings, --jobs: ignored\n"
    assert cli("--no-cache", "cache").err == ""  # a flag it uses: no warning


def test_repeated_case_globs_select_their_union(small_project, cli):
    listing = cli("--settings", "harness.toml", "list", "--case", "train/cpu/*", "--case", "route/*", "--quiet", cwd=small_project)
    assert listing.code == 0
    assert listing.out.split() == ["train/cpu/default", "train/cpu/fast", "train/cpu/sgd", "route/legacy"]
    assert cli("--settings", "harness.toml", "generate", "--case", "*/gpu/fast", "--case", "*/cpu/sgd").code == 0
    assert sorted(p.name for p in (small_project / "snapshots").iterdir()) == [
        "_generated_train__cpu__sgd.yaml",
        "_generated_train__gpu__fast.yaml",
    ]
    checked = cli("--settings", "harness.toml", "check", "--format", "json", "--case", "*/gpu/fast", "--case", "*/cpu/sgd")
    assert checked.code == 0 and [c["id"] for c in checked.json()["cases"]] == ["train/cpu/sgd", "train/gpu/fast"]
    assert (
        "--case '*/gpu/fast' --case '*/cpu/sgd'"
        in cli("--settings", "harness.toml", "check", "--case", "*/gpu/fast", "--case", "*/cpu/sgd", "--case", "*/cpu/fast").out
    )


def test_one_glob_of_several_that_matches_nothing_is_bad_input(small_project, cli):
    for command in ("list", "check", "generate"):
        result = cli("--settings", "harness.toml", command, "--case", "train/*", "--case", "train/tpu/*", cwd=small_project)
        assert result.code == 2, command
        assert "--case 'train/tpu/*' matches no case; did you mean 'train/gpu/*'?" in result.err


LOCK = ("--name", "gpu", "--output", "contracts.yaml")


@pytest.mark.parametrize(
    "spelling",
    [
        ("--against", "train/cpu/default", "--from", "train/gpu/default", "--case", "train/gpu/*"),
        ("--baseline", "train/cpu/default", "--target", "train/gpu/default", "--cases", "train/gpu/*"),
    ],
)
def test_lock_old_and_new_spellings_do_the_same_and_the_old_ones_warn(small_project, cli, spelling):
    result = cli("--settings", "harness.toml", "lock", *spelling, *LOCK, cwd=small_project)
    assert result.code == 0, result.err
    assert result.out.endswith("wrote contracts.yaml: 1 required, 4 pinned\n")
    text = (small_project / "contracts.yaml").read_text()
    assert "name: gpu" in text and "cases: train/gpu/*" in text
    warnings = result.err.splitlines()
    if spelling[0] == "--baseline":
        assert warnings == [
            f"config-harness: warning: {old} is deprecated, use {new} (the old spelling goes in the next release)"
            for old, new in (("--baseline", "--against"), ("--target", "--from"), ("--cases", "--case"))
        ]
    else:
        assert warnings == []
    printed = cli("--settings", "harness.toml", "lock", *spelling, "--name", "gpu")
    assert printed.out.startswith("# Derived by `config-harness lock --from train/gpu/default --against train/cpu/default`")


def test_lock_refuses_two_spellings_of_one_flag_and_two_globs(small_project, cli):
    both = cli(
        "--settings",
        "harness.toml",
        "lock",
        "--against",
        "train/cpu/default",
        "--baseline",
        "train/cpu/default",
        "--from",
        "train/gpu/default",
        "--case",
        "*",
        "--name",
        "n",
        cwd=small_project,
    )
    assert both.code == 2 and "not allowed with argument" in both.err
    two = cli(
        "--settings",
        "harness.toml",
        "lock",
        "--against",
        "train/cpu/default",
        "--from",
        "train/gpu/default",
        "--case",
        "a*",
        "--case",
        "b*",
        "--name",
        "n",
    )
    assert two.code == 2 and "a contract covers one glob" in two.err
    missing = cli("--settings", "harness.toml", "lock", "--from", "train/gpu/default", "--case", "*", "--name", "n")
    assert missing.code == 2 and "--against" in missing.err


def test_init_write_and_its_deprecated_spellings(tmp_path, cli):
    write_tree(tmp_path / "conf", SMALL_TREE)
    new = cli("init", "--config-dir", "conf", "--write", "a.toml", "--quiet", cwd=tmp_path)
    assert new.code == 0 and new.err == "" and new.out == "wrote a.toml\n"
    old = cli("init", "--config-dir", "conf", "--settings", "b.toml", "--contracts", "b.yaml", "--snapshot-dir", "b")
    assert old.code == 0 and (tmp_path / "b.toml").is_file()
    assert old.err == "config-harness: warning: --settings is deprecated, use --write (the old spelling goes in the next release)\n"
    before = cli("--settings", "c.toml", "init", "--config-dir", "conf", "--contracts", "c.yaml", "--snapshot-dir", "c")
    assert before.code == 0 and (tmp_path / "c.toml").is_file() and "use `init --write FILE`" in before.err
    assert cli("init", "--config-dir", "conf", "--write", "d.toml", "--settings", "e.toml").code == 2


def test_quiet_keeps_only_the_answer(small_project, cli):
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=small_project).out.splitlines() == [
        "7 golden(s) written: 7 new, 0 changed; 0 unchanged; 0 error(s)",
        "OK: 7 cases against goldens in snapshots: 7 ok",
    ]
    explained = cli("--settings", "harness.toml", "explain", "device.count", "--case", "train/gpu/default", "--quiet")
    assert explained.code == 0 and explained.out == "device.count = 8   (case train/gpu/default)\n"
    cpu = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    diffed = cli("diff", str(cpu), str(small_project / "snapshots" / "_generated_train__gpu__default.yaml"), "--quiet")
    # As check's: the errors (here every difference) and the verdict; no mode line, no summary paragraph.
    verdict = f"FAILED: 1 file against {cpu}: 1 changed; 1 file that differs"  # first and last
    assert diffed.code == 1 and diffed.out.splitlines()[:2] == [verdict, "Changed values (3 keys):"]
    assert diffed.out.splitlines()[-1] == verdict


def test_quiet_lock_and_cache(small_project, cli, monkeypatch):
    locked = cli(
        "--settings",
        "harness.toml",
        "lock",
        "--against",
        "train/cpu/default",
        "--from",
        "train/gpu/default",
        "--case",
        "train/gpu/*",
        *LOCK,
        "--quiet",
        cwd=small_project,
    )
    assert locked.code == 0 and locked.out == "wrote contracts.yaml: 1 required, 4 pinned\n"
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(small_project / "cache"))
    assert cli("--settings", "harness.toml", "generate").code == 0
    cleared = cli("cache", "--clear", "--quiet")
    assert cleared.code == 0 and cleared.out == "" and cleared.err == ""


def test_the_command_modules_keep_no_mutable_state():
    import importlib
    import pkgutil

    import harness.commands

    for info in pkgutil.iter_modules(harness.commands.__path__):
        module = importlib.import_module(f"harness.commands.{info.name}")
        assert not [
            name for name, value in vars(module).items() if isinstance(value, (dict, list, set, bytearray)) and not name.startswith("__")
        ], module.__name__
