"""One verdict (issue 40 item 5): a corpus of changes to a small tree, each checked once with every format written
from the same run; every surface states the same verdict line, the same counts and the exit code that goes with it.

The heavy sweep (review, generate, pytest, separate processes) is tests/e2e/test_one_verdict_sweep.py."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import add_contracts, write_tree
from tests.synthetic_history import git

CONTRACTS = """
contracts:
  - name: gpu-count
    cases: "train/gpu/*"
    equal: {device.count: 8}
"""
ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


# name -> (change to the tree, blocking causes, goldens to regenerate)
CORPUS = {
    "nothing": (lambda root: None, 0, 0),
    "a changed value": (lambda root: edit(root / "conf/train.yaml", "lr: 0.1", "lr: 0.2"), 0, 5),
    "a removed key": (lambda root: edit(root / "conf/backend/gpu.yaml", "    qkv: qkv_proj\n", ""), 0, 4),
    "a contract break": (lambda root: edit(root / "conf/backend/gpu.yaml", "count: 8", "count: 4"), 1, 4),
    "a broken launch": (
        lambda root: write_tree(root, {"scripts/bad.sh": "python -m app.main trainer.name=run trainer.nosuch.key=1\n"}),
        1,
        0,
    ),
    "a missing golden": (lambda root: next((root / "snapshots").glob("*gpu__fast*")).unlink(), 0, 1),
}


@pytest.fixture
def committed(small_project, cli):
    """The small project with a contract, an entry point, a launch script and its goldens."""
    add_contracts(small_project, CONTRACTS)
    write_tree(
        small_project,
        {"app/__init__.py": "", "app/main.py": ENTRY, "scripts/run.sh": "python -m app.main trainer.name=run trainer.lr=0.3\n"},
    )
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text() + '[[commands]]\nglob = "scripts/*.sh"\n')
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    git(small_project, "init", "-q", "-b", "main")
    git(small_project, "add", "-A")
    git(small_project, "commit", "-qm", "base")
    return small_project


def surfaces(root: Path, cli) -> tuple[int, dict[str, str], dict]:
    """One check, every format written from it: the exit code, each surface's verdict line, the JSON document."""
    formats = ("json", "markdown", "github", "sarif", "junit", "comment")
    reports = [f"--report={name}:{root / ('report.' + name)}" for name in formats]
    run = cli("--settings", "harness.toml", "check", *reports)
    read = {name: (root / f"report.{name}").read_text() for name in formats}
    text = run.out.splitlines()
    document = json.loads(read["json"])
    markdown_first = read["markdown"].splitlines()[0]
    github = read["github"].splitlines()
    junit = ET.fromstring(read["junit"]).find("testsuite/system-out").text.splitlines()[-1]  # type: ignore[union-attr]
    verdicts = {
        "text first": text[0],
        "json": document["verdict"],
        "markdown": html.unescape(re.sub(r"\*\*(OK|FAILED)\*\*", r"\1", markdown_first).replace("\\", "")),
        "github first": github[0],
        "sarif": json.loads(read["sarif"])["runs"][0]["invocations"][0]["properties"]["verdict"],
        "junit": junit,
    }
    if not document["ok"]:  # a failing verdict ends the text and the log too; a passing one is said once
        verdicts |= {"text last": text[-1], "github last": github[-1]}
    else:
        assert sum(line == text[0] for line in text) == 1 and sum(line == github[0] for line in github) == 1
    return run.code, verdicts, {"json": document, "comment": json.loads(read["comment"])}


@pytest.mark.parametrize("change", list(CORPUS))
def test_every_surface_states_one_verdict_with_the_same_counts(committed, cli, change):
    apply, causes, goldens = CORPUS[change]
    apply(committed)
    code, verdicts, documents = surfaces(committed, cli)
    document, comment = documents["json"], documents["comment"]
    assert len(set(verdicts.values())) == 1, verdicts
    verdict = verdicts["json"]
    assert code == (0 if document["ok"] else 1) and verdict.startswith("OK: " if code == 0 else "FAILED: ")
    assert (document["counts"]["causes"], document["counts"]["goldens"]) == (causes, goldens), verdict
    # Stale goldens are one count, never one error per value; blocking causes are counted as the comment counts them.
    assert ("error" not in verdict.split(";", 1)[-1]) and (f"{goldens} golden" in verdict) == bool(goldens)
    assert comment["ok"] == document["ok"] and comment["counts"]["introduced_errors"] == causes
    # The summary never says nothing happened above a failing verdict.
    assert code == 0 or not document["summary"].startswith("Nothing changed"), document["summary"]
    # pytest (the plugin, as the pre-commit hook's users run it in CI) states the same verdict and fails with it.
    session = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--config-harness-settings", "harness.toml"],
        cwd=committed,
        capture_output=True,
        text=True,
        timeout=300,
    )
    stated = [line for line in session.stdout.splitlines() if line.startswith(("OK: ", "FAILED: "))]
    assert stated == [verdict] and session.returncode == code, session.stdout[-3000:]


@pytest.mark.parametrize("change", list(CORPUS))
def test_the_review_and_generate_block_on_the_same_causes_as_check(committed, cli, change):
    """What blocks blocks everywhere: the review (which shows differences from the base as news, and checks the
    pull request's own goldens as `check` on its head will) counts the same causes and goldens to regenerate as
    check and passes exactly when check does; `generate` (which writes the goldens) exits 1 exactly when check has a
    blocking cause; after it, check and the review agree again."""
    apply, causes, goldens = CORPUS[change]
    apply(committed)
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json").json()
    check = cli("--settings", "harness.toml", "check", "--format", "json").json()
    assert (review["counts"]["causes"], review["counts"]["goldens"]) == (causes, goldens), review["verdict"]
    assert review["ok"] == check["ok"] == (causes == 0 and goldens == 0), (review["verdict"], check["verdict"])
    generated = cli("--settings", "harness.toml", "generate")
    assert generated.code == (1 if causes else 0), generated.out
    after = cli("--settings", "harness.toml", "check", "--format", "json")
    assert after.code == generated.code and after.json()["counts"]["causes"] == causes, after.json()["verdict"]
    regenerated = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json").json()
    assert regenerated["counts"]["goldens"] == 0 and regenerated["ok"] == after.json()["ok"], regenerated["verdict"]
