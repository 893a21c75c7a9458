"""Carried compositions against Hydra's own, on a real tree: one value edit after another (harness.composition.carry).

Each trial edits one `key: value` line of a file the compositions read, composes every case through the cache (a
carry where one applies, Hydra where none does) and without it (Hydra), and compares the two node by node. The
new values include what must never be carried (`null`, `???`, an interpolation, a list, a mapping), so the
refusals are exercised on the same trees.
"""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from harness.composition.compose import ComposeError, HydraSession
from harness.composition.hydra_compat import same_nodes
from harness.model.semantic_diff import same_value

VALUE_LINE = re.compile(r"^(\s*[A-Za-z_][\w]*):\s*[^\s#{\[&*|>'\"][^#]*$")
PLAIN_VALUES = ["123", "0.5", "true", "false", "abc", "77", "9.5", "xyz"]
REFUSED_VALUES = ["null", "???", "${seed}", "'7'", "[1]", "{a: 1}"]


@dataclass
class Tally:
    compared: int = 0
    carried: int = 0
    mismatches: list[str] = field(default_factory=list)


def _composed(tree: Path, cache: Path | None, name: str, cases: list[list[str]]) -> tuple[dict[int, object], int]:
    out: dict[int, object] = {}
    with HydraSession(tree, cache) as session:
        for index, overrides in enumerate(cases):
            try:
                out[index] = session.compose(name, overrides)
            except ComposeError as error:
                out[index] = str(error)
        return out, len(session.carried)


def carry_trials(source: Path, scratch: Path, name: str, cases: list[list[str]], files: list[str], trials: int, seed: int) -> Tally:
    """`trials` seeded value edits of `files` (relative to the tree) in a copy of `source`."""
    tree = Path(shutil.copytree(source, scratch / "config"))
    cache = scratch / "cache"
    _composed(tree, cache, name, cases)
    rng = random.Random(seed)
    tally = Tally()
    for _ in range(trials):
        path = tree / rng.choice(files)
        text = path.read_text()
        lines = text.splitlines()
        candidates = [i for i, line in enumerate(lines) if VALUE_LINE.match(line)]
        if not candidates:
            continue
        index = rng.choice(candidates)
        key = VALUE_LINE.match(lines[index]).group(1)  # type: ignore[union-attr]
        lines[index] = f"{key}: {rng.choice(PLAIN_VALUES * 3 + REFUSED_VALUES)}"
        path.write_text("\n".join(lines) + "\n")
        got, carried = _composed(tree, cache, name, cases)
        want, _ = _composed(tree, None, name, cases)
        tally.carried += carried
        for case, expected in want.items():
            tally.compared += 1
            actual = got[case]
            alike = actual == expected if isinstance(actual, str) or isinstance(expected, str) else same_nodes(actual, expected, same_value)  # type: ignore[arg-type]
            if not alike:
                tally.mismatches.append(f"{path.relative_to(tree)}: {lines[index].strip()} under {cases[case]}")
        path.write_text(text)
        _composed(tree, cache, name, cases)  # back, through the cache (a carry again where one applies)
    return tally
