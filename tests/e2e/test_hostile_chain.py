"""A hostile promise of tests/integration/test_hostile.py that costs a `check` about 8 CPU-seconds (2000
interpolation steps on each of 7 cases), so it runs in this tier: a long chain is reported, not followed."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_hostile import bounded_run, edit

pytestmark = pytest.mark.e2e


def test_a_long_interpolation_chain_is_reported_not_followed(small_project, cli):
    steps = 2000
    chain = "".join(f"  k{i}: ${{trainer.chain.k{i + 1}}}\n" for i in range(steps)) + f"  k{steps}: 1\n"
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "trainer:\n  chain:\n" + chain.replace("  k", "    k"))
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    edit(small_project / "conf" / "train.yaml", f"    k{steps}: 1\n", f"    k{steps}: 2\n")
    run = bounded_run(small_project, "check", "--format", "json", timeout=240)
    messages = [f["message"] for c in json.loads(run.stdout)["cases"] if c["id"] == "train/cpu/default" for f in c["findings"]]
    assert any("chains of more than 40 steps" in m and "trainer.chain.k0" in m for m in messages), messages
