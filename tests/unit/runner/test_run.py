"""The engine against a baseline held in memory: what it composes, how it compares, what the run says as a whole.

The baseline is a value built here (the `Baseline` protocol is the engine's seam), so each test states the
baseline's trees itself; the tree under test is a small real Hydra folder that Hydra composes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from harness.baselines.kinds import BaselineEntry
from harness.composition.provenance import Source
from harness.model.findings import ERROR, INFO, WARNING, ContractRef, Finding, Kind, Origin, Severity, Status
from harness.model.matrix import Case
from harness.model.settings import Settings, SettingsError, load_settings
from harness.runner.run import RuleSet, Run, Runner, with_origins
from tests.conftest import write_tree

TREE = {
    "app.yaml": """
        defaults:
          - db: sqlite
          - _self_
        train:
          lr: 0.1
          steps: 10
        log_name: run-${train.lr}
        """,
    "db/sqlite.yaml": "driver: sqlite\nport: 0\n",
    "db/pg.yaml": "driver: pg\nport: 5432\n",
}
SETTINGS = """
jobs = 1
config_dir = "conf"
snapshot_dir = "snapshots"
roots = ["app"]
engine_group = "db"

[presets]
default = []
short = ["train.steps=1"]

[[routes]]
name = "legacy"
config_name = "app"
overrides = ["db=pg"]
same_as = "app/pg/default"
"""

# What each case of TREE composes to, as a plain tree (interpolations as written): the baseline's side.
SQLITE = {"db": {"driver": "sqlite", "port": 0}, "train": {"lr": 0.1, "steps": 10}, "log_name": "run-${train.lr}"}
PG = {"db": {"driver": "pg", "port": 5432}, "train": {"lr": 0.1, "steps": 10}, "log_name": "run-${train.lr}"}


@dataclass
class InMemory:
    """A baseline of plain trees by case id, with the policy knobs of the protocol set per test."""

    trees: dict[str, Any]
    differences: Severity = INFO
    missing_is_error: bool = False
    unclaimed_are_orphans: bool = False
    errors: dict[str, str] = field(default_factory=dict)  # case id -> why the baseline could not compose it
    extra: tuple[str, ...] = ()  # cases only the baseline has
    sources: dict[str, Source] = field(default_factory=dict)  # path -> where the baseline set it
    prepared: list[str] = field(default_factory=list)

    @property
    def description(self) -> str:
        return "trees in memory"

    def prepare(self, cases: Sequence[Case]) -> None:
        self.prepared += [case.id for case in cases]

    def entry(self, case: Case) -> BaselineEntry | None:
        if case.id in self.errors:
            return BaselineEntry(f"memory {case.id}", error=self.errors[case.id])
        if case.id not in self.trees:
            return None
        return BaselineEntry(f"memory {case.id}", tree=self.trees[case.id])

    def gone(self, cases: Sequence[Case]) -> list[str]:
        return list(self.extra)

    def contract_texts(self) -> dict[str, str | None] | None:
        return None

    def removed_sources(self, case: Case, baseline_id: str) -> dict[str, Source]:
        return dict(self.sources)


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("engine")
    write_tree(root / "conf", TREE)
    (root / "harness.toml").write_text(SETTINGS, encoding="utf-8")
    return load_settings(root / "harness.toml")


def every_case(**changes: Any) -> dict[str, Any]:
    """Every case of TREE as the baseline holds it: equal to what Hydra composes, unless `changes` says otherwise."""
    trees = {
        "app/sqlite/default": SQLITE,
        "app/pg/default": PG,
        "app/sqlite/short": {**SQLITE, "train": {"lr": 0.1, "steps": 1}},
        "app/pg/short": {**PG, "train": {"lr": 0.1, "steps": 1}},
        "route/legacy": PG,
    }
    return {**trees, **changes}


def by_id(result: Any) -> dict[str, Any]:
    return {case.case.id: case for case in result.cases}


def kinds(case: Any) -> list[tuple[str, str, str]]:
    return [(str(f.kind), f.path, str(f.severity)) for f in case.findings]


def test_a_baseline_equal_to_the_composed_trees_gives_every_case_ok_and_is_prepared_once_with_the_twins(settings):
    baseline = InMemory(every_case())
    result = Runner(Run.check(settings, RuleSet(), baseline=baseline), "route/*").run()
    assert [(c.case.id, c.status, c.findings) for c in result.cases] == [("route/legacy", Status.OK, ())]
    assert baseline.prepared == ["app/pg/default", "route/legacy"]  # the route and the twin it must equal
    assert result.ok and result.baseline == "trees in memory" and result.orphans == ()


@pytest.mark.parametrize("differences", [INFO, ERROR])
def test_a_changed_leaf_and_the_interpolation_reading_it_take_the_baselines_severity(settings, differences):
    was = {**SQLITE, "train": {"lr": 0.2, "steps": 10}}
    result = Runner(
        Run.check(settings, RuleSet(), baseline=InMemory(every_case(**{"app/sqlite/default": was}), differences=differences))
    ).run()
    case = by_id(result)["app/sqlite/default"]
    assert case.status == Status.CHANGED and case.golden == "memory app/sqlite/default"
    assert kinds(case) == [("changed", "train.lr", differences), ("effective", "log_name", differences)]
    assert (
        case.findings[1].message
        == "log_name is still written run-${train.lr} but now resolves to 'run-0.1' (was 'run-0.2') through train.lr"
    )
    assert [c.status for c in result.cases if c is not case] == [Status.OK] * 4
    assert result.ok is (differences == INFO)


def test_a_case_the_baseline_lacks_is_new_and_an_error_only_where_the_baseline_says_missing_is_one(settings):
    """`check`'s policy (goldens in a folder): a difference is an error, and so is a case without a golden."""
    trees = every_case()
    del trees["app/pg/short"]
    lenient = by_id(Runner(Run.check(settings, RuleSet(), baseline=InMemory(trees))).run())["app/pg/short"]
    strict = by_id(Runner(Run.check(settings, RuleSet(), baseline=InMemory(trees, ERROR, missing_is_error=True))).run())["app/pg/short"]
    assert (lenient.status, lenient.findings) == (Status.NEW, ())
    assert strict.status == Status.NEW and kinds(strict) == [("missing_golden", "", "error")]
    assert strict.findings[0].message.startswith("no golden at ") and strict.findings[0].message.endswith(
        "snapshots/_generated_app__pg__short.yaml; run generate"
    )


def test_a_case_the_baseline_could_not_compose_is_changed_with_the_baselines_reason_as_information(settings):
    baseline = InMemory(every_case(), errors={"app/pg/default": "db/pg.yaml: no such file"})
    case = by_id(Runner(Run.check(settings, RuleSet(), baseline=baseline), "app/pg/default").run())["app/pg/default"]
    assert case.status == Status.CHANGED and kinds(case) == [("error", "", "info")]
    assert case.findings[0].message == "the baseline could not compose memory app/pg/default: db/pg.yaml: no such file"


def test_cases_only_the_baseline_has_are_gone_cases_or_orphans_as_its_policy_says(settings):
    gone = Runner(Run.check(settings, RuleSet(), baseline=InMemory(every_case(), extra=("app/mysql/default",)))).run()
    orphans = Runner(
        Run.check(settings, RuleSet(), baseline=InMemory(every_case(), extra=("snapshots/_generated_x.yaml",), unclaimed_are_orphans=True))
    ).run()
    assert (by_id(gone)["app/mysql/default"].status, gone.orphans, gone.ok) == (Status.GONE, (), True)
    assert orphans.orphans == ("snapshots/_generated_x.yaml",) and not orphans.ok
    assert "snapshots/_generated_x.yaml" not in by_id(orphans)


def test_a_removed_key_names_the_file_that_set_it_at_the_baseline(settings):
    was = {**SQLITE, "db": {"driver": "sqlite", "port": 0, "path": "/tmp/db"}}
    source = Source("base/db/sqlite.yaml", 3)
    baseline = InMemory(every_case(**{"app/sqlite/default": was}), sources={"db.path": source})
    case = by_id(Runner(Run.check(settings, RuleSet(), baseline=baseline), "app/sqlite/default").run())["app/sqlite/default"]
    assert kinds(case) == [("removed", "db.path", "info")] and case.findings[0].source == source


def test_a_case_the_baseline_lacks_is_compared_with_the_route_that_became_it(tmp_path):
    write_tree(tmp_path / "conf", TREE)
    (tmp_path / "harness.toml").write_text(SETTINGS.replace('same_as = "app/pg/default"', 'became = "app/pg/default"'))
    settings = load_settings(tmp_path / "harness.toml")
    trees = every_case(**{"route/legacy": {**PG, "db": {"driver": "pg", "port": 5433}}})
    del trees["app/pg/default"]
    case = by_id(Runner(Run.check(settings, RuleSet(), baseline=InMemory(trees)), "app/pg/default").run())["app/pg/default"]
    assert (case.baseline_id, case.golden) == ("route/legacy", "memory route/legacy (became app/pg/default)")
    assert kinds(case) == [("changed", "db.port", "info")]


def test_a_rule_error_fails_a_case_whatever_the_baseline_says_and_a_route_is_held_to_its_twin(settings):
    def small_steps(case: Case, config: Any, tree: Any) -> list[Finding]:
        steps = tree["train"]["steps"]
        return (
            [Finding(Kind.CONTRACT, "train.steps", None, steps, ERROR, f"{case.id}: steps {steps} > 5", detail=ContractRef("short"))]
            if steps > 5
            else []
        )

    result = Runner(Run.check(settings, RuleSet((small_steps,)), baseline=InMemory(every_case()))).run()
    statuses = {case_id: case.status for case_id, case in by_id(result).items()}
    assert statuses == {
        "app/pg/default": Status.ERROR,
        "app/pg/short": Status.OK,
        "app/sqlite/default": Status.ERROR,
        "app/sqlite/short": Status.OK,
        "route/legacy": Status.ERROR,
    }
    # Only errors name their source by default: the rule's path is set by the root config's own line.
    (finding,) = by_id(result)["app/sqlite/default"].findings
    assert finding.source is not None and str(finding.source).endswith("conf/app.yaml:6")
    assert not result.ok


def test_one_case_at_a_time_gives_exactly_the_findings_of_the_whole_run(settings):
    """The pytest plugin asks `result(case_id)` case by case, the CLI `run()`: one engine, the same answers."""
    trees = every_case(**{"app/pg/default": {**PG, "train": {"lr": 0.3, "steps": 10}}, "route/legacy": SQLITE})
    whole = by_id(Runner(Run.check(settings, RuleSet(), baseline=InMemory(trees))).run())
    engine = Runner(Run.check(settings, RuleSet(), baseline=InMemory(trees)))
    one_by_one = {case_id: engine.result(case_id) for case_id in reversed(list(whole))}
    assert {k: (v.status, v.findings) for k, v in one_by_one.items()} == {k: (v.status, v.findings) for k, v in whole.items()}
    assert {k for k, v in whole.items() if v.findings} == {"app/pg/default", "route/legacy"}
    assert [(c.case.id, c.findings) for c in engine.finish().cases] == [(k, v.findings) for k, v in whole.items()]


def test_a_glob_that_selects_nothing_is_bad_input_naming_the_glob(settings):
    with pytest.raises(SettingsError, match=r"--case 'app/mysql/\*' matches no case"):
        Runner(Run.check(settings, RuleSet(), baseline=InMemory({})), ["app/pg/*", "app/mysql/*"])
    with pytest.raises(SettingsError, match=r"--case 'cmd/x\.sh#1': the settings have no \[\[commands\]\]"):
        Runner(Run.check(settings, RuleSet(), baseline=InMemory({})), "cmd/x.sh#1")


def test_errors_are_marked_introduced_or_at_base_and_a_base_error_gone_is_fixed():
    def error(path: str, contract: str = "c") -> Finding:
        return Finding(Kind.CONTRACT, path, severity=ERROR, message=f"{path} broken", detail=ContractRef(contract))

    now = [error("a"), error("b"), Finding(Kind.CHANGED, "d", 1, 2, WARNING, "d changed")]
    marked = with_origins(now, [error("a"), error("c")])
    assert [(f.path, f.origin, f.severity) for f in marked] == [
        ("a", Origin.AT_BASE, ERROR),
        ("b", Origin.INTRODUCED, ERROR),
        ("d", None, WARNING),
        ("c", Origin.FIXED, INFO),
    ]
    # The same path held by another contract is another error; no base case (None) makes every error introduced.
    assert [f.origin for f in with_origins([error("a", "other")], [error("a")])] == [Origin.INTRODUCED, Origin.FIXED]
    assert [f.origin for f in with_origins([error("a")], None)] == [Origin.INTRODUCED]


def test_an_interpolation_whose_key_went_is_one_unresolved_error_never_also_an_effective_change(tmp_path):
    """The comparison with the baseline finds `log_name` (still written `run-${train.lr}`) no longer resolving, and so
    do the invariants of a runnable config: the case says it once, as its `unresolved` error."""
    write_tree(tmp_path / "conf", {**TREE, "app.yaml": TREE["app.yaml"].replace("lr: 0.1", "rate: 0.1")})
    (tmp_path / "harness.toml").write_text(SETTINGS, encoding="utf-8")
    result = Runner(
        Run.check(load_settings(tmp_path / "harness.toml"), RuleSet(), baseline=InMemory(every_case())), "app/sqlite/default"
    ).run()
    (case,) = result.cases
    assert kinds(case) == [("removed", "train.lr", INFO), ("added", "train.rate", INFO), ("unresolved", "log_name", ERROR)]
    assert case.findings[-1].message == "log_name cannot be resolved: run-${train.lr}: train.lr is not in the config"
    assert case.status == Status.CHANGED and not result.ok
