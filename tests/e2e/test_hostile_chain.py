"""A hostile promise of tests/integration/test_hostile.py that costs a `check` about 8 CPU-seconds (2000
interpolation steps on each of 7 cases), so it runs in this tier: a long chain is reported, not followed."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_hostile import bounded_run, edit

pytestmark = pytest.mark.e2e

TOO_LONG = "a circular interpolation, or a chain too long to follow"


def test_a_long_interpolation_chain_is_reported_not_followed(small_project, cli):
    steps = 2000
    chain = "".join(f"  k{i}: ${{trainer.chain.k{i + 1}}}\n" for i in range(steps)) + f"  k{steps}: 1\n"
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "trainer:\n  chain:\n" + chain.replace("  k", "    k"))
    # The program cannot resolve the chain (OmegaConf stops with a recursion error), so it is `unresolved`: an error
    # of every run, generate included, while the goldens are written anyway.
    generated = cli("--settings", "harness.toml", "generate", cwd=small_project)
    assert generated.code == 1, generated.out
    assert "7 golden(s) written: 7 new" in generated.out, generated.out
    assert f"trainer.chain.k0 cannot be resolved: ${{trainer.chain.k1}}: {TOO_LONG}" in generated.out, generated.out
    edit(small_project / "conf" / "train.yaml", f"    k{steps}: 1\n", f"    k{steps}: 2\n")
    run = bounded_run(small_project, "check", "--format", "json", timeout=240)
    assert run.returncode == 1, run.stderr[-2000:]
    findings = [f for c in json.loads(run.stdout)["cases"] if c["id"] == "train/cpu/default" for f in c["findings"]]
    # The harness follows 40 steps: k1960 reaches the plain k2000 in 40, k0..k1959 need more and are each named.
    too_long = {f["path"] for f in findings if f["kind"] == "unresolved" and TOO_LONG in f["message"]}
    assert too_long == {f"trainer.chain.k{i}" for i in range(steps - 40)}, sorted(too_long)[:5]
    # Within the limit the new resolved value is compared; past it nothing is resolved (no `effective` there).
    effective = {f["path"]: f["new"] for f in findings if f["kind"] == "effective"}
    assert effective == {f"trainer.chain.k{i}": 2 for i in range(steps - 40, steps)}, sorted(effective)[:5]
