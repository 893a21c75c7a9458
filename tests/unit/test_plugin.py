"""The pytest plugin's choice of what to collect, without a pytest session: the settings file `--config-harness-settings`
names, else with `--config-harness` the nearest pyproject.toml that has the table, else the root's pyproject.toml;
a pyproject.toml without the table is not collected; a tree not fetched yet is skipped saying how to fetch it.
(Real sessions: tests/integration/test_plugin_select.py and the e2e plugin sessions.)"""

from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.model.settings import Source
from harness.plugin import _declares_harness, _settings_file, _skip_unfetched


class Config:
    def __init__(self, root: Path, invoked: Path, **options):
        self.rootpath, self.invocation_params, self.options = root, SimpleNamespace(dir=invoked), options

    def getoption(self, name):
        return self.options.get(name)


def test_which_settings_file_a_session_collects(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.config-harness]\nconfig_dir = 'conf'\n")
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "sub" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert _settings_file(Config(tmp_path, tmp_path / "sub")) == tmp_path / "pyproject.toml"
    named = _settings_file(Config(tmp_path, tmp_path, **{"--config-harness-settings": str(tmp_path / "sub" / "h.toml")}))
    assert named == (tmp_path / "sub" / "h.toml").resolve()
    # --config-harness from a folder below: the nearest pyproject.toml with the table, past one without it.
    assert (
        _settings_file(Config(tmp_path / "sub", tmp_path / "sub" / "deeper", **{"--config-harness": True})) == tmp_path / "pyproject.toml"
    )


def test_a_pyproject_without_the_table_is_not_collected(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert not _declares_harness(tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text("[tool.config-harness]\n")
    assert _declares_harness(tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text("[tool.config-harness\n")  # broken: collected, so it is reported
    assert _declares_harness(tmp_path / "pyproject.toml") and _declares_harness(tmp_path / "harness.toml")


def test_a_tree_not_fetched_yet_is_skipped_with_how_to_fetch_it(tmp_path):
    source = Source(wheel="verl==0.9.1", unpack="verl/trainer/config", into=tmp_path / ".cache")
    with pytest.raises(pytest.skip.Exception, match="`config-harness fetch` unpacks it from verl==0.9.1"):
        _skip_unfetched(SimpleNamespace(source=source, config_dir=tmp_path / "missing"))
    _skip_unfetched(SimpleNamespace(source=source, config_dir=tmp_path))
    _skip_unfetched(SimpleNamespace(source=None, config_dir=tmp_path / "missing"))
