"""Entry points read as Python reads them (issue 42 item 4, issue 41 item 4): module-level constants and `Final`
names, paths built from `__file__` through a few assignments, `pkg://` config paths; a value that is not static is
text wherever a value is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.readers.entries import NotStatic, entry_configs, hydra_main
from harness.runner.launch_review import entry_arguments

FILE = Path("/repo/app/train.py")


@pytest.mark.parametrize(
    ("above", "written", "expected"),
    [
        ('ROOT = "ppo_trainer"\n', "config_name=ROOT", {"config_name": "ppo_trainer"}),
        ('from typing import Final\nNAME: Final = "ppo"\n', "config_name=NAME", {"config_name": "ppo"}),
        ('NAME: Final[str] = "ppo"\nFULL = NAME + "_v2"\n', "config_name=FULL", {"config_name": "ppo_v2"}),
        ('STEM = "ppo"\n', 'config_name=f"{STEM}_trainer"', {"config_name": "ppo_trainer"}),
        (
            "HERE = os.path.dirname(__file__)\nCONF = os.path.join(HERE, 'config')\n",
            "config_path=CONF",
            {"config_path": "/repo/app/config"},
        ),
        ("HERE = Path(__file__).parent\nCONF = HERE / 'conf'\n", "config_path=str(CONF)", {"config_path": "/repo/app/conf"}),
        ("", 'config_path="pkg://litdet.configs"', {"config_path": "pkg://litdet.configs"}),
        ('ROOT = "late"\n', "config_name=ROOT", {"config_name": "late"}),
    ],
)
def test_static_arguments_through_module_level_names(above, written, expected):
    source = f"import os\nimport hydra\nfrom pathlib import Path\n{above}@hydra.main({written})\ndef main(cfg): ...\n"
    assert hydra_main(source, FILE) == expected


def test_a_name_assigned_after_the_decorator_or_in_a_circle_is_not_static():
    after = hydra_main("import hydra\n@hydra.main(config_name=ROOT)\ndef main(cfg): ...\nROOT = 'x'\n", FILE)
    assert after == {"config_name": NotStatic("`ROOT` is not a module-level constant")}
    circle = hydra_main("import hydra\nA = B\nB = A\n@hydra.main(config_name=A)\ndef main(cfg): ...\n", FILE)
    assert isinstance(circle["config_name"], NotStatic) and "names to reach a value" in circle["config_name"].why
    assert str(after["config_name"]) == "not static: `ROOT` is not a module-level constant"


def test_an_entry_change_with_a_name_or_a_value_not_static_is_json():
    """Issue 41: `config_name=ROOT` with `ROOT = "..."` above died with `TypeError: Object of type NotStatic is not
    JSON serializable` in the entry change's text."""
    texts = {
        "app/main.py": 'import hydra\nROOT = "ppo"\n@hydra.main(config_path="conf", config_name=ROOT)\ndef main(cfg): ...\n',
        "app/other.py": 'import hydra\n@hydra.main(config_path="conf", config_name=pick())\ndef main(cfg): ...\n',
    }

    def read(entry: str, is_module: bool):
        path = entry.replace(".", "/") + ".py"
        return (path, texts[path]) if path in texts else None

    constant, _ = entry_arguments(read, "app.main", True, {})
    assert constant["config_name"] == "ppo"
    computed, _ = entry_arguments(read, "app.other", True, {})
    assert computed["config_name"] == "not static: `pick()` is neither a literal nor a path built from __file__"
    json.dumps(computed)


def test_init_gets_each_entry_point_with_its_folder_resolved(tmp_path):
    (tmp_path / "src/litdet/configs").mkdir(parents=True)
    (tmp_path / "tools/conf").mkdir(parents=True)
    (tmp_path / "src/litdet/train.py").write_text(
        'import hydra\n@hydra.main(config_path="pkg://litdet.configs", config_name="train")\ndef main(c): ...\n'
    )
    (tmp_path / "tools/run.py").write_text(
        'import hydra\nfrom pathlib import Path\nCONF = Path(__file__).parent / "conf"\nNAME = "base"\n'
        "@hydra.main(config_path=str(CONF), config_name=NAME)\ndef main(c): ...\n"
    )
    (tmp_path / "tools/bad.py").write_text('import hydra\n@hydra.main(config_path="pkg://nowhere.conf")\ndef main(c): ...\n')
    found = {e.module: (e.config_dir, e.config_name) for e in entry_configs(sorted(tmp_path.rglob("*.py")), tmp_path)}
    assert found["litdet.train"] == ((tmp_path / "src/litdet/configs").resolve(), "train")
    assert found["tools.run"] == ((tmp_path / "tools/conf").resolve(), "base")
    bad, name = found["tools.bad"]
    assert isinstance(bad, NotStatic) and "pkg://nowhere.conf names no package folder" in bad.why and name is None


def test_a_launch_of_an_entry_with_a_pkg_config_path_composes_from_the_package_folder(tmp_path):
    """Issue 42: `@hydra.main(config_path="pkg://litdet.configs")` was "no @hydra.main" / a folder next to the file."""
    from harness.runner.launches import Entry, Project

    (tmp_path / "litdet/configs").mkdir(parents=True)
    (tmp_path / "litdet/__init__.py").write_text("")
    (tmp_path / "litdet/train.py").write_text(
        'import hydra\nNAME = "train"\n@hydra.main(config_path="pkg://litdet.configs", config_name=NAME, version_base=None)\ndef main(c): ...\n'
    )
    entry = Project(tmp_path, tmp_path / "litdet/configs", {}).entry("litdet.train", True)
    assert entry == Entry((tmp_path / "litdet/configs").resolve(), "train", None)


def test_a_package_s_files_are_its_folder_above_the_file(tmp_path):
    """F5-TTS: `files("f5_tts").joinpath("configs")` is the package's folder, found above the file, never imported."""
    import ast

    from harness.readers.entries import NotStatic, static_value

    (tmp_path / "f5_tts" / "train").mkdir(parents=True)
    file = tmp_path / "f5_tts" / "train" / "train.py"
    node = ast.parse('str(files("f5_tts").joinpath("configs"))', mode="eval").body
    assert static_value(node, file) == (tmp_path / "f5_tts" / "configs").as_posix()
    missing = static_value(ast.parse('files("nowhere_pkg")', mode="eval").body, file)
    assert isinstance(missing, NotStatic) and "not a folder above the file" in missing.why


def test_a_module_is_found_as_python_finds_it_with_vendored_projects_installed(tmp_path):
    from harness.readers.entries import is_package_of, module_file
    from tests.conftest import write_tree

    write_tree(
        tmp_path,
        {
            "verl/setup.py": "",
            "verl/verl/__init__.py": "",
            "verl/verl/trainer/main_ppo.py": "",
            "tools/run.py": "",
            "sglang/serve.sh": "",
            "ns/pkg/mod.py": "",
        },
    )
    assert module_file("verl.trainer.main_ppo", tmp_path) == tmp_path / "verl/verl/trainer/main_ppo.py"
    assert module_file("tools.run", tmp_path) == tmp_path / "tools/run.py"  # a namespace package at the root
    assert module_file("verl.nothing", tmp_path) is None
    assert is_package_of("verl.trainer.main_ppo", tmp_path) and is_package_of("ns.pkg.mod", tmp_path)
    assert not is_package_of("sglang.launch_server", tmp_path)  # a folder with the name holds no package
