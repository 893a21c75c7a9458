"""`--shard K/N`: which cases and launches shard K of N handles, the same answer on every runner of a CI matrix.

The plan depends only on the matrix (its cases in order) and N, never on what a runner's cache holds: shards run on
different machines whose caches differ, and two runners that planned differently would drop or double a case. Each
case weighs what composing it costs (a base composed once per shard, each preset on it a fraction of that, as the
workers' own plan weighs it); cases sharing a base stay together unless their group outweighs a quarter of a shard's
share, then it is cut in pieces (each piece pays the base once more, and the shards stay even).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.composition.parallel import base_groups, weight
from harness.gates import linear
from harness.gates.errors import BadInput
from harness.model.matrix import Case

_SPELLING = linear.compile(r"(\d+)/(\d+)")
MAX_SHARDS = 256  # far more runners than any CI matrix starts; a typo like 1/1000000 is refused, not planned


class ShardError(ValueError, BadInput):
    """A `--shard` that is not K/N with 1 <= K <= N."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` as written on the command line; ShardError (one line) for anything else."""
        match = _SPELLING.fullmatch(text.strip())
        if match is None:
            raise ShardError(f"--shard {text!r}: expected K/N, for example 1/4 (shard 1 of 4)")
        index, count = int(match.group(1)), int(match.group(2))
        if not 1 <= count <= MAX_SHARDS:
            raise ShardError(f"--shard {text!r}: N must be between 1 and {MAX_SHARDS}")
        if not 1 <= index <= count:
            raise ShardError(f"--shard {text!r}: K must be between 1 and N ({count})")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def as_dict(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}

    def cases(self, cases: Sequence[Case]) -> list[Case]:
        """This shard's cases, in the matrix's order."""
        return [cases[i] for i in plan(cases, self.count)[self.index - 1]]

    def launches(self, ids: Sequence[str]) -> list[str]:
        """This shard's launches: every N-th of them in the order found (each launch composes once, so they weigh
        the same); the matrix's cases are balanced already, so each shard gets an even share on top."""
        return [launch for position, launch in enumerate(ids) if position % self.count == self.index - 1]


def plan(cases: Sequence[Case], count: int) -> list[list[int]]:
    """The case indexes of each of `count` shards (some may be empty when the matrix is tiny)."""
    groups = base_groups(cases)
    total = sum(weight(cases, group) for group in groups)
    # Pieces of at most a quarter of a shard's share: small enough that the heaviest-first fill below ends within
    # about an eighth of even, at the price of one more base composed per cut.
    most = total / count / 4
    pieces: list[list[int]] = []
    for group in groups:
        heavy = weight(cases, group)
        if count > 1 and heavy > most:
            parts = math.ceil(heavy / most)
            size = math.ceil(len(group) / parts)
            pieces += [group[start : start + size] for start in range(0, len(group), size)]
        else:
            pieces.append(group)
    bins: list[list[int]] = [[] for _ in range(count)]
    loads = [0.0] * count
    # Heaviest first into the lightest shard (ties: the piece met first, the lowest shard): the same plan everywhere.
    for piece in sorted(pieces, key=lambda p: (-weight(cases, p), p[0])):
        lightest = loads.index(min(loads))
        bins[lightest].extend(piece)
        loads[lightest] += weight(cases, piece)
    return [sorted(b) for b in bins]
