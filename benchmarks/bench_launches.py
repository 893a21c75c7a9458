"""Time the launch cases of verl's scripts (issue 24): `check --case 'cmd/*'` on the replay bundle's main snapshot.

Cold: a fresh process with no cache (every config parsed, every base composed). Warm: a second run with the
cache the first one filled. Target: cold <= 5 s on the project's 2-core machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT.parent / "shared" / "data" / "verl-replay.bundle"
SETTINGS = (
    'config_dir = "verl/trainer/config"\nroots = ["ppo_trainer"]\n\n[[commands]]\nglob = "examples/**/*.sh"\n\n'
    '[[commands]]\nglob = "verl/experimental/**/shell/*.sh"\n'
)


def main() -> int:
    """Clone the bundle, then time a cold and a warm run of the launch cases."""
    if not BUNDLE.is_file():
        print(f"bench_launches: {BUNDLE} is absent; skipped")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch) / "verl"
        subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "checkout", "--quiet", "main-2026-08-22"], check=True)
        (repo / "harness.toml").write_text(SETTINGS, encoding="utf-8")
        command = [str(Path(sys.executable).parent / "config-harness"), "--settings", "harness.toml", "check", "--case", "cmd/*"]
        env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(Path(scratch) / "cache")}
        for label in ("cold", "warm"):
            start = time.perf_counter()
            done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            first = done.stdout.splitlines()[0] if done.stdout else done.stderr.strip()
            print(f"launch cases of verl main-2026-08-22, {label}: {elapsed:.2f} s (exit {done.returncode}; {first})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
