"""Issue 50 item 3, RAGEN's layout: the config folder is a link into a folder git does not hold (a submodule's
checkout). The review's copy of the base lacks it, so no launch composes there: the review says so and blocks,
never "nothing changed" while a launch's inherited value moved under it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree
from tests.synthetic_history import git

ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"


def test_a_base_whose_launches_compose_nowhere_blocks_the_review_and_says_why(tmp_path: Path, cli):
    write_tree(tmp_path / "vendor" / "conf", SMALL_TREE)
    (tmp_path / "conf").symlink_to("vendor/conf")
    (tmp_path / "harness.toml").write_text(SMALL_SETTINGS + '[[commands]]\nglob = "scripts/*.sh"\n')
    files = {
        "app/__init__.py": "",
        "app/main.py": ENTRY,
        "scripts/run.sh": "python -m app.main trainer.name=x\n",
        ".gitignore": "vendor/\n",
    }
    write_tree(tmp_path, files)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    train = tmp_path / "vendor" / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))  # every launch inherits it
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=tmp_path)
    (blind,) = [f for f in review.json()["findings"] if f["message"].startswith("no launch composed at main")]
    assert review.code == 1 and blind["severity"] == "error" and blind["source"] == "scripts/run.sh"
    assert "the config folder vendor/conf does not exist" in blind["message"]  # where the base's link leads
