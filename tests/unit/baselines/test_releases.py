"""Fetching a release's config tree from its wheel, without the network: only the folder asked for (and `.py`
files below the code folder) is unpacked, a member that would land outside is refused, a folder fetch did not make
is never replaced, and a tree already fetched is not fetched again."""

import zipfile

import pytest

from harness.baselines.releases import STAMP, FetchError, fetch_wheel_tree, refuse_to_replace, unpack_wheel


def wheel(tmp_path, members):
    path = tmp_path / "app-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_only_the_tree_and_the_code_asked_for_are_unpacked(tmp_path):
    built = wheel(tmp_path, {"app/conf/a.yaml": "a: 1\n", "app/conf/sub/b.yaml": "b: 2\n", "app/train.py": "x = 1\n", "app/data.bin": "x"})
    staging = tmp_path / "staging"
    staging.mkdir()
    unpack_wheel(built, "app/conf/", staging, code="app/")
    found = sorted(str(p.relative_to(staging)) for p in staging.rglob("*") if p.is_file())
    assert found == ["app/conf/a.yaml", "app/conf/sub/b.yaml", "app/train.py"]


def test_a_member_that_would_land_outside_or_nothing_to_unpack_is_refused(tmp_path):
    staging = tmp_path / "staging"
    staging.mkdir()
    with pytest.raises(FetchError, match=r"refusing unsafe member app/conf/../../escape.yaml"):
        unpack_wheel(wheel(tmp_path, {"app/conf/../../escape.yaml": "x"}), "app/conf/", staging)
    with pytest.raises(FetchError, match="has no app/conf/"):
        unpack_wheel(wheel(tmp_path, {"other/a.yaml": "x"}), "app/conf/", staging)
    (tmp_path / "broken.whl").write_bytes(b"not a zip")
    with pytest.raises(FetchError, match="broken.whl: File is not a zip file"):
        unpack_wheel(tmp_path / "broken.whl", "", staging)
    assert not (tmp_path / "escape.yaml").exists()


def test_a_folder_fetch_did_not_make_is_never_replaced(tmp_path):
    refuse_to_replace(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    refuse_to_replace(tmp_path / "empty")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep\n")
    with pytest.raises(FetchError, match=f"exists and was not made by fetch \\(no {STAMP} in it\\)"):
        refuse_to_replace(tmp_path / "mine")
    (tmp_path / "mine" / STAMP).write_text("x\n")
    refuse_to_replace(tmp_path / "mine")


def test_a_tree_already_fetched_is_not_fetched_again_and_a_bad_requirement_is_refused(tmp_path):
    into = tmp_path / "tree"
    (into / "app" / "conf").mkdir(parents=True)
    (into / STAMP).write_text("app==1.0 app/conf\n")
    assert fetch_wheel_tree("app==1.0", "app/conf", into) == into / "app/conf"  # the stamp matches: no download
    with pytest.raises(FetchError, match="is not a pinned package requirement such as 'verl==0.9.1'"):
        fetch_wheel_tree("app==1.0 ; rm -rf /", "app/conf", tmp_path / "other")
    with pytest.raises(FetchError, match="lies inside the git folder"):
        fetch_wheel_tree("app==1.0", "app/conf", tmp_path / ".git" / "tree")


def test_two_fetches_of_one_tree_at_once_unpack_it_once_and_never_replace_it_under_the_other(tmp_path, monkeypatch):
    """Two pytest-xdist workers fetched the same wheel at once: the second removed the folder the first was copying
    (a shutil.Error on every file). The second now waits for the first, finds its stamp and leaves the tree alone."""
    import threading
    import time

    from harness.baselines import releases

    unpacked: list[str] = []

    def slow_unpack(wheel: str, unpack: str, into, stamped: str, python: str) -> None:
        unpacked.append(wheel)
        time.sleep(0.3)  # long enough for the other fetch to arrive while this one is unpacking
        (into / unpack).mkdir(parents=True)
        (into / STAMP).write_text(f"{stamped}\n")

    monkeypatch.setattr(releases, "_unpack_wheel_into", slow_unpack)
    into = tmp_path / "cache" / "app-1.0"
    found: list[object] = []
    fetches = [threading.Thread(target=lambda: found.append(fetch_wheel_tree("app==1.0", "conf", into))) for _ in range(2)]
    for fetch in fetches:
        fetch.start()
    for fetch in fetches:
        fetch.join()
    assert unpacked == ["app==1.0"]
    assert found == [into / "conf", into / "conf"]


def test_pip_download_never_imports_a_pip_package_of_the_working_folder(tmp_path, monkeypatch):
    # A review runs in the pull request's checkout: `python -m pip` there imported a committed `pip/` (issue 53).
    mark = tmp_path / "ran"
    (tmp_path / "checkout" / "pip").mkdir(parents=True)
    (tmp_path / "checkout" / "pip" / "__init__.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path / "checkout")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    with pytest.raises(FetchError, match="pip download app==1.0 failed"):
        fetch_wheel_tree("app==1.0", "app/conf/", tmp_path / "tree")
    assert not mark.exists()
