"""Four Hydra applications from PyPI adopted as their maintainers would (issue 42): a git repository holding the
package folder (configs and Python files only, never installed or imported), plain `config-harness init`, the
answer the docs give to its question (`init --engine-group GROUP`), `generate`, `check`.

Each application is adopted once per module (a module-scoped fixture); the tests then read that adoption: one
init run (plus the documented answer), `check` green and quiet, goldens equal to plain Hydra's compositions.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.baselines.releases import FetchError, fetch_wheel_tree
from harness.cli import main
from tests.conftest import CACHE
from tests.e2e.real_trees import PlainFailure, golden_tree, plain_compose
from tests.e2e.test_hydra_apps import colorlog_configs, search_path_plugin

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class App:
    """A PyPI application: its wheel, the folders of it a maintainer's repository holds, and what adoption expects."""

    name: str
    wheel: str
    folders: tuple[str, ...]  # the wheel's folders the repository holds (its package, a hydra_plugins/ folder)
    config_dir: str  # the folder init must find without --config-dir
    engine_group: str  # the answer to init's question
    init_flags: tuple[str, ...] = ()  # what the docs say a user passes besides (an installed plugin's configs)
    found_by: str = ""  # why init took config_dir, as it says it
    roots: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # roots init leaves out, each with its reason: what the repository already has
    search_path: tuple[str, ...] = ()  # what init writes: the flags' folders, and those the repository's plugins add
    python_sources: tuple[str, ...] = ()  # where `_target_` paths resolve: the entry point's package


COLORLOG = ("--search-path", "plugin-conf")  # hydra-colorlog installed: its configs reach the harness as a search path

APPS = {
    app.name: app
    for app in (
        App(
            "geoarches",
            "geoarches==0.2.2",
            ("geoarches",),
            "geoarches/configs",
            "module",
            found_by="named by @hydra.main at geoarches/main_hydra.py:94, @hydra.main at geoarches/submit.py:22",
            roots=("config",),
            python_sources=("geoarches",),
        ),
        App(
            "litdet",
            "litdet==0.1.0",
            ("litdet",),
            "litdet/configs",  # `@hydra.main(config_path="pkg://litdet.configs")`
            "data",
            COLORLOG,
            found_by="named by @hydra.main at litdet/eval.py:73, @hydra.main at litdet/predict.py:67, @hydra.main at litdet/train.py:111",
            roots=("eval", "predict", "train"),
            search_path=("plugin-conf",),
            python_sources=("litdet",),
        ),
        App(
            "mighty-rl",
            "mighty-rl==1.0.1",
            ("mighty",),
            "mighty/configs",
            "algorithm",
            COLORLOG,
            found_by="named by @hydra.main at mighty/evaluate_mighty.py:11, @hydra.main at mighty/run_mighty.py:10",
            roots=("base", "cmaes_hpo", "nes"),
            # sweep_rs.yaml selects `search_space: ppo_rs`, which the wheel does not ship: it does not compose.
            left_out=("sweep_rs",),
            search_path=("plugin-conf",),
            python_sources=("mighty",),
        ),
        # pyteia computes its config folder (`initialize_config_dir(str(layout.primary.path))`, the package's
        # `conf/`) and its hydra_plugins/ SearchPathPlugin adds teia/conf to every run's search path.
        App(
            "pyteia",
            "pyteia==0.1.0",
            ("teia", "hydra_plugins"),
            "teia/core/conf",
            "task",
            found_by=(
                "holds config.yaml, the config initialize_config_dir at teia/core/runtime/composer.py:80 composes "
                "from a folder it computes, read without running"
            ),
            roots=("config",),
            search_path=("teia/conf",),
            python_sources=(".",),  # teia/ is a namespace package: `teia.core`, `teia.node` resolve from above it
        ),
    )
}


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@dataclass(frozen=True)
class Adoption:
    app: App
    repo: Path
    first: Run  # plain `init`
    answer: Run  # `init --engine-group GROUP`, as the first init's question says
    generate: Run
    check: Run  # `check --format json`
    said: Run  # `check`, as a user reads it
    settings: dict[str, Any]
    known: list[dict[str, Any]]
    cases: list[dict[str, Any]]


def run(repo: Path, *args: str) -> Run:
    """The CLI in process, from the repository's folder."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(repo), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return Run(code, out.getvalue(), err.getvalue())


def fetched(app: App, folder: str) -> Path:
    """One folder of an application's wheel, from the git-ignored cache; the test skips without the registry."""
    try:
        return fetch_wheel_tree(app.wheel, folder, CACHE / f"{app.wheel.replace('==', '-')}-{folder}")
    except FetchError as error:
        pytest.skip(f"{app.wheel} could not be fetched: {error}")


@pytest.fixture(scope="module", params=sorted(APPS))
def adoption(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Adoption:
    app = APPS[request.param]
    repo = tmp_path_factory.mktemp(app.name) / "repo"
    for folder in app.folders:
        shutil.copytree(fetched(app, folder), repo / folder)
    if COLORLOG[1] in app.init_flags:
        try:
            shutil.copytree(colorlog_configs(), repo / COLORLOG[1])
        except FetchError as error:
            pytest.skip(f"hydra-colorlog could not be fetched: {error}")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    first = run(repo, "init", *app.init_flags)
    answer = run(repo, "init", *app.init_flags, "--engine-group", app.engine_group)
    generate = run(repo, "generate", "--quiet")
    check = run(repo, "check", "--format", "json")
    said = run(repo, "check")
    settings = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["config-harness"]
    known = (yaml.safe_load((repo / "config-harness/known.yaml").read_text()) or {}).get("waivers") or []
    cases = json.loads(run(repo, "list", "--format", "json").out)["cases"]
    return Adoption(app, repo, first, answer, generate, check, said, settings, known, cases)


def test_one_init_finds_the_config_folder_and_asks_for_the_engine_group(adoption: Adoption):
    """Plain init exits 0 on the folder the entry points name (or compute), and its question offers the group the
    maintainer answers with; that answer rewrites init's own table in one step."""
    app, first = adoption.app, adoption.first
    assert first.code == 0, first.err
    assert f"  config_dir    {app.config_dir} ({app.found_by})" in first.out.splitlines()
    assert "question: which group's options are the engines?" in first.out
    assert f"  candidate     {app.engine_group}: " in first.out
    assert adoption.answer.code == 0, adoption.answer.err
    assert adoption.answer.out.startswith("rewrote [tool.config-harness] in pyproject.toml")
    assert adoption.settings["config_dir"] == app.config_dir
    assert adoption.settings["engine_group"] == app.engine_group
    assert tuple(adoption.settings["roots"]) == app.roots
    assert tuple(adoption.settings.get("search_path", ())) == app.search_path
    assert tuple(adoption.settings["python_sources"]) == app.python_sources
    left_out = [line.split(":")[0].removeprefix("left out ") for line in first.out.splitlines() if line.startswith("left out ")]
    assert left_out == list(app.left_out)


def test_check_is_green_and_quiet(adoption: Adoption):
    """generate and check exit 0; no finding is an error or a warning; the known file holds exactly what the
    repository already has (the roots init left out because they do not compose: issue 42 item 9 records them)."""
    app = adoption.app
    assert adoption.generate.code == 0, adoption.generate.out[-2000:]
    assert adoption.check.code == 0, adoption.check.out[-2000:]
    report = json.loads(adoption.check.out)
    assert report["ok"] and report["counts"]["warnings"] == 0
    loud = [(case["id"], f["message"]) for case in report["cases"] for f in case["findings"] if f["severity"] != "info"]
    assert loud == []
    assert {case["status"] for case in report["cases"]} == {"ok"}
    # Each left-out root is a known entry (issue 42 item 9) that every check counts as known, once; nothing else is
    # known, and no finding is new.
    left_out = {f"{app.config_dir}/{name}.yaml" for name in app.left_out}
    assert all((entry["finding"], entry.get("what")) == ("error", "root") for entry in adoption.known), adoption.known
    assert {entry["source"] for entry in adoption.known} == left_out, adoption.known
    assert all(finding["status"] == "known" for finding in report["findings"]), report["findings"]
    assert len(report["findings"]) == len(left_out), report["findings"]
    # Quiet: the verdict and nothing else (no launch tally of scripts that run no Hydra program, no warning).
    lines = adoption.said.out.splitlines()
    assert adoption.said.code == 0 and lines and all(line.startswith(report["verdict"]) for line in lines), adoption.said.out
    assert adoption.said.err == ""


def test_goldens_equal_plain_hydra(adoption: Adoption):
    """Every case's golden equals plain Hydra's composition (the search path folders as a plugin adds them), and
    plain Hydra warns of nothing the harness did not record."""
    settings, repo = adoption.settings, adoption.repo
    folders = [(repo / folder).resolve() for folder in settings.get("search_path", [])]
    raised: set[str] = set()
    with search_path_plugin(folders):
        plain = plain_compose(repo / settings["config_dir"], adoption.cases, settings.get("version_base"), raised)
    assert raised == set()
    assert adoption.cases and not any(isinstance(tree, PlainFailure) for tree in plain.values())
    project = type("P", (), {"snapshots": repo / settings["snapshot_dir"]})
    for case in adoption.cases:
        assert golden_tree(project, case) == plain[case["id"]], case["id"]
