"""Issue 51 "done when", on verl's own repository (verl-full.bundle at main-2026-08-22, adopted as `init` writes it):
the evasions a verl maintainer tried, each of which the review passed with nothing named, are each compared (a
finding at their line: the readers follow them now) or named as not verified at their line. Each attempt is reviewed
alone against the adopted base."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.e2e.adoption import adopt_verl, clone
from tests.synthetic_history import git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-full-unverified")]
MAIN_PPO = "verl/trainer/main_ppo.py"
ACTOR = "verl/workers/config/actor.py"


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = clone("verl-full.bundle", tmp_path_factory.mktemp("verl-attempts") / "verl")
    adopt_verl(repository, "main-2026-08-22", "adopted", "adopt config-harness")
    return repository


def _insert_after(file: Path, anchor: str, text: str) -> int:
    """`text` inserted as the line after the first line holding `anchor`; its line number."""
    lines = file.read_text().splitlines(keepends=True)
    index = next(n for n, line in enumerate(lines) if anchor in line) + 1
    lines.insert(index, text)
    file.write_text("".join(lines))
    return index + 1


def _launch_script(repository: Path) -> str:
    return next(
        line
        for line in git(repository, "ls-files", "examples").splitlines()
        if line.endswith(".sh") and "python3 -m verl.trainer.main_ppo" in (repository / line).read_text()
    )


def setattr_in_main(repository: Path) -> tuple[str, int, str]:
    line = _insert_after(repository / MAIN_PPO, "auto_set_device(config)", '    setattr(config.trainer, "total_epochs", 1)\n')
    return MAIN_PPO, line, "trainer.total_epochs: a config write added"  # read as `config.trainer.total_epochs = 1`


def write_in_task_runner_run(repository: Path) -> tuple[str, int, str]:
    line = _insert_after(
        repository / MAIN_PPO, "config.transfer_queue.enable = True", "        config.actor_rollout_ref.rollout.temperature = 0.6\n"
    )
    return MAIN_PPO, line, "write not resolved"


def helper_of_post_init(repository: Path) -> tuple[str, int, str]:
    """`__post_init__` calling a helper method of its own class that sets a field: followed, so compared on every case
    whose tree builds the class."""
    actor = repository / ACTOR
    _insert_after(actor, "object.__setattr__(self.engine", "        self._sync_epochs()\n")
    text = actor.read_text().replace(
        "    def validate(self, n_gpus: int, train_batch_size: int, model_config: dict = None):\n"
        '        """Validate FSDP actor configuration with runtime parameters."""',
        "    def _sync_epochs(self):\n        self.ppo_epochs = 2\n\n"
        "    def validate(self, n_gpus: int, train_batch_size: int, model_config: dict = None):\n"
        '        """Validate FSDP actor configuration with runtime parameters."""',
        1,
    )
    actor.write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "self.ppo_epochs = 2" in row)
    return ACTOR, line, "actor.ppo_epochs: a config write added"


def aliased_object_setattr(repository: Path) -> tuple[str, int, str]:
    """`object.__setattr__` on the actor's `engine`, a field another key of the config shares (the shape of verl
    74dc16c94, #5885, whose real commit tests/e2e/test_unverified_pr5885.py reviews): which launches it changes is
    not resolved, so it is named at its line."""
    line = _insert_after(
        repository / ACTOR, "object.__setattr__(self.engine", '        object.__setattr__(self.engine, "param_offload", True)\n'
    )
    return ACTOR, line, "write not resolved"


def nested_default(repository: Path) -> tuple[str, int, str]:
    """`ServerConfig.timeout` 60 -> 5 behind `server: ServerConfig = field(default_factory=ServerConfig)`."""
    rollout = repository / "verl/workers/config/rollout.py"
    rollout.write_text(rollout.read_text().replace("    timeout: float = 60.0\n", "    timeout: float = 5.0\n", 1))
    line = next(n for n, row in enumerate(rollout.read_text().splitlines(), 1) if "timeout: float = 5.0" in row)
    return "verl/workers/config/rollout.py", line, "rollout.server.timeout: 60.0 -> 5.0"


def search_path_plugin(repository: Path) -> tuple[str, int, str]:
    (repository / "extra_conf").mkdir()
    (repository / "extra_conf/ppo_trainer.yaml").write_text("actor_rollout_ref:\n  rollout:\n    temperature: 0.6\n")
    plugin = repository / "hydra_plugins/extra/extra_plugin.py"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(
        "from hydra.plugins.search_path_plugin import SearchPathPlugin\n\n\n"
        "class ExtraPlugin(SearchPathPlugin):\n"
        "    def manipulate_search_path(self, search_path):\n"
        '        search_path.prepend(provider="extra", path="file://extra_conf")\n'
    )
    return "hydra_plugins/extra/extra_plugin.py", 4, "SearchPathPlugin"


def xargs_overrides(repository: Path) -> tuple[str, int, str]:
    script = _launch_script(repository)
    path = repository / script
    path.write_text(path.read_text() + "echo trainer.total_epochs=1 | xargs python3 -m verl.trainer.main_ppo\n")
    return script, len(path.read_text().splitlines()), "`xargs`"


def path_shim(repository: Path) -> tuple[str, int, str]:
    (repository / "tools").mkdir(exist_ok=True)
    (repository / "tools/python3").write_text('#!/bin/sh\nexec /usr/bin/python3 "$@" trainer.total_epochs=1\n')
    script = _launch_script(repository)
    path = repository / script
    path.write_text('export PATH="$PWD/tools:$PATH"\n' + path.read_text())
    return script, 1, "a PATH change"


def wrapper_with_prefix(repository: Path) -> tuple[str, int, str]:
    (repository / "run_all.sh").write_text(f"ROLLOUT_N=1 bash {_launch_script(repository)}\n")
    return "run_all.sh", 1, "calls the launch script"


ATTEMPTS: list[Callable[[Path], tuple[str, int, str]]] = [
    setattr_in_main,
    write_in_task_runner_run,
    helper_of_post_init,
    aliased_object_setattr,
    nested_default,
    search_path_plugin,
    xargs_overrides,
    path_shim,
    wrapper_with_prefix,
]


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=[a.__name__ for a in ATTEMPTS])
def test_each_attempt_is_named_at_its_line(verl, capsys, monkeypatch, attempt):
    git(verl, "checkout", "-q", "-f", "adopted")
    subprocess.run(["git", "-C", str(verl), "clean", "-qfd"], check=True)
    file, line, words = attempt(verl)
    monkeypatch.chdir(verl)
    capsys.readouterr()
    main(["diff", "--base", "adopted", "--format", "json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    found = [(f["source"], f["message"]) for f in report["findings"] if f["kind"] == "unverified"]
    if any(source == f"{file}:{line}" and words in message for source, message in found):
        assert "not verified" in report["verdict"]
        return
    # Compared: a finding of the run or of a case at the attempt's line says what it changes.
    compared = [(f["source"], f["message"]) for f in report["findings"] + [f for c in report["cases"] for f in c["findings"]]]
    assert any(source == f"{file}:{line}" and words in message for source, message in compared), (found, compared[:20])
    row = next(r for r in report["changed_files"] if r["file"] == file)
    assert row["verdict"] == "compared", row


def test_a_launch_inserted_before_another_never_takes_its_place(verl, capsys, monkeypatch):
    """A launch inserted above a verl script's launch, whose own value changes: the real launch's change is compared
    with the base's launch it is (the inserted one is new), not with the inserted one."""
    git(verl, "checkout", "-q", "-f", "adopted")
    subprocess.run(["git", "-C", str(verl), "clean", "-qfd"], check=True)
    script = next(
        line
        for line in git(verl, "ls-files", "examples").splitlines()
        if line.endswith(".sh")
        and (verl / line).read_text().count("python3 -m verl.trainer.main_ppo") == 1
        and re.search(r"trainer\.total_epochs=[0-9]+ ", (verl / line).read_text())
    )
    path = verl / script
    text = path.read_text()
    epochs = re.search(r"trainer\.total_epochs=([0-9]+) ", text)
    assert epochs is not None
    new = int(epochs.group(1)) + 1
    text = text.replace(epochs.group(0), f"trainer.total_epochs={new} ", 1)
    start = text.index("python3 -m verl.trainer.main_ppo")
    path.write_text(text[:start] + "python3 -m verl.trainer.main_ppo trainer.total_epochs=99\n" + text[start:])
    monkeypatch.chdir(verl)
    capsys.readouterr()
    main(["diff", "--base", "adopted", "--format", "json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    cases = {c["id"]: c for c in report["cases"] if c["id"].startswith(f"cmd/{script}#")}
    changed = {
        case_id: [(f["path"], f["old"], f["new"]) for f in case["findings"] if f["kind"] == "changed"] for case_id, case in cases.items()
    }
    assert changed[f"cmd/{script}#2"] == [("trainer.total_epochs", int(epochs.group(1)), new)], changed
    # The inserted launch is judged on its own (it leaves verl's required `rollout.name` unset): compared with nothing.
    inserted = cases[f"cmd/{script}#1"]
    assert changed[f"cmd/{script}#1"] == [] and inserted["status"] in ("new", "error"), inserted
    assert {f["kind"] for f in inserted["findings"]} <= {"launch", "new_launch"}, inserted
