"""What the next-step tests share (tests/integration/test_next_steps.py on a small repository with a failing test
suite of its own, tests/e2e/test_next_steps_verl.py on verl's real tree): a report's `Next:` lines by the table row
that printed them, and each step done as its line says, the commands in it run as printed (`config-harness` in this
process, anything else, `pytest` and `git` included, as a subprocess of the reader's shell would run it)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.cli import main
from harness.reporters.steps import STEPS
from tests.synthetic_history import git

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def shell_env(**more: str) -> dict[str, str]:
    """The environment a reader's shell gives a command: this checkout's scripts on PATH, a git identity."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **IDENTITY, **more}


def next_lines(report: str) -> dict[str, list[str]]:
    """The report's `Next:` lines by the name of the table row that printed each (every line is some row's)."""
    found: dict[str, list[str]] = {}
    for line in report.splitlines():
        if not line.startswith("Next: "):
            continue
        text = line.removeprefix("Next: ")
        (step,) = [s for s in STEPS if text.startswith(s.lead)] or [None]
        assert step is not None, f"a Next: line no row of the table prints: {text}"
        found.setdefault(step.name, []).append(text)
    return found


def the_step(report: str, name: str) -> str:
    """The one line row `name` printed in `report` (the test fails, showing the report, when there is none)."""
    lines = next_lines(report).get(name, [])
    assert len(lines) == 1, f"expected one Next: line of step {name!r}:\n{report}"
    return lines[0]


def commands(line: str) -> list[str]:
    """The commands a step's line gives, between backticks, in order."""
    return re.findall(r"`([^`]+)`", line)


def run_command(
    command: str, cwd: Path, capsys: pytest.CaptureFixture[str] | None = None, reason: str = "accepted in the test"
) -> tuple[int, str]:
    """One command as printed, from `cwd`, its placeholder for the reader's reason (WHY) filled in: exit code and output
    (`capsys`: the test's, which a `config-harness` command run in this process prints to)."""
    words = [reason if word == "WHY" else word for word in shlex.split(command)]
    if words[0] == "config-harness":
        assert capsys is not None, command
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(cwd)
            capsys.readouterr()
            code = int(main(words[1:]))
            captured = capsys.readouterr()
        return code, captured.out + captured.err
    done = subprocess.run(words, cwd=cwd, env=shell_env(), capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def replace_on_line(file: Path, line: int, old: str, new: str) -> None:
    """Edit one line of a file as a reader told "edit FILE:LINE" would: `old` must be on it."""
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[line - 1], f"{file}:{line} does not hold {old!r}: {lines[line - 1]!r}"
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    file.write_text("".join(lines), encoding="utf-8")


def insert_at(file: Path, line: int, text: str) -> None:
    """`text` (one line) put back at line `line`, where a report says it was set."""
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(line - 1, text)
    file.write_text("".join(lines), encoding="utf-8")


PLACE = re.compile(r"([\w./-]+\.(?:ya?ml|sh|py)):(\d+)")


def places(text: str) -> list[tuple[str, int]]:
    """Every `FILE:LINE` a line names, in order."""
    return [(file, int(line)) for file, line in PLACE.findall(text)]


def edit(repository: Path, name: str, old: str, new: str) -> None:
    file = repository / name
    text = file.read_text(encoding="utf-8")
    assert old in text, (name, old)
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def check(repository: Path, capsys) -> tuple[int, str]:
    return run_command("config-harness check", repository, capsys)


def review_against(repository: Path, capsys: pytest.CaptureFixture[str], base: str) -> tuple[int, str]:
    """The pull request committed, then reviewed against `base`."""
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "--allow-empty", "-m", "pull request")
    return run_command(f"config-harness diff --base {base}", repository, capsys)


def do(line: str, repository: Path, capsys) -> None:
    """Every command a step's line gives, run as printed; each must succeed."""
    for command in commands(line):
        code, out = run_command(command, repository, capsys)
        assert code == 0, f"{command}: exit {code}\n{out}"


def json_check(repository: Path, capsys) -> dict:
    _, out = run_command("config-harness check --format json", repository, capsys)
    return json.loads(out)


def findings(report: dict, kind: str) -> list[dict]:
    return [f for f in report["findings"] if f["kind"] == kind] + [f for c in report["cases"] for f in c["findings"] if f["kind"] == kind]


def error_line(report: str, *words: str) -> str:
    """The report's ERROR line that holds every one of `words`."""
    (line,) = [line for line in report.splitlines() if "ERROR " in line and all(word in line for word in words)]
    return line


def fails(repository: Path, capsys, name: str, how=None) -> tuple[str, str]:
    """check (or `how`) fails, printing step `name`: its line, and the whole report."""
    code, out = (how or check)(repository, capsys)
    assert code == 1, out
    return the_step(out, name), out


def by_name(*scenarios: Callable[..., None]) -> dict[str, Callable[..., None]]:
    """A repository's scenarios by the table row each does (a function is named for its row)."""
    return {scenario.__name__: scenario for scenario in scenarios}


def commit_through_the_hook(repository: Path, file: str, old: str, new: str) -> None:
    """The pre-commit template installed as a reader installs it; a commit of `file` edited fails in the hook, its
    step is done as printed (commands run by the shell), and the commit passes."""
    env = shell_env(PRE_COMMIT_HOME=str(repository.parent / "pre-commit-home"))
    subprocess.run(["pre-commit", "install"], cwd=repository, env=env, check=True, capture_output=True)
    try:
        edit(repository, file, old, new)
        git(repository, "add", file)
        commit = ["git", "commit", "-q", "-m", f"{file}: {new}"]
        first = subprocess.run(commit, cwd=repository, env=env, capture_output=True, text=True, check=False)
        assert first.returncode == 1, first.stdout + first.stderr
        for command in commands(the_step(first.stdout + first.stderr, "hook")):
            done = subprocess.run(shlex.split(command), cwd=repository, env=env, capture_output=True, check=False)
            assert done.returncode == 0, command
        again = subprocess.run(commit, cwd=repository, env=env, capture_output=True, text=True, check=False)
        assert again.returncode == 0, again.stdout + again.stderr
    finally:
        (repository / ".git/hooks/pre-commit").unlink()


def pytest_rewrites(repository: Path, snapshots: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """A changed config fails `pytest --config-harness`; its step is `pytest --config-harness --snapshot-update`,
    which rewrites the goldens, and pytest passes after it. Returns what plain `pytest --snapshot-update` did first
    and what it changed in the snapshot folder (`git status --porcelain`; restored after it), for the caller to show
    why that is the wrong advice there."""
    env = shell_env()

    def pytest(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pytest", *arguments, "-q"], cwd=repository, env=env, capture_output=True, text=True, check=False)

    failing = pytest("--config-harness")
    assert failing.returncode == 1, failing.stdout
    (command,) = commands(the_step(failing.stdout, "regenerate"))
    assert command == "pytest --config-harness --snapshot-update"
    plain = pytest("--snapshot-update")
    touched = git(repository, "status", "--porcelain", snapshots)
    git(repository, "checkout", "-q", "--", snapshots)
    code, out = run_command(command, repository)
    assert code == 0, out
    again = pytest("--config-harness")
    assert again.returncode == 0, again.stdout
    return plain, touched


def green_after(repository: Path, capsys: pytest.CaptureFixture[str], name: str) -> str:
    """check fails printing step `name`, whose commands are run as printed; check is green after them. Its line."""
    line, _ = fails(repository, capsys, name)
    do(line, repository, capsys)
    assert check(repository, capsys)[0] == 0
    return line
