"""harness/runner/unverified.py in process: the write shapes a review names when the reader does not resolve them,
the launch calls it names, and the classification rules on a small repository."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from harness.model.findings import ERROR, WARNING, Kind
from harness.model.settings import Settings
from harness.runner.unverified import (
    COMPARED,
    NOT_RELEVANT,
    NOT_VERIFIED,
    Accounted,
    DiffAccounting,
    Seen,
    _calls_launch,
    candidate_writes,
    classify_file,
)


def shapes(source: str) -> list[tuple[int, str]]:
    return sorted(candidate_writes(ast.parse(textwrap.dedent(source))))


def test_every_unresolved_write_shape_is_a_candidate_and_reads_are_not():
    found = shapes("""
        def main(config):
            setattr(node, "k", 1)
            object.__setattr__(self.inner, "k", 2)
            alias = config.trainer
            alias.epochs = 3
            cfg["a"] = 4
            print(config.trainer.epochs)
            x = config.get("a", 1)

        class Model:
            def __post_init__(self):
                self._fill()

            def _fill(self):
                self.depth = 5

            def other(self):
                self.width = 6
        """)
    assert found == [
        (3, "setattr"),
        (4, "object.__setattr__"),
        (6, "a write through an alias of the config (alias)"),
        (7, "a write to the config"),
        (16, "a field set in _fill, which __post_init__ calls"),
    ]


def test_a_launch_script_called_with_a_prefix_arguments_or_sourced_is_named():
    launches = frozenset({"examples/grpo/run.sh"})
    assert _calls_launch("ROLLOUT_N=1 bash examples/grpo/run.sh", launches, "wrap.sh") == "examples/grpo/run.sh"
    assert _calls_launch("bash examples/grpo/run.sh trainer.epochs=2", launches, "wrap.sh") == "examples/grpo/run.sh"
    assert _calls_launch("source ./examples/grpo/run.sh", launches, "wrap.sh") == "examples/grpo/run.sh"
    assert _calls_launch("bash examples/grpo/run.sh", launches, "wrap.sh") is None  # runs it as the reader reads it
    assert _calls_launch("bash other.sh", launches, "wrap.sh") is None


def test_files_are_classified_by_the_first_rule_that_holds(tmp_path: Path):
    (tmp_path / "conf").mkdir()
    settings = Settings(origin=tmp_path / "harness.toml", config_dir=tmp_path / "conf", snapshot_dir=tmp_path / "snapshots")
    account = DiffAccounting(tmp_path, "HEAD", settings)
    seen = Seen(frozenset({(tmp_path / "conf/train.yaml").resolve()}), frozenset())
    for name in ("conf/train.yaml", "conf/unused.yaml", "docs/a.md", "tests/test_a.py", "bin/uv", "hydra_plugins/p/p.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n")

    def verdict(name: str) -> str:
        return classify_file(account, seen, name, "M", frozenset({1}))[0].verdict

    assert verdict("conf/train.yaml") == COMPARED
    assert verdict("conf/unused.yaml") == NOT_VERIFIED
    assert verdict("docs/a.md") == verdict("tests/test_a.py") == NOT_RELEVANT
    assert verdict("bin/uv") == verdict("hydra_plugins/p/p.py") == NOT_VERIFIED


def test_findings_warn_unless_the_base_blocks(tmp_path: Path):
    settings = Settings(origin=tmp_path / "harness.toml", config_dir=tmp_path, snapshot_dir=tmp_path / "snapshots")
    rows = [Accounted("a.yaml", NOT_VERIFIED, "why", 3), Accounted("b.md", NOT_RELEVANT, "docs")]
    (warned,) = DiffAccounting(tmp_path, "HEAD", settings).findings(rows)
    (blocked,) = DiffAccounting(tmp_path, "HEAD", settings, block=True).findings(rows)
    assert warned.kind == Kind.UNVERIFIED and warned.severity == WARNING and warned.source.line == 3
    assert blocked.severity == ERROR and blocked.message == "not verified: why"
