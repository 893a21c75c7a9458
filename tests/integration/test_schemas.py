"""ConfigStore applications: the settings' `schemas` modules are imported before composing, by the CLI and pytest alike.

ConfigStore is process-global: each test registers nodes under names of its own, and `clean_config_store` puts
the store and the imported modules back as they were, so no other test sees them.
"""

from __future__ import annotations

import copy
import itertools
import sys

import pytest
from hydra.core.config_store import ConfigStore

from tests.conftest import write_tree

_COUNTER = itertools.count()

REGISTERING_MODULE = """
from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore


@dataclass
class DeviceSchema:
    kind: str = "cpu"
    count: int = 1
    extra: dict = field(default_factory=lambda: {{"pinned": True}})


ConfigStore.instance().store(name="{node}", group="backend", node=DeviceSchema)
"""

TREE = {
    "train.yaml": "defaults:\n  - backend: cpu\n  - _self_\nlr: 0.1\n",
    "backend/cpu.yaml": "defaults:\n  - {node}\n  - _self_\nkind: cpu\n",
    "backend/gpu.yaml": "defaults:\n  - {node}\n  - _self_\nkind: cuda\ncount: 8\n",
}


@pytest.fixture(autouse=True)
def clean_config_store():
    store = ConfigStore.instance()
    saved, modules = copy.deepcopy(store.repo), set(sys.modules)
    yield
    store.repo = saved
    for name in set(sys.modules) - modules:
        if "_schemas_" in name:
            del sys.modules[name]


def configstore_app(tmp_path, monkeypatch, with_schemas: bool, node: str = ""):
    """A project whose backend options build on a schema registered from Python by module `appN_schemas`."""
    number = next(_COUNTER)
    module, node = f"app{number}_schemas_{tmp_path.name[-6:]}", node or f"device_schema_{number}"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / f"{module}.py").write_text(REGISTERING_MODULE.format(node=node), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))  # as if installed
    write_tree(tmp_path / "conf", {name: text.format(node=node) for name, text in TREE.items()})
    schemas = f'schemas = ["{module}"]\n' if with_schemas else ""
    (tmp_path / "harness.toml").write_text(
        f'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\nengine_group = "backend"\n{schemas}',
        encoding="utf-8",
    )
    return module, node


def test_schemas_compose_and_schema_nodes_are_not_engines(tmp_path, monkeypatch, cli):
    module, node = configstore_app(tmp_path, monkeypatch, with_schemas=True)
    listed = cli("--settings", "harness.toml", "list", "--format", "json", cwd=tmp_path).json()["cases"]
    assert [case["id"] for case in listed] == ["train/cpu/default", "train/gpu/default"]  # not train/<node>/default
    assert cli("--settings", "harness.toml", "generate").code == 0
    golden = (tmp_path / "snapshots" / "_generated_train__gpu__default.yaml").read_text(encoding="utf-8")
    assert "count: 8" in golden and "pinned: true" in golden  # the schema's defaults, merged under the file
    assert cli("--settings", "harness.toml", "check").code == 0


def test_without_schemas_the_error_says_in_one_line_how_to_register(tmp_path, monkeypatch, cli):
    # A name unlike any other test's: one close to a registered option would read as a typo.
    _, node = configstore_app(tmp_path, monkeypatch, with_schemas=False, node="never_registered_anywhere")
    result = cli("--settings", "harness.toml", "check", "--format", "json", cwd=tmp_path)
    assert result.code == 1
    messages = {f["message"] for case in result.json()["cases"] for f in case["findings"] if f["kind"] == "error"}
    assert messages == {
        f"In 'backend/{option}': Could not load 'backend/{node}'. ('backend/{node}': probably registered from Python "
        "(ConfigStore); name its module in the settings' `schemas`)"
        for option in ("cpu", "gpu")
    }


def test_a_typo_gets_no_configstore_hint(tmp_path, monkeypatch, cli):
    configstore_app(tmp_path, monkeypatch, with_schemas=True)
    (tmp_path / "conf" / "train.yaml").write_text("defaults:\n  - backend: cpuu\n  - _self_\n", encoding="utf-8")
    result = cli("--settings", "harness.toml", "check", "--format", "json", cwd=tmp_path)
    assert "ConfigStore" not in result.out


def test_a_module_that_cannot_be_imported_is_one_line_exit_2(tmp_path, monkeypatch, cli):
    configstore_app(tmp_path, monkeypatch, with_schemas=False)
    settings = tmp_path / "harness.toml"
    settings.write_text('schemas = ["no_such_module_anywhere"]\n' + settings.read_text(), encoding="utf-8")
    result = cli("--settings", "harness.toml", "check", cwd=tmp_path)
    assert result.code == 2 and len(result.err.splitlines()) == 1
    assert "schemas: cannot import 'no_such_module_anywhere' (ModuleNotFoundError" in result.err
    settings.write_text('schemas = ["not a module"]\n' + settings.read_text(), encoding="utf-8")
    assert cli("--settings", "harness.toml", "check").code == 2


def test_pytest_plugin_imports_the_same_schemas_and_agrees_with_the_cli(tmp_path, monkeypatch, cli, pytester):
    module, _ = configstore_app(tmp_path, monkeypatch, with_schemas=True)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--config-harness-settings", str(tmp_path / "harness.toml"), str(tmp_path / "harness.toml"), "-q"
    )
    result.assert_outcomes(passed=5)  # two cases × (golden, semantics), and orphans


def test_a_review_imports_only_the_bases_schemas(tmp_path, monkeypatch, cli):
    from tests.synthetic_history import git

    module, node = configstore_app(tmp_path, monkeypatch, with_schemas=False)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base without schemas")
    settings = tmp_path / "harness.toml"
    settings.write_text(f'schemas = ["{module}"]\n' + settings.read_text(), encoding="utf-8")
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=tmp_path)
    (change,) = [f for f in result.json()["findings"] if f["kind"] == "settings_change"]
    assert (change["path"], change["new"], change["severity"]) == ("schemas", [module], "error") and result.code == 1
    assert module not in sys.modules  # the pull request's module never ran
    assert {case["status"] for case in result.json()["cases"]} == {"error"}


def test_a_case_that_cannot_be_composed_is_under_its_own_heading(tmp_path, monkeypatch, cli):
    configstore_app(tmp_path, monkeypatch, with_schemas=False, node="never_registered_anywhere")
    text = cli("--settings", "harness.toml", "check", cwd=tmp_path).out
    assert "Composition and YAML errors (" in text and "Errors and contract changes" not in text
    generate = cli("--settings", "harness.toml", "generate").out
    assert "0 golden(s) written: 0 new, 0 changed; 0 unchanged; 2 error(s)" in generate


def test_a_deleted_config_file_is_said_to_be_deleted_not_registered_from_python(tmp_path, cli):
    """verl with `legacy_reward_impl.yaml` deleted: its root's `- legacy_reward_impl` entry cannot load, and the file
    was deleted, not registered from Python. Said for a deletion not yet committed and for a commit that deleted it,
    in the cases and in the launches that compose the same root (issue 56)."""
    from tests.synthetic_history import git

    write_tree(
        tmp_path,
        {
            "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n[[commands]]\nglob = "run.sh"\n'
            '[[routes]]\nname = "legacy"\nconfig_name = "legacy_reward"\n',
            "conf/train.yaml": "defaults:\n  - legacy_reward\n  - _self_\nlr: 0.1\n",
            "conf/legacy_reward.yaml": "reward: 1\n",
            "train.py": "import hydra\n\n\n@hydra.main(config_path='conf', config_name='train', version_base=None)\ndef main(cfg):\n"
            "    pass\n",
            "run.sh": "python3 train.py lr=0.2\n",
        },
    )
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    git(tmp_path, "rm", "-q", "conf/legacy_reward.yaml")

    def messages() -> set[str]:
        result = cli("--settings", "harness.toml", "check", "--format", "json")
        assert result.code == 1 and "ConfigStore" not in result.out, result.out
        return {f["message"] for case in result.json()["cases"] for f in case["findings"] if f["severity"] == "error"}

    said = "In 'train': Could not load 'legacy_reward'. ('legacy_reward': conf/legacy_reward.yaml was deleted"
    route = "Cannot find primary config 'legacy_reward'. Check that it's in your config search path. (conf/legacy_reward.yaml was deleted"
    assert messages() == {
        f"{said} (the last commit has it); restore it, or remove what names it)",
        f"does not compose: train: {said} (the last commit has it); restore it, or remove what names it)",
        f"{route} (the last commit has it))",
    }
    git(tmp_path, "commit", "-q", "-m", "drop the legacy reward")
    commit = git(tmp_path, "rev-parse", "--short", "HEAD")
    assert messages() == {
        f"{said} by commit {commit} (drop the legacy reward); restore it, or remove what names it)",
        f"does not compose: train: {said} by commit {commit} (drop the legacy reward); restore it, or remove what names it)",
        f"{route} by commit {commit} (drop the legacy reward))",
    }
