"""syrupy's private API in one place: its options read from pytest's namespace under syrupy's own names (False
where syrupy is not loaded). (Each name pinned against syrupy, and goldens as text: test_hydra_compat.py.)"""

from harness.syrupy_compat import OPTION_NAMES, SnapshotOptions, snapshot_options


class Config:
    def __init__(self, given):
        self.given = given

    def getoption(self, name, default):
        return self.given.get(name, default)


def test_the_options_are_read_under_syrupy_s_names_and_false_without_it():
    assert snapshot_options(Config({})) == SnapshotOptions()
    given = snapshot_options(Config({"update_snapshots": True, "include_snapshot_details": 1}))
    assert given == SnapshotOptions(update=True, details=True)
    assert set(OPTION_NAMES) == set(SnapshotOptions.__dataclass_fields__)
