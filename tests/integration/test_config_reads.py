"""What the program reads is checked too (issue 51 item 4), on a small project with its own package: a key the entry
point (or a function it calls by name) reads strictly that a case no longer composes blocks `check` and the review,
naming the reading line; `.get`, `in` and a key the code wrote first do not. A nested dataclass default that changes
(`ServerConfig.timeout` behind `field(default_factory=ServerConfig)`) is named in a review like a top-level one.
Nothing is imported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import commit_small_project, write_tree
from tests.integration.test_config_writes import PROJECT as WRITES_PROJECT
from tests.integration.test_config_writes import edit
from tests.integration.test_targets import MARKER, SIDE_EFFECT, line_of

PROJECT = {
    **WRITES_PROJECT,  # its settings and package marker; its own config, classes and code below
    "conf/train.yaml": """
        model:
          _target_: app.models.Model
          width: 3
        optim:
          lr: 0.1
          bnb_optimizer: false
          extra: 1
        trainer:
          epochs: 1
          device: cpu
        """,
    "src/app/models.py": SIDE_EFFECT
    + textwrap.dedent("""
        from dataclasses import dataclass, field


        @dataclass
        class ServerConfig:
            timeout: int = 60
            host: str = "localhost"


        @dataclass
        class Model:
            width: int = 8
            server: ServerConfig = field(default_factory=ServerConfig)
        """),
    "src/app/main.py": SIDE_EFFECT
    + textwrap.dedent("""
        import hydra
        from omegaconf import open_dict

        from app.helpers import build_optimizer


        @hydra.main(config_path="../../conf", config_name="train", version_base=None)
        def main(config):
            if "extra" in config.optim:
                print(config.optim.extra)
            print(config.optim.get("lr", 0.5), "warmup" in config.optim)
            with open_dict(config):
                config.trainer.seed = 1
            print(config.trainer.seed)
            build_optimizer(config.optim, config.trainer.epochs)
        """),
    "src/app/helpers.py": SIDE_EFFECT
    + textwrap.dedent("""
        def build_optimizer(optim, epochs):
            if optim.bnb_optimizer:
                return "bnb", epochs
            return "adam", optim["lr"]
        """),
}


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, PROJECT)
    return commit_small_project(tmp_path, cli, None)


def reads(report: dict) -> list[dict]:
    return [f for case in report["cases"] for f in case["findings"] if f["kind"] == "config_read"]


def test_a_removed_key_the_program_reads_blocks_check_and_the_review_naming_the_reading_line(project, cli):
    assert reads(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json()) == []
    edit(project / "conf/train.yaml", "  bnb_optimizer: false\n", "")
    helpers = project / "src/app/helpers.py"
    where = f"src/app/helpers.py:{line_of(helpers, 'if optim.bnb_optimizer')}"
    check = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project)
    assert check.code == 1
    ((found,),) = [[f] for f in reads(check.json())]
    assert (found["path"], found["severity"], found["source"]) == ("optim.bnb_optimizer", "error", where)
    assert found["message"].startswith(f"optim.bnb_optimizer: read by app.main.main at {where} (optim.bnb_optimizer)")
    # The goldens regenerated (the key accepted as gone, so `check` passes again): the review against the base's
    # goldens, which had it, still blocks.
    generate = cli("--settings", "harness.toml", "generate", "--format", "json", cwd=project)
    assert generate.code == 0 and reads(generate.json()) != []  # said, and accepted with the goldens it writes
    assert reads(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json()) == []
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    assert review.code == 1
    (found,) = reads(review.json())
    assert (found["path"], found["source"], found["origin"]) == ("optim.bnb_optimizer", where, "introduced")
    assert (
        f"optim.bnb_optimizer: read by app.main.main at {where}"
        in cli("--settings", "harness.toml", "diff", "--base", "main", cwd=project).out
    )
    assert not (project / MARKER).exists()


def test_get_in_a_tested_key_and_a_key_the_code_wrote_are_not_reads_that_fail(project, cli):
    # `extra` is read only under `if "extra" in ...`, `lr` through `.get` in main (and strictly by the helper's
    # subscript, the one failing read), `trainer.seed` is written before it is read.
    edit(project / "conf/train.yaml", "  extra: 1\n", "")
    edit(project / "conf/train.yaml", "  lr: 0.1\n", "")
    check = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project)  # against the goldens that had both
    helpers = project / "src/app/helpers.py"
    assert [(f["path"], f["source"]) for f in reads(check.json())] == [("optim.lr", f"src/app/helpers.py:{line_of(helpers, 'optim[')}")]
    edit(helpers, 'optim["lr"]', "optim.get('lr')")
    assert reads(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json()) == []
    cli("--settings", "harness.toml", "generate", cwd=project)
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    assert (review.code, reads(review.json())) == (0, [])


def test_a_nested_dataclass_default_change_is_named_in_a_review(project, cli):
    models = project / "src/app/models.py"
    edit(models, "timeout: int = 60", "timeout: int = 5")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    (case,) = review.json()["cases"]
    changed = [f for f in case["findings"] if f.get("via") == "python default"]
    assert [(f["path"], f["old"], f["new"]) for f in changed] == [("model.server.timeout", 60, 5)], case["findings"]
    assert changed[0]["source"] == f"src/app/models.py:{line_of(models, 'timeout: int = 5')}"
    assert "ServerConfig" in changed[0]["message"]


def test_a_read_through_an_alias_or_a_parameter_blocks_and_a_select_with_a_default_does_not(project, cli):
    """Keys read through names bound to nodes (`optim, section = config.optim, config.trainer`; `section.device`) or
    by a function given the node fail where they are read; `OmegaConf.select(..., default=...)` of a lost key does
    not."""
    main = project / "src/app/main.py"
    edit(
        main,
        "    build_optimizer(config.optim, config.trainer.epochs)\n",
        "    optim, section = config.optim, config.trainer\n    print(section.device, optim)\n"
        '    print(OmegaConf.select(config, "trainer.name", default="x"))\n'
        "    build_optimizer(config.optim, config.trainer.epochs)\n",
    )
    edit(main, "from omegaconf import open_dict", "from omegaconf import OmegaConf, open_dict")
    edit(project / "conf/train.yaml", "  device: cpu\n", "")
    check = cli("--settings", "harness.toml", "check", "--format", "json", cwd=project)
    assert check.code == 1
    assert [(f["path"], f["source"]) for f in reads(check.json())] == [
        ("trainer.device", f"src/app/main.py:{line_of(main, 'section.device')}")
    ]
    edit(project / "conf/train.yaml", "  bnb_optimizer: false\n", "")
    found = {f["path"]: f["source"] for f in reads(cli("--settings", "harness.toml", "check", "--format", "json", cwd=project).json())}
    assert found["optim.bnb_optimizer"] == f"src/app/helpers.py:{line_of(project / 'src/app/helpers.py', 'if optim.bnb_optimizer')}"


LAUNCHES = """
    [[commands]]
    glob = "scripts/*.sh"
    modules = {"app.main" = "train"}
    """


def test_a_launch_whose_override_deletes_a_key_the_program_reads_blocks_at_the_reading_line(tmp_path, cli):
    """A launch's `~key` (or a rename: `~old +new=...`) deletes what the code reads: an error of that launch at the
    reading line, in `check` and in the review; deleting a key read only under `"k" in ...` is no finding."""
    write_tree(tmp_path, {**PROJECT, "scripts/run.sh": "python -m app.main optim.lr=0.2\n"})
    (tmp_path / "harness.toml").write_text((tmp_path / "harness.toml").read_text() + textwrap.dedent(LAUNCHES))
    project = commit_small_project(tmp_path, cli, None)
    (project / "scripts/run.sh").write_text(
        "python -m app.main '~optim.bnb_optimizer' +optim.bnb=true\npython -m app.main '~optim.extra'\n"
    )
    where = f"src/app/helpers.py:{line_of(project / 'src/app/helpers.py', 'if optim.bnb_optimizer')}"
    for command in (["check"], ["diff", "--base", "main"]):
        result = cli("--settings", "harness.toml", *command, "--format", "json", cwd=project)
        assert result.code == 1, result.out
        launches = {c["id"]: c for c in result.json()["cases"] if c["id"].startswith("cmd/")}
        found = [(f["path"], f["source"]) for f in launches["cmd/scripts/run.sh#1"]["findings"] if f["kind"] == "config_read"]
        assert found == [("optim.bnb_optimizer", where)], launches
        assert "the launch deletes it (~optim.bnb_optimizer)" in next(
            f["message"] for f in launches["cmd/scripts/run.sh#1"]["findings"] if f["kind"] == "config_read"
        )
        assert not [f for f in launches["cmd/scripts/run.sh#2"]["findings"] if f["kind"] == "config_read"]
