"""Sweeps are launches (issue 54 item 2), on a small project with a real launch script: a launch run with `-m` is one
launch per point of Hydra's basic sweeper, each composed at the base and in the pull request; `init` records no false
"requires --multirun" entry for it, and a change that breaks some points blocks the review, naming those points."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import commit_small_project, write_tree

SCRIPT = "scripts/sweep.sh"
PROJECT = {
    "conf/train.yaml": "defaults:\n  - db: mysql\n  - _self_\ntrainer:\n  lr: 0.1\n  epochs: 1\n",
    "conf/db/mysql.yaml": "port: 3306\n",
    "conf/db/postgres.yaml": "port: 5432\n",
    "app/__init__.py": "",
    "app/main.py": "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n",
    SCRIPT: "python -m app.main -m trainer.lr=0.1,0.01 db=mysql,postgres\npython -m app.main --multirun 'trainer.epochs=range(1,3)'\n",
}
SETTINGS = 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n\n[[commands]]\nglob = "scripts/*.sh"\n'
POINTS = [
    "cmd/scripts/sweep.sh#1(trainer.lr=0.1,db=mysql)",
    "cmd/scripts/sweep.sh#1(trainer.lr=0.1,db=postgres)",
    "cmd/scripts/sweep.sh#1(trainer.lr=0.01,db=mysql)",
    "cmd/scripts/sweep.sh#1(trainer.lr=0.01,db=postgres)",
    "cmd/scripts/sweep.sh#2(trainer.epochs=1)",
    "cmd/scripts/sweep.sh#2(trainer.epochs=2)",
]


def launches(report: dict) -> dict[str, dict]:
    return {case["id"]: case for case in report["cases"] if case["id"].startswith("cmd/")}


def test_init_adopts_a_sweep_without_a_known_entry_and_check_composes_each_point(tmp_path, cli):
    write_tree(tmp_path, PROJECT)
    init = cli("init", "--config-dir", "conf", cwd=tmp_path)
    assert init.code == 0, init.err
    known = tmp_path / "config-harness" / "known.yaml"
    assert not known.exists() or "multirun" not in known.read_text()  # the launches pass -m: nothing is known to fail
    assert cli("generate").code == 0
    checked = cli("check", "--format", "json")
    assert checked.code == 0, checked.out[-2000:]
    report = checked.json()
    assert list(launches(report)) == POINTS
    assert all(case["status"] == "ok" and not case["findings"] for case in launches(report).values())
    assert "6 launches checked of 6 found: 6 compose, 0 fail" in cli("check").out


def test_a_change_that_breaks_some_points_fails_check_and_blocks_the_review_naming_them(tmp_path: Path, cli):
    write_tree(tmp_path, {**PROJECT, "harness.toml": SETTINGS})
    project = commit_small_project(tmp_path, cli, None)
    assert cli("--settings", "harness.toml", "check").code == 0  # at the base every point composes

    (project / "conf/db/postgres.yaml").unlink()  # the pull request drops an option two points select (no golden's)
    checked = cli("--settings", "harness.toml", "check", "--format", "json")
    assert checked.code == 1
    failing = {case_id: case for case_id, case in launches(checked.json()).items() if case["status"] == "error"}
    assert sorted(failing) == sorted([POINTS[1], POINTS[3]])
    (finding,) = failing[POINTS[1]]["findings"]
    assert (finding["kind"], finding["path"], finding["source"], finding["new"]) == ("launch", "db", f"{SCRIPT}:1", "db=postgres")

    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert review.code == 1, review.out[-2000:]
    broken = {case_id: case for case_id, case in launches(review.json()).items() if case["status"] == "error"}
    assert sorted(broken) == sorted([POINTS[1], POINTS[3]])
    assert {f["origin"] for case in broken.values() for f in case["findings"] if f["kind"] == "launch"} == {"introduced"}
    text = cli("--settings", "harness.toml", "diff", "--base", "main").out
    assert "group option removed: db" in text and f"{SCRIPT}:1: db=postgres" in text


def test_a_review_compares_each_point_s_values_with_the_same_point_at_the_base(tmp_path: Path, cli):
    write_tree(tmp_path, {**PROJECT, "harness.toml": SETTINGS})
    project = commit_small_project(tmp_path, cli, None)
    conf = project / "conf/db/postgres.yaml"
    conf.write_text("port: 6543\n")  # a value only the postgres points compose
    assert cli("--settings", "harness.toml", "generate").code == 0
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert review.code == 0, review.out[-2000:]
    changed = {
        case_id: [(f["kind"], f["path"], f["old"], f["new"]) for f in case["findings"]]
        for case_id, case in launches(review.json()).items()
        if case["findings"]
    }
    assert changed == {POINTS[1]: [("changed", "db.port", 5432, 6543)], POINTS[3]: [("changed", "db.port", 5432, 6543)]}
