"""Compare this checkout's answers with those of another commit, on the project's own verl tree.

    .venv/bin/python scripts/same_answers.py REF

A refactor or a speed-up must leave every golden, JSON answer and exit code as it was. This runs the same commands
with the code of REF (a temporary git worktree) and with this checkout's code, both over this checkout's
settings, goldens and verl tree, and prints each command whose output or exit code differs. Exit 0 when all agree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [
    ["check", "--format", "json"],
    ["check", "--format", "text"],
    ["check", "--format", "markdown"],
    ["check", "--format", "github"],
    ["list", "--format", "json"],
    ["generate", "--check"],
    ["explain", "actor_rollout_ref.model.use_remove_padding", "--case", "ppo_trainer/megatron/default"],
    ["diff", "--base", "HEAD", "--format", "json"],
]


def answers(code: Path, project: Path, cache: Path) -> list[tuple[int, str]]:
    """Each command's exit code and output, run with the harness of `code` in `project`."""
    env = {**os.environ, "PYTHONPATH": str(code), "CONFIG_HARNESS_CACHE_DIR": str(cache), "NO_COLOR": "1"}
    found = []
    for command in COMMANDS:
        done = subprocess.run([sys.executable, "-m", "harness", *command], cwd=project, env=env, capture_output=True, text=True)
        found.append((done.returncode, done.stdout + done.stderr))
    return found


def main() -> int:
    """Run every command with both versions of the code and report the ones that disagree."""
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    ref = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="same-answers-") as scratch:
        old_code = Path(scratch) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(old_code), ref], check=True)
        try:
            before = answers(old_code, ROOT, Path(scratch) / "cache-old")
            after = answers(ROOT, ROOT, Path(scratch) / "cache-new")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_code)], check=True)
            shutil.rmtree(old_code, ignore_errors=True)
    differing = [command for command, old, new in zip(COMMANDS, before, after) if old != new]
    for command in differing:
        print("differs:", " ".join(command))
    print(f"{len(COMMANDS) - len(differing)} of {len(COMMANDS)} commands answer the same with {ref} and this checkout")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
