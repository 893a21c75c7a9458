"""Issue 31's attacker pass on routes nobody had tried: each test is an attack, built as a pull request would
build it, and asserts what the review must still say. The one that found a hole is marked; the others hold."""

from __future__ import annotations

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import git

PROJECT = {
    "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n[[commands]]\nglob = "scripts/*.sh"\n',
    "conf/train.yaml": "model:\n  width: 3\n",
    "app/__init__.py": "",
    "app/main.py": "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n",
    "scripts/run.sh": "python -m app.main model.width=2\n",
}


@pytest.fixture
def base(tmp_path, cli):
    """A committed project whose launch composes at the base."""
    write_tree(tmp_path, PROJECT)
    git(tmp_path, "init", "-q", "-b", "main")
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


# Found by this pass: `.gitmodules` is text the pull request writes. Naming the deleted entry module's path there
# made the launch "a program in a submodule that is not checked out": no case, no finding, and the review passed.
# A submodule is now only what git records as one (a gitlink in the index).
def test_a_gitmodules_entry_cannot_excuse_a_deleted_entry_point(base, cli):
    (base / "app" / "main.py").unlink()
    (base / ".gitmodules").write_text('[submodule "x"]\n\tpath = app/main\n\turl = ext::sh -c touch% PWNED\n')
    git(base, "add", "-A")
    git(base, "commit", "-qm", "pr")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=base)
    assert review.code == 1
    (launch,) = [case for case in review.json()["cases"] if case["id"].startswith("cmd/")]
    assert any("app.main does not exist" in finding["message"] for finding in launch["findings"])
    assert not (base / "PWNED").exists()  # the URL is never handed to git


def test_gitmodules_paths_that_leave_the_project_or_read_as_options_are_ignored(base, cli):
    (base / "app" / "main.py").unlink()
    for path in ("../outside", "/etc", "-x", "app/../app/main"):
        (base / ".gitmodules").write_text(f'[submodule "x"]\n\tpath = {path}\n\turl = https://example.invalid/x\n')
        result = cli("--settings", "harness.toml", "check", cwd=base)
        assert result.code == 1 and "app.main does not exist" in result.out, path


def test_refs_named_like_options_are_one_line_exit_2(base, cli):
    for ref in ("--output=x", "-h", "--all", "HEAD\n--x"):
        # As CI passes a branch name: `--base=$REF` (argparse itself refuses a separate argument that starts with `-`).
        for arguments in (["diff", f"--base={ref}"], ["log", "model.width", "--case", "train/base/default", f"--since={ref}"]):
            result = cli("--settings", "harness.toml", *arguments, cwd=base)
            assert result.code == 2 and "not a git ref" in result.err, (ref, arguments)
    assert not (base / "x").exists()


# Found by this pass: a `pkg://` entry of `search_path` was found in installed metadata only. When CI installs the
# pull request's package (`pip install .`), that installed folder holds the pull request's configs, outside the
# repository, so a review composed its base from them too: base and change read the same files and the change
# vanished. The project's own package folder (below the settings' folder) is now the one read, at the ref in a review.
def test_a_pkg_search_path_of_the_projects_own_package_is_read_at_the_base(base, cli, monkeypatch, tmp_path_factory):
    write_tree(base, {"apppkg/__init__.py": "", "apppkg/conf/extra/x.yaml": "# @package _global_\nextra: 1\n"})
    settings = base / "harness.toml"
    settings.write_text('search_path = ["pkg://apppkg.conf"]\n' + settings.read_text())
    (base / "conf" / "train.yaml").write_text("defaults:\n  - extra: x\n  - _self_\nmodel:\n  width: 3\n")
    installed = tmp_path_factory.mktemp("site-packages")  # CI's `pip install .` of the pull request
    monkeypatch.syspath_prepend(str(installed))

    def install() -> None:
        write_tree(
            installed,
            {
                "apppkg-1.0.dist-info/METADATA": "Name: apppkg\nVersion: 1.0\n",
                "apppkg-1.0.dist-info/top_level.txt": "apppkg\n",
                "apppkg/conf/extra/x.yaml": (base / "apppkg/conf/extra/x.yaml").read_text(),
            },
        )

    install()
    generated = cli("--settings", "harness.toml", "generate", cwd=base)
    assert generated.code == 0, generated.err
    git(base, "add", "-A")
    git(base, "commit", "-qm", "package configs")
    (base / "apppkg/conf/extra/x.yaml").write_text("# @package _global_\nextra: 2\n")  # the pull request's change
    install()
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--compose-base", "--format", "json", cwd=base)
    changes = [(f["path"], f["old"], f["new"]) for case in review.json()["cases"] for f in case["findings"] if f["kind"] == "changed"]
    assert ("extra", 1, 2) in changes
