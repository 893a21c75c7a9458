"""The workflow templates' jobs run as GitHub runs them, step by step in a folder: each step's `if:` evaluated (with
the implicit `success()`), its `${{ }}` expressions in `env:` and `name:` filled in, its `run:` under `bash -e`, its
`GITHUB_OUTPUT` read back into `steps.<id>.outputs`. `uses:` steps are the test's: checkout and setup-python are
what the test prepared (this checkout's Python), upload-artifact copies its `path` into the artifacts folder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from tests.conftest import ROOT

TEMPLATES = ROOT / "templates"
TEMPLATE = TEMPLATES / "config-harness.yml"
COMMENT_TEMPLATE = TEMPLATES / "config-harness-comment.yml"
MATRIX_TEMPLATE = TEMPLATES / "config-harness-matrix.yml"

# The GitHub expression syntax the templates use; anything else fails the test instead of being guessed.
EXPRESSION_TOKENS = re.compile(r"\s+|!=|==|!|&&|\|\||\(|\)|'[^']*'|[A-Za-z_][A-Za-z0-9_.-]*")
STATUS_FUNCTIONS = ("success", "failure", "cancelled", "always")


class NoSecrets:
    """`secrets` as GitHub gives a fork's pull request: every secret the empty string."""

    def __getattr__(self, name: str) -> str:
        return ""


class Outputs(SimpleNamespace):
    """`steps.<id>.outputs` as GitHub gives them: an output the step did not set (it was skipped) is the empty string."""

    def __getattr__(self, name: str) -> str:
        return ""


def namespace(value: Any) -> Any:
    """A JSON-like mapping as nested attributes, as expressions read contexts (`github.event.pull_request.number`)."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: namespace(item) for key, item in value.items()})
    return value


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """A GitHub Actions expression (`${{ }}` optional) of the operators above, against `context`."""
    text = expression.strip().removeprefix("${{").removesuffix("}}")
    assert "".join(EXPRESSION_TOKENS.findall(text)) == text, f"expression syntax this runner does not know: {text}"
    python = re.sub(r"!(?!=)", " not ", text).replace("&&", " and ").replace("||", " or ")
    return eval(python, {"__builtins__": {}}, context)  # our own templates' text, in the token set checked above


def fill(text: str, context: dict[str, Any]) -> str:
    """`text` with every `${{ expression }}` replaced by its value."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1), context)), text)


def step_runs(
    step: dict[str, Any], *, event: str, job_failed: bool, cancelled: bool, outcomes: dict[str, str], context: dict[str, Any] | None = None
) -> bool:
    """Whether GitHub runs a step: its `if:` with the implicit `success() &&` when it names no status function."""
    condition = str(step.get("if", "success()"))
    if not any(re.search(rf"\b{name}\(\)", condition) for name in STATUS_FUNCTIONS):
        condition = f"success() && ({condition.strip().removeprefix('${{').removesuffix('}}')})"
    scope = {
        "github": SimpleNamespace(event_name=event, base_ref="main"),
        **(context or {}),
        "steps": SimpleNamespace(**{key: SimpleNamespace(outcome=value) for key, value in outcomes.items()}),
        "success": lambda: not job_failed and not cancelled,
        "failure": lambda: job_failed,
        "cancelled": lambda: cancelled,
        "always": lambda: True,
    }
    return bool(evaluate(condition, scope))


def template_steps(template: Path = TEMPLATE, job: str | None = None) -> list[dict[str, Any]]:
    """The steps of a template's one job (or of the job named `job`)."""
    workflow = yaml.safe_load(template.read_text())
    if job is not None:
        return workflow["jobs"][job]["steps"]
    (only,) = workflow["jobs"].values()
    return only["steps"]


@dataclass
class JobRun:
    """What a job's run left: each step's outcome by its (filled-in) name, outputs and output, and the artifacts."""

    outcomes: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    stdout: dict[str, str] = field(default_factory=dict)
    failed: bool = False


def run_job(
    template: Path,
    folder: Path,
    env: dict[str, str],
    github: dict[str, Any],
    artifacts: Path,
    job: str | None = None,
    matrix: dict[str, Any] | None = None,
) -> JobRun:
    """Run the template's job (its one job, or `job` with its `matrix` values) in `folder` for the event `github`
    describes (`event_name`, `event`, `base_ref`...). download-artifact copies the artifacts its `pattern` names."""
    run = JobRun()
    ids: dict[str, str] = {}
    workflow = yaml.safe_load(template.read_text())
    env = {**env, **workflow.get("env", {})}
    # The runner's own temporary folder, outside the checkout, as GitHub gives every job one.
    env.setdefault("RUNNER_TEMP", str(folder.parent / "runner-temp"))
    Path(env["RUNNER_TEMP"]).mkdir(parents=True, exist_ok=True)
    for index, step in enumerate(template_steps(template, job)):
        context = {
            "matrix": namespace(matrix or {}),
            "github": namespace(github),
            "env": namespace(env),
            "runner": SimpleNamespace(temp=env.get("RUNNER_TEMP", "")),
            "secrets": NoSecrets(),
            "steps": SimpleNamespace(
                **{key: SimpleNamespace(outcome=ids[key], outputs=Outputs(**run.outputs.get(key, {}))) for key in ids}
            ),
        }
        name = fill(step.get("name", step.get("uses", "")), context)
        if not step_runs(step, event=github["event_name"], job_failed=run.failed, cancelled=False, outcomes=ids, context=context):
            run.outcomes[name] = "skipped"
            if "id" in step:
                ids[step["id"]] = "skipped"
            continue
        if "uses" in step:
            if step["uses"].startswith("actions/upload-artifact@"):
                source = folder / fill(step["with"]["path"], context)  # `${{ runner.temp }}/...`: an absolute path
                if source.is_dir():
                    shutil.copytree(source, artifacts / fill(step["with"]["name"], context))
            elif step["uses"].startswith("actions/download-artifact@") and "pattern" in step["with"]:
                target = folder / fill(step["with"]["path"], context)
                for artifact in sorted(artifacts.glob(step["with"]["pattern"])):
                    shutil.copytree(artifact, target / artifact.name)
            run.outcomes[name] = "success"
            continue
        output = folder.parent / f"github-output-{job + '-' if job else ''}{index}"
        output.write_text("")
        step_env = {**env, "GITHUB_OUTPUT": str(output), **{key: fill(str(value), context) for key, value in step.get("env", {}).items()}}
        completed = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=folder, env=step_env, capture_output=True, text=True)
        run.outcomes[name] = "success" if completed.returncode == 0 else "failure"
        run.stdout[name] = completed.stdout + completed.stderr
        run.failed |= completed.returncode != 0
        if "id" in step:
            ids[step["id"]] = run.outcomes[name]
            run.outputs[step["id"]] = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return run


def adopted_project(project: Path, pyproject: str, files: dict[str, str] | None = None) -> None:
    """A small tree that adopted config-harness (settings, `files`, the one-line pin the templates install, goldens),
    committed as `main` and as `origin/main`, the base a pull request's review reads."""
    from harness.cli import main
    from tests.conftest import SMALL_TREE, write_tree
    from tests.synthetic_history import commit, git

    write_tree(project / "conf", SMALL_TREE)
    (project / "pyproject.toml").write_text(pyproject)
    write_tree(project, {**(files or {}), "config-harness/requirements.txt": "config-harness\n"})
    cwd = Path.cwd()
    os.chdir(project)
    try:
        assert main(["generate"]) == 0
    finally:
        os.chdir(cwd)
    git(project, "init", "-q", "-b", "main")
    git(project, "update-ref", "refs/remotes/origin/main", commit(project, "adopt config-harness"))


def ci_environment(tmp_path: Path, name: str) -> dict[str, str]:
    """A runner's environment for one job: its own summary and RUNNER_TEMP, this checkout's Python first on PATH, and
    pip answering from what is installed (the pin is the config-harness installed here)."""
    return {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(tmp_path / f"summary-{name}.md"),
        "RUNNER_TEMP": str(tmp_path / f"runner-{name}"),
        "PIP_NO_INDEX": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
