"""`--shard K/N` and `merge` (issue 46): the shards' merged verdict is the unsharded run's, in every format.

The tree is the small project with launches, contracts and a stale waiver, a key moved under a launch's override
and an orphan golden: every run-level finding `finish()` makes (stale waivers, the launches' tally and their moved
keys, Hydra's warnings, orphans) has to come out once, from the whole run, whatever the shards saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.composition.shards import Shard, plan
from harness.model.matrix import Case
from harness.reporters import FORMATS
from tests.conftest import commit_small_project
from tests.synthetic_history import git

CONTRACTS = """
contracts:
  - name: lr
    require: [trainer.lr]
  - name: device
    one_of: {device.kind: [cpu, cuda]}
waivers:
  - contract: device
    path: device.kind
    reason: "a waiver that excuses nothing: stale, said once for the whole run"
"""

LAUNCHES = {
    "app/__init__.py": "",
    "app/main.py": "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n",
    "scripts/run.sh": "python -m app.main trainer.name=run trainer.epochs=5\npython -m app.main trainer.name=run trainer.lr=0.5\n",
    "scripts/other.sh": "python -m app.main trainer.name=run backend=gpu trainer.epochs=2\npython -m app.main trainer.name=run optimizer@trainer.optim=sgd\n",
}

OTHER_FORMATS = [name for name in FORMATS if name != "json"]


def _project(small_project: Path, cli) -> Path:
    for name, text in LAUNCHES.items():
        (small_project / name).parent.mkdir(parents=True, exist_ok=True)
        (small_project / name).write_text(text, encoding="utf-8")
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text() + '\n[[commands]]\nglob = "scripts/*.sh"\n', encoding="utf-8")
    project = commit_small_project(small_project, cli, CONTRACTS)
    train = project / "conf" / "train.yaml"
    # `epochs` moves to `num_epochs`: the launches that set it learn where it went only from the cases' findings.
    train.write_text(train.read_text().replace("  epochs: 3", "  num_epochs: 3").replace("lr: 0.1", "lr: 0.2"))
    (project / "snapshots" / "_generated_gone__case.yaml").write_text("a: 1\n")  # an orphan golden
    return project


def _reports(tmp: Path, tag: str) -> list[str]:
    return [f"--report={name}:{tmp / f'{tag}.{name}'}" for name in OTHER_FORMATS]


def _documents(out: str) -> dict:
    document = json.loads(out)
    document.pop("shard", None)
    return document


@pytest.mark.parametrize("command", [["check"], ["diff", "--base", "main"]], ids=["check", "review"])
def test_the_shards_merged_say_what_the_unsharded_run_says_in_every_format(small_project, cli, tmp_path, command):
    project = _project(small_project, cli)
    out = tmp_path / "reports"
    out.mkdir()
    whole = cli("--settings", "harness.toml", *command, "--format", "json", *_reports(out, "whole"), cwd=project)
    assert whole.code == 1, whole.out
    launches = _documents(whole.out)["launches"]
    assert launches.startswith("4 launch"), launches
    moved = [f for c in _documents(whole.out)["cases"] for f in c["findings"] if "it moved to trainer.num_epochs" in f["message"]]
    assert len(moved) == 2, whole.out  # the two launches that set epochs are told where it moved
    count = 3
    files = []
    for index in range(1, count + 1):
        shard = cli("--settings", "harness.toml", f"--shard={index}/{count}", *command, "--format", "json", cwd=project)
        assert shard.code in (0, 1), shard.err
        assert shard.json()["shard"]["index"] == index and shard.json()["shard"]["count"] == count
        files.append(tmp_path / f"shard{index}.json")
        files[-1].write_text(shard.out)
    # Each case is checked by exactly one shard.
    ids = [c["id"] for f in files for c in json.loads(f.read_text())["cases"] if not c["id"].startswith("cmd/")]
    assert sorted(ids) == sorted(c["id"] for c in _documents(whole.out)["cases"] if not c["id"].startswith("cmd/"))
    merged = cli("merge", *map(str, files), "--format", "json", *_reports(out, "merged"), cwd=project)
    assert merged.code == whole.code, merged.err
    assert _documents(merged.out) == _documents(whole.out)
    for name in OTHER_FORMATS:
        assert (out / f"merged.{name}").read_text() == (out / f"whole.{name}").read_text(), name
    # A run that prints JSON alone sources errors only: the merge prints the same, though its shards sourced more.
    alone = cli("--settings", "harness.toml", *command, "--format", "json", cwd=project)
    assert cli("merge", *map(str, files), "--format", "json", cwd=project).out == alone.out


def test_a_shard_missing_repeated_or_from_another_commit_is_refused_in_one_line(small_project, cli, tmp_path):
    project = _project(small_project, cli)
    files = []
    for index in (1, 2):
        shard = cli("--settings", "harness.toml", "--shard", f"{index}/2", "check", "--format", "json", cwd=project)
        files.append(tmp_path / f"shard{index}.json")
        files[-1].write_text(shard.out)
    missing = cli("merge", str(files[0]), cwd=project)
    assert missing.code == 2 and missing.err == "config-harness: error: shard 2 of 2 is missing (given: 1)\n"
    twice = cli("merge", str(files[0]), str(files[0]), cwd=project)
    assert twice.code == 2 and "shard 1 again" in twice.err
    plain = tmp_path / "plain.json"
    plain.write_text(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).out)
    assert "no `shard` member" in cli("merge", str(plain), cwd=project).err
    git(project, "commit", "-qam", "the next commit")
    moved = cli("merge", *map(str, files), cwd=project)
    assert moved.code == 2 and "another commit" in moved.err and moved.err.count("\n") == 1, moved.err


@pytest.mark.parametrize("spelling", ["0/2", "3/2", "2", "a/b", "1/0"])
def test_a_bad_shard_is_exit_2_in_one_line(small_project, cli, spelling):
    bad = cli("--settings", "harness.toml", f"--shard={spelling}", "check", cwd=small_project)
    assert bad.code == 2 and bad.err.count("\n") == 1 and "--shard" in bad.err, bad.err


def test_the_plan_covers_every_case_once_and_is_even_on_a_big_matrix():
    cases = [Case(f"e{e}/p{p}", "root", (f"engine=e{e}",), (f"p={p}",)) for e in range(10) for p in range(1000)]
    for count in (4,):
        shards = plan(cases, count)
        assert sorted(i for shard in shards for i in shard) == list(range(len(cases)))
        assert max(map(len, shards)) <= 1.2 * len(cases) / count
    assert [c.id for c in Shard(2, 4).cases(cases)] == [cases[i].id for i in plan(cases, 4)[1]]
    assert Shard(1, 3).launches(["a", "b", "c", "d"]) == ["a", "d"]
