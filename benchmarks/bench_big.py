"""Big matrices (sheeprl 0.8.4, anemoi-training 0.17.1 from their wheels): where most cases are compositions of
their own, and an edit should cost only the cases that read the edited file.

For each tree, on a private copy with goldens generated first, interleaved runs (each its own process):

- plain loop: one Python process looping Hydra compose + OmegaConf.to_yaml over every case;
- cold: `check` with an empty cache (every composition computed, on every core);
- warm: `check` again with nothing changed;
- value edit: `check` after a value changed in a file few cases read;
- root comment: `check` after a comment was added to the root config (read by every case);
- pytest serial and `pytest -n auto`: the pytest plugin over the same matrix, warm cache.

Ratios are of medians. Peak RSS is the largest of any run's process tree.

    BENCH_TREES="sheeprl anemoi" BENCH_REPEAT=3 python benchmarks/bench_big.py
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_matrix import peak_run, to_toml  # noqa: E402
from harness.baselines.releases import fetch_wheel_tree  # noqa: E402

PYTHON = sys.executable
HARNESS = [PYTHON, "-m", "harness"]

# What a user without the harness writes: one process, compose + to_yaml per case (a failing case is skipped).
PLAIN_LOOP = """
import json, sys
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
config_dir, cases = sys.argv[1], json.loads(open(sys.argv[2]).read())
with initialize_config_dir(config_dir=config_dir, version_base=None):
    for case in cases:
        try:
            OmegaConf.to_yaml(compose(config_name=case["config_name"], overrides=case["overrides"]))
        except Exception:
            pass
"""


@dataclass(frozen=True)
class Tree:
    """A benchmarked tree: its settings file and the value edit that few cases read."""

    name: str
    edit_file: str
    edit_old: str
    edit_new: str


TREES = {
    "sheeprl": Tree("sheeprl", "algo/ppo.yaml", "update_epochs: 10", "update_epochs: {n}"),
    "anemoi": Tree("anemoi", "model/gnn.yaml", "num_channels: 512", "num_channels: {n}"),
}


def timed(command: list[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0, 1)) -> tuple[float, str]:
    """Wall seconds and stdout of one child."""
    start = time.perf_counter()
    child = subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - start
    if child.returncode not in ok:
        sys.exit(f"bench: {' '.join(command[:6])} ... exited {child.returncode}: {child.stderr.decode()[-800:]}")
    return seconds, child.stdout.decode()


def prepare(tree: Tree, scratch: Path) -> tuple[Path, Path, list[dict]]:
    """A private copy of the tree, settings over it, goldens generated; returns settings, config dir, cases."""
    table = tomllib.loads((HERE / f"{tree.name}.toml").read_text())
    source = table.pop("source")
    fetched = fetch_wheel_tree(source["wheel"], source["unpack"], (HERE / source["into"]).resolve())
    config_dir = scratch / "config"
    shutil.copytree(fetched, config_dir)
    table.update(config_dir=str(config_dir), snapshot_dir=str(scratch / "snapshots"))
    settings = scratch / "harness.toml"
    settings.write_text(to_toml(table))
    env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(scratch / "cache-generate")}
    timed(HARNESS + ["--settings", str(settings), "generate"], scratch, env)
    _, out = timed(HARNESS + ["--settings", str(settings), "list", "--format", "json"], scratch, env)
    return settings, config_dir, json.loads(out)["cases"]


def measure(tree: Tree, repeat: int, jobs_note: str) -> dict[str, list[float]]:
    """Interleaved runs of every approach on one tree; returns seconds per approach and peak RSS."""
    seconds: dict[str, list[float]] = {}
    rss: list[int] = []
    with tempfile.TemporaryDirectory(prefix=f"bench-{tree.name}-") as scratch_name:
        scratch = Path(scratch_name)
        settings, config_dir, cases = prepare(tree, scratch)
        case_file = scratch / "cases.json"
        case_file.write_text(json.dumps([{"config_name": c["config_name"], "overrides": c["overrides"]} for c in cases]))
        check = HARNESS + ["--settings", str(settings), "check", "--quiet"]
        edited = config_dir / tree.edit_file
        root = config_dir / f"{tomllib.loads(settings.read_text())['roots'][0]}.yaml"
        assert edited.read_text().count(tree.edit_old) == 1, f"{edited}: {tree.edit_old!r} not found once"
        (scratch / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
        pytest_base = [PYTHON, "-m", "pytest", "-q", "--config-harness-settings", str(settings), str(settings)]
        print(f"\n{tree.name}: {len(cases)} cases; {jobs_note}", flush=True)
        for index in range(repeat):
            warm_env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(scratch / "cache")}
            cold_env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(scratch / f"cache-cold-{index}")}

            def sample(name: str, command: list[str], env: dict[str, str]) -> None:
                elapsed, peak_mib = peak_run(command, scratch, env=env)
                seconds.setdefault(name, []).append(elapsed)
                rss.append(peak_mib)

            loop_seconds, _ = timed([PYTHON, "-c", PLAIN_LOOP, str(config_dir), str(case_file)], scratch, warm_env)
            seconds.setdefault("plain loop", []).append(loop_seconds)
            sample("cold (empty cache)", check, cold_env)
            shutil.rmtree(scratch / f"cache-cold-{index}")
            sample("check --no-cache", HARNESS + ["--settings", str(settings), "--no-cache", "check", "--quiet"], warm_env)
            if index == 0:
                peak_run(check, scratch, env=warm_env)  # fill the warm cache
            sample("warm", check, warm_env)
            # A value that changes every repeat, in a file few cases read; then back, so goldens stay comparable.
            original = edited.read_text()
            edited.write_text(original.replace(tree.edit_old, tree.edit_new.format(n=index + 2)))
            sample("value edit", check, warm_env)
            edited.write_text(original)
            peak_run(check, scratch, env=warm_env)  # back to the goldens' state, re-warmed
            root.write_text(root.read_text() + f"\n# bench comment {index}\n")
            sample("root comment", check, warm_env)
            sample("pytest serial", pytest_base + ["-p", "no:xdist"], warm_env)
            sample("pytest -n auto", pytest_base + ["-n", "auto"], warm_env)
            print(f"  run {index + 1}/{repeat} done", flush=True)
    seconds["peak RSS MiB"] = [float(max(rss))]
    return seconds


def report(name: str, seconds: dict[str, list[float]]) -> None:
    """The table and the ratios against the issue's targets."""
    median = {key: statistics.median(values) for key, values in seconds.items()}
    print(f"\n{'approach':<22}{'median':>8}{'min':>8}{'max':>8}   (seconds)")
    for key, values in seconds.items():
        if key != "peak RSS MiB":
            print(f"{key:<22}{median[key]:>8.2f}{min(values):>8.2f}{max(values):>8.2f}")
    warm = median["warm"]
    rows = [
        ("plain loop / cold", median["plain loop"] / median["cold (empty cache)"], ">= 3x"),
        ("plain loop / --no-cache", median["plain loop"] / median["check --no-cache"], ""),
        ("value edit / warm", median["value edit"] / warm, "<= 2x"),
        ("root comment / warm", median["root comment"] / warm, "<= 1.5x"),
        ("pytest -n auto / serial", median["pytest -n auto"] / median["pytest serial"], "<= 1x"),
    ]
    print(f"\n{name} ratios{'':<12}{'value':>8}   target")
    for label, value, target in rows:
        print(f"{label:<28}{value:>7.2f}x   {target}")
    print(f"peak RSS (largest process tree): {int(median['peak RSS MiB'])} MiB")


def main() -> int:
    trees = os.environ.get("BENCH_TREES", "sheeprl anemoi").split()
    repeat = max(1, int(os.environ.get("BENCH_REPEAT", "3")))
    cores = len(os.sched_getaffinity(0))
    for name in trees:
        if name not in TREES:
            sys.exit(f"bench: unknown tree {name!r} in BENCH_TREES (known: {', '.join(TREES)})")
        note = f"{cores} cores, load average {os.getloadavg()[0]:.1f} at start (other processes share the cores)"
        report(name, measure(TREES[name], repeat, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
