"""`log` on a small project's real git history: it answers only what the walked range can answer, and says so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.synthetic_history import commit, git

SETTINGS = ("--settings", "harness.toml")


@pytest.fixture
def history(small_project: Path) -> dict[str, str]:
    """Commits on `main`: base, lr changed, epochs removed, epochs back; `side` forks from base with one commit."""
    train = small_project / "conf" / "train.yaml"
    git(small_project, "init", "-q", "-b", "main")
    commits = {"base": commit(small_project, "base")}
    git(small_project, "checkout", "-q", "-b", "side")
    (small_project / "conf" / "optimizer" / "adam.yaml").write_text("name: adam\nbetas: [0.8, 0.9]\n")
    commits["side"] = commit(small_project, "side edit")
    git(small_project, "checkout", "-q", "main")
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))
    commits["lr"] = commit(small_project, "lr 0.2")
    original = train.read_text()
    train.write_text(re.sub(r"(?m)^  epochs: 3\n", "", original))
    commits["removed"] = commit(small_project, "drop epochs")
    train.write_text(original)
    commits["back"] = commit(small_project, "epochs again")
    return commits


def one_line_usage_error(result) -> str:
    """The single stderr line of an exit-2 answer (no traceback, nothing on stdout)."""
    assert result.code == 2, (result.out, result.err)
    assert result.out == "" and len(result.err.strip().splitlines()) == 1, result.err
    return result.err.strip()


def test_a_misspelled_key_is_exit_2_naming_the_nearest_key(small_project, history, cli):
    line = one_line_usage_error(cli(*SETTINGS, "log", "trainer.lrr", "--case", "train/cpu/default", cwd=small_project))
    assert "never had the key trainer.lrr" in line and line.endswith("nearest existing key: trainer.lr")
    inner = one_line_usage_error(cli(*SETTINGS, "log", "device.kinds", "--case", "train/cpu/default", cwd=small_project))
    assert inner.endswith("nearest existing key: device.kind")


def test_a_misspelled_case_is_exit_2_naming_the_nearest_case(small_project, history, cli):
    line = one_line_usage_error(cli(*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/defualt", cwd=small_project))
    assert "case train/cpu/defualt is in no commit's matrix" in line
    assert line.endswith("nearest existing case: train/cpu/default")


def test_a_since_off_heads_line_walks_from_the_merge_base_as_git_does_and_says_so_once(small_project, history, cli):
    """`log --since side` answers what `git log side..HEAD` walks (issue 30 replaces the third round's exit 2)."""
    arguments = (*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--since", "side")
    text = cli(*arguments, cwd=small_project)
    assert text.code == 0, text.err
    lines = text.out.splitlines()
    assert lines[0] == (
        f"--since side ({history['side'][:12]}) is not an ancestor of HEAD: walked from their merge base "
        f"{history['base'][:12]}, as git's side..HEAD does; at side trainer.lr is 0.1"
    )
    assert sum("merge base" in line for line in lines) == 1
    assert lines[1].startswith(f"{history['lr'][:12]} ") and " 0.1 -> 0.2  lr 0.2" in lines[1]
    answer = cli(*arguments, "--format", "json", cwd=small_project).json()
    assert [c["commit"] for c in answer["changes"]] == [history["lr"]]
    since = answer["since"]
    assert (since["commit"], since["merge_base"], since["value"], since["present"]) == (history["side"], history["base"], 0.1, True)
    misspelled = one_line_usage_error(
        cli(*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--since", "sied", cwd=small_project)
    )
    assert "unknown git ref 'sied'" in misspelled and misspelled.endswith("nearest existing ref: side")
    # An ancestor is still an answer, and HEAD itself is an empty one.
    since_base = cli(
        *SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--since", history["base"], "--format", "json", cwd=small_project
    )
    assert since_base.code == 0 and [c["commit"] for c in since_base.json()["changes"]] == [history["lr"]]
    at_head = cli(*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--since", "HEAD", cwd=small_project)
    assert at_head.code == 0 and at_head.out.strip() == "0 change(s) of trainer.lr in train/cpu/default"


def test_a_key_gone_for_a_while_is_absent_not_none(small_project, history, cli):
    arguments = (*SETTINGS, "log", "trainer.epochs", "--case", "train/cpu/default")
    changes = cli(*arguments, "--format", "json", cwd=small_project).json()["changes"]
    described = [(c["commit"], c["old"], c["new"], c["old_present"], c["new_present"], c["exists"]) for c in changes]
    assert described == [
        (history["base"], None, 3, False, True, True),
        (history["removed"], 3, None, True, False, False),
        (history["back"], None, 3, False, True, True),
    ]
    text = cli(*arguments, cwd=small_project)
    assert text.code == 0 and "None" not in text.out
    assert [line.split("  ")[0].split(" ", 2)[2] for line in text.out.splitlines()[:-1]] == ["— -> 3", "3 -> —", "— -> 3"]


def test_a_key_absent_at_since_but_back_later_is_an_answer(small_project, history, cli):
    since = ("--since", history["removed"], "--format", "json")
    arguments = (*SETTINGS, "log", "trainer.epochs", "--case", "train/cpu/default", *since)
    result = cli(*arguments, cwd=small_project)
    assert result.code == 0, result.err
    (change,) = result.json()["changes"]
    assert (change["commit"], change["old_present"], change["new_present"], change["new"]) == (history["back"], False, True, 3)


def test_a_config_folder_git_does_not_hold_is_exit_2_saying_so(small_project, cli):
    (small_project / ".gitignore").write_text("conf/\n")
    git(small_project, "init", "-q", "-b", "main")
    commit(small_project, "settings only; the configs are fetched, not committed")
    run = cli("--settings", "harness.toml", "log", "trainer.lr", "--case", "train/cpu/default", cwd=small_project)
    assert run.code == 2 and "conf is not in git" in run.err and "no commit's matrix" not in run.err, run.err


def test_a_case_that_did_not_compose_before_a_commit_composes_from_that_commit_on(small_project, history, cli):
    """A value never appears from nothing: the case was broken before the fix, so the fix is where it composes from."""
    train = small_project / "conf" / "train.yaml"
    fixed = train.read_text()
    train.write_text(fixed.replace("optimizer@trainer.optim: adam", "optimizer@trainer.optim: gone"))
    broken = commit(small_project, "break the backend")
    train.write_text(fixed)
    repaired = commit(small_project, "fix the backend")
    arguments = (*SETTINGS, "log", "trainer.lr", "--case", "train/cpu/default", "--since", history["back"])
    changes = cli(*arguments, "--format", "json", cwd=small_project).json()["changes"]
    assert [(c["commit"], c["old_present"], c["new_present"], bool(c["composes_from"])) for c in changes] == [
        (broken, True, False, False),
        (repaired, False, True, True),
    ]
    assert changes[1]["composes_from"].startswith("the case did not compose: ")
    last = cli(*arguments, cwd=small_project).out.splitlines()[1]
    assert last.startswith(f"{repaired[:12]} ") and f"composes from {repaired[:12]} on: 0.2 (before it, the case did not compose: " in last
