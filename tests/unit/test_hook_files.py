"""The pre-commit hook runs on every file that can change the verdict (issue 40 item 7), and its template names the
package's own release (issue 45 item 6)."""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

import yaml

from harness import __version__
from harness.adopt import KNOWN_NAME, command_globs
from harness.rules.known_entries import KNOWN_FILE
from tests.conftest import SMALL_TREE, write_tree

ROOT = Path(__file__).resolve().parents[2]


def hook_patterns() -> dict[str, str]:
    """The `files` regex of the remote hook and of the local template, as pre-commit reads them."""
    (remote,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (local,) = yaml.safe_load((ROOT / "templates" / "pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    return {"remote": remote["files"], "template": local["files"]}


def test_the_hook_runs_on_launch_scripts_python_sources_settings_contracts_and_the_known_file(tmp_path):
    project = write_tree(tmp_path, {f"conf/{name}": text for name, text in SMALL_TREE.items()})
    entry = "import hydra\n@hydra.main(config_path='conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
    write_tree(project, {"train.py": entry, "train_all.sh": "python train.py trainer.lr=0.3\n"})
    write_tree(project, {"scripts/run.sh": "python train.py trainer.epochs=1\n"})
    globs = command_globs(project, project / "conf")
    # The scripts init would read as launches (a root-level one too), as pre-commit names them: relative paths.
    scripts = ["train_all.sh", "scripts/run.sh"]
    assert all(any(fnmatch(script, glob) for glob in globs) for script in scripts), globs
    changed = [
        *scripts,
        "train.py",  # a python_sources file: its classes decide the program view
        "conf/train.yaml",
        "conf/backend/gpu.yml",
        "pyproject.toml",
        "harness.toml",
        "config-harness/contracts.yaml",
        KNOWN_FILE,
        f"contracts/{KNOWN_NAME}",
    ]
    for where, pattern in hook_patterns().items():
        assert [path for path in changed if not re.search(pattern, path)] == [], where
        assert not re.search(pattern, "README.md") and not re.search(pattern, "docs/index.html"), where


def test_the_templates_remote_rev_is_the_package_version():
    text = (ROOT / "templates" / "pre-commit-config.yaml").read_text()
    assert re.findall(r"rev: (\S+)", text) == [f"v{__version__}"]
