"""Other Hydra applications from PyPI, adopted with `init` alone: Hydra 1.1 semantics (mbrl), a root added between
releases (proteinworkshop), a root that is another root plus an engine (verl), and ConfigStore schemas (benchmarl).

Wheels are fetched with `pip download --no-deps` into the git-ignored cache and never imported by the project's
venv; benchmarl, whose schemas must be imported, runs in a scratch venv of its own under the same cache.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.fetch import fetch_wheel_tree
from tests.conftest import CACHE, ROOT, verl_tree
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


def adopt_and_compare(cli, repo: Path, config_dir: str, *init_args: str) -> dict:
    """init, generate, check; every case's golden equals plain Hydra with the version_base init chose."""
    init = cli("init", "--config-dir", config_dir, "--settings", "harness.toml", *init_args, cwd=repo)
    assert init.code == 0, init.err
    settings = tomllib.loads((repo / "harness.toml").read_text())
    assert cli("--settings", "harness.toml", "generate").code == 0
    check = cli("--settings", "harness.toml", "check", "--format", "json")
    assert check.code == 0, check.out[-2000:]
    cases = cli("--settings", "harness.toml", "list", "--format", "json").json()["cases"]
    # Plain Hydra finds the search path's folders through `hydra.searchpath`, as an installed plugin's would be.
    folders = [f"file://{(repo / folder).resolve()}" for folder in settings.get("search_path", [])]
    extra = [f"hydra.searchpath=[{','.join(folders)}]"] if folders else []
    plain = plain_compose(repo / config_dir, [{**c, "overrides": c["overrides"] + extra} for c in cases], settings.get("version_base"))
    project = type("P", (), {"snapshots": repo / settings["snapshot_dir"]})
    for case in cases:
        assert golden_tree(project, case) == plain[case["id"]], case["id"]
    return settings


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
        f'config_dir = "{new}"\nread_outside = ["{old}", "{new}", "{plugin}"]\nroots = ["explain", "train"]\n'
        f'search_path = ["{plugin}"]\n'
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
    if not (BENCHMARL_VENV / ".ready").exists():
        interpreter = shutil.which("python3.11") or sys.executable
        steps = [
            [interpreter, "-m", "venv", "--clear", str(BENCHMARL_VENV)],
            [str(python), "-m", "pip", "install", "-q", *map(str, TORCH_CPU)],
            # benchmarl's own requirements pull CUDA torch and torchvision: only what `import benchmarl` needs.
            [str(python), "-m", "pip", "install", "-q", "--no-deps", "benchmarl==1.5.2", "torchrl>=0.10,<0.12", "tensordict",
             "tqdm", "cloudpickle", "orjson", "pyvers", "importlib_metadata", "numpy"],
            [str(python), "-m", "pip", "install", "-q", "hydra-core>=1.3.2,<1.4", "omegaconf>=2.3,<2.4", "PyYAML>=6,<7",
             "pytest>=8", "syrupy>=5", "pygments"],
        ]
        for step in steps:
            completed = subprocess.run(step, capture_output=True, text=True)
            if completed.returncode != 0:
                pytest.skip(f"benchmarl's scratch venv could not be built: {completed.stderr.strip().splitlines()[-1:]}")
        (BENCHMARL_VENV / ".ready").write_text("")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(ROOT)],
                   check=True, capture_output=True)
    return python


@pytest.mark.skipif(not TORCH_CPU, reason="benchmarl needs torch; only a local CPU wheel keeps its venv small")
def test_benchmarl_schemas_compose_through_the_cli_and_pytest_alike(tmp_path):
    python = benchmarl_venv()
    conf = subprocess.run([str(python), "-c", "import importlib.util, pathlib; "
                           "print(pathlib.Path(importlib.util.find_spec('benchmarl').origin).parent / 'conf')"],
                          capture_output=True, text=True, check=True).stdout.strip()
    settings = tmp_path / "harness.toml"
    table = (f'config_dir = "{conf}"\nread_outside = ["{conf}"]\nsnapshot_dir = "snapshots"\nroots = ["config"]\n'
             'engine_group = "algorithm"\n[presets]\nbalance = ["task=vmas/balance"]\n')
    settings.write_text(table)
    harness = [str(python.parent / "config-harness"), "--settings", str(settings)]
    without = subprocess.run([*harness, "check", "--format", "json"], capture_output=True, text=True, cwd=tmp_path)
    messages = {f["message"] for c in json.loads(without.stdout)["cases"] for f in c["findings"]}
    assert messages == {"In 'task/vmas/balance': Could not load 'task/vmas_balance_config'. ('task/vmas_balance_config': "
                        "probably registered from Python (ConfigStore); name its module in the settings' `schemas`)"}

    settings.write_text('schemas = ["benchmarl"]\n' + table)
    listing = subprocess.run([*harness, "list", "--format", "json"], capture_output=True, text=True, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr[-2000:]
    listed = json.loads(listing.stdout)
    assert len(listed["cases"]) == 9  # the nine algorithms, not their nine registered `*_config` schemas too
    assert subprocess.run([*harness, "generate"], capture_output=True, cwd=tmp_path).returncode == 0
    assert subprocess.run([*harness, "check"], capture_output=True, cwd=tmp_path).returncode == 0
    tests = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--harness-settings", str(settings),
                            str(settings)], capture_output=True, text=True, cwd=tmp_path)
    assert tests.returncode == 0 and "19 passed" in tests.stdout, tests.stdout[-2000:]
