"""harness.runner.run.Run: one named constructor per mode, and what each mode decides (instead of flag combinations)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.baselines.kinds import GoldenFolder
from harness.model.findings import ERROR, Comparison, Mode
from harness.model.settings import load_settings
from harness.runner.run import EVERY_SEVERITY, RuleSet, Run, RunMode, Runner
from tests.conftest import add_contracts


@pytest.fixture
def settings(small_project):
    add_contracts(small_project, "contracts:\n  - name: gpu\n    cases: 'train/gpu/*'\n    require: [device.count, device.qkv_layer]\n")
    return load_settings(small_project / "harness.toml")


def test_each_mode_decides_what_the_run_requires_and_checks(settings):
    rule_set = RuleSet.of(settings, strict_waivers=True)
    check, generate = Run.check(settings, rule_set), Run.generate(settings, rule_set)
    assert (check.mode, check.strict, check.launches, check.keep_rendered) == (RunMode.CHECK, True, True, False)
    assert (generate.mode, generate.strict, generate.launches, generate.keep_rendered) == (RunMode.GENERATE, True, True, True)
    assert Run.generate(settings, rule_set, write=False).keep_rendered is False
    assert check.baseline == GoldenFolder(settings.snapshot_dir) == generate.baseline and check.sourced == frozenset({ERROR})
    comparison = Comparison(Mode.TREES, "old", "new")
    tree_diff = Run.tree_diff(settings, GoldenFolder(settings.snapshot_dir), rule_set, comparison)
    assert (tree_diff.strict, tree_diff.launches, tree_diff.sourced, tree_diff.comparison) == (False, True, EVERY_SEVERITY, comparison)


def test_a_rule_set_is_the_settings_contracts_and_their_rules(settings):
    rule_set = RuleSet.of(settings, strict_waivers=True)
    assert rule_set.contracts is not None and [c.name for c in rule_set.contracts.contracts] == ["gpu"]
    assert len(rule_set.rules) == 1 and rule_set.strict_waivers and rule_set.refiners == ()
    run = Run.check(settings, rule_set)
    assert (run.rules, run.contracts, run.strict_waivers) == (rule_set.rules, rule_set.contracts, True)
    assert RuleSet() == RuleSet((), (), None, False)


def test_a_run_whose_fields_contradict_its_mode_is_refused(settings):
    comparison = Comparison(Mode.TREES, "old", "new")
    with pytest.raises(ValueError, match="a check run"):
        replace(Run.check(settings, RuleSet()), comparison=comparison)
    with pytest.raises(ValueError, match="a tree_diff run"):
        Run(RunMode.TREE_DIFF, settings, GoldenFolder(settings.snapshot_dir))


def test_the_engine_follows_the_mode(settings):
    """A generate run keeps each golden's text for the writer; a check run does not, and both check the contracts."""
    generated = Runner(Run.generate(settings, RuleSet.of(settings)), "train/gpu/*").run()
    checked = Runner(Run.check(settings, RuleSet.of(settings)), "train/gpu/*").run()
    assert (
        [r.case.id for r in generated.cases]
        == [r.case.id for r in checked.cases]
        == ["train/gpu/default", "train/gpu/fast", "train/gpu/sgd"]
    )
    assert all(r.rendered for r in generated.cases) and all(r.rendered is None for r in checked.cases)
    assert [r.status for r in checked.cases] == ["new"] * 3
    for result in (generated, checked):
        assert [[f.message for f in r.findings if f.kind == "contract"] for r in result.cases] == [
            ["gpu: device.qkv_layer is required but missing"]
        ] * 3
