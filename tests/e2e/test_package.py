"""The package as others get it: a wheel in a fresh venv (no pytest), the workflow template's own steps, and
the pre-commit hook both as a remote repository (`pre-commit try-repo` on a clone) and as a local entry.
These install packages from the index, so they are few and slow."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness import __version__
from tests.conftest import ROOT, SMALL_TREE, write_tree
from tests.integration.test_plugin_workflow import PYPROJECT

pytestmark = pytest.mark.e2e

TEMPLATE = ROOT / "templates" / "config-harness.yml"


def sh(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def git(repo: Path, *arguments: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *identity, *arguments], cwd=repo, capture_output=True, check=True)


def small_repository(root: Path) -> Path:
    """A git repository with a small Hydra tree, its settings and committed goldens."""
    write_tree(root / "conf", SMALL_TREE)
    (root / "pyproject.toml").write_text(PYPROJECT)
    completed = sh([sys.executable, "-m", "harness", "generate"], root)
    assert completed.returncode == 0, completed.stderr
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "goldens")
    return root


def break_a_config(repo: Path) -> None:
    gpu = repo / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))


def test_the_workflow_template_calls_the_harness_on_pull_requests_with_read_only_rights():
    text = TEMPLATE.read_text()
    workflow = yaml.load(text, Loader=yaml.BaseLoader)  # keeps `on` a string key
    assert set(workflow["on"]) == {"push", "pull_request"} and "pull_request_target" not in text
    assert workflow["permissions"] == {"contents": "read"} and "${{ secrets" not in text
    runs = [step["run"] for step in workflow["jobs"]["config-harness"]["steps"] if "run" in step]
    assert all("make " not in run for run in runs) and sum("config-harness " in run for run in runs) == 2


def test_a_built_wheel_works_alone_in_a_fresh_venv_and_runs_the_template_steps(tmp_path):
    dist = tmp_path / "dist"
    built = sh([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)], tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = dist.glob("config_harness-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    workflow = yaml.load(TEMPLATE.read_text(), Loader=yaml.BaseLoader)
    env = {**os.environ, **workflow["env"], "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    repo = small_repository(tmp_path / "repo")
    # The repository's own pin, as the template asks for it: here the wheel just built.
    write_tree(repo, {workflow["env"]["CONFIG_HARNESS_REQUIREMENTS"]: f"{wheel}\n"})
    # Committed with the adoption: a pin the pull request changes is a settings change its owners approve (issue 41.6).
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pin config-harness")

    steps = {step["name"]: step for step in workflow["jobs"]["config-harness"]["steps"] if "name" in step}
    installed = sh(["bash", "-e", "-c", steps["Install config-harness"]["run"]], repo, env)
    assert installed.returncode == 0, installed.stderr[-2000:]
    version = sh([str(venv / "bin" / "config-harness"), "--version"], repo, env)
    assert version.returncode == 0 and version.stdout.startswith(f"config-harness {__version__} ")
    assert sh([str(venv / "bin" / "python"), "-c", "import pytest"], repo, env).returncode != 0  # the CLI needs no pytest

    summary = tmp_path / "summary.md"
    env.update(GITHUB_STEP_SUMMARY=str(summary), BASE_REF="HEAD", CI="true")
    env.update(PR_NUMBER="7", GITHUB_OUTPUT=str(tmp_path / "github-output"))
    (tmp_path / "runner-temp").mkdir()
    env.update(RUNNER_TEMP=str(tmp_path / "runner-temp"))  # the job's own folder outside the checkout, as GitHub gives it
    for name in ("Check every config case", "Review against the base branch"):
        completed = sh(["bash", "-e", "-c", steps[name]["run"]], repo, env)
        assert completed.returncode == 0, f"{name}: {completed.stdout[-1500:]} {completed.stderr[-1500:]}"
    assert "## config-harness" in summary.read_text()
    assert "exit=0\nverdict=config-harness: OK, no blocking cause\n" in (tmp_path / "github-output").read_text()
    break_a_config(repo)
    failed = sh(["bash", "-e", "-c", steps["Check every config case"]["run"]], repo, env)
    assert failed.returncode == 1 and "::error" in failed.stdout


def test_the_pre_commit_hook_works_remote_and_local(tmp_path):
    pre_commit = [sys.executable, "-m", "pre_commit"]
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    repo = small_repository(tmp_path / "repo")

    remote = sh([*pre_commit, "try-repo", str(clone), "config-harness-check", "--all-files"], repo, env)
    assert remote.returncode == 0, remote.stdout[-3000:]
    shutil.copy(ROOT / "templates" / "pre-commit-config.yaml", repo / ".pre-commit-config.yaml")
    git(repo, "add", ".pre-commit-config.yaml")
    local = sh([*pre_commit, "run", "config-harness-check", "--all-files"], repo, env)
    assert local.returncode == 0, local.stdout[-3000:]

    break_a_config(repo)
    for command in (["try-repo", str(clone), "config-harness-check", "--all-files"], ["run", "--all-files"]):
        failed = sh([*pre_commit, *command], repo, env)
        assert failed.returncode == 1 and 'device.map.qkv: "qkv_proj" -> —' in failed.stdout, failed.stdout[-3000:]


def test_the_pre_commit_hook_runs_when_only_a_launch_script_or_python_source_is_staged(tmp_path):
    """Issue 40 item 7: a typo in a launch script was committed with "Skipped" (the hook ran only on YAML and TOML)."""
    pre_commit = [sys.executable, "-m", "pre_commit"]
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    repo = small_repository(tmp_path / "repo")
    shutil.copy(ROOT / "templates" / "pre-commit-config.yaml", repo / ".pre-commit-config.yaml")
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "hook")
    for name, text in (
        ("scripts/run.sh", "python -m app.main trainer.lr=0.3 trainer.name=run\n"),
        ("app/model.py", "class Model:\n    pass\n"),
    ):
        write_tree(repo, {name: text})
        git(repo, "add", name)
        staged = sh([*pre_commit, "run"], repo, env)  # what `git commit` runs: the staged files only
        assert "Skipped" not in staged.stdout and "config-harness check" in staged.stdout, staged.stdout[-2000:]
        assert staged.returncode == 0, staged.stdout[-2000:]


ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"


def test_the_pre_commit_hook_fails_a_commit_that_only_deletes_a_golden_or_edits_an_extensionless_launch_script(tmp_path):
    """Issue 53 item 6: pre-commit hands a hook only the files a commit adds, changes or renames, so a commit deleting a
    golden was made with "Skipped", and so was a broken launch in `scripts/launch`, which the settings' `[[commands]]`
    glob names but the hook's pattern of extensions did not. Real `git commit`s through the installed hook (the local
    template) and the remote hook (`pre-commit try-repo` on a clone) on the same staged deletion."""
    pre_commit = [sys.executable, "-m", "pre_commit"]
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    repo = small_repository(tmp_path / "repo")
    with (repo / "pyproject.toml").open("a") as settings:
        settings.write('\n[[tool.config-harness.commands]]\nglob = "scripts/*"\n')
    write_tree(
        repo, {"app/__init__.py": "", "app/main.py": ENTRY, "scripts/launch": "python -m app.main trainer.name=run trainer.lr=0.3\n"}
    )
    shutil.copy(ROOT / "templates" / "pre-commit-config.yaml", repo / ".pre-commit-config.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "launches and the hook")
    assert sh([*pre_commit, "install"], repo, env).returncode == 0
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return sh(["git", *identity, "commit", "-q", "-m", message], repo, env)

    head = sh(["git", "rev-parse", "HEAD"], repo).stdout
    git(repo, "rm", "-q", "snapshots/_generated_train__gpu__default.yaml")
    deleted = commit("drop a golden")
    said = deleted.stdout + deleted.stderr  # git gives a hook's output on stderr
    assert deleted.returncode == 1 and "Skipped" not in said and "config-harness check" in said, said[-2000:]
    assert "train/gpu/default" in said and sh(["git", "rev-parse", "HEAD"], repo).stdout == head
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    remote = sh([*pre_commit, "try-repo", str(clone), "config-harness-check"], repo, env)  # the staged files only
    assert remote.returncode == 1 and "Skipped" not in remote.stdout and "train/gpu/default" in remote.stdout, remote.stdout[-2000:]
    git(repo, "reset", "-q", "--hard")

    launch = repo / "scripts" / "launch"
    launch.write_text(launch.read_text().replace("trainer.lr=0.3", "trainer.nope=0.3"))
    git(repo, "add", "scripts/launch")
    broken = commit("a typo in a launch")
    said = broken.stdout + broken.stderr
    assert broken.returncode == 1 and "scripts/launch:1: trainer.nope=0.3" in said, said[-2000:]
    launch.write_text(launch.read_text().replace("trainer.nope=0.3", "trainer.lr=0.5"))
    git(repo, "add", "scripts/launch")
    fixed = commit("the launch fixed")
    assert fixed.returncode == 0 and "config-harness check" in fixed.stdout + fixed.stderr, fixed.stderr[-2000:]
