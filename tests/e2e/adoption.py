"""What the e2e tests that adopt a real repository share: the bundles of the shared test data (skipped, with one
line, where absent), verl adopted on a branch of its own as the README says, a pull-request branch per test, the
review of that branch, and the contracts the plugin's real sessions run with.

The data folder is `CONFIG_HARNESS_TEST_DATA`, else `../shared/data` beside the project
(tests/e2e/real_trees.py: SHARED_DATA), the one place it is named.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.e2e.real_trees import SHARED_DATA
from tests.synthetic_history import git


def bundle(name: str) -> Path:
    """A git bundle of the shared test data; the test is skipped, saying where it looked, when it is absent."""
    path = SHARED_DATA / name
    if not path.is_file():
        pytest.skip(f"{path} is absent (CONFIG_HARNESS_TEST_DATA names its folder)")
    return path


def clone(name: str, into: Path, ref: str | None = None) -> Path:
    """A clone of the bundle `name` into `into`, at `ref` (a branch or tag of the bundle) when given."""
    git(ROOT, "clone", "--quiet", *(["--branch", ref] if ref is not None else []), str(bundle(name)), str(into))
    return into


def adopt_verl(repository: Path, at: str, branch: str, message: str) -> str:
    """verl adopted at `at` on a new `branch`, with the settings `init` writes for the README's flags, launch scripts
    under examples/ only (those under tests/ name the `recipe` submodule, absent in a clone) and the classes
    `_target_` names read from verl/ (never imported); goldens generated and committed. Returns the settings text."""
    git(repository, "checkout", "-q", "-b", branch, at)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        assert main(["init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine", "--quiet"]) == 0
        pyproject = repository / "pyproject.toml"
        text = pyproject.read_text()
        text = re.sub(r'\[\[tool\.config-harness\.commands\]\]\nglob = "(scripts|tests|verl)/\*\*/\*\.sh"\n\n?', "", text)
        if "python_sources" not in text:
            text = text.replace('engine_group = "model_engine"\n', 'engine_group = "model_engine"\npython_sources = ["verl"]\n', 1)
        pyproject.write_text(text)
        main(["generate"])
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", message)
    return text


def pull_request(repository: Path, adopted: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A `change` fixture's body: a pull-request branch off `adopted` named for the test, the working directory;
    back on `adopted`, clean, afterwards."""
    branch = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower())[:60]
    git(repository, "checkout", "-q", "-B", branch, adopted)
    monkeypatch.chdir(repository)
    yield repository
    git(repository, "reset", "-q", "--hard")
    git(repository, "clean", "-qfd")
    git(repository, "checkout", "-q", adopted)


def review(
    repository: Path, base: str, capsys: pytest.CaptureFixture[str], *more: str, regenerate: bool = True
) -> tuple[int, dict[str, Any]]:
    """The pull request committed, then `diff --base BASE --format json`: its exit code and report. `regenerate`:
    the pull request's goldens written first, as its author runs `generate` (a review fails on stale ones)."""
    if regenerate:
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(repository)
            main(["generate", "--quiet"])
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "the pull request")
    capsys.readouterr()
    code = main(["diff", "--base", base, "--format", "json", *more])
    return code, json.loads(capsys.readouterr().out)


# The plugin's real sessions (tests/e2e/test_plugin_*.py) on tests/integration/test_plugin_workflow.py's project: a
# contract the gpu cases break, waived; STALE_WAIVER adds a waiver that excuses nothing (only a whole run judges it).
WAIVED_CONTRACT = """
contracts:
  - name: gpu-map
    cases: 'train/gpu/*'
    require: [device.map.proj]
waivers:
  - contract: gpu-map
    path: device.map.proj
    reason: not there yet
"""
STALE_WAIVER = """  - contract: gpu-map
    path: device.map.nothing
    reason: stale
"""


def with_contracts(folder: Path, contracts: str) -> Path:
    """The plugin project at `folder` with `contracts` in its settings and its goldens generated; then the gpu
    backend's count goes from 8 to 4 (a changed value in the gpu cases). Returns the settings file."""
    (folder / "contracts.yaml").write_text(contracts)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('roots = ["train"]', 'roots = ["train"]\ncontracts = ["contracts.yaml"]'))
    assert main(["--settings", str(pyproject), "generate"]) == 0
    gpu = folder / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    return pyproject
