"""Every private syrupy API the harness relies on, in one module (Hydra's and OmegaConf's sit in hydra_compat).

syrupy is an optional dependency (the `[pytest]` extra), so this module is imported only by the pytest side.
`tests/unit/test_hydra_compat.py` pins each use by name, and checks that every hook the golden extension
overrides still exists in syrupy, so a syrupy release that renames one fails a test instead of silently
writing goldens elsewhere (syrupy 5 made the hooks public: `file_extension`, `write_snapshot_collection`, ...).
"""

from __future__ import annotations

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

__all__ = ["TextFileExtension"]


class TextFileExtension(SingleFileSnapshotExtension):
    """One snapshot per file, read and written as UTF-8 text (syrupy's default is bytes)."""

    # syrupy has no public switch for text files; its own JSON and SVG extensions set this attribute.
    _write_mode = WriteMode.TEXT
