"""Who builds a `_target_` node, read from the call sites of `python_sources` (as text, never run or imported).

A "building the node fails" finding is true only when the program builds the node as the config holds it. verl
pops `ref.log_prob_*` keys before building the ref node (`self.config.ref.pop("log_prob_micro_batch_size")`);
mighty-rl builds nodes with more arguments (`retrieve_class(...)` then `cls(algo=..., **kwargs)`); geoarches calls
`instantiate(cfg.module.module, cfg.module)`; verl never builds `global_profiler` as its dataclass. This reader
collects, in one linear pass over the sources' bytes, the node names (the last attribute of the expression passed)
and keys that code removes (`.pop("k")`, `del x.node.k`), that builders receive (`instantiate`,
`omega_conf_to_dataclass`, `OmegaConf.to_object`), and that are built with more arguments (`instantiate(node, x)`,
`get_class(node._target_)`, `retrieve_class(node...)`). A node is matched by its last name, the way code names it
(`self.config.ref` is the node `actor_rollout_ref.ref` wherever `self.config` points): a cheap and deliberately
generous match, since a wrong "fails" is the finding that costs a user trust.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

from harness.gates import linear
from harness.model.settings import display_path

# Each pattern is a literal anchor and one character class, so a pass is linear in the bytes (no nested repeats).
_POP = linear.compile(rb"\.pop\(\s*['\"]([A-Za-z_]\w*)['\"]")  # the chain before it is read backwards
_DEL = linear.compile(rb"del\s+([\w.]+)")  # a literal first: the regex engine skips ahead to it (no `\b`, no alternation)
BUILDERS = (b"instantiate", b"omega_conf_to_dataclass", b"to_object", b"get_class", b"retrieve_class", b"get_method")
_BUILDS = tuple((name, linear.compile(linear.escape(name) + rb"\(\s*([\w.]+)\s*(?:,([^()]{0,200}))?")) for name in BUILDERS)
# Keywords that change how a node is built, not what it is given: `instantiate(node, _convert_="partial")`.
_HOW = (b"_convert_", b"_recursive_", b"_partial_", b"dataclass_type")
_PIECE = linear.compile(rb"[A-Za-z_]\w*")
MORE = frozenset({b"get_class", b"retrieve_class", b"get_method"})  # the class is taken, and called by the program with its own arguments


_CHAIN_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def _chain_before(data: bytes, end: int, longest: int = 200) -> bytes:
    """The dotted name that ends at `end` (`self.config.ref` before `.pop(`), read backwards, at most `longest` bytes."""
    start = end
    while start > 0 and end - start < longest and data[start - 1] in _CHAIN_BYTES:
        start -= 1
    return data[start:end]


def only_how_keywords(rest: bytes) -> bool:
    """True when the arguments after the node are only keywords of `_HOW` (`_convert_="partial", _partial_=True`), a
    trailing comma allowed: read comma by comma, where a regular expression of nested repeats (`(KEY=[^,]*,?)*`)
    tried every split of `_partial_=_partial_=...` (2^r; 19 of them 0.17 s a call, a 512 KiB module 6 minutes)."""
    *pieces, last = rest.split(b",")
    for piece in pieces if last.strip() == b"" else [*pieces, last]:
        key = piece.lstrip()
        if not any(key.startswith(name) and key[len(name) :].lstrip().startswith(b"=") for name in _HOW):
            return False
    return True


def _newlines(data: bytes) -> list[int]:
    """The offsets of a file's newlines, from `bytes.split` and running sums (a match object per line through the
    regex wrapper cost a tenth of a verl check)."""
    return [end - 1 for end in accumulate(len(line) + 1 for line in data.split(b"\n"))][:-1]


def _line_of(newlines: list[int], offset: int) -> int:
    """The 1-based line of `offset`, from the offsets of a file's newlines: a search, never a count from the start
    (counting from the start at every call site was quadratic in a file's size)."""
    return bisect_left(newlines, offset) + 1


def _names(chain: bytes) -> list[str]:
    return [piece.decode() for piece in _PIECE.findall(chain)]


@dataclass(frozen=True)
class BuildSites:
    """What the sources' code does to nodes before (or instead of) building them; each value a `FILE:LINE`."""

    removed: dict[tuple[str, str], str] = field(default_factory=dict)  # (node name, key) -> where it is removed
    built: dict[str, str] = field(default_factory=dict)  # node name -> a builder call that receives it
    built_with_more: dict[str, str] = field(default_factory=dict)  # node name -> where it is built with more arguments

    def removes(self, node_path: str, key: str) -> str | None:
        """Where code removes `key` from the node at `node_path` before building it, or None."""
        return self.removed.get((_last(node_path), key))

    def builds_with_more(self, node_path: str) -> str | None:
        """Where code builds the node with arguments of its own (or takes its class and calls it), or None."""
        return self.built_with_more.get(_last(node_path))

    def builds(self, node_path: str) -> bool:
        """True when code passes the node, or a node above it, to a builder by name (building is recursive)."""
        parts = node_path.split(".") if node_path else []
        return any(part in self.built or part in self.built_with_more for part in parts)

    @property
    def any_builder(self) -> bool:
        return bool(self.built or self.built_with_more)


def _last(path: str) -> str:
    return path.rsplit(".", 1)[-1] if path else ""


def build_sites(files: Iterable[tuple[str, Path, bytes]]) -> BuildSites:
    """The call sites of the sources' files ((module, path, bytes), as `SourceIndex.files` reads them once), in one
    pass linear in the bytes."""
    removed: dict[tuple[str, str], str] = {}
    built: dict[str, str] = {}
    more: dict[str, str] = {}
    for _, file, data in files:
        if b"pop(" not in data and b"del " not in data and b"instantiate" not in data and b"_class(" not in data and b"to_" not in data:
            continue
        shown = display_path(file)

        newlines = _newlines(data)

        def where(offset: int, shown: str = shown, newlines: list[int] = newlines) -> str:
            return f"{shown}:{_line_of(newlines, offset)}"

        for match in _POP.finditer(data):
            names = _names(_chain_before(data, match.start()))
            if names:
                removed.setdefault((names[-1], match.group(1).decode()), where(match.start()))
        for match in _DEL.finditer(data):
            if match.start() and data[match.start() - 1] in _CHAIN_BYTES:
                continue  # `model_del x`: not the statement
            names = _names(match.group(1))
            if len(names) >= 2:
                removed.setdefault((names[-2], names[-1]), where(match.start()))
        for function, pattern in _BUILDS:
            for match in pattern.finditer(data):
                names = _names(match.group(1))
                if names and names[-1] == "_target_":
                    names = names[:-1]
                if len(names) < 2:
                    continue  # a bare name (`config`, `cfg`): which node it holds is not known here
                rest = match.group(2)
                if function in MORE or (function == b"instantiate" and rest is not None and not only_how_keywords(rest)):
                    more.setdefault(names[-1], where(match.start()))
                else:
                    built.setdefault(names[-1], where(match.start()))
    return BuildSites(removed, built, more)
