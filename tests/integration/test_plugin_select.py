"""`pytest --config-harness` in a repository with its own tests (issue 45 item 3), and `--config-harness-shard K/N`
for CI matrices (issue 46 item 4): real pytest sessions in this process on the small tree."""

from __future__ import annotations

import re

import pytest

from harness.cli import main
from harness.composition.shards import plan
from harness.model.settings import load_settings
from harness.runner.run import RuleSet, Run, Runner
from tests.integration.test_plugin_workflow import project, run  # noqa: F401 (a fixture)

# The repository's own suite: a conftest.py that needs what this machine lacks (verl's needs torch), a failing test.
OWN_SUITE = {
    "tests/conftest.py": "import no_such_module_torch  # noqa\n",
    "tests/test_own.py": "def test_own():\n    assert False\n",
    "src/pkg/deep/__init__.py": "",
}


def _with_own_suite(project: pytest.Pytester) -> None:  # noqa: F811
    for name, text in OWN_SUITE.items():
        (project.path / name).parent.mkdir(parents=True, exist_ok=True)
        (project.path / name).write_text(text)
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    assert main(["--settings", str(pyproject), "generate"]) == 0


def test_config_harness_runs_only_the_harness_tests_from_any_folder(project: pytest.Pytester, monkeypatch) -> None:  # noqa: F811
    _with_own_suite(project)
    plain = run(project)
    assert plain.ret != 0  # the repository's own suite: its conftest cannot be imported here
    monkeypatch.chdir(project.path / "src" / "pkg" / "deep")
    only = run(project, "--config-harness")
    only.assert_outcomes(passed=15)  # 7 cases x (golden, semantics) + the run: nothing of tests/
    assert "test_own" not in only.stdout.str()


def test_config_harness_shard_collects_the_shards_cases(project: pytest.Pytester) -> None:  # noqa: F811
    _with_own_suite(project)
    settings = load_settings(project.path / "pyproject.toml")
    cases = Runner(Run.check(settings, RuleSet())).cases
    for index, share in enumerate(plan(cases, 2), start=1):
        result = run(project, "--config-harness", f"--config-harness-shard={index}/2", "-v")
        collected = sorted(set(re.findall(r"golden\[([^\]]+)\] PASSED", result.stdout.str())))
        assert collected == sorted(cases[i].id for i in share), result.stdout.str()
        result.assert_outcomes(passed=2 * len(share) + 1)
    bad = run(project, "--config-harness", "--config-harness-shard=3/2")
    assert bad.ret == 4 and "--config-harness-shard '3/2': K must be between 1 and N (2)" in bad.stderr.str()


def test_the_old_option_spellings_work_for_one_release_with_a_deprecation_warning(project: pytest.Pytester) -> None:  # noqa: F811
    (project.path / "h.toml").write_text('config_dir = "conf"\nroots = ["train"]\nsnapshot_dir = "other"\n')
    project.makepyfile(
        test_custom="""
        def test_the_new_names_hold_what_was_given(request):
            assert request.config.getoption("--config-harness-settings") == "h.toml"
            assert request.config.getoption("--config-harness-strict-waivers") is True
            assert request.config.getoption("--config-harness-no-collect") is True
        """
    )
    new = ("--config-harness-settings", "h.toml", "--config-harness-strict-waivers", "--config-harness-no-collect")
    old = ("--harness-settings", "h.toml", "--strict-waivers", "--harness-no-collect")
    warned = [f"PytestDeprecationWarning: {o} is deprecated: use {n}" for o, n in zip(old[::2] + old[3:], new[::2] + new[3:])]
    assert len(warned) == 3
    plain = run(project, "test_custom.py", *new)
    plain.assert_outcomes(passed=1)
    assert "deprecated" not in plain.stdout.str()
    aliased = run(project, "test_custom.py", *old)
    aliased.assert_outcomes(passed=1)
    assert all(line in aliased.stdout.str() for line in warned), aliased.stdout.str()
    # Read early too: with --config-harness the old spelling still picks the one file collected (h.toml).
    only = run(project, "--config-harness", "--harness-settings", "h.toml")
    only.assert_outcomes(failed=1, passed=2)  # its one case has no golden in other/
    assert "--harness-settings is deprecated" in only.stdout.str()


def test_the_plugin_needs_no_xdist(project: pytest.Pytester) -> None:  # noqa: F811
    """pytest-xdist is an extra of its own (`[xdist]`): without it loaded the golden tests run and update the same.
    (It guards the extra's promise: the plugin worked without xdist before the extra was split off too.)"""
    assert run(project, "-p", "no:xdist", "--snapshot-update").ret == 0
    run(project, "-p", "no:xdist").assert_outcomes(passed=15)
