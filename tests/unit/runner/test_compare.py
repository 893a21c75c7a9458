"""One composed case against what its baseline holds, and the rules that do not need a baseline.

The case is composed once by real Hydra from a small folder; each test states the baseline's side (a golden's
text or a plain tree) itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.baselines.kinds import BaselineEntry
from harness.composition.compose import HydraSession
from harness.composition.render import render_golden, to_plain
from harness.model.findings import ERROR, INFO, WARNING, Finding, Kind, Status
from harness.model.matrix import Case
from harness.rules.contracts import HYDRA, ChangeRecord
from harness.runner.compare import as_review, compare_with_base, hidden_text_findings, hydra_findings, semantic_findings
from tests.conftest import write_tree

APP = """
    defaults:
      - _self_
    model:
      name: qwen
      layers: 2
      heads: ${model.layers}
    optim:
      lr: 0.1
      warmup: ${oc.select:optim.warmup_steps,0}
    """
CASE = Case("app/base/default", "app", ())
FALLBACK = "optim.warmup silently uses its default 0 because optim.warmup_steps is missing or ???"


class Composed:
    """The case as a run has it: the config Hydra composed, its plain tree and its golden text."""

    def __init__(self, folder: Path) -> None:
        with HydraSession(folder) as session:
            self.config = session.compose("app", [])
        self.tree = to_plain(self.config)
        self.rendered = render_golden(CASE, self.config, self.tree)

    def against(self, base: BaselineEntry | None, golden: str | None = None) -> tuple[Status, list[tuple[Any, ...]]]:
        status, findings = compare_with_base(self.config, self.tree, self.rendered, base, golden)
        return status, [(str(f.kind), f.path, str(f.severity), f.message) for f in findings]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Composed:
    return Composed(write_tree(tmp_path_factory.mktemp("check") / "conf", {"app.yaml": APP}))


def test_the_composed_tree_keeps_interpolations_as_written(app):
    assert app.tree == {
        "model": {"name": "qwen", "layers": 2, "heads": "${model.layers}"},
        "optim": {"lr": 0.1, "warmup": "${oc.select:optim.warmup_steps,0}"},
    }


def test_without_a_baseline_entry_a_case_is_new_and_missing_its_golden_only_where_one_is_expected(app):
    assert app.against(None) == (Status.NEW, [("fallback", "optim.warmup", "info", FALLBACK)])
    assert app.against(None, "snapshots/app.yaml") == (
        Status.NEW,
        [("missing_golden", "", "error", "no golden at snapshots/app.yaml; run generate"), ("fallback", "optim.warmup", "info", FALLBACK)],
    )


def test_a_golden_with_the_same_body_is_ok_whatever_its_header_says(app):
    other_header = "# written by an older harness\n" + app.rendered.split("\n", 3)[3]
    assert other_header != app.rendered
    assert app.against(BaselineEntry("g.yaml", text=other_header)) == (Status.OK, [("fallback", "optim.warmup", "info", FALLBACK)])


def test_a_golden_that_is_not_yaml_is_an_error_naming_its_file_and_line(app):
    assert app.against(BaselineEntry("snapshots/g.yaml", text="model:\n  name: [\n")) == (
        Status.ERROR,
        [("error", "", "error", "golden snapshots/g.yaml:3: invalid YAML: did not find expected node content")],
    )


def test_a_changed_leaf_is_an_error_and_so_is_each_interpolation_that_now_resolves_differently(app):
    status, findings = app.against(BaselineEntry("g.yaml", text=app.rendered.replace("layers: 2", "layers: 4")))
    assert status == Status.CHANGED
    assert findings == [
        ("changed", "model.layers", "error", "CHANGED model.layers: 4 -> 2"),
        (
            "effective",
            "model.heads",
            "error",
            "model.heads is still written ${model.layers} but now resolves to 2 (was 4) through model.layers",
        ),
        ("fallback", "optim.warmup", "info", FALLBACK),
    ]


def test_a_golden_written_differently_with_the_same_meaning_asks_to_be_regenerated(app):
    flow = "model: {name: qwen, layers: 2, heads: '${model.layers}'}\noptim: {lr: 0.1, warmup: '${oc.select:optim.warmup_steps,0}'}\n"
    assert app.against(BaselineEntry("g.yaml", text=flow)) == (
        Status.CHANGED,
        [
            ("format", "", "error", "g.yaml differs in text but not in meaning; regenerate it"),
            ("fallback", "optim.warmup", "info", FALLBACK),
        ],
    )


def test_a_tree_baseline_tells_a_refactor_a_lost_key_and_a_fallback_that_is_new(app):
    base = {
        "model": {"name": "qwen", "layers": 2, "heads": 2},
        "optim": {"lr": 0.1, "warmup_steps": 5, "warmup": "${oc.select:optim.warmup_steps,0}"},
    }
    status, findings = compare_with_base(app.config, app.tree, app.rendered, BaselineEntry("base", tree=base))
    assert status == Status.CHANGED
    assert [(f.kind, f.path, f.old, f.new, f.effective_same) for f in findings] == [
        (Kind.CHANGED, "model.heads", 2, "${model.layers}", True),  # written otherwise, resolves the same
        (Kind.REMOVED, "optim.warmup_steps", 5, None, False),
        (Kind.EFFECTIVE, "optim.warmup", 5, 0, False),
        (Kind.FALLBACK, "optim.warmup", None, "0", False),
    ]
    assert findings[-1].severity == ERROR and findings[-1].message == FALLBACK + " (new: the golden did not fall back here)"
    # An equal tree is ok; a tree baseline that could not compose the case says why, as information.
    assert app.against(BaselineEntry("base", tree=app.tree))[0] == Status.OK
    assert app.against(BaselineEntry("main:conf app", error="app.yaml: no such file")) == (
        Status.CHANGED,
        [
            ("error", "", "info", "the baseline could not compose main:conf app: app.yaml: no such file"),
            ("fallback", "optim.warmup", "info", FALLBACK),
        ],
    )


def test_a_subtree_under_another_name_is_one_move_not_a_removal_and_an_addition(app):
    base = {"model": app.tree["model"], "optimizer": app.tree["optim"]}
    status, findings = app.against(BaselineEntry("base", tree=base))
    assert findings[0] == ("moved", "optimizer", "error", "MOVED optimizer -> optim (subtree with its value unchanged)")
    assert [kind for kind, *_ in findings] == ["moved", "fallback"]


def test_a_review_keeps_news_at_the_baselines_severity_drops_old_information_and_softens_parity():
    findings = [
        Finding(Kind.CHANGED, "a", 1, 2, ERROR, "CHANGED a"),
        Finding(Kind.FALLBACK, "b", None, 0, INFO, "b falls back"),
        Finding(Kind.ERROR, "", severity=INFO, message="the baseline could not compose it"),
        Finding(Kind.PARITY, "c", 1, 2, ERROR, "route differs"),
        Finding(Kind.CONTRACT, "d", severity=ERROR, message="d broken"),
    ]
    assert [(f.kind, f.severity) for f in as_review(findings, INFO)] == [
        (Kind.CHANGED, INFO),
        (Kind.ERROR, INFO),
        (Kind.PARITY, WARNING),
        (Kind.CONTRACT, ERROR),
    ]
    assert as_review(findings, WARNING)[0].severity == WARNING
    assert as_review(findings, ERROR) == findings  # check: a difference stays an error, nothing is dropped


def test_a_route_is_compared_with_its_twin_and_every_extra_rule_runs(app):
    route = Case("route/r", "app", (), same_as="app/base/default")
    seen: list[str] = []

    def rule(case: Case, config: Any, tree: Any) -> list[Finding]:
        seen.append(case.id)
        return [Finding(Kind.CONTRACT, "model.name", severity=ERROR, message="name is fixed")] if tree["model"]["name"] != "llama" else []

    twin = {**app.tree, "model": {**app.tree["model"], "layers": 3}}
    findings = semantic_findings(route, app.config, app.tree, twin, [rule])
    assert [(f.kind, f.path, f.message) for f in findings] == [
        (Kind.PARITY, "model.layers", "route/r differs from app/base/default: CHANGED model.layers: 3 -> 2"),
        (Kind.CONTRACT, "model.name", "name is fixed"),
    ]
    assert seen == ["route/r"]
    (failed,) = semantic_findings(route, app.config, app.tree, None, [])
    assert (failed.kind, failed.severity, failed.message) == (Kind.PARITY, ERROR, "route/r: twin app/base/default could not be composed")
    assert semantic_findings(CASE, app.config, app.tree, None, []) == []


def test_keys_and_values_holding_invisible_or_reordering_characters_are_warned_about_escaped():
    tree = {"model": {"pa\u200bth": "/models/good", "path": "/models/\u202elive"}, "tags": ["ok", "b\u0007ell"], "n": 1}
    findings = hidden_text_findings(tree)
    assert [(f.path, f.severity) for f in findings] == [("model.pa\u200bth", WARNING), ("model.path", WARNING), ("tags", WARNING)]
    assert all("\u200b" not in f.message and "\u202e" not in f.message for f in findings)
    assert findings[1].message.startswith("model.path holds control, bidi or zero-width characters (shown escaped): ")
    assert hidden_text_findings({"a": "plain text", "b": [1, "two"]}) == []


def test_a_hydra_subtree_change_that_runs_at_start_is_an_error_unless_recorded_and_others_are_information():
    old = {"job": {"name": "train", "chdir": False}, "callbacks": {}}
    new = {"job": {"name": "eval", "chdir": True}, "callbacks": {"log": {"_target_": "x.Log"}}}
    findings = hydra_findings(old, new, ())
    # The emptied `callbacks: {}` is no removal of its own: the key that fills it is the change.
    assert [(f.path, f.severity) for f in findings] == [
        ("hydra.callbacks.log._target_", ERROR),
        ("hydra.job.chdir", ERROR),
        ("hydra.job.name", INFO),
    ]
    assert findings[1].message == (
        "hydra.job.chdir: False -> True: runs when the application starts without a recorded "
        "reason; to accept it, add to `changes:` {hydra: hydra.job.chdir, old: false, new: true, reason: WHY}"
    )
    record = ChangeRecord(HYDRA, "hydra.job.chdir", False, True, "outputs per run")
    recorded = hydra_findings(old, new, (record,))
    assert (recorded[1].severity, recorded[1].message) == (
        WARNING,
        "hydra.job.chdir: False -> True: runs when the application starts [recorded reason: outputs per run]",
    )
    assert hydra_findings(old, old, (record,)) == []
