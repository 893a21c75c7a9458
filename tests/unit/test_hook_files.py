"""The pre-commit hook runs on every commit, so on every file that can change the verdict (issue 40 item 7; issue 53 item 6:
deletions and extensionless launch scripts), and its template names the package's own release (issue 45 item 6)."""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

from harness import __version__
from harness.adopt.programs import command_globs
from tests.conftest import SMALL_TREE, write_tree

ROOT = Path(__file__).resolve().parents[2]


def hooks() -> dict[str, dict[str, object]]:
    """The remote hook and the local template's, as pre-commit reads them (its defaults filled in)."""
    from pre_commit import clientlib

    (remote,) = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    (local,) = clientlib.load_config(str(ROOT / "templates" / "pre-commit-config.yaml"))["repos"][0]["hooks"]
    return {"remote": remote, "template": local}


def test_the_hook_runs_on_every_commit_whatever_it_stages(tmp_path):
    # pre-commit hands a hook only the files a commit adds, changes or renames: a commit deleting a golden stages none,
    # and a `files` pattern of extensions left out an extensionless launch script (issue 53 item 6). Only `always_run`
    # runs the hook on both; tests/e2e/test_package.py commits them with real pre-commit.
    project = write_tree(tmp_path, {f"conf/{name}": text for name, text in SMALL_TREE.items()})
    entry = "import hydra\n@hydra.main(config_path='conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
    write_tree(project, {"train.py": entry, "train_all.sh": "python train.py trainer.lr=0.3\n"})
    write_tree(project, {"scripts/run.sh": "python train.py trainer.epochs=1\n"})
    globs = command_globs(project, project / "conf")
    # The scripts init would read as launches (a root-level one too), as pre-commit names them: relative paths.
    assert all(any(fnmatch(script, glob) for glob in globs) for script in ["train_all.sh", "scripts/run.sh"]), globs
    for where, hook in hooks().items():
        assert hook["always_run"] is True and hook["pass_filenames"] is False, where
        # No filter that could make pre-commit skip it on a commit whose files it does not name.
        assert (hook["files"], hook["exclude"], hook["types_or"], hook["exclude_types"]) == ("", "^$", [], []), where
        assert hook["entry"] == "config-harness check --quiet" and hook["require_serial"] is True, where


def test_the_templates_remote_rev_is_the_package_version():
    text = (ROOT / "templates" / "pre-commit-config.yaml").read_text()
    assert re.findall(r"rev: (\S+)", text) == [f"v{__version__}"]
