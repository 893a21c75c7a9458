"""Errors people can act on: 2 for bad input, 3 for a bug (with how to report it), quiet broken pipes,
one-line plugin collection errors, and `--version`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness import __version__
from harness import cli as cli_module
from harness.cli import main
from harness.commands import list as list_command
from tests.conftest import SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT


def test_version_names_the_harness_and_what_it_runs_on(capsys):
    with pytest.raises(SystemExit) as exit_request:
        cli_module.build_parser().parse_args(["--version"])
    assert exit_request.value.code == 0
    assert main(["--version"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"config-harness {__version__} (hydra-core ") and "omegaconf" in line and "Python 3." in line


def test_an_internal_error_exits_3_and_says_how_to_report_it(small_project, capsys, monkeypatch):
    monkeypatch.chdir(small_project)

    def broken(settings, *args, **kwargs):  # a bug injected into the harness's own code, as the fuzz test once missed
        return settings.no_such_attribute

    monkeypatch.setattr(list_command, "open_matrix", broken)  # `list` lives in its own module (harness.commands)
    monkeypatch.delenv("CONFIG_HARNESS_DEBUG", raising=False)
    assert main(["--settings", "harness.toml", "list"]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "AttributeError" in err and "CONFIG_HARNESS_DEBUG=1" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 2

    monkeypatch.setenv("CONFIG_HARNESS_DEBUG", "1")
    assert main(["--settings", "harness.toml", "list"]) == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "no_such_attribute" in err


def test_a_path_the_system_refuses_is_bad_input_not_a_bug(small_project, cli):
    (small_project / "afile").write_text("x")
    result = cli(
        "--settings",
        "harness.toml",
        "lock",
        "--against",
        "train/cpu/default",
        "--from",
        "train/gpu/default",
        "--name",
        "n",
        "--case",
        "*",
        "--output",
        "afile/contracts.yaml",
        cwd=small_project,
    )
    assert result.code == 2
    (line,) = result.err.strip().splitlines()
    assert line.startswith("config-harness: error: ") and "afile" in line

    (small_project / "contracts.yaml").mkdir()  # a contracts "file" that is a folder
    result = cli("--settings", "harness.toml", "--contracts", "contracts.yaml", "check")
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1 and "contracts.yaml" in result.err


def test_a_reader_that_goes_away_ends_the_run_quietly(small_project):
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head -1` after its line: every write now fails with EPIPE
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "harness", "--settings", "harness.toml", "list", "--format", "json"],
            cwd=small_project,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write_end)
    assert completed.stderr == "" and completed.returncode == 141


def test_plugin_collection_errors_are_one_line_never_internalerror(pytester: pytest.Pytester, monkeypatch):
    write_tree(pytester.path / "conf", SMALL_TREE)
    (pytester.path / "pyproject.toml").write_text(PYPROJECT.replace('roots = ["train"]', 'roots = ["train"]\nbogus = 1'))
    bad = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert bad.ret == pytest.ExitCode.INTERRUPTED
    bad.stdout.fnmatch_lines(["config-harness: *pyproject.toml*unknown key 'bogus'*"])
    assert "INTERNALERROR" not in bad.stdout.str() + bad.stderr.str() and "Traceback" not in bad.stdout.str()

    (pytester.path / "pyproject.toml").write_text(PYPROJECT)
    import harness.runner.run

    def broken(self, *args, **kwargs):  # a bug injected into the harness's own code while the plugin collects
        raise AttributeError("injected")

    # The session below runs in this process: monkeypatch puts the real constructor back after this test.
    monkeypatch.setattr(harness.runner.run.Runner, "__init__", broken)
    crashed = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert crashed.ret == pytest.ExitCode.INTERRUPTED
    crashed.stdout.fnmatch_lines(["config-harness: internal error while collecting pyproject.toml: AttributeError: injected*"])
    assert "INTERNALERROR" not in crashed.stdout.str() + crashed.stderr.str() and "Traceback" not in crashed.stdout.str()


def test_a_source_tree_not_fetched_yet_skips_the_golden_tests_with_how_to_fetch_it(pytester: pytest.Pytester):
    source = '\n[tool.config-harness.source]\nwheel = "demo==1.0"\nunpack = "demo/conf"\ninto = ".cache/demo"\n'
    (pytester.path / "pyproject.toml").write_text(PYPROJECT.replace('config_dir = "conf"', 'config_dir = ".cache/demo/demo/conf"') + source)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]1[]] *config-harness: config_dir *demo/conf is not there yet; `config-harness fetch`*demo==1.0"]
    )
