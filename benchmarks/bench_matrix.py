"""Benchmark `config-harness check` against the two usual approaches, using public tools only.

Every approach runs as its own process, so each pays its own imports, as a user's run does:

- per-process: one Python process per case running Hydra compose + OmegaConf.to_yaml (verl's script);
- in-process loop: one Python process looping compose + to_yaml over the same cases;
- config-harness check: the full check (compose, compare with goldens, contracts).

Runs are interleaved (A B C, A B C, ...) and summarised as median, min and max. The script also measures
a run after one config file's bytes changed, the marginal cost of a preset, and a synthetic matrix of up to
1,000 cases (seconds and peak memory).

    python benchmarks/bench_matrix.py [--runs 3] [--settings pyproject.toml] [--no-synthetic]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import tomllib
from pathlib import Path

PYTHON = sys.executable
HARNESS = [PYTHON, "-m", "harness"]

PLAIN_ONE = """
import json, sys
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
config_dir, config_name, overrides = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with initialize_config_dir(config_dir=config_dir, version_base=None):
    OmegaConf.to_yaml(compose(config_name=config_name, overrides=overrides))
"""

PLAIN_LOOP = """
import json, sys, time
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
config_dir, cases = sys.argv[1], json.loads(sys.argv[2])
seconds = []
with initialize_config_dir(config_dir=config_dir, version_base=None):
    for case in cases:
        start = time.perf_counter()
        OmegaConf.to_yaml(compose(config_name=case["config_name"], overrides=case["overrides"]))
        seconds.append(time.perf_counter() - start)
print(json.dumps(seconds))
"""


def run(command: list[str], cwd: Path, ok_codes: tuple[int, ...] = (0,)) -> tuple[float, str]:
    """Wall seconds and stdout of one child process."""
    start = time.perf_counter()
    child = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    seconds = time.perf_counter() - start
    if child.returncode not in ok_codes:
        sys.exit(f"bench: {' '.join(command[:4])} ... exited {child.returncode}: {child.stderr.decode()[-500:]}")
    return seconds, child.stdout.decode()


def peak_run(command: list[str], cwd: Path, ok_codes: tuple[int, ...] = (0, 1), env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (MiB) of one child, read with os.wait4 (it counts the child's reaped workers)."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in ok_codes:
            errors.seek(0)
            sys.exit(f"bench: {' '.join(command)} exited {code}: {errors.read().decode()[-500:]}")
    return seconds, usage.ru_maxrss // 1024


def cases_of(settings: list[str], cwd: Path) -> list[dict]:
    """The matrix as `config-harness list --format json` reports it."""
    _, out = run(HARNESS + settings + ["list", "--format", "json"], cwd)
    return json.loads(out)["cases"]


def config_dir_of(settings_file: Path) -> Path:
    table = tomllib.loads(settings_file.read_text())
    table = table.get("tool", {}).get("config-harness", table)
    return (settings_file.parent / table["config_dir"]).resolve()


def summary(samples: list[float]) -> str:
    return f"{statistics.median(samples):7.2f} {min(samples):7.2f} {max(samples):7.2f}"


def measure_approaches(root: Path, settings: list[str], config_dir: Path, cases: list[dict], runs: int) -> dict:
    """Interleaved runs of the three approaches; returns seconds per approach and the plain compose times."""
    seconds: dict[str, list[float]] = {
        "per-process": [],
        "in-process loop": [],
        "config-harness check": [],
        "config-harness check --no-cache": [],
    }
    compose_times: list[list[float]] = []
    case_json = json.dumps([{"config_name": c["config_name"], "overrides": c["overrides"]} for c in cases])
    # `check` is measured warm: its cache filled once first (after a change to the harness, the first run composes
    # and judges every case, and with two runs the median was half a cold run).
    run(HARNESS + settings + ["check", "--quiet"], root)
    for _ in range(runs):
        start = time.perf_counter()
        for case in cases:
            run([PYTHON, "-c", PLAIN_ONE, str(config_dir), case["config_name"], json.dumps(case["overrides"])], root)
        seconds["per-process"].append(time.perf_counter() - start)
        elapsed, out = run([PYTHON, "-c", PLAIN_LOOP, str(config_dir), case_json], root)
        seconds["in-process loop"].append(elapsed)
        compose_times.append(json.loads(out))
        elapsed, _ = run(HARNESS + settings + ["check", "--quiet"], root)
        seconds["config-harness check"].append(elapsed)
        elapsed, _ = run(HARNESS + settings + ["--no-cache", "check", "--quiet"], root)
        seconds["config-harness check --no-cache"].append(elapsed)
    return {"seconds": seconds, "compose_times": compose_times}


def measure_one_file_changed(root: Path, settings: list[str], config_dir: Path, root_config: str, runs: int) -> list[float]:
    """`check` on a copy of the tree after the root config's bytes changed (a new value) since the last run.

    Every case reads the root config, so no composition can come from the cache; parsed files still can.
    """
    samples = []
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "config"
        shutil.copytree(config_dir, tree)
        run(HARNESS + settings + ["--config-dir", str(tree), "check", "--quiet"], root, ok_codes=(0, 1))  # warm
        victim = tree / f"{root_config}.yaml"
        for index in range(runs):
            victim.write_text(victim.read_text() + f"\nbench_marker_{index}: {index}\n")
            elapsed, _ = run(HARNESS + settings + ["--config-dir", str(tree), "check", "--quiet"], root, ok_codes=(0, 1))
            samples.append(elapsed)
    return samples


EXTRA_PRESETS = 10


def measure_extra_preset(root: Path, settings_file: Path, runs: int) -> tuple[list[float], list[float], int]:
    """`check` with the project's presets, and with EXTRA_PRESETS more value presets (so the difference stands
    out of the noise); returns both timings and the number of added cases. Both run as a user's run does."""
    table = tomllib.loads(settings_file.read_text())
    table = table.get("tool", {}).get("config-harness", table)
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch)
        base = {**table, "config_dir": str(config_dir_of(settings_file)), "snapshot_dir": str(scratch_path / "snapshots")}
        base["contracts"] = [str((settings_file.parent / c).resolve()) for c in table.get("contracts", [])]
        base.pop("source", None)
        if "python_sources" in table:  # relative to the project's settings file, which the scratch copy is not beside
            base["python_sources"] = [str((settings_file.parent / p).resolve()) for p in table["python_sources"]]
        # The scratch settings sit outside the project: name the folders they read (the harness confines reads).
        base["read_outside"] = sorted(
            {base["config_dir"], *(str(Path(c).parent) for c in base["contracts"]), *base.get("python_sources", [])}
        )
        added_presets = {f"bench_extra_{index}": [f"trainer.total_epochs={index + 2}"] for index in range(EXTRA_PRESETS)}
        extra = {**base, "presets": {**table["presets"], **added_presets}}
        files = {}
        for name, content in (("base", base), ("extra", extra)):
            path = scratch_path / f"{name}.toml"
            path.write_text(to_toml(content))
            files[name] = path
            run(HARNESS + ["--settings", str(path), "generate"], root, ok_codes=(0, 1))
        added = len(cases_of(["--settings", str(files["extra"])], root)) - len(cases_of(["--settings", str(files["base"])], root))
        without, with_extra = [], []
        for _ in range(runs):
            without.append(run(HARNESS + ["--settings", str(files["base"]), "check", "--quiet"], root, (0, 1))[0])
            with_extra.append(run(HARNESS + ["--settings", str(files["extra"]), "check", "--quiet"], root, (0, 1))[0])
    return without, with_extra, added


def to_toml(table: dict) -> str:
    """Just enough TOML for a settings table (strings, lists of strings, a presets table, routes)."""
    lines, presets, routes = [], table.get("presets", {}), table.get("routes", [])
    for key, value in table.items():
        if key not in ("presets", "routes"):
            lines.append(f"{key} = {json.dumps(value)}")
    lines.append("[presets]")
    lines += [f"{json.dumps(name)} = {json.dumps(values)}" for name, values in presets.items()]
    for route in routes:
        lines.append("[[routes]]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in route.items()]
    return "\n".join(lines) + "\n"


def synthetic_project(folder: Path, engines: int, presets: int) -> Path:
    """A Hydra tree with `engines` group options, four shared groups and `presets` value presets."""
    conf = folder / "conf"
    for group in ("optim", "data", "model", "logger"):
        (conf / group).mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"{group}_key_{k}: {k}" for k in range(60))
        (conf / group / "default.yaml").write_text(body + f"\nnested:\n  ref: ${{{group}.{group}_key_1}}\n")
    (conf / "engine").mkdir(exist_ok=True)
    for index in range(engines):
        body = "\n".join(f"  engine_key_{k}: {index * 100 + k}" for k in range(80))
        (conf / "engine" / f"e{index}.yaml").write_text(f"# @package _global_\nengine:\n  name: e{index}\n{body}\n")
    (conf / "root.yaml").write_text(
        textwrap.dedent("""\
        defaults:
          - optim: default
          - data: default
          - model: default
          - logger: default
          - engine: e0
          - _self_
        trainer:
          epochs: 1
          lr: 0.1
          name: ${engine.name}
        """)
    )
    preset_lines = "\n".join(f'p{index} = ["trainer.epochs={index}", "optim.optim_key_3={index}"]' for index in range(presets))
    settings = folder / "synthetic.toml"
    settings.write_text(
        f'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["root"]\nengine_group = "engine"\n\n[presets]\n{preset_lines}\n'
    )
    return settings


def measure_synthetic(sizes: list[tuple[int, int]]) -> list[tuple[int, float, int]]:
    """(cases, seconds, peak MiB) of `check` on synthetic matrices, goldens generated first."""
    rows = []
    for engines, presets in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            settings = synthetic_project(folder, engines, presets)
            peak_run(HARNESS + ["--settings", str(settings), "generate"], folder)
            seconds, peak = peak_run(HARNESS + ["--settings", str(settings), "check", "--quiet"], folder)
            rows.append((engines * presets, seconds, peak))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settings", default="pyproject.toml")
    parser.add_argument("--no-synthetic", action="store_true")
    args = parser.parse_args()
    root = Path.cwd()
    settings_file = (root / args.settings).resolve()
    settings = [] if settings_file.name == "pyproject.toml" else ["--settings", str(settings_file)]
    config_dir = config_dir_of(settings_file)
    cases = cases_of(settings, root)
    runs = max(1, args.runs)

    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; matrix: {len(cases)} cases from {config_dir}")
    measured = measure_approaches(root, settings, config_dir, cases, runs)
    seconds = measured["seconds"]
    print(f"\n{'approach':<34}{'cases':>6}  {'median':>7} {'min':>7} {'max':>7}   (seconds, {runs} interleaved runs)")
    for name, samples in seconds.items():
        print(f"{name:<34}{len(cases):>6}  {summary(samples)}")
    changed = measure_one_file_changed(root, settings, config_dir, cases[0]["config_name"], runs)
    print(f"{'check, root config just changed':<34}{len(cases):>6}  {summary(changed)}")
    per_process, loop = statistics.median(seconds["per-process"]), statistics.median(seconds["in-process loop"])
    print(f"\n{'ratios':<34}{'per-process/x':>14} {'loop/x':>7}   (targets: >= 8x, >= 3x)")
    for name, samples in (
        ("check (x)", seconds["config-harness check"]),
        ("check, root config changed (x)", changed),
        ("check --no-cache (x)", seconds["config-harness check --no-cache"]),
    ):
        median = statistics.median(samples)
        print(f"{name:<34}{per_process / median:>13.1f}x {loop / median:>6.1f}x")

    cold = statistics.median(times[0] for times in measured["compose_times"])
    without, with_extra, added = measure_extra_preset(root, settings_file, max(runs, 5))
    per_preset = (statistics.median(with_extra) - statistics.median(without)) / EXTRA_PRESETS
    print(
        f"\none cold compose (plain Hydra, first in its process): {cold:.3f} s"
        f"\none more preset ({added // EXTRA_PRESETS} cases; measured over {EXTRA_PRESETS} added presets):"
        f" +{per_preset:.3f} s = {per_preset / cold:.0%} of a cold compose"
    )

    if not args.no_synthetic:
        print(f"\n{'synthetic cases':>15} {'seconds':>8} {'ms/case':>8} {'peak MiB':>9}")
        for count, elapsed, peak in measure_synthetic([(10, 25), (10, 50), (10, 100)]):
            print(f"{count:>15} {elapsed:>8.2f} {1000 * elapsed / count:>8.1f} {peak:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
