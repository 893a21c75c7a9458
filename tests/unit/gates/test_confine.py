"""Where a run may read: the project (the git top level) and the folders the settings name; a search path entry
that would run code, let the environment choose a folder outside the project, or read host files is refused in one
line that never shows an environment value. (The search path's environment reads end to end: test_gates.py.)"""

import pytest
from omegaconf import OmegaConf

from harness.gates.confine import (
    UnsafeInput,
    defaults_problem,
    git_folder_problem,
    outside_problem,
    project_package_folder,
    project_root,
    resolved_search_path,
    search_path_problem,
    within,
)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "conf" / "extra").mkdir(parents=True)
    (root / "pkg" / "configs").mkdir(parents=True)
    (tmp_path / "host").mkdir()
    return root


def test_the_project_is_the_git_top_level(project, tmp_path):
    assert project_root(project / "conf" / "extra") == project.resolve()
    assert project_root(tmp_path / "host") == (tmp_path / "host").resolve()  # outside git: the folder itself
    assert within(project / "conf", (project,)) and not within(tmp_path / "host", (project,))


def test_a_path_outside_is_said_relative_to_the_project_with_how(project, tmp_path):
    assert outside_problem(project / "conf", (project,), "x") is None
    assert (
        outside_problem(project / ".." / "host", (project,), "entry")
        == "entry ../host lies outside the project through '..'; it is not read"
    )
    (project / "conf" / "out").symlink_to(tmp_path / "host")
    assert outside_problem(project / "conf" / "out", (project,), "entry").endswith(
        "lies outside the project through a symlink; it is not read"
    )


def test_nothing_is_written_into_a_git_folder(project):
    assert "lies inside the git folder" in git_folder_problem(project / ".git" / "hooks")
    assert git_folder_problem(project / "conf") is None


@pytest.mark.parametrize(
    "entry, said",
    [
        (3, "is not a string"),
        ("${oc.env:HOME}/conf", "uses an interpolation; the environment must not choose which files are read"),
        # Installed and not imported (the standard library's `this` prints on import): only importing would tell.
        ("pkg://this.configs", "would import the package 'this.configs'"),
        ("http://example.com/conf", "only folders inside the project may be searched"),
        ("/etc", "lies outside the project"),
    ],
)
def test_a_search_path_entry_that_could_run_code_or_read_the_host_is_refused(project, monkeypatch, entry, said):
    monkeypatch.chdir(project)
    assert said in search_path_problem(entry, (project,))


def test_allowed_search_path_entries(project, monkeypatch):
    monkeypatch.chdir(project)
    assert search_path_problem("file://conf/extra", (project,)) is None
    assert search_path_problem("conf/extra", (project,)) is None
    assert search_path_problem("pkg://hydra.conf", (project,)) is None  # Hydra's own, imported already
    assert search_path_problem("pkg://pkg.configs", (project,)) is None  # the project's own folder, read as files
    assert project_package_folder("pkg.configs", (project,)) == project / "pkg" / "configs"
    assert project_package_folder("pkg.no-such", (project,)) is None
    # Nothing installed provides it: Hydra skips it as "not available", and so does the harness (issue 54).
    assert search_path_problem("pkg://unit54_nothing_provides.configs", (project,)) is None


def test_the_environment_may_choose_a_folder_only_inside_the_project_and_is_never_shown(project, tmp_path, monkeypatch):
    monkeypatch.chdir(project)
    env = {"INSIDE": "conf/extra", "OUTSIDE": str(tmp_path / "host")}.get
    assert resolved_search_path(["${oc.env:INSIDE}"], (project,), env) == [("conf/extra", "${oc.env:INSIDE}")]
    assert resolved_search_path(["${oc.env:UNSET,conf/missing}"], (project,), env) == []  # no such folder: left out, as Hydra does
    with pytest.raises(UnsafeInput) as outside:
        resolved_search_path(["${oc.env:OUTSIDE}"], (project,), env)
    assert "OUTSIDE (not shown)" in str(outside.value) and str(tmp_path / "host") not in str(outside.value)
    with pytest.raises(UnsafeInput, match="reads the environment variable UNSET, which is not set"):
        resolved_search_path(["${oc.env:UNSET}"], (project,), env)
    with pytest.raises(UnsafeInput, match="which the settings do not allow; list it in search_path_env"):
        resolved_search_path(["${oc.env:INSIDE}"], (project,), env, allowed_env=frozenset({"OTHER"}))
    with pytest.raises(UnsafeInput, match=r"uses an interpolation other than \$\{oc.env:NAME\}"):
        resolved_search_path(["${now:%Y}"], (project,), env)


def test_a_defaults_entry_may_not_call_a_resolver():
    assert defaults_problem(OmegaConf.create(["db: mysql", {"backend": "cpu"}])) is None
    assert "calls a resolver" in defaults_problem(OmegaConf.create([{"backend": "${oc.env:TOKEN}"}]))
    assert defaults_problem(None) is None
