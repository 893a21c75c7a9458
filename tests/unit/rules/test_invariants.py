"""Invariants of a runnable config, on small trees built here: an interpolation the program cannot resolve
(`unresolved`), an option a golden's case selected that is gone (`option_gone`), a removed key traced to its file
and line from the golden's header alone, and effective values resolved in Hydra's order."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from harness.composition.render import golden_body
from tests.conftest import write_tree

TREE = {
    "conf/app.yaml": """
        defaults:
          - optional db: sqlite
          - task: classify
          - _self_
        experiment_name: exp
        hydra:
          run:
            dir: outputs/${experiment_name}
        callbacks:
          checkpoint:
            monitor: ${task.monitored_metric}
        log_dir: ${hydra:runtime.output_dir}/logs
        """,
    "conf/db/sqlite.yaml": "driver: sqlite\nport: 0\n",
    "conf/task/classify.yaml": "monitored_metric: val_loss\n",
    "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["app"]\n',
}
GOLDEN = "snapshots/_generated_app__base__default.yaml"


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, TREE)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    return tmp_path


def check(cli) -> tuple[int, list[dict]]:
    run = cli("--settings", "harness.toml", "check", "--format", "json")
    return run.code, [f for case in run.json()["cases"] for f in case["findings"]]


def edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    path.write_text(path.read_text().replace(old, new))


def test_a_renamed_key_left_behind_an_interpolation_fails_check_before_and_after_generate(project: Path, cli) -> None:
    edit(project, "conf/task/classify.yaml", "monitored_metric", "metric")
    for _ in range(2):  # regenerating the golden never hides it
        code, findings = check(cli)
        unresolved = [f for f in findings if f["kind"] == "unresolved" and f["severity"] == "error"]
        assert code == 1
        assert [(f["path"], f["old"], f["new"]) for f in unresolved] == [
            ("callbacks.checkpoint.monitor", "${task.monitored_metric}", "${task.monitored_metric}")
        ]
        assert "task.monitored_metric is not in the config" in unresolved[0]["message"]
        assert unresolved[0]["source"] == "conf/app.yaml:11"
        assert cli("--settings", "harness.toml", "generate").code == 1  # it writes the golden, and still fails


def test_a_broken_hydra_run_dir_is_named(project: Path, cli) -> None:
    edit(project, "conf/app.yaml", "experiment_name: exp", "run_name: exp")
    code, findings = check(cli)
    assert code == 1
    unresolved = [f for f in findings if f["kind"] == "unresolved"]
    assert [(f["path"], f["new"]) for f in unresolved] == [("hydra.run.dir", "outputs/${experiment_name}")]
    assert "experiment_name is not in the config" in unresolved[0]["message"]


def test_a_deleted_optional_option_is_named_with_its_file_and_its_keys_with_their_lines(project: Path, cli) -> None:
    (project / "conf/db/sqlite.yaml").unlink()
    code, findings = check(cli)
    assert code == 1
    gone = [f for f in findings if f["kind"] == "option_gone"]
    assert [(f["path"], f["old"], f["source"]) for f in gone] == [("db", "sqlite", "conf/db/sqlite.yaml")]
    removed = {f["path"]: f["source"] for f in findings if f["kind"] == "removed"}
    assert removed == {"db.driver": "conf/db/sqlite.yaml:1", "db.port": "conf/db/sqlite.yaml:2"}


def test_the_golden_records_provenance_in_its_header_only(project: Path) -> None:
    text = (project / GOLDEN).read_text()
    body = golden_body(text)
    assert "# selected: " in text and "conf/db/sqlite.yaml" in text and str(project) not in text  # no host path
    assert "#" not in body  # loaded as YAML, the golden is the composed config alone
    assert yaml.safe_load(body)["db"] == {"driver": "sqlite", "port": 0}


def test_hydra_runtime_values_and_host_lookups_resolve_and_program_resolvers_are_counted() -> None:
    tree = {
        "out": "${hydra:runtime.output_dir}/x",
        "job": "${hydra:job.name}",
        "home": "${oc.env:HOME}",
        "stamp": "${now:%H}",
        "custom": "${program_registers_this:1}",
        "uses_custom": "${custom}",
        "wrong": "${hydra:runtime.output_dirr}",
        "direct": "${hydra.job.name}",
        "listed": ["${missing.key}", "${out}"],
        "fine": "${oc.select:nope,1}",
        "relative": {"a": 1, "b": "${.a}", "c": "${.z}"},
        "loop_a": "${loop_b}",
        "loop_b": "${loop_a}",
        "nested": "${oc.select:nope,${oc.select:also_nope,{}}}",
        "nested_broken": "${oc.select:nope,${gone}}",
    }
    from harness.rules.invariants import resolution  # here, so the tests above run (and fail) on a tree without it

    hydra = {"job": {"name": "app", "num": "???"}, "run": {"dir": "outputs/${now:%Y}"}, "sweep": {"subdir": "${hydra.job.num}"}}
    found = resolution(OmegaConf.create(tree), tree, hydra)
    assert sorted(p.path for p in found.problems) == ["direct", "listed.0", "loop_a", "loop_b", "nested_broken", "relative.c", "wrong"]
    assert {path for path, _ in found.unknown} == {"custom"}  # `uses_custom` reads it through `custom`: resolved by the key


def test_effective_values_resolve_in_hydras_order_so_an_unrelated_edit_adds_no_error(tmp_path: Path, cli) -> None:
    # `oc.dict.values` lists a mapping in composition order; the golden holds it sorted (zeta after alpha).
    write_tree(
        tmp_path,
        {
            "conf/app.yaml": "metrics:\n  zeta: 1\n  alpha: 2\nall_metrics: ${oc.dict.values:metrics}\nlr: 0.1\n",
            "harness.toml": TREE["harness.toml"],
        },
    )
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    edit(tmp_path, "conf/app.yaml", "lr: 0.1", "lr: 0.2")
    code, findings = check(cli)
    assert [(f["kind"], f["path"]) for f in findings] == [("changed", "lr")]


def test_a_key_whose_line_vanished_is_removed_from_its_file_even_when_a_python_default_keeps_its_value(tmp_path: Path, cli) -> None:
    write_tree(
        tmp_path,
        {
            "conf/app.yaml": "model:\n  _target_: pkg.mod.Model\n  use_bias: true\n  width: 4\n",
            "pkg/__init__.py": "",
            "pkg/mod.py": "class Model:\n    def __init__(self, use_bias: bool = True, width: int = 8):\n        pass\n",
            "harness.toml": TREE["harness.toml"] + 'python_sources = ["pkg"]\n',
        },
    )
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 0
    edit(tmp_path, "conf/app.yaml", "  use_bias: true\n", "")
    code, findings = check(cli)
    removed = [f for f in findings if f["path"] == "model.use_bias" and f["kind"] in ("removed", "changed")]
    assert [(f["kind"], f["severity"], f["source"]) for f in removed] == [("removed", "warning", "conf/app.yaml:3")]
    assert "the program still gets True from the Python default of" in removed[0]["message"]
    assert code == 0  # nothing the program sees changed: a warning, not "regenerate"


LAUNCH_PROJECT = {
    "app/__init__.py": "",
    "app/train.py": "import hydra\n\n@hydra.main(config_path='conf', config_name='train', version_base=None)\ndef main(cfg): ...\n",
    "app/conf/train.yaml": "trainer:\n  lr: 0.1\n  warmup_lr: ${trainer.lr}\n",
    "scripts/run.sh": """
        python3 -m app.train trainer.lr=0.2
        python3 -m app.train '~trainer.lr'
        python3 -m app.train +trainer.final_lr='${trainer.peak_lr}'
        """,
    "harness.toml": 'config_dir = "app/conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n[[commands]]\nglob = "scripts/*.sh"\n',
}


def test_a_launch_that_leaves_an_interpolation_dangling_is_named(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, LAUNCH_PROJECT)
    # One verdict: what fails check fails generate too (the launches' dangling values are no golden's to settle).
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 1
    run = cli("--settings", "harness.toml", "check", "--format", "json")
    found = {
        (case["id"], f["path"], f["new"])
        for case in run.json()["cases"]
        for f in case["findings"]
        if f["kind"] == "unresolved" and f["severity"] == "error"
    }
    assert run.code == 1
    assert found == {
        ("cmd/scripts/run.sh#2", "trainer.warmup_lr", "${trainer.lr}"),
        ("cmd/scripts/run.sh#3", "trainer.final_lr", "${trainer.peak_lr}"),
    }


def test_an_unresolved_value_the_repository_already_has_is_recorded_as_known_and_excused(tmp_path: Path, cli) -> None:
    files = {**TREE, "conf/task/classify.yaml": "metric: val_loss\n", "config-harness/known.yaml": "waivers: []\n"}
    files["harness.toml"] = 'contracts = ["config-harness/known.yaml"]\n' + TREE["harness.toml"]
    write_tree(tmp_path, files)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 1
    assert cli("--settings", "harness.toml", "known").code == 0
    entries = yaml.safe_load((tmp_path / "config-harness/known.yaml").read_text())["waivers"]
    assert [(e["finding"], e["path"]) for e in entries] == [("unresolved", "callbacks.checkpoint.monitor")]
    code, findings = check(cli)
    assert code == 0 and [f.get("status") for f in findings if f["kind"] == "unresolved"] == ["known"]
