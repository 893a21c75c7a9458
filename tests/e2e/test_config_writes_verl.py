"""Issue 43's Why on verl's whole repository (verl-full.bundle, `main-2026-08-22`, adopted as the README says): the
three ways a pull request changes what verl runs through code rather than a config file are each named in the
review, with the file, the line and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.e2e.adoption import adopt_verl, clone, pull_request
from tests.e2e.adoption import review as review_json

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-full-writes")]
ADOPTED = "adopted-main"
MAIN_PPO = "verl/trainer/main_ppo.py"
MODEL = "verl/workers/config/model.py"


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = clone("verl-full.bundle", tmp_path_factory.mktemp("verl-writes") / "verl")
    adopt_verl(repository, "main-2026-08-22", ADOPTED, "adopt config-harness")
    return repository


@pytest.fixture
def change(verl: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    yield from pull_request(verl, ADOPTED, request, monkeypatch)


def review(verl: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code, report = review_json(verl, ADOPTED, capsys)
    main(["diff", "--base", ADOPTED])
    return code, report, capsys.readouterr().out


def writes(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["kind"] == "config_write"] + [
        f for case in report["cases"] for f in case["findings"] if f["kind"] == "config_write"
    ]


def line_of(file: Path, text: str) -> int:
    return next(n for n, line in enumerate(file.read_text().splitlines(), 1) if text in line)


def test_main_ppo_writing_the_config_is_named_with_file_line_and_key(change, capsys):
    main_ppo = change / MAIN_PPO
    text = main_ppo.read_text()
    anchor = "    auto_set_device(config)\n"
    assert anchor in text
    main_ppo.write_text(
        text.replace(
            anchor,
            anchor + "    with open_dict(config):\n        config.actor_rollout_ref.model.use_remove_padding = False\n"
            '    OmegaConf.update(config, "actor_rollout_ref.rollout.n", 4, force_add=True)\n',
            1,
        ).replace("import hydra\n", "import hydra\nfrom omegaconf import OmegaConf, open_dict\n", 1)
    )
    code, report, text_report = review(change, capsys)
    found = {(f["path"], f["new"], f["source"]) for f in writes(report)}
    assert found == {
        ("actor_rollout_ref.model.use_remove_padding", False, f"{MAIN_PPO}:{line_of(main_ppo, 'use_remove_padding = False')}"),
        ("actor_rollout_ref.rollout.n", 4, f"{MAIN_PPO}:{line_of(main_ppo, 'OmegaConf.update')}"),
    }
    # Issue 56: the change the write makes to what the YAML gives every case of ppo_trainer, as a YAML change reads.
    assert "actor_rollout_ref.rollout.n: 1 -> 4 (a config write added: verl.trainer.main_ppo.main sets" in text_report, text_report
    assert f"at {MAIN_PPO}:{line_of(main_ppo, 'OmegaConf.update')})" in text_report
    assert "Nothing changed" not in text_report
    assert code == 0


def test_a_post_init_write_in_hf_model_config_is_named_on_the_cases_that_build_it(change, capsys):
    model = change / MODEL
    text = model.read_text()
    anchor = "    def __post_init__(self):\n        import_external_libs(self.external_lib)\n"
    assert anchor in text
    model.write_text(text.replace(anchor, anchor + "        self.use_remove_padding = False\n", 1))
    _, report, text_report = review(change, capsys)
    found = {(f["path"], f["new"], f["source"]) for f in writes(report)}
    where = f"{MODEL}:{line_of(model, 'self.use_remove_padding = False')}"
    assert ("actor_rollout_ref.model.use_remove_padding", False, where) in found
    # Every node that builds HFModelConfig (the critic's model, an SFT root's model), and nothing else.
    assert {source for _, _, source in found} == {where} and all(path.endswith("model.use_remove_padding") for path, _, _ in found)
    assert "HFModelConfig sets use_remove_padding = False" in text_report


def test_a_new_entry_module_that_edits_the_config_before_run_ppo_is_named(change, capsys):
    fast = change / "verl/trainer/main_ppo_fast.py"
    fast.write_text(
        "import hydra\n\nfrom verl.trainer.main_ppo import TaskRunner, run_ppo\n\n\n"
        '@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\n'
        "def main(config):\n    config.actor_rollout_ref.rollout.n = 1\n    run_ppo(config, task_runner_class=TaskRunner)\n"
    )
    script = change / "examples/grpo_trainer/run_qwen3-8b.sh"
    if script.is_file():
        script.write_text(script.read_text().replace("verl.trainer.main_ppo ", "verl.trainer.main_ppo_fast "))
    _, report, _ = review(change, capsys)
    found = {(f["path"], f["new"], f["source"]) for f in writes(report)}
    assert ("actor_rollout_ref.rollout.n", 1, "verl/trainer/main_ppo_fast.py:8") in found


def test_a_key_main_ppo_reads_removed_from_the_yaml_blocks_the_review_naming_the_reading_line(change, capsys):
    """Issue 51 item 4: `trainer.use_v1` removed from ppo_trainer.yaml while main_ppo.py reads it strictly (the
    goldens regenerated, as the pull request must): an error at the reading line, on every case of the entry point's
    config, and nothing else: a key verl reads that no case ever had (main_generation_server's `data.output_path`,
    which its launches add) is no finding."""
    trainer = change / "verl/trainer/config/ppo_trainer.yaml"
    text = trainer.read_text()
    anchor = "  # Whether to use V1 trainer\n  use_v1: true\n"
    assert anchor in text
    trainer.write_text(text.replace(anchor, "", 1))
    assert main(["generate"]) in (0, 1)
    code, report, text_report = review(change, capsys)
    where = f"{MAIN_PPO}:{line_of(change / MAIN_PPO, 'if config.trainer.use_v1')}"
    found = [(case["id"], f) for case in report["cases"] for f in case["findings"] if f["kind"] == "config_read"]
    assert {(f["path"], f["source"], f["origin"]) for _, f in found} == {("trainer.use_v1", where, "introduced")}
    assert {case_id.split("/")[0] for case_id, _ in found} == {"ppo_trainer"}
    assert code == 1 and f"trainer.use_v1: read by verl.trainer.main_ppo.main at {where}" in text_report
