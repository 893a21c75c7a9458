"""benchmarl's ConfigStore schemas, case for case: every golden the harness writes through `schemas` equals what plain
Hydra composes in the same venv (benchmarl imported, so its registrations exist), as the other apps' tests compare.

The venv is the one tests/e2e/test_hydra_apps.py builds (CPU torch from a local wheel, benchmarl 1.5.2), under a file
lock, so the two tests may run on two xdist workers.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.composition.render import parse_yaml
from tests.e2e.test_hydra_apps import TORCH_CPU, benchmarl_conf, benchmarl_venv

pytestmark = pytest.mark.e2e

# Plain Hydra in the app's venv: import the schemas' module, compose every case in one initialize_config_dir, print
# each tree as YAML (OmegaConf's own rendering of enums and typed values), or the error when Hydra refuses the case.
PLAIN = """
import json, sys
import benchmarl  # noqa: F401  (its ConfigStore registrations)
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

config_dir, cases = sys.argv[1], json.loads(sys.stdin.read())
out = {}
with initialize_config_dir(config_dir=config_dir, version_base=None):
    for case in cases:
        try:
            out[case["id"]] = {"yaml": OmegaConf.to_yaml(compose(case["config_name"], overrides=case["overrides"]))}
        except Exception as error:
            out[case["id"]] = {"error": " ".join(str(error).split())}
print(json.dumps(out))
"""


@pytest.mark.skipif(not TORCH_CPU, reason="benchmarl needs torch; only a local CPU wheel keeps its venv small")
def test_benchmarl_goldens_equal_plain_hydra_case_for_case(tmp_path):
    python = benchmarl_venv()
    conf = benchmarl_conf(python)
    settings = tmp_path / "harness.toml"
    settings.write_text(
        f'schemas = ["benchmarl"]\nconfig_dir = "{conf}"\nread_outside = ["{conf}"]\nsnapshot_dir = "snapshots"\n'
        'roots = ["config"]\nengine_group = "algorithm"\n[presets]\nbalance = ["task=vmas/balance"]\n'
        'navigation = ["task=vmas/navigation", "experiment.max_n_frames=1000"]\n'
        'simple_spread = ["task=pettingzoo/simple_spread"]\n'
    )
    harness = [str(python.parent / "config-harness"), "--settings", str(settings)]
    listing = subprocess.run([*harness, "list", "--format", "json"], capture_output=True, text=True, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr[-2000:]
    cases = json.loads(listing.stdout)["cases"]
    generated = subprocess.run([*harness, "generate"], capture_output=True, text=True, cwd=tmp_path)
    assert generated.returncode == 0, generated.stdout[-2000:] + generated.stderr[-2000:]

    plain = subprocess.run([str(python), "-c", PLAIN, conf], input=json.dumps(cases), capture_output=True, text=True, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr[-2000:]
    composed = json.loads(plain.stdout)
    assert len(cases) == 27 and all("yaml" in composed[case["id"]] for case in cases), {
        case_id: result for case_id, result in composed.items() if "error" in result
    }
    for case in cases:
        golden = parse_yaml((tmp_path / "snapshots" / Path(case["golden"]).name).read_text(encoding="utf-8"))
        assert golden == parse_yaml(composed[case["id"]]["yaml"]), case["id"]
