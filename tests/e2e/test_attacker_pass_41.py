"""Issue 41's fresh attacker pass: each test is a hostile pull request against a project that adopted the harness,
built as that pull request would build it, asserting what the review must still say. Tests marked `xfail(strict)`
are holes this pass found and did not fix (the docstring names the hole); the others are probes that held."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import git

SETTINGS = (
    'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\ncontracts = ["known.yaml"]\n[[commands]]\nglob = "scripts/*.sh"\n'
)
PROJECT = {
    "harness.toml": SETTINGS,
    "known.yaml": "waivers: []\n",
    "conf/train.yaml": "model:\n  width: 3\n",
    "app/__init__.py": "",
    "app/main.py": "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n",
}


def adopt(root, cli, files: dict[str, str]) -> None:
    """Commit the project on main as an adopting team would: goldens generated, what it already has recorded as known."""
    write_tree(root, {**PROJECT, **files})
    git(root, "init", "-q", "-b", "main")
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=root).code in (0, 1)
    assert cli("--settings", "harness.toml", "known", "--file", "known.yaml", cwd=root).code == 0
    assert cli("--settings", "harness.toml", "check", cwd=root).code == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "adopt")


def pull_request(root, files: dict[str, str]) -> None:
    """The change on a branch of its own: `diff --base main` then compares it with the adopted main, not with itself."""
    git(root, "checkout", "-q", "-b", "pr")
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "pr")


def review(root, cli, *extra: str):
    return cli("--settings", "harness.toml", "diff", "--base", "main", *extra, cwd=root)


def test_a_launch_known_as_unreached_changes_its_values_unseen(tmp_path, cli):
    """Hole (high, fixed): a known `bash stops before it` entry named a whole launch, whose values were never composed,
    so a PR edited its overrides unseen. It is composed and compared like any launch now: the review names the changed
    value with its script line (as it does for a launch bash reaches, whose changed values are `info`), and the stop
    is still an error at the launch's line that only the known entry naming that cause excuses."""
    script = "set -u\nROOT=${{ROOT_DIR:-$HOME_BASE/x}}\npython -m app.main model.width={}\n"
    adopt(tmp_path, cli, {"scripts/run.sh": script.format(2)})
    pull_request(tmp_path, {"scripts/run.sh": script.format(9)})  # what runs wherever HOME_BASE is set: width 9
    result = review(tmp_path, cli, "--format", "json")
    (launch,) = [c for c in json.loads(result.out)["cases"] if c["id"] == "cmd/scripts/run.sh#1"]
    changed = [(f["path"], f["old"], f["new"], f["source"]) for f in launch["findings"] if f["kind"] == "changed"]
    assert (launch["status"], changed) == ("changed", [("model.width", 2, 9, "scripts/run.sh:3")]), result.out
    (stop,) = [f for f in launch["findings"] if f["kind"] == "launch"]
    assert stop["message"].startswith("bash stops before it: bash stops before this launch runs, at scripts/run.sh:2: HOME_BASE")
    assert (stop["source"], stop["status"]) == ("scripts/run.sh:3", "known"), stop


# What bash assigns through a command the shell reader does not model: each line sets W=9 in bash (checked with real
# bash on the launch below), while the reader kept W=1 and called the launch extracted, so the review saw no change.
UNMODELED_ASSIGNMENTS = {
    "eval": "eval 'W=9'\n",
    "read": 'read -r W <<< "9"\n',
    "printf -v": "printf -v W '%s' 9\n",
    "declare -n": "declare -n R=W\nR=9\n",
    "declare computed": 'N=W\ndeclare "$N=9"\n',
    "trap DEBUG": "trap 'W=9' DEBUG\n",
}


@pytest.mark.parametrize("line", UNMODELED_ASSIGNMENTS.values(), ids=UNMODELED_ASSIGNMENTS.keys())
def test_an_assignment_the_shell_reader_does_not_model_changes_a_launch_unseen(tmp_path, cli, line):
    """Hole (high, fixed): a PR set a launch's value through eval/read/printf -v/declare/trap; the reader kept the old value
    (exit 0). What such a command may assign is unknown from there on: the launch is not extracted, naming the line."""
    adopt(tmp_path, cli, {"scripts/run.sh": "W=1\npython -m app.main model.width=$W\n"})
    pull_request(tmp_path, {"scripts/run.sh": "W=1\n" + line + "python -m app.main model.width=$W\n"})
    result = review(tmp_path, cli)
    assert result.code != 0, result.out  # the launch now runs width 9, or at least it is no longer known what it runs


def test_a_new_launch_after_a_known_stop_is_not_already_at_base(tmp_path, cli):
    """Hole (high, fixed): a PR adds a launch after a known `set -u` stop; its error was 'already at base' (exit 0)."""
    script = "set -u\nROOT=${ROOT_DIR:-$HOME_BASE/x}\npython -m app.main model.width=2\n"
    adopt(tmp_path, cli, {"scripts/run.sh": script})
    pull_request(tmp_path, {"scripts/run.sh": script + "python -m app.main model.width=777 +model.evil=1\n"})
    result = review(tmp_path, cli)
    assert result.code == 1 and "already at base" not in result.out, result.out
