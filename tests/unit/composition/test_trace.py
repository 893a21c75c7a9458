"""What a composition read decides whether its cached result is reused: the same tree elsewhere, a comment or
layout edit, a new option of a group it did not select reuse it; a value it read composes again. An environment
value is recorded as a digest, never as itself. (The CLI's cache end to end: tests/integration/test_cache.py.)"""

from dataclasses import replace

import pytest

from harness.composition.cases import open_matrix
from harness.composition.trace import Recorder, environment_answer
from harness.model.settings import load_settings
from tests.conftest import write_tree

TREE = {"train.yaml": "defaults:\n  - backend: cpu\n  - _self_\nlr: 0.1\n", "backend/cpu.yaml": "n: 1\n", "backend/gpu.yaml": "n: 8\n"}


@pytest.fixture
def compose(tmp_path):
    write_tree(tmp_path / "conf", TREE)
    (tmp_path / "h.toml").write_text('config_dir = "conf"\nroots = ["train"]\n')
    settings = replace(load_settings(tmp_path / "h.toml"), cache_dir=tmp_path / "cache")

    def composed():
        """The case's config, and whether it was composed afresh (False: the cached composition was reused)."""
        with open_matrix(settings) as (session, cases):
            (result,) = session.compose_cases(cases[:1], shared_stems=False)
            return result.config, bool(session.composed_fresh)

    return tmp_path / "conf", composed


def test_a_cached_composition_is_reused_only_while_what_it_read_holds(compose):
    conf, composed = compose
    assert composed() == ({"backend": {"n": 1}, "lr": 0.1}, True)
    assert composed() == ({"backend": {"n": 1}, "lr": 0.1}, False)
    (conf / "backend" / "cpu.yaml").write_text("# a comment\nn:   1\n")
    assert composed()[1] is False  # the parsed content is the same
    (conf / "backend" / "tpu.yaml").write_text("n: 3\n")
    assert composed()[1] is False  # an option this case does not select
    (conf / "backend" / "cpu.yaml").write_text("n: 2\n")
    assert composed() == ({"backend": {"n": 2}, "lr": 0.1}, True)


def test_a_recorder_keeps_the_first_answer_and_the_environment_as_a_digest(monkeypatch):
    recorder = Recorder()
    recorder.note(("harness", "@", "config", "train"), True)
    recorder.note(("harness", "@", "config", "train"), False)
    assert recorder.trace == ((("harness", "@", "config", "train"), True),) and recorder.cacheable
    monkeypatch.setenv("UNIT44_SECRET", "hunter2")
    answer = environment_answer("UNIT44_SECRET")
    assert answer is not None and "hunter2" not in answer and answer == environment_answer("UNIT44_SECRET")
    monkeypatch.delenv("UNIT44_SECRET")
    assert environment_answer("UNIT44_SECRET") is None
