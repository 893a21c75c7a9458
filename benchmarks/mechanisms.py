"""What each speed mechanism saves, in CPU-seconds, on verl, sheeprl and anemoi-training (issue 44 item 7).

    python benchmarks/mechanisms.py [--runs 5] [--trees verl sheeprl anemoi verl-launches]

Each measured run is a child process; its CPU time (user + system, its reaped workers included) is read with
`resource.getrusage(RUSAGE_CHILDREN)` around it, so other jobs on a shared machine slow the wall clock but not the
figure. Runs are interleaved (every variant once, then again), and each row is the median of `--runs`.

A mechanism is switched off in the measured process itself, never in the product: the child is this script's
`off` entry (`mechanisms.py off NAMES MODULE ARGS...`), which replaces the mechanism with Hydra's or the plain
path's own code and then runs `python -m MODULE ARGS...` (forked workers inherit the switch). The switches:

- `cache`: the signed disk cache (harness/composition/store.py): no store opened, as `--no-cache`;
- `fast_path`: the private-Hydra fast path (`shared_work` in harness/composition/hydra_compat.py): Hydra's own
  `_compose_config_from_defaults_list` and `_create_interpolation_map`; `heads` and `interpolation_map` are its
  two halves alone;
- `lent`: `LentConfig` (harness/composition/hydra_compat.py): each launch applies its overrides to a fresh copy of
  its base, as `apply_overrides` does, and the config is never given back.

Trees: `verl` is the project's own (pyproject.toml, as `make check-config`); `sheeprl` and `anemoi` are the
big matrices of bench_big.py (their wheels' config folders, goldens generated first); `verl-launches` is verl's
whole repository (the bundle, tag pr5848-parent) adopted as the README says, whose `check` reads the launch
scripts: the only tree where `LentConfig` runs (the other three have no scripts).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PYTHON = sys.executable
BUNDLE = Path(os.environ.get("CONFIG_HARNESS_TEST_DATA") or ROOT.parent / "shared" / "data") / "verl-full.bundle"
if not (ROOT.parent / "shared").is_dir() and not os.environ.get("CONFIG_HARNESS_TEST_DATA"):
    BUNDLE = Path("/work/shared/data/verl-full.bundle")


# ---- the switches (run inside the measured child) ----


def _cache_off() -> None:
    from harness.composition import compose

    enter = compose.HydraSession.__enter__

    def without_store(self: compose.HydraSession) -> compose.HydraSession:
        self.cache_dir = None
        return enter(self)

    compose.HydraSession.__enter__ = without_store  # type: ignore[method-assign]


def _fast_path_off() -> None:
    from harness.composition import hydra_compat

    hydra_compat.shared_work = lambda heads: contextlib.nullcontext()  # type: ignore[assignment]


def _heads_off() -> None:
    from harness.composition import hydra_compat

    def compose(heads: object, self: object, defaults: object, repo: object) -> object:
        return hydra_compat._ORIGINAL_COMPOSE(self, defaults, repo)  # type: ignore[arg-type]

    hydra_compat._compose_sharing_the_head = compose  # type: ignore[assignment]


def _interpolation_map_off() -> None:
    from harness.composition import hydra_compat

    hydra_compat._interpolation_map_when_read = hydra_compat._ORIGINAL_MAP


def _lent_off() -> None:
    from harness.composition import hydra_compat

    lent = getattr(hydra_compat, "LentConfig", None)
    if lent is not None:
        lent.apply = lambda self, parsed: hydra_compat.apply_overrides([parsed], self.config)
        lent.give_back = lambda self: False


SWITCHES: dict[str, Callable[[], None]] = {
    "cache": _cache_off,
    "fast_path": _fast_path_off,
    "heads": _heads_off,
    "interpolation_map": _interpolation_map_off,
    "lent": _lent_off,
}


def run_off(names: str, module: str, args: list[str]) -> None:
    """Switch the named mechanisms off, then run `python -m module args` in this process."""
    for name in filter(None, names.split(",")):
        SWITCHES[name]()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


# ---- the trees ----


def cpu_seconds(command: list[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0, 1)) -> float:
    """CPU seconds (user + system) of one child and the workers it reaped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        sys.exit(f"mechanisms: {' '.join(command)} exited {done.returncode}: {done.stderr.decode()[-1500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def harness(off: str, *args: str) -> list[str]:
    return [PYTHON, str(Path(__file__).resolve()), "off", off, "harness", *args]


def pytest_run(off: str, *args: str) -> list[str]:
    return [PYTHON, str(Path(__file__).resolve()), "off", off, "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *args]


def big_tree(name: str, scratch: Path) -> tuple[Path, list[str], list[str]]:
    """A bench_big tree prepared (goldens generated): its folder, the settings arguments, the pytest arguments."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_big import TREES, prepare

    folder = scratch / name
    folder.mkdir()
    settings, _, _ = prepare(TREES[name], folder)
    (folder / "pytest.ini").write_text("[pytest]\n")
    return folder, ["--settings", str(settings)], ["--config-harness-settings", str(settings), str(settings)]


def adopted_verl(scratch: Path) -> Path:
    """verl's repository at pr5848-parent, adopted as the README says (init with the maintainer's contracts, generate)."""
    sys.path.insert(0, str(ROOT))
    from tests.e2e.test_day_one import ADOPT, CONTRACTS

    repository = scratch / "verl-launches"
    subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(repository)], check=True)
    subprocess.run(["git", "-C", str(repository), "checkout", "-q", "pr5848-parent"], check=True)
    (repository / "config-harness").mkdir()
    (repository / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
    env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(scratch / "adopt-cache")}
    for command in (ADOPT, ["generate"]):
        cpu_seconds([PYTHON, "-m", "harness", *command], repository, env, ok=(0, 1, 3))
    return repository


# A variant: (label, module "harness" or "pytest", switches off, cache "cold" | "warm" | "none").
Variant = tuple[str, str, str, str]
COMPOSING: list[Variant] = [
    ("check cold", "harness", "", "cold"),
    ("check cold, fast path off", "harness", "fast_path", "cold"),
    ("check cold, heads off", "harness", "heads", "cold"),
    ("check cold, interpolation map off", "harness", "interpolation_map", "cold"),
    ("check --no-cache", "harness", "cache", "none"),
    ("check warm", "harness", "", "warm"),
    ("pytest warm", "pytest", "", "warm"),
    ("pytest, cache off", "pytest", "cache", "none"),
    ("pytest, cache and fast path off", "pytest", "cache,fast_path", "none"),
]
LAUNCHES: list[Variant] = [
    ("check warm", "harness", "", "warm"),
    ("check warm, LentConfig off", "harness", "lent", "warm"),
    ("check --no-cache", "harness", "cache", "none"),
    ("check --no-cache, LentConfig off", "harness", "cache,lent", "none"),
]


def measure(tree: str, runs: int, scratch: Path, only: list[str], save: Callable[[dict[str, list[float]]], None]) -> dict[str, list[float]]:
    """CPU seconds of every variant on one tree (those labelled as in `only`, when given), interleaved, `runs` times;
    `save` hears the samples after every run, so an interrupted measurement keeps what it measured."""
    if tree == "verl":
        folder, settings, plugin = ROOT, [], ["--config-harness"]
        variants = COMPOSING
    elif tree == "verl-launches":
        folder, settings, plugin = adopted_verl(scratch), [], []
        variants = LAUNCHES
    else:
        folder, settings, plugin = big_tree(tree, scratch)
        variants = COMPOSING
    variants = [variant for variant in variants if not only or variant[0] in only]
    warm = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(scratch / f"{tree}-warm")}
    cpu_seconds([PYTHON, "-m", "harness", *settings, "check", "--quiet"], folder, warm)  # fills the warm cache
    seconds: dict[str, list[float]] = {}
    for index in range(runs):
        for label, module, off, cache in variants:
            env = warm
            if cache == "cold":
                env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(scratch / f"{tree}-cold-{index}")}
            if module == "harness":
                command = harness(off, *settings, "check", "--quiet")
            else:
                command = pytest_run(off, *plugin)
            seconds.setdefault(label, []).append(cpu_seconds(command, folder, env))
            if cache == "cold":
                shutil.rmtree(scratch / f"{tree}-cold-{index}", ignore_errors=True)
        save(seconds)
        print(f"  {tree}: run {index + 1}/{runs} done (load average {os.getloadavg()[0]:.1f})", flush=True)
    return seconds


def saving(seconds: dict[str, list[float]], on: str, off: str) -> str:
    """`off - on` in CPU-s and as a share of `off` (what the run would cost without the mechanism)."""
    if on not in seconds or off not in seconds:
        return "n/a"
    on_s, off_s = statistics.median(seconds[on]), statistics.median(seconds[off])
    return f"{off_s - on_s:+.2f} CPU-s ({(off_s - on_s) / off_s:+.0%})"


SAVINGS = [
    ("disk cache, check warm vs --no-cache", "check warm", "check --no-cache"),
    ("disk cache, pytest warm vs cache off", "pytest warm", "pytest, cache off"),
    ("disk cache, cost of writing it (cold vs --no-cache)", "check --no-cache", "check cold"),
    ("fast path, check cold", "check cold", "check cold, fast path off"),
    ("fast path: merged heads alone", "check cold", "check cold, heads off"),
    ("fast path: interpolation map alone", "check cold", "check cold, interpolation map off"),
    ("fast path, pytest without cache", "pytest, cache off", "pytest, cache and fast path off"),
    ("LentConfig, check warm", "check warm", "check warm, LentConfig off"),
    ("LentConfig, check --no-cache", "check --no-cache", "check --no-cache, LentConfig off"),
]


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "off":
        run_off(sys.argv[2], sys.argv[3], sys.argv[4:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--trees", nargs="+", default=["verl", "sheeprl", "anemoi", "verl-launches"])
    parser.add_argument("--only", nargs="+", default=[], metavar="LABEL", help="measure only these variants (labels as printed)")
    parser.add_argument("--json", type=Path, help="also write every sample here, after every run")
    args = parser.parse_args()
    print(f"nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="mechanisms-") as scratch:
        for tree in args.trees:

            def save(seconds: dict[str, list[float]], tree: str = tree) -> None:
                results[tree] = seconds
                if args.json:
                    args.json.write_text(json.dumps(results, indent=1))

            seconds = measure(tree, args.runs, Path(scratch), args.only, save)
            print(f"\n{tree} (CPU-seconds, median of {args.runs}; min, max)")
            for label, values in seconds.items():
                print(f"  {label:<36}{statistics.median(values):>8.2f}{min(values):>8.2f}{max(values):>8.2f}")
            for label, on, off in SAVINGS:
                if on in seconds and off in seconds:
                    print(f"  saved by {label}: {saving(seconds, on, off)}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
