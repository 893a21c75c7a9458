"""The value the program sees on verl's real wheels: every `_target_` of the 13 cases read from verl's own source
(unpacked from the wheel, never imported), resolved to its class or reported with its line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.baselines.releases import fetch_wheel_tree
from harness.model.settings import load_settings
from harness.readers.pysource import Signature, SourceIndex
from harness.runner.targets import target_nodes
from tests.conftest import CACHE, ROOT

pytestmark = pytest.mark.e2e


def verl_with_sources(version: str) -> Path:
    """verl's config tree and the `.py` files of its package, from the PyPI wheel (never installed or imported)."""
    return fetch_wheel_tree(f"verl=={version}", "verl/trainer/config", CACHE / f"verl-{version}-src", python="verl")


def settings_for(tree: Path, package: Path) -> str:
    """The project's own 13-case matrix over another verl release, with that release's package as python_sources."""
    own = load_settings(start=ROOT)
    presets = "\n".join(f"{name} = {json.dumps(list(overrides))}" for name, overrides in own.presets)
    return f"""
config_dir = "{tree}"
read_outside = ["{package.parent}"]
python_sources = ["{package}"]
snapshot_dir = "snapshots"
roots = ["ppo_trainer"]
engine_group = "model_engine"
engines = ["dp", "megatron", "torchtitan", "veomni"]
[presets]
{presets}
[[routes]]
name = "ppo_megatron_trainer"
config_name = "ppo_megatron_trainer"
"""


@pytest.mark.parametrize("version", ["0.8.0", "0.9.1"])
def test_every_target_of_the_13_cases_resolves_or_is_reported_with_its_line(version, tmp_path, cli):
    tree = verl_with_sources(version)
    package = CACHE / f"verl-{version}-src" / "verl"
    (tmp_path / "harness.toml").write_text(settings_for(tree, package), encoding="utf-8")
    report = cli("--settings", "harness.toml", "check", "--format", "json", cwd=tmp_path).json()
    assert len(report["cases"]) == 13
    cases = cli("--settings", "harness.toml", "list", "--format", "json", cwd=tmp_path).json()["cases"]
    index = SourceIndex([package])
    with initialize_config_dir(config_dir=str(tree), version_base=None):
        for case, result in zip(cases, report["cases"]):
            plain = OmegaConf.to_container(compose(case["config_name"], overrides=case["overrides"]), resolve=False)
            nodes = list(target_nodes(plain))
            assert 50 <= len(nodes) <= 80, (case["id"], len(nodes))
            missing = {f["path"]: f for f in result["findings"] if f["kind"] == "target" and f["detail"]["reason"] == "missing_class"}
            for node in nodes:
                signature = index.signature(node.target)
                key = f"{node.path}._target_"
                if isinstance(signature, Signature):
                    # Checked against the file itself: the class (or function) is defined on the line the index names.
                    line = Path(signature.file).read_text(encoding="utf-8").splitlines()[signature.line - 1]
                    name = node.target.rsplit(".", 1)[-1]
                    assert re.match(rf"\s*(class|def) {name}\b", line) or " as " in line or "=" in line, (node, line)
                    assert key not in missing
                else:
                    # Not resolved: reported as an error on the config line that names the class.
                    finding = missing[key]
                    file, _, line_number = finding["source"].rpartition(":")
                    written = Path(tmp_path, file).read_text(encoding="utf-8").splitlines()[int(line_number) - 1]
                    assert finding["severity"] == "error" and "_target_" in written and node.target in written, finding
            counted = result["targets"]
            assert 150 <= counted["defaulted"] <= 300 and counted["missing_class"] == len(missing)
    assert not any(name == "verl" or name.startswith("verl.") for name in sys.modules)


def test_the_project_check_prints_the_counts_of_each_case_in_one_line(cli):
    verl_with_sources("0.9.1")
    own = load_settings(start=ROOT)
    assert own.source is not None and own.source.python == "verl"
    assert own.python_sources == (own.source.into / "verl",)
    from harness.baselines.releases import fetch_source

    fetch_source(own.source)
    run = cli("check", cwd=ROOT)
    assert run.code == 0 and "Program view" not in run.out  # a green check is short: the counts on request
    run = cli("check", "--verbose", cwd=ROOT)
    (line,) = [line for line in run.out.splitlines() if line.startswith("Program view")]
    assert "0 missing classes" in line and "ppo_trainer/veomni/*" in line and "Python-defaulted" in line
    report = cli("check", "--format", "json", cwd=ROOT).json()
    assert all(case["targets"]["defaulted"] > 0 for case in report["cases"])
