"""A cached composition carried over a value edit, in place of a full Hydra compose.

Hydra composes a config by merging each file of the defaults list, in order, into one tree, then applying the
value overrides. When the only thing a composition read that changed is a plain value in a file (`epochs: 10` to
`epochs: 20`: same keys, same order, same defaults list, same header), the new composition is the old one with
that value replaced wherever that file is the last merge that decides it, and nowhere else. That holds only
under conditions checked here one by one; whenever one fails (a key added or removed, a list, `null`, `???`, an
interpolation, a typed node from a schema, an override or a later file that writes the same key, anything under
`hydra:`), nothing is carried and the composition is computed in full. Tests compare every carried composition
with Hydra's own on real trees (tests/e2e/test_carry_real.py); what OmegaConf's merge does with one value is
read in hydra_compat (value_edits, decides, replace_value).

A sheeprl check after a one-value edit spent 1.2 of its 1.9 CPU-s in 14 full composes (issue 52).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from omegaconf import DictConfig, Node

from harness.composition.hydra_compat import Edits, KeyPath, decides, replace_value
from harness.model.semantic_diff import same_value


def package_keys(package: str) -> KeyPath:
    """Where Hydra places a file's content (its final package; "" is the root)."""
    return tuple(package.split(".")) if package else ()


def _overlaps(path: KeyPath, written: KeyPath) -> bool:
    common = min(len(path), len(written))
    return tuple(str(k) for k in path[:common]) == written[:common]


def carried(
    config: DictConfig, merge_order: Sequence[tuple[KeyPath, Node]], edited: Mapping[int, Edits], written: Sequence[KeyPath] | None
) -> DictConfig | None:
    """The old composition `config` (changed in place) with each edited value replaced where the edit decides it.

    `merge_order` holds every defaults-list entry's package and content (today's), in Hydra's merge order;
    `edited` maps the entries of edited files to their edits; `written` holds the key paths the value overrides
    set (None: an override whose key paths are unknown). None when the result would not be exactly Hydra's.
    """
    if written is None:
        return None
    paths = {(*merge_order[index][0], *key) for index, edits in edited.items() for key in edits}
    for path in sorted(paths, key=repr):
        if not path or path[0] == "hydra" or "defaults" in path or any(_overlaps(path, keys) for keys in written):
            return None
        last = None
        for index, (package, content) in enumerate(merge_order):
            decision = decides(content, package, path)
            if decision is None:
                return None
            if decision:
                last = index
        if last is None or last not in edited:
            continue  # a later file decides this value: the edit does not reach the composition here
        edit = edited[last].get(path[len(merge_order[last][0]) :])
        if edit is not None and not replace_value(config, path, *edit, same_value):
            return None
    return config
