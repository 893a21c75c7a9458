"""What reading the `_target_` classes (`python_sources`, issue 25) adds to a cold `config-harness check` on verl.

Two scratch settings files, identical but for `python_sources`, are checked with `--no-cache` (every case
composed from scratch, every class file parsed) as separate processes, interleaved, and summarised as
median, min and max. The target is at most 20% more than the same check without the classes.

    python benchmarks/bench_targets.py [--runs 5] [--settings pyproject.toml]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import tomllib
from pathlib import Path

from bench_matrix import HARNESS, config_dir_of, run, summary, to_toml

TARGET = 0.20


def scratch_settings(settings_file: Path, scratch: Path) -> tuple[Path, Path]:
    """The settings without and with `python_sources`, outside the project (reads named in read_outside)."""
    table = tomllib.loads(settings_file.read_text())
    table = table.get("tool", {}).get("config-harness", table)
    sources = [str((settings_file.parent / folder).resolve()) for folder in table.get("python_sources", [])]
    if not sources:
        sys.exit(f"bench: {settings_file} names no python_sources")
    base = {key: value for key, value in table.items() if key not in ("source", "python_sources")}
    base["config_dir"] = str(config_dir_of(settings_file))
    base["snapshot_dir"] = str(scratch / "snapshots")
    base["contracts"] = [str((settings_file.parent / c).resolve()) for c in table.get("contracts", [])]
    base["read_outside"] = sorted({base["config_dir"], *(str(Path(c).parent) for c in base["contracts"]), *sources})
    files = []
    for name, content in (("yaml-only", base), ("with-classes", {**base, "python_sources": sources})):
        path = scratch / f"{name}.toml"
        path.write_text(to_toml(content))
        files.append(path)
    return files[0], files[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--settings", default="pyproject.toml")
    args = parser.parse_args()
    root = Path.cwd()
    with tempfile.TemporaryDirectory() as scratch:
        without, with_classes = scratch_settings((root / args.settings).resolve(), Path(scratch))
        run(HARNESS + ["--settings", str(without), "generate"], root, ok_codes=(0, 1))
        samples: dict[str, list[float]] = {"check --no-cache": [], "check --no-cache, classes read": []}
        for _ in range(max(1, args.runs)):
            samples["check --no-cache"].append(
                run(HARNESS + ["--settings", str(without), "--no-cache", "check", "--quiet"], root, (0, 1))[0]
            )
            samples["check --no-cache, classes read"].append(
                run(HARNESS + ["--settings", str(with_classes), "--no-cache", "check", "--quiet"], root, (0, 1))[0]
            )
    print(f"\n{'reading the _target_ classes':<34}{'median':>7} {'min':>7} {'max':>7}   (seconds, {args.runs} interleaved runs)")
    for name, values in samples.items():
        print(f"{name:<34}{summary(values)}")
    added = statistics.median(samples["check --no-cache, classes read"]) / statistics.median(samples["check --no-cache"]) - 1
    print(f"{'added by the classes':<34}{added:>7.1%}   (target: <= {TARGET:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
