"""How an application starts Hydra, read with ast: every start with its arguments, and the version_base of the one
that composes a folder."""

from __future__ import annotations


def test_every_way_to_start_hydra_is_read_with_its_arguments(tmp_path):
    import ast

    from harness.runner.hydra_starts import _calls_in

    source = """
import hydra
from hydra import compose, initialize_config_module as module_start
from hydra import initialize_config_dir

@hydra.main(config_path="conf", config_name="train", version_base="1.2")
def main(cfg): ...

def load(name):
    with hydra.initialize("1.3"):  # positional: initialize's first parameter is config_path
        return compose(config_name="eval")

def other():
    with module_start(config_module="app.conf", version_base=None):
        return compose("serve")
    with initialize_config_dir(config_dir=FOLDER, version_base="1.1"):
        pass
"""
    calls = [(c.kind, c.line, c.keywords) for c in _calls_in(ast.parse(source), tmp_path / "x.py")]
    assert calls == [
        ("main", 6, {"config_path": "conf", "config_name": "train", "version_base": "1.2"}),
        ("initialize", 10, {"config_path": "1.3", "config_name": "eval"}),
        ("initialize_config_module", 14, {"config_module": "app.conf", "version_base": None, "config_name": "serve"}),
        ("initialize_config_dir", 16, {"config_dir": ..., "version_base": "1.1", "config_name": "serve"}),
    ]
    assert _calls_in(ast.parse("def initialize(**k): ...\ninitialize(version_base='1.1')\n"), tmp_path / "y.py") == []


def test_the_entry_point_most_launches_run_decides_and_a_disagreement_is_said(tmp_path):
    from collections import Counter

    from harness.runner.hydra_starts import read_entry_points

    conf = tmp_path / "conf"
    conf.mkdir()
    (tmp_path / "a.py").write_text("import hydra\n@hydra.main(config_path='conf', config_name='t', version_base=None)\ndef m(c): ...\n")
    (tmp_path / "b.py").write_text("import hydra\n@hydra.main(config_path='conf', config_name='t', version_base='1.1')\ndef m(c): ...\n")
    (tmp_path / "c.py").write_text("import hydra\n@hydra.main(config_path='conf', config_name='t', version_base='1.1')\ndef m(c): ...\n")
    majority = read_entry_points(conf, tmp_path, ["t"])
    assert majority.version_base == "1.1" and majority.entry_file == tmp_path / "b.py"
    assert majority.reason.endswith("(the entry point(s) disagree: 2 say '1.1', 1 say None (first at a.py:2))")
    launched = read_entry_points(conf, tmp_path, ["t"], Counter({(tmp_path / "a.py").resolve(): 3}))
    assert launched.version_base is None and launched.entry_file == tmp_path / "a.py"
    assert launched.reason == (
        "version_base None as @hydra.main at a.py:2 (the entry point 3 launch(es) run; the entry point(s) "
        "disagree: 1 say None, 2 say '1.1' (first at b.py:2))"
    )
