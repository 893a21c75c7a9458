"""A real git repository with a config tree's history: verl releases from PyPI wheels, then small edits.

Used by the `log` tests and benchmark. Every edit is one commit, and which commits change the tracked key
is known by construction, so `log` can be checked exactly.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from harness.baselines.releases import fetch_wheel_tree

SETTINGS = """
[tool.config-harness]
config_dir = "conf"
roots = ["ppo_trainer"]
engine_group = "model_engine"

[tool.config-harness.presets]
default = []
"""

KEY = "actor_rollout_ref.rollout.temperature"
CASE = "ppo_trainer/dp/default"
RELEASES = ("0.7.1", "0.8.0", "0.9.1")


@dataclass(frozen=True)
class History:
    """The repository, the commit of each release, and the edit commits that changed KEY (with its new value)."""

    repository: Path
    releases: dict[str, str]
    edits: list[str]
    key_changes: dict[str, float]


def git(repository: Path, *arguments: str) -> str:
    """Run git with a fixed identity and return its stdout."""
    completed = subprocess.run(
        ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
        check=True,
        capture_output=True,
        text=True,
    )
    return completed.stdout.strip()


def commit(repository: Path, message: str) -> str:
    """Commit everything and return the new commit id."""
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", message)
    return git(repository, "rev-parse", "HEAD")


def build(repository: Path, cache: Path, edits: int) -> History:
    """Commit each release's tree, then `edits` small edits cycling through four kinds."""
    repository.mkdir(parents=True, exist_ok=True)
    git(repository, "init", "-q", "-b", "main")
    (repository / "pyproject.toml").write_text(SETTINGS)
    conf = repository / "conf"
    releases = {}
    for version in RELEASES:
        tree = fetch_wheel_tree(f"verl=={version}", "verl/trainer/config", cache / f"verl-{version}")
        shutil.rmtree(conf, ignore_errors=True)
        shutil.copytree(tree, conf, ignore=shutil.ignore_patterns("_generated_*", "*.py", "__pycache__"))
        releases[version] = commit(repository, f"verl {version}")
    rollout = conf / "rollout" / "rollout.yaml"
    evaluation = conf / "evaluation.yaml"
    edit_commits, key_changes = [], {}
    for index in range(edits):
        kind = index % 4
        if kind == 0:  # the tracked key changes
            value = round(0.1 + index / 1000, 4)
            rollout.write_text(re.sub(r"(?m)^temperature: .*$", f"temperature: {value}", rollout.read_text()))
        elif kind == 1:  # a file the case never reads
            evaluation.write_text(evaluation.read_text() + f"# edit {index}\n")
        elif kind == 2:  # another key of a file the case reads
            rollout.write_text(re.sub(r"(?m)^top_p: .*$", f"top_p: {0.5 + index / 10000}", rollout.read_text()))
        else:  # a comment in a file the case reads
            rollout.write_text(rollout.read_text() + f"# edit {index}\n")
        sha = commit(repository, f"edit {index} (kind {kind})")
        edit_commits.append(sha)
        if kind == 0:
            key_changes[sha] = value
    return History(repository, releases, edit_commits, key_changes)
