"""Each input of issue 31 through the command line: one clear line and exit 2 (settings, contracts) or a finding (Python
sources, scripts, entry modules), never exit 3, within the time bound; the rest of the run goes on."""

from __future__ import annotations

import time

import pytest

from harness.gates.budget import NOT_READ
from tests import hostile_inputs as hostile
from tests.conftest import write_tree
from tests.synthetic_history import git

SETTINGS = """
config_dir = "conf"
snapshot_dir = "snapshots"
roots = ["train"]
python_sources = ["src/app"]
[[commands]]
glob = "scripts/*.sh"
"""
PROJECT = {
    "conf/train.yaml": "model:\n  _target_: app.Model\n  width: 3\n",
    "src/app/__init__.py": "from .models import Model\n",
    "src/app/models.py": "class Model:\n    def __init__(self, width=1):\n        pass\n",
    "app/__init__.py": "",
    "app/main.py": "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n",
    "scripts/ok.sh": "python -m app.main model.width=2\n",
}


@pytest.fixture
def project(tmp_path):
    write_tree(tmp_path, PROJECT)
    (tmp_path / "harness.toml").write_text(SETTINGS)
    return tmp_path


def run(cli, project, *arguments):
    start = time.process_time()
    result = cli("--settings", "harness.toml", *arguments, cwd=project)
    assert time.process_time() - start < 4 * hostile.HOSTILE_SECONDS  # a whole command: settings, composing, every reader
    assert result.code != 3, result.err
    return result


def test_settings_nested_past_the_budget_exit_2_from_any_command(cli, project):
    (project / "harness.toml").write_text(SETTINGS + "[presets]\nx = " + hostile.nested_toml_array(5000)[4:])
    for command in (["list"], ["check"], ["explain", "model.width", "--case", "train/base/default"]):
        result = run(cli, project, *command)
        assert result.code == 2
        assert result.err.strip().endswith(
            f"{NOT_READ} the nesting budget of 64 levels of arrays and inline tables exceeded at {project / 'harness.toml'}:9"
        )


def test_a_review_of_settings_nested_past_the_budget_exits_2(cli, project):
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    (project / "harness.toml").write_text(SETTINGS + "[presets]\nx = " + hostile.nested_toml_array(5000)[4:])
    result = run(cli, project, "diff", "--base", "HEAD", "--format", "json")
    assert result.code == 2 and f"{NOT_READ} the nesting budget" in result.err


def test_contracts_nested_past_the_budget_exit_2(cli, project):
    (project / "contracts.yaml").write_text("contracts: " + "[" * 5000 + "]" * 5000 + "\n")
    (project / "harness.toml").write_text('contracts = ["contracts.yaml"]\n' + SETTINGS)
    result = run(cli, project, "check")
    assert result.code == 2 and "contracts.yaml:1" in result.err and "nesting depth" in result.err


@pytest.mark.parametrize(
    ("models", "said"),
    [
        (hostile.class_lattice(18), None),
        (hostile.inheritance_chain(3000), "the budget of 100 classes inherited through exceeded at src/app/models.py:"),
        (hostile.alias_chain(3000), "the budget of 100 steps from a name to its class exceeded at src/app/models.py:"),
        (hostile.long_expression(1000), "the nesting budget of 100 syntax levels exceeded at src/app/models.py:2"),
    ],
    ids=["lattice-18", "inheritance-3000", "aliases-3000", "expression-1000"],
)
def test_python_sources_past_a_budget_are_a_target_finding(cli, project, models, said):
    (project / "src/app/models.py").write_text(models)
    result = run(cli, project, "check", "--format", "json")
    assert result.code == 1
    (case,) = [case for case in result.json()["cases"] if case["id"] == "train/base/default"]
    targets = [f for f in case["findings"] if f["kind"] == "target"]
    if said is None:  # the lattice reads: only its timing was the problem
        assert not targets
    else:
        (finding,) = targets
        assert finding["path"] == "model._target_" and f"{NOT_READ} {said}" in finding["message"]


@pytest.mark.parametrize(
    ("script", "said"),
    [
        (hostile.doubling_script(64), "the word budget (2,000 pieces, 64 KiB, 10,000 words) exceeded at scripts/run.sh:12"),
        (hostile.nested_defaults(3000), "the nesting budget of 150 syntax levels exceeded at scripts/run.sh:1"),
        (hostile.nested_ifs(3000), "the nesting budget of 150 syntax levels exceeded at scripts/run.sh:"),
    ],
    ids=["doubling", "nested-defaults", "nested-ifs"],
)
def test_scripts_past_a_budget_are_a_launch_not_extracted_and_the_rest_goes_on(cli, project, script, said):
    (project / "scripts/run.sh").write_text(script)
    launches = {case["id"]: case for case in run(cli, project, "list", "--format", "json").json()["cases"]}
    assert launches["cmd/scripts/ok.sh#1"].get("extracted", True)  # the other script is read as before
    bad = launches["cmd/scripts/run.sh#1"]
    assert bad["extracted"] is False and f"{NOT_READ} {said}" in bad["reason"]


def test_an_entry_module_past_the_budget_is_a_launch_not_extracted(cli, project):
    (project / "app/main.py").write_text(hostile.attribute_chain(100_000))
    result = run(cli, project, "check")
    assert result.code == 1
    assert f"not extracted: {NOT_READ} the parser's nesting budget (Python's recursion limit) exceeded at app/main.py" in result.out


@pytest.mark.parametrize(
    "script",
    [
        "if [ " + "1" * 5000 + " -eq 1 ]; then A=1; fi\npython -m app.main model.width=$A\n",
        "f() { python -m app.main model.width=${" + "1" * 5000 + "}; }\nf 2\n",
    ],
    ids=["test-operand", "positional-parameter"],
)
def test_a_number_of_5000_digits_in_a_script_is_read_never_exit_3(cli, project, script):
    """Counts read from files (issue 53 item 1): `int()` refuses 4,300 digits, so a number past bash's 19 digits is
    not decided (a test) or not set (a positional parameter), as a number out of bash's range is."""
    (project / "scripts/run.sh").write_text(script)
    launches = {case["id"]: case for case in run(cli, project, "list", "--format", "json").json()["cases"]}
    assert launches["cmd/scripts/ok.sh#1"].get("extracted", True) and "cmd/scripts/run.sh#1" in launches


def test_a_list_index_of_5000_digits_or_a_superscript_is_a_missing_key_never_exit_3(cli, project):
    """An interpolation through a list by an index `int()` refuses (5,000 digits, `²` which `isdigit` takes): the key is
    not in the config, one finding naming it (exit 1), where it was exit 3 from `generate`."""
    (project / "conf/train.yaml").write_text(f"model:\n  width: 3\na: [1, 2]\nb: ${{a.{'1' * 5000}}}\nc: ${{a.²}}\n")
    result = run(cli, project, "generate")
    assert result.code == 1 and "a.² is not in the config" in result.out
