"""Other Hydra applications from PyPI, adopted with `init` alone: Hydra 1.1 semantics (mbrl), a root added between
releases (proteinworkshop), a root that is another root plus an engine (verl), and ConfigStore schemas (benchmarl).

Wheels are fetched with `pip download --no-deps` into the git-ignored cache and never imported by the project's
venv; benchmarl, whose schemas must be imported, runs in a scratch venv of its own under the same cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf
from omegaconf.errors import InterpolationKeyError

from harness.baselines.releases import fetch_wheel_tree
from tests.conftest import CACHE, ROOT, verl_tree
from tests.e2e.adoption import clone
from tests.e2e.real_trees import golden_tree, plain_compose

pytestmark = pytest.mark.e2e

# mbrl's wheel lacks conf/action_optimizer/ (its repository has it); a user of the wheel writes these three.
ACTION_OPTIMIZERS = {
    name: f"# @package _group_\n_target_: mbrl.planning.{cls}\nnum_iterations: 5\npopulation_size: 350\ndevice: ${{device}}\n"
    for name, cls in (("cem", "CEMOptimizer"), ("icem", "ICEMOptimizer"), ("mppi", "MPPIOptimizer"))
}


def in_repository(tmp_path: Path, package: Path) -> Path:
    """A git repository holding a copy of an application's package folder (its configs and its Python)."""
    repo = tmp_path / "repo"
    shutil.copytree(package, repo / package.name)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return repo


@contextlib.contextmanager
def search_path_plugin(folders: list[Path]) -> Iterator[None]:
    """While active, a SearchPathPlugin appends these folders to every search path Hydra builds (as an installed
    plugin such as hydra-colorlog, or sail-on-client's AdditionalSearchPathPlugin, does)."""
    from hydra.core.plugins import Plugins
    from hydra.plugins.search_path_plugin import SearchPathPlugin

    class Folders(SearchPathPlugin):
        def manipulate_search_path(self, search_path) -> None:
            for folder in folders:
                search_path.append("test search path plugin", f"file://{folder}")

    plugins = Plugins.instance()
    plugins.register(Folders)
    try:
        yield
    finally:
        plugins.plugin_type_to_subclass_list[SearchPathPlugin].remove(Folders)
        plugins.class_name_to_class.pop(f"{Folders.__module__}.{Folders.__name__}", None)


def adopt_and_compare(cli, repo: Path, config_dir: str, *init_args: str, program_view: frozenset[str] = frozenset()) -> dict:
    """init, generate, check; every case's golden equals plain Hydra with the version_base init chose.

    `program_view` names the keys whose `target` findings (python_sources: a class field the config leaves to the
    program, such as schnetpack's `task.model`) say the program passes the node at instantiate time: info, never known.
    Init records as known what Hydra warns of and the values the program cannot resolve (issues 40 and 42); both are
    checked against plain Hydra and OmegaConf on the same cases."""
    init = cli("init", "--config-dir", config_dir, "--settings", "harness.toml", *init_args, cwd=repo)
    assert init.code == 0, init.err
    settings = tomllib.loads((repo / "harness.toml").read_text())
    known = yaml.safe_load((repo / "config-harness/known.yaml").read_text()) or {}
    entries = known.get("waivers") or []
    # Besides the program view, init records what Hydra warns of while composing (issue 42): said once, then known.
    warned = {" ".join(w["message"].removeprefix("hydra warning: ").split()) for w in entries if w["finding"] == "hydra_warning"}
    unresolved = {w["path"] for w in entries if w["finding"] == "unresolved"}
    # ... and the roots and presets it left out because they do not compose (issue 42 item 9): known errors, each
    # naming its root's file or its preset.
    left_out = [w for w in entries if w["finding"] == "error"]
    assert all(w.get("what") in ("root", "preset") and w["path"] == "" for w in left_out), left_out
    assert {w["finding"] for w in entries} <= {"hydra_warning", "unresolved", "error"}, entries
    assert cli("--settings", "harness.toml", "generate").code == 0
    check = cli("--settings", "harness.toml", "check", "--format", "json")
    assert check.code == 0, check.out[-2000:]
    targets = {
        (f["path"], f["severity"], "the program builds the node with arguments of its own" in f["message"])
        for case in check.json()["cases"]
        for f in case["findings"]
        if f["kind"] == "target" and f["path"] in program_view
    }
    assert targets == {(key, "info", True) for key in program_view}, targets
    cases = cli("--settings", "harness.toml", "list", "--format", "json").json()["cases"]
    # Plain Hydra finds the search path's folders through a SearchPathPlugin, as an installed plugin's are found
    # (`hydra.searchpath` would not do: Hydra reads it only after it found the primary config, and a root such as
    # sail-on-client's test_config lives in the plugin's folder).
    with search_path_plugin([(repo / folder).resolve() for folder in settings.get("search_path", [])]):
        raised: set[str] = set()
        plain = plain_compose(repo / config_dir, cases, settings.get("version_base"), raised)
    # The known Hydra warnings are exactly those plain Hydra raises composing the same cases, but for a search path
    # folder that does not exist (schnetpack's `${oc.env:PWD}/configs`): the harness resolves `hydra.searchpath`
    # itself (hydra_compat.search_path_resolved), so Hydra never raises that notice inside it.
    assert warned == {text for text in raised if not text.startswith("provider=hydra.searchpath")}, (warned, raised)
    project = type("P", (), {"snapshots": repo / settings["snapshot_dir"]})
    for case in cases:
        assert golden_tree(project, case) == plain[case["id"]], case["id"]
    # The known unresolved values are exactly the leaves OmegaConf cannot resolve for a missing key in some case.
    assert unresolved == {path for tree in plain.values() if isinstance(tree, dict) for path in missing_keys(tree)}
    return settings


def missing_keys(tree: dict) -> set[str]:
    """The interpolation leaves of a plainly composed tree that OmegaConf cannot resolve because a key they read is
    missing; a leaf that fails only because it reads another such leaf is that leaf's consequence, not a cause."""
    config = OmegaConf.create(tree)
    failing, pending = {}, [("", tree)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            pending += [(f"{path}.{key}" if path else str(key), item) for key, item in items]
        elif isinstance(value, str) and "${" in value:
            try:
                OmegaConf.select(config, path, throw_on_missing=False)
            except InterpolationKeyError:
                failing[path] = value
            except Exception:  # a resolver the program registers, the environment: not a missing key
                pass
    return {path for path, text in failing.items() if not any(f"${{{other}}}" in text or f"${{{other}." in text for other in failing)}


def test_mbrl_is_adopted_with_hydra_1_1_semantics(tmp_path, cli):
    package = fetch_wheel_tree("mbrl==0.2.0", "mbrl", CACHE / "mbrl-0.2.0")
    repo = in_repository(tmp_path, package)
    for name, text in ACTION_OPTIMIZERS.items():
        path = repo / "mbrl/examples/conf/action_optimizer" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    settings = adopt_and_compare(cli, repo, "mbrl/examples/conf", "--engine-group", "action_optimizer")
    assert settings["version_base"] == "1.1" and settings["roots"] == ["main"]
    golden = (repo / settings["snapshot_dir"] / "_generated_main__cem__default.yaml").read_text()
    assert "_group_" not in golden and "population_size: 350" in golden


def colorlog_configs() -> Path:
    """hydra-colorlog's configs, which the installed plugin adds to Hydra's search path (proteinworkshop selects them)."""
    return fetch_wheel_tree("hydra-colorlog==1.2.0", "hydra_plugins/hydra_colorlog/conf", CACHE / "hydra-colorlog-1.2.0")


def test_proteinworkshop_is_adopted_with_its_own_version_base(tmp_path, cli):
    package = fetch_wheel_tree("proteinworkshop==0.2.5", "proteinworkshop", CACHE / "proteinworkshop-0.2.5")
    repo = in_repository(tmp_path, package)
    shutil.copytree(colorlog_configs(), repo / "plugin-conf")
    settings = adopt_and_compare(cli, repo, "proteinworkshop/config", "--search-path", "plugin-conf")
    assert settings["version_base"] == "1.3"  # from its @hydra.main(version_base="1.3", ...) entry points


def test_verl_megatron_trainer_becomes_a_route_with_same_as(tmp_path, cli):
    repo = tmp_path / "verl"
    shutil.copytree(verl_tree("0.9.1"), repo / "verl/trainer/config")
    result = cli("init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine", "--settings", "h.toml", cwd=repo)
    assert result.code == 0, result.err
    settings = tomllib.loads((repo / "h.toml").read_text())
    assert settings["roots"] == ["ppo_trainer"]
    (route,) = [r for r in settings["routes"] if r["name"] == "ppo_megatron_trainer"]
    assert route == {"name": "ppo_megatron_trainer", "config_name": "ppo_megatron_trainer", "same_as": "ppo_trainer/megatron/default"}


def test_proteinworkshop_diff_between_releases_is_per_case(tmp_path, cli):
    old = fetch_wheel_tree("proteinworkshop==0.2.0", "proteinworkshop", CACHE / "proteinworkshop-0.2.0") / "config"
    new = fetch_wheel_tree("proteinworkshop==0.2.5", "proteinworkshop", CACHE / "proteinworkshop-0.2.5") / "config"
    plugin = colorlog_configs()
    (tmp_path / "h.toml").write_text(
        f'config_dir = "{new}"\nread_outside = ["{old}", "{new}", "{plugin}"]\nroots = ["explain", "train"]\nsearch_path = ["{plugin}"]\n'
    )
    result = cli("--settings", "h.toml", "diff", str(old), str(new), "--format", "json", cwd=tmp_path)
    report = result.json()
    assert "changes" not in report and report["baseline"].startswith("config tree ")
    statuses = {case["id"]: case["status"] for case in report["cases"]}
    assert statuses["explain/base/default"] == "new"  # 0.2.5 added explain.yaml
    assert "train/base/default" in statuses and statuses["train/base/default"] != "new"


BENCHMARL_VENV = CACHE / "benchmarl-1.5.2-venv"
TORCH_CPU = sorted(Path("/opt/wheels").glob("torch-*+cpu-cp311-*.whl"))


def benchmarl_venv() -> Path:
    """A scratch venv with benchmarl 1.5.2 importable (CPU torch, its import-time dependencies) and this checkout."""
    python = BENCHMARL_VENV / "bin" / "python"
    # Two xdist workers may both need the venv (test_benchmarl_plain_hydra.py shares it): one builds, the other waits.
    CACHE.mkdir(exist_ok=True)
    with open(CACHE / "benchmarl-1.5.2-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _build_benchmarl_venv(python)
    return python


def _build_benchmarl_venv(python: Path) -> None:
    """The venv once (`.ready` marks it built), then this checkout reinstalled into it."""
    if not (BENCHMARL_VENV / ".ready").exists():
        interpreter = shutil.which("python3.11") or sys.executable
        steps = [
            [interpreter, "-m", "venv", "--clear", str(BENCHMARL_VENV)],
            [str(python), "-m", "pip", "install", "-q", *map(str, TORCH_CPU)],
            # benchmarl's own requirements pull CUDA torch and torchvision: only what `import benchmarl` needs.
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "benchmarl==1.5.2",
                "torchrl>=0.10,<0.12",
                "tensordict",
                "tqdm",
                "cloudpickle",
                "orjson",
                "pyvers",
                "importlib_metadata",
                "numpy",
            ],
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "hydra-core>=1.3.2,<1.4",
                "omegaconf>=2.3,<2.4",
                "PyYAML>=6,<7",
                "pytest>=8",
                "syrupy>=5",
                "pygments",
            ],
        ]
        for step in steps:
            completed = subprocess.run(step, capture_output=True, text=True)
            if completed.returncode != 0:
                pytest.skip(f"benchmarl's scratch venv could not be built: {completed.stderr.strip().splitlines()[-1:]}")
        (BENCHMARL_VENV / ".ready").write_text("")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(ROOT)], check=True, capture_output=True
    )
    # The checkout's dependencies as its pyproject.toml says today (a venv built before one was added lacks it).
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    subprocess.run([str(python), "-m", "pip", "install", "-q", *dependencies], check=True, capture_output=True)


def benchmarl_conf(python: Path) -> str:
    """benchmarl's config folder inside the venv of `python`."""
    return subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('benchmarl').origin).parent / 'conf')",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.mark.skipif(not TORCH_CPU, reason="benchmarl needs torch; only a local CPU wheel keeps its venv small")
def test_benchmarl_schemas_compose_through_the_cli_and_pytest_alike(tmp_path):
    python = benchmarl_venv()
    conf = benchmarl_conf(python)
    settings = tmp_path / "harness.toml"
    table = (
        f'config_dir = "{conf}"\nread_outside = ["{conf}"]\nsnapshot_dir = "snapshots"\nroots = ["config"]\n'
        'engine_group = "algorithm"\n[presets]\nbalance = ["task=vmas/balance"]\n'
    )
    settings.write_text(table)
    harness = [str(python.parent / "config-harness"), "--settings", str(settings)]
    without = subprocess.run([*harness, "check", "--format", "json"], capture_output=True, text=True, cwd=tmp_path)
    messages = {f["message"] for c in json.loads(without.stdout)["cases"] for f in c["findings"]}
    assert messages == {
        "In 'task/vmas/balance': Could not load 'task/vmas_balance_config'. ('task/vmas_balance_config': "
        "probably registered from Python (ConfigStore); name its module in the settings' `schemas`)"
    }

    settings.write_text('schemas = ["benchmarl"]\n' + table)
    listing = subprocess.run([*harness, "list", "--format", "json"], capture_output=True, text=True, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr[-2000:]
    listed = json.loads(listing.stdout)
    assert len(listed["cases"]) == 9  # the nine algorithms, not their nine registered `*_config` schemas too
    assert subprocess.run([*harness, "generate"], capture_output=True, cwd=tmp_path).returncode == 0
    assert subprocess.run([*harness, "check"], capture_output=True, cwd=tmp_path).returncode == 0
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--config-harness-settings", str(settings), str(settings)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert tests.returncode == 0 and "19 passed" in tests.stdout, tests.stdout[-2000:]


# Second round (issue 32): more apps from PyPI, each adopted as its users would and compared case for case.

SCHNETPACK_EXPERIMENTS = ("md17", "qm9_atomwise", "qm9_dipole", "response", "rmd17")


def test_schnetpack_train_composes_with_its_environment_search_path_and_its_experiments(tmp_path, cli, monkeypatch):
    package = fetch_wheel_tree("schnetpack==2.1.1", "schnetpack", CACHE / "schnetpack-2.1.1")
    repo = in_repository(tmp_path, package)
    # train.yaml has `hydra.searchpath: [file://${oc.env:PWD}, file://${oc.env:PWD}/configs]`: spktrain runs where the
    # user stands. The harness reads PWD as Hydra does (inside the project), and a preset may replace the entries.
    monkeypatch.setenv("PWD", str(repo))
    presets = [f"--preset={name}=experiment={name}" for name in SCHNETPACK_EXPERIMENTS]
    settings = adopt_and_compare(
        cli,
        repo,
        "schnetpack/configs",
        "--preset",
        "default=",
        *presets,
        "--preset",
        "nosearch=hydra.searchpath=[]",
        program_view=frozenset({"task.model"}),
    )
    assert settings["roots"] == ["train"] and settings["version_base"] == "1.2" and settings["python_sources"] == ["schnetpack"]
    assert len(settings["presets"]) == 7

    monkeypatch.delenv("PWD")
    report = cli("--settings", "harness.toml", "check", "--format", "json").json()
    by_case = {case["id"]: {f["message"] for f in case["findings"] if f["kind"] == "error"} for case in report["cases"]}
    assert by_case["train/base/md17"] == {
        "train.yaml: hydra.searchpath: search path entry 'file://${oc.env:PWD}' reads the environment variable PWD, which is "
        "not set; set it, or replace the search path in a preset (hydra.searchpath=[...])"
    }
    assert by_case["train/base/nosearch"] == set()  # the preset replaced the entries: Hydra never reads them


def test_dau_build_nested_task_options_become_presets_with_the_reason(tmp_path, cli):
    package = fetch_wheel_tree("dau-build==0.15.2", "dau_build", CACHE / "dau-build-0.15.2")
    repo = in_repository(tmp_path, package)
    init = cli("init", "--config-dir", "dau_build/config", "--engine-group", "task", "--settings", "probe.toml", cwd=repo)
    assert init.code == 0, init.err
    assert "note: engine group 'task' has options in subfolders (tasks/build/build-shell-project" in init.out
    (repo / "probe.toml").unlink()
    shutil.rmtree(repo / "config-harness")
    settings = adopt_and_compare(cli, repo, "dau_build/config", "--engine-group", "task")
    assert "engine_group" not in settings and settings["presets"]["tasks.spec.validate"] == ["task=tasks/spec/validate"]
    assert len(settings["presets"]) == 1 + len(list((repo / "dau_build/config/task").rglob("*.yaml")))


def sail_on_repository(tmp_path: Path) -> Path:
    """sail-on-client's packages (its configs and its SearchPathPlugin's folder hydra_plugins/test) in a repository."""
    wheel = fetch_wheel_tree("sail-on-client==0.30.0", "", CACHE / "sail-on-client-0.30.0")
    repo = in_repository(tmp_path, wheel / "sail_on_client")
    shutil.copytree(wheel / "hydra_plugins", repo / "hydra_plugins")
    return repo


def test_sail_on_client_names_the_missing_plugin_and_composes_with_it(tmp_path, cli):
    repo = sail_on_repository(tmp_path)
    without = cli("init", "--config-dir", "sail_on_client/configs", "--search-path", "hydra_plugins/test", "--settings", "h.toml", cwd=repo)
    assert without.code == 0, without.err  # test_config logs as Hydra does by default: it composes without the plugin
    assert (
        "left out default: does not compose: In 'hydra/config': 'colorlog' is not an option of hydra/job_logging: it "
        "comes from the Hydra plugin hydra-colorlog (install it beside config-harness)"
    ) in without.out.splitlines()

    assert "  candidate     base: " in without.out

    shutil.copytree(colorlog_configs(), repo / "plugin-conf")  # what installing hydra-colorlog adds to the search path
    settings = adopt_and_compare(
        cli, repo, "sail_on_client/configs", "--search-path", "hydra_plugins/test", "--search-path", "plugin-conf", "--engine-group", "base"
    )
    assert settings["roots"] == ["default", "test_config"]  # test_config: the root the plugin's folder provides
    assert settings["engine_group"] == "base" and settings["version_base"] == "1.1"


def test_fish_speech_version_base_is_read_from_its_initialize_call(tmp_path, cli):
    package = fetch_wheel_tree("fish-speech==0.1.0", "fish_speech", CACHE / "fish-speech-0.1.0")
    repo = in_repository(tmp_path, package)
    settings = adopt_and_compare(cli, repo, "fish_speech/configs")
    assert settings["version_base"] == "1.3"  # initialize(version_base="1.3", config_path="../../configs")
    comment = (repo / "harness.toml").read_text().splitlines()[1]
    assert comment == "# version_base '1.3' as initialize at fish_speech/models/dac/inference.py:25 (1 call(s) agree)"


@pytest.mark.parametrize("tag", ["pr5848-parent", "main-2026-08-22"])
def test_init_on_verls_whole_repository_names_main_ppo_and_writes_python_sources(tmp_path, cli, tag):
    repo = clone("verl-full.bundle", tmp_path / "verl", tag)
    result = cli("init", "--config-dir", "verl/trainer/config", "--engine-group", "model_engine", "--write", "h.toml", cwd=repo)
    assert result.code == 0, result.err
    settings = tomllib.loads((repo / "h.toml").read_text())
    assert settings["python_sources"] == ["verl"] and "version_base" not in settings
    (hydra,) = [line for line in result.out.splitlines() if line.startswith("  hydra ")]
    assert hydra.startswith("  hydra         version_base None as @hydra.main at verl/trainer/main_ppo.py:"), hydra
    assert "launch(es) run" in hydra and "megatron_merge_lora" not in hydra
