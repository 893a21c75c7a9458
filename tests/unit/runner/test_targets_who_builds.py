"""Who builds a node (issue 43 item 3, issue 42 item 5): "building the node fails" only where no code of the
sources removes the key first, builds the node with arguments of its own, or could build it at all; read from the
call sites, never imported."""

from __future__ import annotations

from pathlib import Path

from harness.model.findings import ERROR, INFO, TargetFacts, TargetReason
from harness.model.grouping import counts
from harness.readers.pysource import SourceIndex
from harness.runner.targets import ProgramView
from tests.conftest import write_tree

MODELS = """
    from dataclasses import dataclass

    @dataclass
    class Ref:
        micro_batch: int = 1

    @dataclass
    class Agent:
        algo: str
        lr: float = 0.1

    @dataclass
    class Profiler:
        tool: str = "nsys"
    """
TREE = {
    "ref": {"_target_": "app.models.Ref", "micro_batch": 2, "log_prob_micro_batch": 4},
    "agent": {"_target_": "app.models.Agent", "lr": 0.2},
    "global_profiler": {"_target_": "app.models.Profiler", "tool": "torch", "steps": [1], "save_path": "x"},
}
WORKERS = """
    from hydra.utils import get_class, instantiate

    class Worker:
        def build(self):
            self.config.ref.pop("log_prob_micro_batch", None)
            ref = instantiate(self.config.ref)
            cls = get_class(self.config.agent._target_)
            return ref, cls(algo="ppo", **self.config.agent)
    """


def findings(tmp_path: Path, workers: str | None, monkeypatch) -> dict[str, tuple[str, str, str]]:
    monkeypatch.chdir(tmp_path)  # files are shown relative to the working folder
    write_tree(tmp_path, {"app/__init__.py": "", "app/models.py": MODELS, **({"app/workers.py": workers} if workers else {})})
    view = ProgramView(SourceIndex([tmp_path / "app"]))
    found = view.findings(None, None, TREE)  # type: ignore[arg-type]
    return {
        f.path: (str(f.severity), str(f.detail_as(TargetFacts).reason), f.message)  # type: ignore[union-attr]
        for f in found
        if f.detail_as(TargetFacts).reason != TargetReason.DEFAULTED  # type: ignore[union-attr]
    }


def test_without_code_that_builds_nodes_the_errors_stand(tmp_path, monkeypatch):
    found = findings(tmp_path, None, monkeypatch)
    assert {path: severity for path, (severity, _, _) in found.items()} == {
        "ref.log_prob_micro_batch": ERROR,
        "agent.algo": ERROR,
        "global_profiler.steps": ERROR,
        "global_profiler.save_path": ERROR,
    }


def test_keys_removed_nodes_built_with_more_arguments_and_nodes_never_built_are_not_failures(tmp_path, monkeypatch):
    found = findings(tmp_path, WORKERS, monkeypatch)
    assert {path: (severity, reason) for path, (severity, reason, _) in found.items()} == {
        "ref.log_prob_micro_batch": (INFO, "built_by_program"),
        "agent.algo": (INFO, "built_by_program"),
        "global_profiler": (INFO, "built_by_program"),  # once for the node, not once per key
    }
    assert found["ref.log_prob_micro_batch"][2].endswith(
        "the program removes log_prob_micro_batch before building the node (app/workers.py:5)"
    )
    assert "builds the node with arguments of its own (app/workers.py:7)" in found["agent.algo"][2]
    assert "no code of the sources builds global_profiler by name: built by the program" in found["global_profiler"][2]
    assert "building the node fails" not in " ".join(message for _, _, message in found.values())


def test_a_key_the_program_removes_from_another_node_still_fails(tmp_path, monkeypatch):
    found = findings(
        tmp_path, WORKERS.replace('self.config.ref.pop("log_prob_micro_batch"', 'self.config.actor.pop("log_prob_micro_batch"'), monkeypatch
    )
    assert found["ref.log_prob_micro_batch"][0] == ERROR and found["ref.log_prob_micro_batch"][2].endswith("building the node fails")


def test_counts_leave_out_what_the_program_builds(tmp_path, monkeypatch):
    write_tree(tmp_path, {"app/__init__.py": "", "app/models.py": MODELS, "app/workers.py": WORKERS})
    view = ProgramView(SourceIndex([tmp_path / "app"]))
    counted = counts(view.findings(None, None, TREE))  # type: ignore[arg-type]
    assert (counted["undeclared"], counted["required"]) == (0, 0) and "built_by_program" not in counted
