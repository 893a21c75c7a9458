"""Every private syrupy API the harness relies on, in one module (Hydra's and OmegaConf's sit in hydra_compat).

syrupy is an optional dependency (the `[pytest]` extra), so this module is imported only by the pytest side.
One use is left: the names syrupy's options take in pytest's namespace. The golden extension (harness.snapshot)
overrides only syrupy's public extension hooks (`dirname`, `serialize`, `matches`, ..., public since syrupy 5)
and sets none of its private attributes: it reads and writes goldens itself, so syrupy's private text switch
(`_write_mode`) is not needed. `tests/unit/composition/test_hydra_compat.py` pins the option names and checks
that every hook the extension overrides still exists in syrupy, so a syrupy release that renames one fails a test
instead of silently writing goldens elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["SnapshotOptions", "snapshot_options"]

# Where syrupy's options land in pytest's namespace (the `dest` of each in syrupy's pytest_addoption): syrupy
# documents the flags, not these names, so they are read here only.
OPTION_NAMES = MappingProxyType(
    {
        "update": "update_snapshots",  # --snapshot-update
        "warn_unused": "warn_unused_snapshots",  # --snapshot-warn-unused
        "details": "include_snapshot_details",  # --snapshot-details
        "no_cleanup": "no_cleanup",  # --snapshot-no-cleanup
        "disable_unused": "disable_unused_snapshots",  # --snapshot-disable-unused
    }
)


@dataclass(frozen=True)
class SnapshotOptions:
    """The syrupy options the harness's run test follows."""

    update: bool = False  # goldens are being written
    warn_unused: bool = False  # an orphan golden is a warning, not a failure
    details: bool = False  # list each orphan golden
    no_cleanup: bool = False  # an update run keeps orphan goldens (as generate without --prune)
    disable_unused: bool = False  # likewise, as syrupy keeps unused snapshots then


def snapshot_options(config: Any) -> SnapshotOptions:
    """The syrupy options of a pytest run (each False where syrupy is not loaded)."""
    return SnapshotOptions(**{field: bool(config.getoption(name, False)) for field, name in OPTION_NAMES.items()})
