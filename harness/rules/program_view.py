"""`program_view: true`: `require` and `equal` see what the program sees, a Python default filling a key the YAML
lacks (harness/runner/targets.py, with the settings' `python_sources`).

Turning it on accepts a value the YAML does not hold, so it is a loosening: written `{program_view: false}` ->
`{program_view: true}` at path `''`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.rules.protocol import Contract, Option, TermChange, View, flag


class ProgramView(Option):
    key = "program_view"

    def parse(self, origin: Path, entry: Any) -> bool:
        return flag(origin, entry, self.key)

    def scope(self, value: bool, view: View) -> View | None:
        return view if value else replace(view, program=None)

    def loosened(self, old: Contract, new: Contract | None, case_ids: list[str]) -> list[TermChange]:
        if new is None or old.term(self.key) or not new.term(self.key):
            return []
        return [
            TermChange(
                old.name,
                "",
                {self.key: False},
                {self.key: True},
                "program_view turned on: a Python default now satisfies require and equal where the YAML has no value",
            )
        ]


KIND = ProgramView()
