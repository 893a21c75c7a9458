"""Issue 50 item 3, RAGEN's layout with its submodule checked out: the config tree is a link into a real git submodule
(or its root files are), and the review composes the base as it was, with the submodule's files at the commit the base
pins, so a pull request that changes an inherited value gets the changed launches compared (not blocked, not "0
launches"), and exits as `check` on its head does. Where the checkout lacks the commit the base pins, the review
blocks and names the submodule and the commit. A link leading out of the repository stays unread on both sides."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree
from tests.synthetic_history import git

ENTRY = "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n"
SCRIPT = "python -m app.main trainer.name=x\npython -m app.main --config-name legacy trainer.name=y\n"
SETTINGS = SMALL_SETTINGS.replace("jobs = 1\n", 'jobs = 1\ncontracts = ["contracts.yaml"]\n') + '[[commands]]\nglob = "scripts/*.sh"\n'
LINKED = ("train.yaml", "legacy.yaml", "backend")  # RAGEN's `config/ppo_trainer.yaml -> ../verl/...`: the rest is its own


def _upstream(root: Path, name: str = "upstream") -> Path:
    """A repository of its own holding the config tree, as verl is RAGEN's."""
    upstream = root / name
    write_tree(upstream / "conf", SMALL_TREE)
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", name)
    return upstream


def _project(root: Path, layout: str, cli) -> Path:
    """The project at its base commit, adopted: `vendor` a real submodule; `conf` a link to `vendor/conf` ("folder"),
    or a folder whose root configs and `backend` group are links into it and whose `optimizer` group is its own."""
    upstream = _upstream(root)
    project = root / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "vendor")
    if layout == "folder":
        (project / "conf").symlink_to("vendor/conf")
    else:
        (project / "conf").mkdir()
        for name in LINKED:
            (project / "conf" / name).symlink_to(f"../vendor/conf/{name}")
        shutil.copytree(upstream / "conf" / "optimizer", project / "conf" / "optimizer")
    write_tree(
        project,
        {
            "harness.toml": SETTINGS,
            "contracts.yaml": "contracts: []\n",
            "app/__init__.py": "",
            "app/main.py": ENTRY,
            "scripts/run.sh": SCRIPT,
        },
    )
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    return project


def _bump_submodule(project: Path) -> str:
    """The pull request moves the submodule to a commit that changes an inherited value, with the reason recorded."""
    vendor = project / "vendor"
    train = vendor / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))
    git(vendor, "commit", "-qam", "lr 0.2")
    old, new = git(project, "rev-parse", "HEAD:vendor"), git(vendor, "rev-parse", "HEAD")
    git(project, "add", "vendor")
    url = git(project, "config", "-f", ".gitmodules", "submodule.vendor.url")
    record = f"{{setting: submodule.vendor, old: {{commit: {old}, url: {url}}}, new: {{commit: {new}, url: {url}}}, reason: upstream lr}}"
    (project / "contracts.yaml").write_text(f"contracts: []\nchanges:\n  - {record}\n")
    return "trainer.lr"


def _edit_own_file(project: Path) -> str:
    """The pull request changes a value every launch inherits from the project's own file beside the links."""
    adam = project / "conf" / "optimizer" / "adam.yaml"
    adam.write_text(adam.read_text().replace("0.999", "0.99"))
    return "trainer.optim.betas"


def _review(project: Path, cli) -> tuple[int, dict, int]:
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    return review.code, review.json(), cli("--settings", "harness.toml", "check", cwd=project).code


@pytest.mark.parametrize(
    ("layout", "change"),
    [("folder", _bump_submodule), ("files", _bump_submodule), ("files", _edit_own_file)],
    ids=["folder-bump", "files-bump", "files-own"],
)
def test_a_base_linked_into_a_submodule_is_composed_as_it_was_and_its_launches_compared(tmp_path: Path, cli, layout, change):
    project = _project(tmp_path, layout, cli)
    key = change(project)
    stale, report, check = _review(project, cli)
    assert (stale, check) == (1, 1)  # goldens not regenerated: both say so
    assert report["counts"]["goldens"] > 0 and "goldens to regenerate" in report["verdict"]
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    code, report, check = _review(project, cli)
    assert (code, check) == (0, 0)
    launches = {c["id"]: c for c in report["cases"] if c["id"].startswith("cmd/")}
    assert sorted(launches) == ["cmd/scripts/run.sh#1", "cmd/scripts/run.sh#2"]
    for launch in launches.values():  # compared with what the base composed, not blocked and not "0 launches"
        assert launch["status"] == "changed" and key in {f["path"] for f in launch["findings"] if f["kind"] == "changed"}
    assert not [f for f in report["findings"] if f["severity"] == "error"]


def test_a_submodule_commit_its_checkout_lacks_blocks_the_review_naming_the_submodule_and_the_commit(tmp_path: Path, cli):
    """CI checked the submodule out shallow, at the pull request's commit: the base's commit is not there to read."""
    project = _project(tmp_path, "files", cli)
    pinned = git(project, "rev-parse", "HEAD:vendor")
    elsewhere = _upstream(tmp_path, "fork")  # the same files in another history: the base's commit is not in it
    shutil.rmtree(project / "vendor")
    shutil.rmtree(project / ".git" / "modules" / "vendor")
    git(project, "clone", "-q", str(elsewhere), "vendor")
    git(project, "add", "vendor")
    url = git(project, "config", "-f", ".gitmodules", "submodule.vendor.url")
    new = git(project / "vendor", "rev-parse", "HEAD")
    (project / "contracts.yaml").write_text(
        f"contracts: []\nchanges:\n  - {{setting: submodule.vendor, old: {{commit: {pinned}, url: {url}}}, "
        f"new: {{commit: {new}, url: {url}}}, reason: a fork}}\n"
    )
    code, report, _ = _review(project, cli)
    (blocked,) = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1 and blocked["source"] == "scripts/run.sh"
    assert blocked["message"].startswith("2 launches that compose now not compared at main: vendor at ")
    assert f"is a submodule at {pinned[:12]}, which its checkout does not hold" in blocked["message"]


def test_a_config_linked_out_of_the_repository_is_read_on_neither_side(tmp_path: Path, cli):
    """The confinement gate: a base whose config tree holds a link leading out of the repository composes with the
    link as it is, and the gate refuses to read through it there as in the working tree; the file it names is never
    read (its value appears nowhere), and the launch that needs it fails alike on both sides (not this change's)."""
    project = _project(tmp_path, "files", cli)
    (tmp_path / "secret.yaml").write_text("trainer:\n  token: SECRET-VALUE\n")
    (project / "conf" / "leak.yaml").symlink_to("../../secret.yaml")
    (project / "scripts" / "leak.sh").write_text("python -m app.main --config-name leak trainer.name=z\n")
    check = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a link out of the repository")
    _edit_own_file(project)
    code, report, _ = _review(project, cli)
    assert "SECRET-VALUE" not in check.out and "SECRET-VALUE" not in str(report)
    (leak,) = [c for c in report["cases"] if c["id"] == "cmd/scripts/leak.sh#1"]
    (refused,) = [f for f in leak["findings"] if "outside the project" in f["message"]]
    assert refused["origin"] == "at_base" and refused["severity"] == "warning"
