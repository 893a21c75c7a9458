"""Order is compared (issue 54 item 3) on real trees: the order finding fires where a program builds objects in a
mapping's order (lightning-hydra-template's callbacks, swapped in a pull request) and on none of verl's own edits
(the replay bundle's four steps of history, every root and engine composed by plain Hydra at both ends), where an
order check of every mapping would name 32 reorders of dataclass fields that mean nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.model.semantic_diff import order_changes
from tests.e2e.real_trees import SHARED_DATA
from tests.e2e.test_other_repos import checkout, colorlog_configs, commit_all
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

REPLAY = SHARED_DATA / "verl-replay.bundle"
STEPS = (("pr5848-parent", "pr5848"), ("pr5848", "pr7082-parent"), ("pr7082-parent", "pr7082"), ("pr7082", "main-2026-08-22"))


def every_order(old, new, path=""):
    """What an order check of every mapping would name: each mapping whose common keys come in another order."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return []
    common = [key for key in old if key in new]
    found = [path] if common != [key for key in new if key in old] else []
    return found + [moved for key in common for moved in every_order(old[key], new[key], f"{path}.{key}")]


def composed(repository: Path, tag: str) -> dict[tuple[str, str], dict]:
    """Every root of verl's trainer config at `tag` with each `model_engine` option (none where the tag has no such
    group, or the root takes none), as plain Hydra composes it."""
    git(repository, "checkout", "-q", tag)
    folder = (repository / "verl/trainer/config").resolve()
    engines = sorted(p.stem for p in (folder / "model_engine").glob("*.yaml"))
    trees = {}
    with initialize_config_dir(config_dir=str(folder), version_base=None):
        for root in sorted(p.stem for p in folder.glob("*.yaml") if not p.stem.startswith("_")):
            for engine in engines or [""]:
                try:
                    trees[(root, engine)] = OmegaConf.to_container(
                        compose(root, [f"model_engine={engine}"] if engine else []), resolve=False
                    )
                except Exception:  # Hydra raises many types: a root that takes no engine is composed without one
                    try:
                        trees[(root, "")] = OmegaConf.to_container(compose(root, []), resolve=False)
                    except Exception:
                        continue
    return trees


def test_none_of_verl_s_own_edits_is_an_order_change(tmp_path):
    if not REPLAY.is_file():
        pytest.skip(f"{REPLAY} is absent")
    repository = tmp_path / "verl"
    git(tmp_path, "clone", "--quiet", str(REPLAY), str(repository))
    compared, everywhere = 0, 0
    for old_tag, new_tag in STEPS:
        old, new = composed(repository, old_tag), composed(repository, new_tag)
        for case in old.keys() & new.keys():
            assert order_changes(old[case], new[case]) == [], (old_tag, new_tag, case)
            everywhere += len(every_order(old[case], new[case]))
            compared += 1
    assert compared == 44
    assert everywhere == 32  # what ordering every mapping would have said: fields of `_target_` nodes, reordered by the merge


def test_swapping_lightning_hydra_template_s_callbacks_is_an_order_change_and_rewrites_no_golden(tmp_path, cli):
    repo = checkout(tmp_path, "lightning-hydra-template")
    shutil.copytree(colorlog_configs(), repo / "plugin-conf")
    init = ("init", "--config-dir", "configs", "--search-path", "plugin-conf", "--engine-group", "trainer", "--write", "harness.toml")
    assert cli(*init, cwd=repo).code == 0
    assert cli("--settings", "harness.toml", "generate").code == 0
    commit_all(repo, "adopt config-harness")
    callbacks = repo / "configs/callbacks/default.yaml"
    text = callbacks.read_text()
    assert "  - model_checkpoint\n  - early_stopping\n" in text
    callbacks.write_text(text.replace("  - model_checkpoint\n  - early_stopping\n", "  - early_stopping\n  - model_checkpoint\n"))
    generated = cli("--settings", "harness.toml", "generate")
    assert generated.code == 0 and " 0 changed" in generated.out, generated.out  # goldens keep sorted keys: no churn
    review = cli("--settings", "harness.toml", "diff", "--base", "adopted", "--format", "json").json()
    found = {(f["path"], tuple(f["old"][:2]), tuple(f["new"][:2])) for c in review["cases"] for f in c["findings"] if f["kind"] == "order"}
    assert found == {("callbacks", ("model_checkpoint", "early_stopping"), ("early_stopping", "model_checkpoint"))}
    ordered = {c["id"] for c in review["cases"] if any(f["kind"] == "order" for f in c["findings"])}
    assert "train/default/plain" in ordered and any(case.startswith("cmd/scripts/schedule.sh") for case in ordered)
