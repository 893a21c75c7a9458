"""Issue 36 on two more real Hydra repositories (../shared/data/other-repos.bundle, each at its tag; their code is
never run): 3D-Diffusion-Policy, whose scripts `cd` before launching an entry point with a computed config_path,
and lightning-hydra-template, whose users switch on `experiment` and `debug` options.

lightning-hydra-template selects hydra-colorlog's configs (`hydra/job_logging: colorlog`): the plugin's config
folder is fetched from its PyPI wheel (never imported) and given as a search path, as an installed plugin's
folder would be. Its `hparams_search` needs hydra-optuna-sweeper, a Python plugin (a structured config, imported
by Hydra): not installed here, so init leaves that option out and says why.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.baselines.releases import fetch_wheel_tree
from harness.composition.render import parse_yaml
from tests.conftest import CACHE
from tests.e2e.real_trees import SHARED_DATA, plain_compose
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

BUNDLE = SHARED_DATA / "other-repos.bundle"
DP3_CONFIG = "3D-Diffusion-Policy/diffusion_policy_3d/config"
DP3_MODULES = '\n[commands.modules]\n"3D-Diffusion-Policy/train.py" = "dp3"\n"3D-Diffusion-Policy/eval.py" = "dp3"\n'


def checkout(tmp_path: Path, tag: str) -> Path:
    """One repository of the bundle at its tag, on a branch `adopted`."""
    if not BUNDLE.is_file():
        pytest.skip(f"{BUNDLE} is absent")
    repo = tmp_path / tag
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(BUNDLE), str(repo)], check=True)
    git(repo, "checkout", "--quiet", "-b", "adopted", tag)
    return repo


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)


def rename(repo: Path, pattern: str, old: str, new: str) -> list[str]:
    """A pull request that renames a key in the config files `pattern` matches, and every `${...old}` that reads it,
    as a maintainer would (sed over YAML)."""
    touched = []
    for path in sorted(repo.glob(pattern)):
        text = path.read_text()
        renamed = re.sub(rf"(?m)^(\s*){old}:", rf"\g<1>{new}:", text).replace(f".{old}}}", f".{new}}}")
        if renamed != text:
            path.write_text(renamed)
            touched.append(path.relative_to(repo).as_posix())
    return touched


def launch_errors(report: dict) -> list[tuple[str, str, str, str | None]]:
    return sorted(
        (c["id"], f["source"], f["new"], f["fix"])
        for c in report["cases"]
        for f in c["findings"]
        if f["kind"] == "launch" and f["severity"] == "error"
    )


def kinds_at(report: dict, *paths: str) -> list[tuple[str, str]]:
    """(case, kind) of every finding about one of the paths, as old or new path of a move too."""
    return sorted(
        (c["id"], f["kind"])
        for c in report["cases"]
        for f in c["findings"]
        if f["kind"] != "launch" and (f["path"] in paths or f.get("new") in paths or f.get("old") in paths)
    )


def failing_review(cli, repo: Path) -> dict:
    """The pull request's review against `adopted`, which must fail (exit 1), as JSON."""
    review = cli("--settings", "harness.toml", "diff", "--base", "adopted", "--format", "json", cwd=repo)
    assert review.code == 1, review.out[-2000:]
    return review.json()


def hydra_warnings(report: dict) -> list[tuple[str, str]]:
    return [(f["source"], f["message"]) for f in report["findings"] if f["kind"] == "hydra_warning"]


def test_3d_diffusion_policy_launches_after_cd_are_checked_and_a_rename_names_both_scripts_in_their_own_text(tmp_path, cli):
    repo = checkout(tmp_path, "3d-diffusion-policy")
    init = cli("init", "--config-dir", DP3_CONFIG, "--write", "harness.toml", cwd=repo)
    assert init.code == 0, init.err
    for entry in ("3D-Diffusion-Policy/train.py:496", "3D-Diffusion-Policy/eval.py:21"):
        assert f"note: {entry}: @hydra.main with config_path computed from __file__ (read, never run): {DP3_CONFIG}" in init.out
    assert "hydra         version_base None as @hydra.main at 3D-Diffusion-Policy/eval.py:21" in init.out
    assert "commands      scripts/**/*.sh" in init.out  # the scripts that `cd 3D-Diffusion-Policy` first are found

    # --config-name=${config_name}.yaml is the script's first argument: checked as every root config it could name
    # (issue 42 item 4), each a case of its own, until the settings say which config to check it with.
    unmapped = cli("--settings", "harness.toml", "list", "--format", "json", "--case", "cmd/*", cwd=repo).json()["cases"]
    roots = sorted(path.stem for path in (repo / DP3_CONFIG).glob("*.yaml"))
    assert roots == ["dp3", "simple_dp3"]
    for script in ("train_policy", "eval_policy"):
        candidates = [row for row in unmapped if row["id"].startswith(f"cmd/scripts/{script}.sh#1")]
        assert [(row["id"], row["config_name"], row["extracted"]) for row in candidates] == [
            (f"cmd/scripts/{script}.sh#1@{root}", root, True) for root in roots
        ]
    settings = repo / "harness.toml"
    settings.write_text(settings.read_text() + DP3_MODULES)
    listing = cli("--settings", "harness.toml", "list", "--format", "json", "--case", "cmd/*", cwd=repo).json()["cases"]
    launched = {row["id"]: row for row in listing if row["extracted"]}
    assert sorted(launched) == ["cmd/scripts/eval_policy.sh#1", "cmd/scripts/train_policy.sh#1"]
    for case_id, line in (("cmd/scripts/train_policy.sh#1", 42), ("cmd/scripts/eval_policy.sh#1", 24)):
        row = launched[case_id]
        assert row["source"] == f"scripts/{case_id[len('cmd/scripts/') : -2]}:{line}" and row["config_name"] == "dp3"
        assert len(row["overrides"]) == 8 and "training.seed=${seed}" in row["overrides"]
        assert not any("__unset_" in text for text in row["overrides"])  # the script's own text, never a placeholder
    # The demonstration scripts run third_party/ programs the bundle leaves out, given argparse flags only: no Hydra
    # app, so no launch (issue 42 item 7), yet named with their lines, never silently dropped.
    assert not [row["id"] for row in listing if not row["extracted"]]
    verbose = cli("--settings", "harness.toml", "list", "--verbose", cwd=repo).out
    for name in ("adroit", "dexart", "metaworld"):
        (line,) = [line for line in verbose.splitlines() if f"scripts/gen_demonstration_{name}.sh:" in line]
        assert line.startswith("not a launch: third_party/") and "is not in the repository and takes no Hydra arguments" in line

    # Adopted as a maintainer would: known entries the mapping fixed are removed, as check says.
    assert cli("--settings", "harness.toml", "generate", cwd=repo).code == 0
    known = repo / "config-harness" / "known.yaml"
    kept = [e for e in known.read_text().split("\n- ") if "train_policy" not in e and "eval_policy" not in e]
    known.write_text("\n- ".join(kept))
    cold = cli("--settings", "harness.toml", "--no-cache", "check", "--format", "json", cwd=repo)
    warm = [cli("--settings", "harness.toml", "check", "--format", "json", cwd=repo) for _ in range(2)][-1]
    assert cold.code == 0 and warm.code == 0, cold.out[-2000:]
    # Hydra's own warning (Hydra 1.1 moved `_self_`'s implicit place): one finding per file, cached or not.
    assert hydra_warnings(cold.json()) == hydra_warnings(warm.json())
    assert [source for source, _ in hydra_warnings(warm.json())] == [f"{DP3_CONFIG}/dp3.yaml:1", f"{DP3_CONFIG}/simple_dp3.yaml:1"]
    assert all("Defaults list is missing `_self_`" in message for _, message in hydra_warnings(warm.json()))
    commit_all(repo, "adopt config-harness")

    # `training.seed` (the tasks' own `env_runner.seed` is another key): in the two roots that write and read it.
    assert rename(repo, f"{DP3_CONFIG}/*.yaml", "seed", "rng_seed") == [f"{DP3_CONFIG}/dp3.yaml", f"{DP3_CONFIG}/simple_dp3.yaml"]
    report = failing_review(cli, repo)
    assert launch_errors(report) == [
        ("cmd/scripts/eval_policy.sh#1", "scripts/eval_policy.sh:28", "training.seed=${seed}", "training.rng_seed=${seed}"),
        ("cmd/scripts/train_policy.sh#1", "scripts/train_policy.sh:46", "training.seed=${seed}", "training.rng_seed=${seed}"),
    ]
    # One way to report the rename, although `logging.name: ${training.seed}` reads the key: one move per case.
    assert kinds_at(report, "training.seed", "training.rng_seed", "logging.name") == [
        ("dp3/base/default", "moved"),
        ("simple_dp3/base/default", "moved"),
    ]
    text = cli("--settings", "harness.toml", "diff", "--base", "adopted", cwd=repo).out
    assert "training.rng_seed=${seed}" in text and "__unset_" not in text


def colorlog_configs() -> Path:
    return fetch_wheel_tree("hydra-colorlog==1.2.0", "hydra_plugins/hydra_colorlog/conf", CACHE / "hydra-colorlog-1.2.0")


def test_lightning_hydra_template_gets_routes_for_its_switches_equal_to_plain_hydra_and_a_rename_is_one_move(tmp_path, cli):
    repo = checkout(tmp_path, "lightning-hydra-template")
    shutil.copytree(colorlog_configs(), repo / "plugin-conf")
    init = cli(
        "init", "--config-dir", "configs", "--search-path", "plugin-conf", "--engine-group", "trainer", "--write", "harness.toml", cwd=repo
    )
    assert init.code == 0, init.err
    settings = tomllib.loads((repo / "harness.toml").read_text())
    switches = ["train_experiment_example", *(f"train_debug_{name}" for name in ("default", "fdr", "limit", "overfit", "profiler"))]
    assert [route["name"] for route in settings["routes"]] == switches
    assert "left out a route for train hparams_search=mnist_optuna: " in init.out  # the optuna sweeper is not installed
    assert "left out a route for train logger (8 options): they only add keys" in init.out
    assert settings["presets"] == {"plain": []}  # an engine option is called `default`: `train/default/plain`

    assert cli("--settings", "harness.toml", "generate", cwd=repo).code == 0
    check = cli("--settings", "harness.toml", "check", cwd=repo)
    assert check.code == 0, check.out[-2000:]
    cases = cli("--settings", "harness.toml", "list", "--format", "json", cwd=repo).json()["cases"]
    matrix = [case for case in cases if case.get("kind") != "command"]
    assert "train/default/plain" in {case["id"] for case in matrix} and len(matrix) == 12 + len(switches)
    # Every golden equals plain Hydra's composition (the plugin's folder reached through hydra.searchpath).
    searchpath = [f"hydra.searchpath=[file://{(repo / 'plugin-conf').resolve()}]"]
    plain = plain_compose(repo / "configs", [{**c, "overrides": c["overrides"] + searchpath} for c in matrix], "1.3")
    for case in matrix:
        golden = (repo / settings["snapshot_dir"] / Path(case["golden"]).name).read_text()
        assert parse_yaml(golden) == plain[case["id"]], case["id"]
    commit_all(repo, "adopt config-harness")

    touched = rename(repo, "configs/**/*.yaml", "max_epochs", "max_train_epochs")
    assert "configs/trainer/default.yaml" in touched and "configs/debug/default.yaml" in touched
    report = failing_review(cli, repo)
    assert launch_errors(report) == [
        ("cmd/scripts/schedule.sh#1", "scripts/schedule.sh:5", "trainer.max_epochs=5", "trainer.max_train_epochs=5"),
        ("cmd/scripts/schedule.sh#2", "scripts/schedule.sh:7", "trainer.max_epochs=10", "trainer.max_train_epochs=10"),
    ]
    moved = kinds_at(report, "trainer.max_epochs", "trainer.max_train_epochs")
    assert moved and {kind for _, kind in moved} == {"moved"}  # one `moved` per case, never removed plus added
    assert len(moved) == len({case for case, _ in moved})
    assert {"route/train_debug_fdr", "train/default/plain"} <= {case for case, _ in moved}


def test_init_says_when_pytests_testpaths_hide_the_golden_tests_and_the_fix_collects_them(tmp_path, cli):
    repo = checkout(tmp_path, "lightning-hydra-template")
    shutil.copytree(colorlog_configs(), repo / "plugin-conf")
    init = cli("init", "--config-dir", "configs", "--search-path", "plugin-conf", "--write", "pyproject.toml", cwd=repo)
    assert init.code == 0, init.err
    fix = 'write testpaths = ["tests/", "pyproject.toml"]'
    assert "testpaths = ['tests/'] keeps plain `pytest` from collecting the golden tests in pyproject.toml; " + fix in init.out
    assert cli("generate", cwd=repo).code == 0
    # The repository's own tests need its dependencies (lightning): only the fix's new entry is collected here.
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('testpaths = "tests/"', 'testpaths = ["pyproject.toml"]'))
    session = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co"], cwd=repo, capture_output=True, text=True
    )
    assert session.returncode == 0 and "pyproject.toml::golden[train/base/default]" in session.stdout, session.stdout[-1500:]
