"""Five Hydra applications and four verl forks adopted as their maintainers would, never seen before (issue 54): a
plain `init`, or the one answer its question names, then `generate` and `check` green, and every golden equal to
plain Hydra's composition in values.

F5-TTS, foundry (rc-foundry), vissl and classy (classy-core) come from their published wheels (the folders a
maintainer's repository holds; never installed, never imported). CARP-S publishes an sdist only, which pip would
have to build: it is a minimal repository of the same layout, as are the forks' layouts (rllm, deepscaler, VAGEN,
RAGEN; tests/layouts.py). Each is adopted once per module.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.baselines.releases import FetchError, fetch_wheel_tree
from tests.conftest import CACHE, write_tree
from tests.e2e.real_trees import PlainFailure, golden_tree, plain_compose
from tests.e2e.test_hydra_apps import search_path_plugin
from tests.e2e.test_pypi_apps import Run, run
from tests.layouts import carps_tree, ragen_tree, vagen_tree, vendored_verl_tree, verl_upstream, with_submodule

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class App:
    """An application or fork: how its repository is laid out, and the answer init's question names (none: plain
    init adopts it)."""

    name: str
    lay_out: Callable[[Path], None]
    config_dir: str
    roots: tuple[str, ...]
    answer: tuple[str, ...] = ()
    said: str = ""  # a line of the first init's output (or error) that names the answer


def wheel(requirement: str, *folders: str) -> Callable[[Path], None]:
    def lay_out(repo: Path) -> None:
        for folder in folders:
            try:
                unpacked = fetch_wheel_tree(requirement, folder, CACHE / f"{requirement.replace('==', '-')}-{folder}")
            except FetchError as error:
                pytest.skip(f"{requirement} could not be fetched: {error}")
            shutil.copytree(unpacked, repo / folder)

    return lay_out


def tree(files: Callable[[], dict[str, str]]) -> Callable[[Path], None]:
    return lambda repo: write_tree(repo, files())


def vagen(repo: Path) -> None:
    write_tree(repo, vagen_tree(20))
    with_submodule(repo, verl_upstream(repo.parent / "verl-upstream"), "verl")


def ragen(repo: Path) -> None:
    write_tree(repo, ragen_tree())
    with_submodule(repo, verl_upstream(repo.parent / "verl-upstream"), "verl")


def rllm(repo: Path) -> None:
    write_tree(repo, {**vendored_verl_tree(37), "rllm/__init__.py": "", "rllm/agents.py": "class Agent:\n    pass\n"})


VISSL_PRESET = "extract_resnet_in1k_8gpu=config=feature_extraction/extract_resnet_in1k_8gpu"

APPS = {
    app.name: app
    for app in (
        App(
            "f5-tts",
            wheel("f5-tts==1.1.22", "f5_tts"),
            "f5_tts/configs",
            ("E2TTS_Base", "E2TTS_Small", "F5TTS_Base", "F5TTS_Small", "F5TTS_v1_Base", "F5TTS_v1_Small"),
        ),
        App(
            "foundry",
            wheel("rc-foundry==0.2.0", "foundry", "rf3", "rfd3", "rfd3na"),
            "rf3/configs",
            ("train", "validate"),  # they leave `experiment` mandatory: it is the engine group, inference a route
            ("--config-dir", "rf3/configs"),
            "3 config folders are used as much as each other: rf3/configs (holds inference.yaml",
        ),
        App(
            "vissl",
            wheel("vissl==0.1.6", "vissl", "configs", "hydra_plugins", "tools"),
            "vissl/config",
            ("defaults",),
            ("--preset", VISSL_PRESET),
            f"config-harness init --preset '{VISSL_PRESET}' composes it",
        ),
        App(
            "classy",
            wheel("classy-core==0.3.2", "classy", "configurations"),
            "configurations",
            ("generation", "qa", "sentence-pair", "sequence", "token"),
            ("--config-dir", "configurations"),
            "folders that look like config folders: configurations (5 config(s) with a defaults list",
        ),
        App("carps", tree(carps_tree), "carps/configs", ("base", "runfromdb")),  # logger.yaml is a part of base
        App("rllm", rllm, "verl/verl/trainer/config", ("ppo_trainer",)),
        App("deepscaler", tree(vendored_verl_tree), "verl/verl/trainer/config", ("ppo_trainer",)),
        App("vagen", vagen, "vagen/configs", ("vagen_multiturn",)),
        App("ragen", ragen, "config", ("base",)),
    )
}


@dataclass(frozen=True)
class Adoption:
    app: App
    repo: Path
    first: Run
    answer: Run | None
    check: Run
    settings: dict[str, Any]
    cases: list[dict[str, Any]]


@pytest.fixture(scope="module", params=sorted(APPS))
def adoption(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Adoption:
    app = APPS[request.param]
    repo = tmp_path_factory.mktemp(app.name) / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    app.lay_out(repo)
    first = run(repo, "init")
    answer = run(repo, "init", *app.answer) if app.answer else None
    assert run(repo, "generate", "--quiet").code == 0
    check = run(repo, "check", "--format", "json")
    settings = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["config-harness"]
    cases = json.loads(run(repo, "list", "--format", "json").out)["cases"]
    return Adoption(app, repo, first, answer, check, settings, cases)


def test_a_plain_init_or_the_one_answer_it_names_adopts_it(adoption: Adoption):
    app = adoption.app
    if not app.answer:
        assert adoption.first.code == 0, adoption.first.err
        assert adoption.first.out.splitlines()[-1].startswith(("next: config-harness generate", "next: config-harness init --engine-group"))
    else:
        assert app.said in adoption.first.out + adoption.first.err, adoption.first.out + adoption.first.err
        assert adoption.answer is not None and adoption.answer.code == 0, adoption.answer.err if adoption.answer else ""
    assert adoption.settings["config_dir"] == app.config_dir
    assert tuple(adoption.settings["roots"]) == app.roots
    assert adoption.settings.get("python_sources"), "every adopted application has an entry point: its sources are read"


def test_check_is_green(adoption: Adoption):
    report = json.loads(adoption.check.out)
    assert adoption.check.code == 0 and report["ok"], adoption.check.out[-3000:]
    assert {case["status"] for case in report["cases"]} == {"ok"}
    assert all(finding["status"] == "known" or finding["severity"] == "info" for finding in report["findings"])


def test_goldens_equal_plain_hydra(adoption: Adoption):
    """Every golden equals plain Hydra's composition with the version_base init chose, run from the repository's
    root (a relative `file://` search path is read from there) with the search path folders init wrote."""
    settings, repo = adoption.settings, adoption.repo
    goldens = [case for case in adoption.cases if case.get("golden")]
    folders = [(repo / folder).resolve() for folder in settings.get("search_path", [])]
    with contextlib.chdir(repo), search_path_plugin(folders):
        plain = plain_compose(repo / settings["config_dir"], goldens, settings.get("version_base"))
    assert goldens and not any(isinstance(value, PlainFailure) for value in plain.values()), plain
    project = type("P", (), {"snapshots": repo / settings["snapshot_dir"]})
    for case in goldens:
        assert golden_tree(project, case) == plain[case["id"]], case["id"]
