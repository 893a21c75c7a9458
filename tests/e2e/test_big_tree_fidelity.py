"""Every optimization against plain Hydra on big real trees (sheeprl 0.8.4, anemoi-training 0.17.1; verl's is
in test_verl.py): shared bases, derived presets, forked workers and the dependency-aware cache (cold, warm,
after a comment edit, after a value edit) all write goldens byte-identical to the plain path (one full Hydra
compose per case, no cache, no workers)."""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from harness.baselines.goldens import write_goldens
from harness.baselines.kinds import GoldenFolder
from harness.baselines.releases import fetch_wheel_tree
from harness.composition.render import golden_body
from harness.model.settings import parse_settings
from harness.runner.run import RuleSet, Run, Runner
from tests.conftest import CACHE, ROOT

pytestmark = pytest.mark.e2e

# A part of each matrix, so `make test-e2e` stays quick: experiments of every family, every preset, the routes.
# Each tree: wheel, config folder, engines kept, and a value edit (file, old, new) some of those cases read.
TREES = {
    "sheeprl": (
        "sheeprl==0.8.4",
        "sheeprl/configs",
        ["a2c", "dreamer_v3", "ppo", "ppo_recurrent", "sac", "p2e_dv3_finetuning"],
        ("algo/ppo.yaml", "update_epochs: 10", "update_epochs: 4"),
    ),
    "anemoi": (
        "anemoi-training==0.17.1",
        "anemoi/training/config",
        ["gnn", "graphtransformer", "transformer_ens"],
        ("training/single.yaml", "num_sanity_val_steps: 6", "num_sanity_val_steps: 2"),
    ),
}


def project(name: str, folder: Path) -> tuple[Path, dict]:
    """A copy of the tree (so edits stay local) and settings from benchmarks/<name>.toml, narrowed."""
    wheel, unpack, engines, _ = TREES[name]
    tree = fetch_wheel_tree(wheel, unpack, CACHE / wheel.replace("==", "-"))
    shutil.copytree(tree, folder / "conf")
    table = tomllib.loads((ROOT / "benchmarks" / f"{name}.toml").read_text())
    table.pop("source", None)
    table.update(config_dir="conf", snapshot_dir="snapshots", engines=engines)
    return folder / "harness.toml", table


def goldens(settings, folder: Path, plain: bool = False) -> dict[str, bytes]:
    result = Runner(Run.check(settings, RuleSet(), keep_rendered=True, baseline=GoldenFolder(folder)), plain=plain).run()
    failed = [case.id for case in result.cases if case.status == "error"]
    if plain and len(failed) > len(result.cases) // 2:  # a fidelity check over nothing would pass: fail instead
        pytest.fail(
            f"{settings.config_dir}: plain Hydra failed to compose {len(failed)} of {len(result.cases)} cases, "
            f"so there is little to compare with: {failed[:5]}"
        )
    write_goldens(result, folder)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("name", sorted(TREES))
def test_optimized_paths_write_the_plain_paths_goldens(name, tmp_path):
    path, table = project(name, tmp_path)
    settings = parse_settings(table, path)
    plain = goldens(settings, tmp_path / "plain", plain=True)
    assert len(plain) >= 10
    fast = replace(settings, cache_dir=tmp_path / "cache", jobs=2)
    assert goldens(fast, tmp_path / "cold") == plain  # shared bases, derived presets, two workers, empty cache
    assert goldens(fast, tmp_path / "warm") == plain  # every composition from the cache

    root = tmp_path / "conf" / f"{settings.roots[0]}.yaml"
    root.write_text("# a comment the cache ignores\n" + root.read_text())
    # The bodies stay the plain path's; the headers' provenance moves a line (the comment), as the plain path's does.
    commented = goldens(fast, tmp_path / "comment")
    assert commented == goldens(settings, tmp_path / "comment-plain", plain=True)
    assert {name: golden_body(text.decode()) for name, text in commented.items()} == {
        name: golden_body(text.decode()) for name, text in plain.items()
    }

    relative, old, new = TREES[name][3]
    edited = tmp_path / "conf" / relative
    assert edited.read_text().count(old) == 1
    edited.write_text(edited.read_text().replace(old, new))
    after_edit = goldens(fast, tmp_path / "edited")
    assert after_edit != plain
    assert after_edit == goldens(settings, tmp_path / "edited-plain", plain=True)
