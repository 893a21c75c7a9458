"""Compare this checkout's answers with those of another commit, on the project's own verl tree.

    .venv/bin/python scripts/same_answers.py REF [--no-bundle]

A refactor or a speed-up must leave every golden, JSON answer and exit code as it was. This runs the same commands
with the code of REF (a temporary git worktree) and with this checkout's code, both over this checkout's
settings, goldens and verl tree, and prints each command whose output or exit code differs. Exit 0 when all agree.

With verl's whole repository beside the project (../shared/data/verl-full.bundle) it also adopts verl as the
README says (`init`, `generate`, the maintainer's contracts) at the parents of PR #5848 and PR #7082, applies each
pull request, and compares the launch-reading and review commands there (`check`, `list --verbose`, `diff --base`
in every format, `known`), each version of the code in a fresh clone at the same path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e.test_day_one import ADOPT as INIT  # noqa: E402
from tests.e2e.test_day_one import CONTRACTS  # noqa: E402

# Beside the project, or where CONFIG_HARNESS_TEST_DATA says (a worktree elsewhere), as the e2e tests find it.
BUNDLE = Path(os.environ.get("CONFIG_HARNESS_TEST_DATA") or ROOT.parent / "shared" / "data") / "verl-full.bundle"
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


# The README's adoption, with the maintainer's contracts of the e2e test (one copy), so reviews have contract findings.
ADOPT = [INIT, ["generate"]]
PULL_REQUEST = [
    ["check", "--format", "json"],
    ["check"],
    ["list", "--verbose"],
    ["diff", "--base", "adopted"],
    ["diff", "--base", "adopted", "--format", "json"],
    ["diff", "--base", "adopted", "--format", "markdown"],
    ["diff", "--base", "adopted", "--format", "github"],
    ["diff", "--base", "adopted", "--format", "sarif"],
    ["known"],
]
SCENARIOS = [("pr5848-parent", "pr5848"), ("pr7082-parent", "pr7082")]


def harness(code: Path, cache: Path, project: Path, command: list[str]) -> tuple[int, str]:
    """One command's exit code and output, run with the harness of `code` in `project`."""
    env = {**os.environ, "PYTHONPATH": str(code), "CONFIG_HARNESS_CACHE_DIR": str(cache), "NO_COLOR": "1"}
    # -P: `-m` would put the working folder (a checkout) before PYTHONPATH, and both runs would use that code.
    done = subprocess.run([sys.executable, "-P", "-m", "harness", *command], cwd=project, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def answers(code: Path, project: Path, cache: Path) -> list[tuple[int, str]]:
    """Each command's exit code and output, run with the harness of `code` in `project`."""
    return [harness(code, cache, project, command) for command in COMMANDS]


def git(repository: Path, *args: str, stdin: bytes | None = None) -> bytes:
    # Fixed names and dates: both versions' clones get the same commit ids, which reports may name.
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "GIT_AUTHOR_NAME": "same",
        "GIT_AUTHOR_EMAIL": "same@answers",
        "GIT_COMMITTER_NAME": "same",
        "GIT_COMMITTER_EMAIL": "same@answers",
    }
    return subprocess.run(["git", "-C", str(repository), *args], check=True, capture_output=True, input=stdin, env=env).stdout


def bundle_answers(code: Path, scratch: Path, cache: Path) -> list[tuple[int, str]]:
    """Adoption and review answers on verl's whole repository: each scenario in a fresh clone at the same path."""
    found = []
    for base, head in SCENARIOS:
        repository = scratch / "verl"
        shutil.rmtree(repository, ignore_errors=True)
        subprocess.run(["git", "clone", "--quiet", str(BUNDLE), str(repository)], check=True)
        git(repository, "checkout", "-q", "-b", "adopted", base)
        (repository / "config-harness").mkdir()
        (repository / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
        found += [harness(code, cache, repository, command) for command in ADOPT]
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "-m", "adopt")
        git(repository, "checkout", "-q", "-b", "pr")
        diff = git(repository, "diff", "--binary", base, head, "--", ".", ":!pyproject.toml")
        git(repository, "apply", "--index", stdin=diff)
        git(repository, "commit", "-q", "-m", head)
        found += [harness(code, cache, repository, command) for command in PULL_REQUEST]
    return found


def named_commands(bundle: bool) -> list[str]:
    """Each compared command as a line, in the order `answers` and `bundle_answers` return them."""
    own = [" ".join(command) for command in COMMANDS]
    if not bundle:
        return own
    return own + [f"verl {head}: {' '.join(command)}" for _, head in SCENARIOS for command in ADOPT + PULL_REQUEST]


def main() -> int:
    """Run every command with both versions of the code and report the ones that disagree."""
    args = sys.argv[1:]
    bundle = "--no-bundle" not in args and BUNDLE.is_file()
    args = [arg for arg in args if arg != "--no-bundle"]
    if len(args) != 1:
        print(__doc__)
        return 2
    ref = args[0]
    with tempfile.TemporaryDirectory(prefix="same-answers-") as scratch:
        old_code = Path(scratch) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(old_code), ref], check=True)
        try:
            before = answers(old_code, ROOT, Path(scratch) / "cache-old")
            after = answers(ROOT, ROOT, Path(scratch) / "cache-new")
            if bundle:
                before += bundle_answers(old_code, Path(scratch), Path(scratch) / "cache-old")
                after += bundle_answers(ROOT, Path(scratch), Path(scratch) / "cache-new")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_code)], check=True)
            shutil.rmtree(old_code, ignore_errors=True)
    names = named_commands(bundle)
    differing = [name for name, old, new in zip(names, before, after, strict=True) if old != new]
    for name in differing:
        print("differs:", name)
    if not bundle:
        print(f"(verl's whole repository is not at {BUNDLE} or --no-bundle: launches and reviews not compared)")
    print(f"{len(names) - len(differing)} of {len(names)} commands answer the same with {ref} and this checkout")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
