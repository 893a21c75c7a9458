"""Issue 51 item 5 on verl's own repository (verl-full.bundle at main-2026-08-22, adopted as `init` writes it): its
launch scripts set values only under a condition on the environment (`if [ -n "$MCORE_MODEL_PATH" ]`, the launcher
and `py_executable` on a device other than the GPU). A pull request that changes only such a branch passed review
with nothing named; now it is a changed value of the launch's reading under that condition, and adoption stays green
with no new known cause."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.cli import main
from tests.e2e.adoption import adopt_verl, clone, pull_request, review

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-full-environments")]
SCRIPT = "examples/grpo_trainer/run_qwen3_30b_a3b_megatron.sh"
LAUNCH = f"cmd/{SCRIPT}#1"


@pytest.fixture(scope="module")
def verl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = clone("verl-full.bundle", tmp_path_factory.mktemp("verl-environments") / "verl")
    adopt_verl(repository, "main-2026-08-22", "adopted", "adopt config-harness")
    return repository


@pytest.fixture
def change(verl: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    yield from pull_request(verl, "adopted", request, monkeypatch)


def values(report: dict[str, Any]) -> set[tuple[str, str, Any, Any]]:
    return {(c["id"], f["path"], f["old"], f["new"]) for c in report["cases"] for f in c["findings"] if f["kind"] == "changed"}


def test_adoption_reads_each_launch_under_the_environments_its_script_tests_with_no_new_known_cause(verl, capsys, monkeypatch):
    monkeypatch.chdir(verl)
    capsys.readouterr()
    assert main(["check", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    ids = {c["id"] for c in report["cases"]}
    assert {f"{LAUNCH} (only when MCORE_MODEL_PATH is set)", f"{LAUNCH} (only when INFER_BACKEND=trtllm)"} <= ids
    readings = [c for c in report["cases"] if c.get("when")]
    assert readings and all(c["id"].endswith(f" ({c['when']})") for c in readings)
    # Each reading that fails fails as its plain launch does: the causes `init` recorded are the plain launches'.
    known = yaml.safe_load((verl / "config-harness" / "known.yaml").read_text())
    assert known["waivers"] and not [entry for entry in known["waivers"] if "only when" in json.dumps(entry)]
    assert "of them read under an environment their script tests" in report["launches"]


def test_a_change_only_in_the_branch_on_mcore_model_path_is_a_changed_value_under_that_condition(change, capsys):
    path = change / SCRIPT
    text = path.read_text()
    assert text.count("actor_rollout_ref.actor.megatron.use_dist_checkpointing=True") == 1
    path.write_text(text.replace("megatron.use_dist_checkpointing=True", "megatron.use_dist_checkpointing=False", 1))
    code, report = review(change, "adopted", capsys)
    assert code == 0, report["verdict"]
    found = values(report)
    assert found == {
        (f"{LAUNCH} (only when MCORE_MODEL_PATH is set)", "actor_rollout_ref.actor.megatron.use_dist_checkpointing", True, False)
    }
    assert "(only when MCORE_MODEL_PATH is set)" in report["summary"]


def test_a_change_only_in_what_a_run_off_the_gpu_gives_ray_is_a_changed_value_under_each_condition_it_holds_in(change, capsys):
    path = change / SCRIPT
    text = path.read_text()
    fallback = "RAY=(ray_kwargs.ray_init.runtime_env.py_executable=null)"
    assert text.count(fallback) == 1
    path.write_text(text.replace(fallback, "RAY=(ray_kwargs.ray_init.runtime_env.py_executable=/usr/bin/python3)"))
    code, report = review(change, "adopted", capsys)
    assert code == 0, report["verdict"]
    # The two readings that fall back to ambient python: another device, and a backend `uv` has no extra for.
    path_ = "ray_kwargs.ray_init.runtime_env.py_executable"
    assert values(report) == {
        (f"{LAUNCH} (only when DEVICE is set, not to gpu)", path_, None, "/usr/bin/python3"),
        (f"{LAUNCH} (only when INFER_BACKEND=trtllm)", path_, None, "/usr/bin/python3"),
    }
