"""What init reads of the programs around a tree: pytest settings, computed entry points, Python sources, scripts."""

from __future__ import annotations


def test_testpaths_that_hide_the_golden_tests_get_a_note_with_the_fix(tmp_path):
    from harness.adopt.programs import pytest_hides_goldens

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.pytest.ini_options]\ntestpaths = "tests/"\n')
    assert pytest_hides_goldens(pyproject, tmp_path).endswith('write testpaths = ["tests/", "pyproject.toml"]')
    pyproject.write_text('[tool.pytest.ini_options]\ntestpaths = ["tests", "pyproject.toml"]\n')
    assert pytest_hides_goldens(pyproject, tmp_path) is None
    pyproject.write_text("[tool.pytest.ini_options]\naddopts = '-q'\n")
    assert pytest_hides_goldens(pyproject, tmp_path) is None  # no testpaths: pytest walks the rootdir
    assert pytest_hides_goldens(tmp_path / "harness.toml", tmp_path) is None  # its own file needs --config-harness-settings


def test_init_names_an_entry_point_whose_config_path_is_computed(tmp_path):
    from harness.adopt.programs import computed_entry_points

    (tmp_path / "app" / "conf").mkdir(parents=True)
    (tmp_path / "app" / "train.py").write_text(
        "import hydra, os, pathlib\n\n"
        "@hydra.main(config_path=str(pathlib.Path(__file__).parent / 'conf'), version_base=None)\ndef main(cfg): ...\n"
    )
    (tmp_path / "app" / "other.py").write_text("import hydra, os\n\n@hydra.main(config_path=os.environ['CONF'])\ndef main(cfg): ...\n")
    said = computed_entry_points((tmp_path / "app" / "conf").resolve(), tmp_path)
    assert said == [
        "app/other.py:3: @hydra.main's config_path cannot be read without running it "
        "(`os.environ['CONF']` is neither a literal nor a path built from __file__)",
        "app/train.py:3: @hydra.main with config_path computed from __file__ (read, never run): app/conf",
    ]


def test_python_sources_start_above_a_namespace_package_the_entry_point_imports_through(tmp_path):
    """pyteia: the entry point lies in `teia/core` (a package) inside `teia/` (a namespace package, no __init__.py)
    and imports `teia.core....`; `_target_: teia.node.X` resolves only from the folder above `teia/`."""
    from harness.adopt.programs import python_sources_of
    from harness.runner.hydra_starts import EntryGuess
    from tests.conftest import write_tree

    write_tree(
        tmp_path,
        {
            "src/teia/core/__init__.py": "",
            "src/teia/core/run.py": "from teia.core.layers import primary\n",
            "src/teia/node/__init__.py": "",
            "lib/app/__init__.py": "",
            "lib/app/run.py": "from app.layers import primary\n",  # lib/ is no namespace the entry imports through
        },
    )
    assert python_sources_of(EntryGuess(None, "", tmp_path / "src/teia/core/run.py"), tmp_path) == ["src"]
    assert python_sources_of(EntryGuess(None, "", tmp_path / "lib/app/run.py"), tmp_path) == ["lib/app"]


def test_scripts_that_run_no_hydra_program_get_no_glob(tmp_path):
    """geoarches' evaluation/submit_eval.sh runs `python -m geoarches.evaluation.eval_multistep`, an argparse script:
    check skips it ("not a Hydra program"), so a glob for it only printed "0 launches checked of 0 found"."""
    from harness.adopt.programs import command_globs
    from tests.conftest import write_tree

    main = 'import hydra\n@hydra.main(config_path="conf", config_name="train", version_base=None)\ndef main(c): ...\n'
    write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/main.py": main,
            "app/conf/train.yaml": "a: 1\n",
            "app/convert.py": "import argparse\n",
            "eval/submit.sh": "python -m app.convert --year 2020\n",
            "jobs/train.sh": "python -m app.main a=2\n",
            "tools/run.sh": "python app/convert.py --out x\n",
        },
    )
    assert command_globs(tmp_path, tmp_path / "app/conf") == ["jobs/**/*.sh"]
