"""Shared helpers: small Hydra trees written into tmp_path, the CLI in process, verl trees from PyPI."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import textwrap
import tomllib
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from harness.baselines.releases import fetch_wheel_tree
from harness.cli import main
from harness.gates.errors import STRICT
from tests.synthetic_history import git

pytest_plugins = ["pytester"]

# Property tests draw as many examples as the profile says: `quick` in `make test` (the README's loop), `thorough`
# in `make test-e2e` (CI runs both), which draws ten times as many. Drawing nested trees costs more than the
# checks, so a quick run that drew the thorough count would spend most of the suite's time generating data.
hypothesis_settings.register_profile("quick", max_examples=40, deadline=None)
hypothesis_settings.register_profile("thorough", max_examples=400, deadline=None)
hypothesis_settings.load_profile(os.environ.get("CONFIG_HARNESS_HYPOTHESIS", "quick"))

# Strict runs (harness.gates.errors.courtesy_failed): a courtesy's broad except re-raises what no config tree causes,
# so a bug of the harness fails the test instead of making its report quieter. Set for every test, and for the CLI
# and pytest processes they start (they inherit the environment).
os.environ.setdefault(STRICT, "1")  # CONFIG_HARNESS_STRICT=0 runs them as a user runs

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"

SMALL_TREE = {
    "train.yaml": """
        defaults:
          - backend: cpu
          - optimizer@trainer.optim: adam
          - _self_
        trainer:
          lr: 0.1
          epochs: 3
          name: ???
          layers: [a, b]
          extra: {}
          effective_lr: ${trainer.lr}
          fallback_flag: ${oc.select:trainer.missing_flag,false}
          user: ${oc.env:USER}
        """,
    "legacy.yaml": """
        defaults:
          - train
          - override backend: gpu
          - _self_
        """,
    "backend/cpu.yaml": """
        # @package _global_
        backend: cpu
        device:
          kind: cpu
          count: 1
        """,
    "backend/gpu.yaml": """
        # @package _global_
        backend: gpu
        device:
          kind: cuda
          count: 8
          map:
            qkv: qkv_proj
        """,
    "optimizer/adam.yaml": """
        name: adam
        betas: [0.9, 0.999]
        """,
    "optimizer/sgd.yaml": """
        name: sgd
        momentum: 0.9
        """,
}

# `jobs = 1`: the small tree's 7 cases compose in the test's own process. Forking two workers from a pytest
# process costs a third more CPU than the composing itself, and the default (one worker per core) made these
# tests take another path on a one-core machine. Forked workers are tested where they are the subject:
# tests/integration/test_fidelity.py (`--jobs 2`: goldens and findings equal plain Hydra's),
# tests/unit/composition/test_parallel.py, and the e2e tier (verl, sheeprl and anemoi with two workers).
SMALL_SETTINGS = """
jobs = 1
config_dir = "conf"
snapshot_dir = "snapshots"
roots = ["train"]
engine_group = "backend"

[presets]
default = []
fast = ["trainer.epochs=1", "trainer.lr=0.5"]
sgd = ["optimizer@trainer.optim=sgd"]

[[routes]]
name = "legacy"
config_name = "legacy"
same_as = "train/gpu/default"
"""


def pytest_sessionstart(session: pytest.Session) -> None:
    """Plain `pytest` on a fresh clone fetches this project's own verl tree first, as `make setup` does.

    Without a network the plugin then skips the pyproject.toml golden tests, saying how to fetch the tree.
    """
    if hasattr(session.config, "workerinput"):  # xdist workers start after the controller fetched
        return
    from harness.baselines.releases import FetchError, fetch_source
    from harness.model.settings import load_settings

    source = load_settings(start=ROOT).source
    if source is not None and not (source.into / source.unpack).is_dir():
        try:
            print(fetch_source(source))
        except FetchError as error:
            print(f"config-harness tests: could not fetch {source.wheel}: {error}")


@pytest.fixture(autouse=True, scope="session")
def hydra_plugins_discovered() -> None:
    """Hydra imports its plugin modules once per process, on first use. pytester restores `sys.modules` after
    each test that uses it, so a first use inside such a test would import them again in the next one, with
    new classes that Hydra's ConfigStore does not know (pickling them fails). Discover them before any test."""
    from harness.composition import hydra_compat

    hydra_compat.source_types()


@pytest.fixture(autouse=True, scope="session")
def tree_sitter_imported() -> None:
    """The bash reader keeps tree-sitter's language once built; a first import of tree_sitter inside an in-process
    pytester run is forgotten after it, and the next test's parser (a new module's class) refuses the kept language
    (`argument 1 must be tree_sitter.Language, not tree_sitter.Language`). Import it before any test."""
    import tree_sitter  # noqa: F401
    import tree_sitter_bash  # noqa: F401


@pytest.fixture(autouse=True, scope="session")
def hypothesis_imported() -> None:
    """Every pytest session ends in hypothesis's plugin, which imports hypothesis then. An in-process pytester run
    forgets the modules it imported, so each one would import hypothesis again, and pytest rewrites the asserts
    of all its modules on the way (2 to 3 CPU-seconds a run). Import it once, before any test."""
    import hypothesis.internal.observability  # noqa: F401


@pytest.fixture(autouse=True, scope="session")
def isolated_cache(tmp_path_factory: pytest.TempPathFactory):
    """Every run in the suite (in process and in subprocesses) uses a cache of its own, never the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CONFIG_HARNESS_CACHE_DIR", str(tmp_path_factory.mktemp("harness-cache")))
        yield


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write files (dedented) below root and return root."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def add_contracts(project: Path, text: str) -> None:
    """Write `contracts.yaml` into a small project and name it in the project's settings."""
    (project / "contracts.yaml").write_text(text, encoding="utf-8")
    settings = project / "harness.toml"
    settings.write_text('contracts = ["contracts.yaml"]\n' + settings.read_text(encoding="utf-8"), encoding="utf-8")


@pytest.fixture
def small_project(tmp_path: Path) -> Path:
    """A non-verl Hydra project: conf/ with groups, @package headers, interpolations and a route."""
    write_tree(tmp_path / "conf", SMALL_TREE)
    (tmp_path / "harness.toml").write_text(SMALL_SETTINGS, encoding="utf-8")
    return tmp_path


class CliRun:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> dict:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run the CLI in process from a directory; returns exit code and output.

    A review runs here, in this process, not in the forked process under its OS budget the console script gives it
    (harness.composition.parallel.within_budget): tests that spy on the engine (a function patched to count its calls)
    see its calls only here. The budget's own tests run the console script (tests/integration/test_process_budget.py)."""
    from harness.commands import diff_review

    monkeypatch.setattr(diff_review, "within_budget", lambda work, budget: work())

    def run(*args: str, cwd: Path | None = None) -> CliRun:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err and "Traceback" not in captured.out
        return CliRun(code, captured.out, captured.err)

    run.chdir = monkeypatch.chdir  # type: ignore[attr-defined]  # as `cwd=` does, without running a command
    return run


def verl_tree(version: str) -> Path:
    """verl's real trainer config tree of one release, from its PyPI wheel (never imported)."""
    return fetch_wheel_tree(f"verl=={version}", "verl/trainer/config", CACHE / f"verl-{version}")


def copy_verl_project(path: Path) -> Path:
    """This project's verl 0.9.1 tree, goldens and contracts copied into `path`, with a standalone settings file
    (`path/harness.toml`) that says what `[tool.config-harness]` says (settings may not read outside a project)."""
    shutil.copytree(CACHE / "verl" / "verl" / "trainer" / "config", path / "config")
    shutil.copytree(ROOT / "snapshots", path / "snapshots")
    shutil.copy(ROOT / "contracts" / "verl.yaml", path / "contracts.yaml")
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["config-harness"]
    lines = [
        'config_dir = "config"',
        'snapshot_dir = "snapshots"',
        'contracts = ["contracts.yaml"]',
        f"roots = {json.dumps(table['roots'])}",
        f'engine_group = "{table["engine_group"]}"',
        "[presets]",
    ]
    lines += [f"{name} = {json.dumps(overrides)}" for name, overrides in table["presets"].items()]
    for route in table["routes"]:
        lines += ["[[routes]]"] + [f"{key} = {json.dumps(value)}" for key, value in route.items()]
    settings = path / "harness.toml"
    settings.write_text("\n".join(lines) + "\n")
    return settings


def commit_small_project(project: Path, cli, contracts: str | None) -> Path:
    """The small project with `contracts` (None: the project's own settings as they are), its goldens generated, committed as `main` in a new git repository;
    the working directory is the project afterwards.

    Many review tests start here, so the result is built once per process for each starting point (the
    project's files and `contracts`) and copied into `project` after that: same files, same commit."""
    start = tuple(sorted((str(path.relative_to(project)), path.read_bytes()) for path in project.rglob("*") if path.is_file()))
    template = _COMMITTED.get((start, contracts))
    if template is None:
        holder = tempfile.TemporaryDirectory(prefix="committed-small-project-")
        template = Path(holder.name) / project.name
        shutil.copytree(project, template, symlinks=True)
        if contracts is not None:
            add_contracts(template, contracts)
        assert cli("--settings", "harness.toml", "generate", cwd=template).code == 0
        git(template, "init", "-q", "-b", "main")
        git(template, "add", "-A")
        git(template, "commit", "-q", "-m", "base")
        _COMMITTED[(start, contracts)] = template
        _HOLDERS.append(holder)
    shutil.copytree(template, project, symlinks=True, dirs_exist_ok=True)
    cli.chdir(project)
    return project


# commit_small_project's results in this process: (starting files, contracts) -> the committed folder, kept
# in temporary directories that are removed when the process ends.
_COMMITTED: dict[tuple[tuple[tuple[str, bytes], ...], str | None], Path] = {}
_HOLDERS: list[tempfile.TemporaryDirectory] = []


def write_wheel(folder: Path, distribution: str, files: dict[str, str]) -> Path:
    """A real wheel file holding `files`, installable by pip from disk (no network, never imported)."""
    import zipfile

    wheel = folder / f"{distribution}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        info = f"{distribution}-1.0.dist-info"
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {distribution.replace('_', '-')}\nVersion: 1.0\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return wheel


def count_calls(monkeypatch: pytest.MonkeyPatch, targets: dict[str, tuple[object, str]]) -> dict[str, int]:
    """How many times each named function (`name -> (owner, attribute)`) is called from now on in this process:
    the kept-results tests count work in calls, not seconds (the same answer on a loaded machine)."""
    calls = dict.fromkeys(targets, 0)

    def counting(name: str, original):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return original(*args, **kwargs)

        return wrapper

    for name, (owner, attribute) in targets.items():
        monkeypatch.setattr(owner, attribute, counting(name, getattr(owner, attribute)))
    return calls
