"""A config's `hydra.searchpath` as Hydra has it: overrides replace it before any entry is checked, and an entry
that reads the environment (`file://${oc.env:PWD}`, schnetpack's train.yaml) is resolved without showing the value."""

from __future__ import annotations

import shutil
import subprocess

from tests.conftest import write_tree

TRAIN = "defaults:\n  - _self_\nhydra:\n  searchpath:\n    - file://${oc.env:APP_HOME}/shared\nx: 1\n"
SETTINGS = 'search_path_env = ["APP_HOME"]\nconfig_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n[presets]\nadam = ["+opt=adam"]\nnone = ["hydra.searchpath=[]"]\n'


def project(tmp_path):
    write_tree(
        tmp_path,
        {"conf/train.yaml": TRAIN, "shared/opt/adam.yaml": "lr: 1\n", "other/shared/opt/adam.yaml": "lr: 2\n", "harness.toml": SETTINGS},
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def messages(report):
    return {case["id"]: [f["message"] for f in case["findings"]] for case in report.json()["cases"]}


def test_an_unset_variable_is_an_error_naming_the_entry_and_the_variable_and_an_override_replaces_the_entry(tmp_path, cli, monkeypatch):
    root = project(tmp_path)
    monkeypatch.delenv("APP_HOME", raising=False)
    report = cli("--settings", "harness.toml", "check", "--format", "json", cwd=root)
    found = messages(report)
    assert found["train/base/adam"] == [
        "train.yaml: hydra.searchpath: search path entry 'file://${oc.env:APP_HOME}/shared' reads the environment variable "
        "APP_HOME, which is not set; set it, or replace the search path in a preset (hydra.searchpath=[...])"
    ]
    # Hydra never reads the config's entries when an override replaces them: the case composes (no golden yet).
    assert {c["id"]: c["status"] for c in report.json()["cases"]}["train/base/none"] == "new"


def test_the_environment_chooses_a_folder_inside_the_project_the_cache_keys_on_it_and_the_value_is_never_shown(tmp_path, cli, monkeypatch):
    root = project(tmp_path)
    monkeypatch.setenv("APP_HOME", str(root))
    assert cli("--settings", "harness.toml", "generate", cwd=root).code == 0
    golden = (root / "snapshots/_generated_train__base__adam.yaml").read_text()
    assert "lr: 1" in golden and str(root) not in golden
    assert cli("--settings", "harness.toml", "check").code == 0
    monkeypatch.setenv("APP_HOME", str(root / "other"))  # same files, another value: a cached composition must not hold
    cached, fresh = (cli("--settings", "harness.toml", *flag, "check", "--format", "json") for flag in ([], ["--no-cache"]))
    assert cached.code == fresh.code == 1 and messages(cached) == messages(fresh)
    assert [c["status"] for c in cached.json()["cases"] if c["id"] == "train/base/adam"] == ["changed"]

    outside = tmp_path.parent / f"{tmp_path.name}-outside-value"
    (outside / "shared/opt").mkdir(parents=True)
    (outside / "shared/opt/adam.yaml").write_text("lr: 3\n")
    monkeypatch.setenv("APP_HOME", str(outside))
    report = cli("--settings", "harness.toml", "check", "--format", "json")
    assert report.code == 1 and "outside-value" not in report.out + report.err
    assert messages(report)["train/base/adam"][0].startswith(
        "train.yaml: hydra.searchpath: search path entry 'file://${oc.env:APP_HOME}/shared' names, with the value of APP_HOME "
        "(not shown), a folder outside the project"
    )


def test_a_pull_request_reading_a_secret_into_its_search_path_learns_nothing(tmp_path, cli, monkeypatch):
    # The variable is not in search_path_env: the entry is refused before the environment is read, so a folder the
    # pull request commits under its guess of the value gives the same answer whether the guess is right or wrong.
    root = project(tmp_path)
    (root / "conf/train.yaml").write_text(TRAIN.replace("file://${oc.env:APP_HOME}/shared", "file://conf/${oc.env:CI_TOKEN}"))
    secret = "tok3n-v4lue-8c1f"
    monkeypatch.setenv("CI_TOKEN", secret)
    cache = tmp_path.parent / f"{tmp_path.name}-cache"
    answers = []
    for guess in (secret, "wrong-guess"):
        write_tree(root, {f"conf/{guess}/opt/adam.yaml": "lr: 7\n"})
        runs = [
            cli("--settings", "harness.toml", "--cache-dir", str(cache), *command, cwd=root)
            for command in (["generate"], ["check", "--format", "json"], ["list", "--format", "json"])
        ]
        assert all(secret not in run.out + run.err for run in runs)
        answers.append([(run.code, run.out.replace(guess, "GUESS"), run.err) for run in runs])
        shutil.rmtree(root / "conf" / guess)
        shutil.rmtree(root / "snapshots")
    assert answers[0] == answers[1]
    assert "reads the environment variable CI_TOKEN, which the settings do not allow; list it in search_path_env" in answers[0][1][1]
    stored = b"".join(path.read_bytes() for path in cache.rglob("*") if path.is_file())
    assert secret.encode() not in stored


def test_init_allows_the_variables_the_roots_own_search_paths_read(tmp_path, cli, monkeypatch):
    root = project(tmp_path)
    (root / "harness.toml").unlink()
    monkeypatch.setenv("APP_HOME", str(root))
    assert cli("init", "--config-dir", "conf", "--write", "harness.toml", cwd=root).code == 0
    assert 'search_path_env = ["APP_HOME"]' in (root / "harness.toml").read_text()
