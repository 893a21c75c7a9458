"""The config-writes reader (issue 43 item 1): every write an entry point's code makes to the config, with its key
where the source spells it, read with `ast` and never run; bounded on hostile shapes."""

from __future__ import annotations

import textwrap
import time

from harness.readers.pysource import SourceIndex
from harness.readers.writes import MAX_FUNCTIONS, UNPLACED, class_writes, entry_points, entry_writes
from tests import hostile_inputs as hostile

MAIN = """
    import hydra
    from omegaconf import OmegaConf, open_dict

    from app.util import tweak

    @hydra.main(config_path="conf", config_name="train", version_base=None)
    def main(cfg):
        rollout = cfg.actor.rollout
        rollout.n = 4
        cfg["trainer"]["epochs"] += 1
        with open_dict(cfg):
            cfg.model.extra = {"a": 1}
        OmegaConf.update(cfg, "data.batch", 64, force_add=True)
        OmegaConf.update(cfg.data, name, 1)
        cfg.trainer.pop("legacy")
        del cfg.model.old
        cfg.data[key] = 3
        cfg.optim.merge_with(other)
        cfg = OmegaConf.merge(cfg, overrides)
        tweak(cfg.actor, lr=cfg.optim)
        print(cfg.trainer.device)
        x = 1
        x.y = 2
    """
UTIL = """
    def tweak(actor, lr):
        actor.lr = lr.value
        object.__setattr__(actor, "frozen", True)
    """


def writes_of(tmp_path, files):
    (tmp_path / "app").mkdir()
    for name, text in {"__init__.py": "", **files}.items():
        (tmp_path / "app" / name).write_text(textwrap.dedent(text))
    index = SourceIndex([tmp_path / "app"])
    (entry,) = entry_points(index)
    return entry, entry_writes(index, entry)


def test_every_kind_of_write_with_its_key(tmp_path):
    entry, found = writes_of(tmp_path, {"main.py": MAIN, "util.py": UTIL})
    assert (entry.name, entry.parameter, entry.file) == ("app.main.main", "cfg", "app/main.py")
    assert [(w.key, w.action, w.shown, w.open_dict, w.line) for w in found] == [
        ("actor.rollout.n", "set", 4, False, 10),
        ("trainer.epochs", "update", 'cfg["trainer"]["epochs"] += 1'.replace('"', "'"), False, 11),
        ("model.extra", "set", {"a": 1}, True, 13),
        ("data.batch", "set", 64, False, 14),
        (UNPLACED, "set", 1, False, 15),
        ("trainer.legacy", "delete", "(deleted)", False, 16),
        ("model.old", "delete", "(deleted)", False, 17),
        (UNPLACED, "set", 3, False, 18),
        ("optim", "merge", "cfg.optim.merge_with(other)", False, 19),
        ("", "merge", "cfg = OmegaConf.merge(cfg, overrides)", False, 20),
        ("actor.lr", "set", "actor.lr = lr.value", False, 3),
        ("actor.frozen", "set", True, False, 4),
    ]
    assert found[-1].file == "app/util.py"


def test_a_class_post_init_and_what_super_reaches(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app/__init__.py").write_text("")
    (tmp_path / "app/m.py").write_text(
        textwrap.dedent("""
        from dataclasses import dataclass

        @dataclass
        class Base:
            a: int = 1
            def __post_init__(self):
                self.a = 2

        @dataclass
        class Child(Base):
            def __post_init__(self):
                super().__post_init__()
                self.b = "x"

            @property
            def c(self):
                return 1

            @c.setter
            def c(self, value):
                self.d = value
        """)
    )
    found = class_writes(SourceIndex([tmp_path / "app"]), "app.m.Child")
    assert sorted((w.key, w.shown) for w in found) == [("a", 2), ("b", "x"), ("d", "self.d = value")]


def test_functions_calling_each_other_in_circles_are_read_once_each_within_the_budget(tmp_path):
    start = time.process_time()
    _, found = writes_of(tmp_path, {"main.py": hostile.config_writes(2 * MAX_FUNCTIONS, 3)})
    assert time.process_time() - start < 10
    # Each function read once per way the config reaches it, and no more than the budget of functions.
    assert 0 < len(found) <= 3 * MAX_FUNCTIONS


READS = """
    import hydra
    from omegaconf import OmegaConf, open_dict

    from app.util import build

    @hydra.main(config_path="conf", config_name="train", version_base=None)
    def main(cfg):
        print(cfg.optim.lr, cfg["data"]["path"], getattr(cfg.trainer, "epochs"))
        cfg.model.layers.items()
        cfg.optim.get("warmup", 0)
        getattr(cfg.optim, "decay", 0.1)
        OmegaConf.select(cfg, "trainer.seed", default=1)
        print("beta" in cfg.optim)
        if "extra" in cfg.model:
            print(cfg.model.extra.size)
        sched = cfg.get("scheduler")
        print(sched.kind)
        try:
            print(cfg.logger.wandb)
        except AttributeError:
            pass
        with open_dict(cfg):
            cfg.trainer.note = "x"
        print(cfg.trainer.note.upper())
        if cfg.model.kind == "moe":
            print(cfg.model.experts)
        else:
            build(cfg.model)
        print(cfg[name].x)
        if not cfg.profiler.enable:
            return
        print(cfg.profiler.nsys)
    """


def test_strict_reads_and_the_tolerant_ones_left_out(tmp_path):
    from harness.readers.writes import entry_reach, holds

    writes_of(tmp_path, {"main.py": READS, "util.py": "def build(model):\n    return model.width\n"})
    index = SourceIndex([tmp_path / "app"])
    (entry,) = entry_points(index)
    _, reads = entry_reach(index, entry)
    found = [(r.key, r.line) for r in reads]
    assert found == [
        ("optim.lr", 9),
        ("data.path", 9),
        ("trainer.epochs", 9),
        ("trainer", 9),
        ("model.layers", 10),
        ("optim", 11),
        ("optim", 12),
        ("optim", 14),
        ("model", 15),
        ("trainer", 24),  # the node written into (`trainer.note` itself, written first, is not a failing read)
        ("model.kind", 26),
        ("model.experts", 27),
        ("model", 29),
        ("model.width", 2),  # in the function called with the node, under the same branch
        ("profiler.enable", 31),
        ("profiler.nsys", 33),  # only where the early return is not taken
    ], found
    when = {r.key: r.when for r in reads}
    assert holds(when["model.experts"][0], {"model": {"kind": "moe"}}) is True
    assert holds(when["model.width"][0], {"model": {"kind": "moe"}}) is False
    assert holds(when["model.width"][0], {"model": {}}) is None  # the tree does not decide it: no finding
    assert holds(when["profiler.nsys"][0], {"profiler": {"enable": False}}) is False


def test_a_function_reached_under_a_test_on_a_list_is_read(tmp_path):
    """A branch's test may hold a list (`if cfg.mode in ["a", "b"]`): the walk keeps it as it is, unhashed."""
    _, found = writes_of(
        tmp_path,
        {
            "main.py": """
                import hydra

                def tune(node):
                    node.lr = 1

                @hydra.main(config_path="conf", config_name="train", version_base=None)
                def main(cfg):
                    if cfg.mode in ["a", "b"]:
                        tune(cfg.optim)
                    tune(cfg.optim)
                """
        },
    )
    assert [(w.key, w.value, w.when) for w in found] == [("optim.lr", 1, ())]
