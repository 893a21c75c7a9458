"""The rules of a review come from its base: the base's settings decide what is checked, and every difference
between the base's settings and the pull request's is a `settings_change` finding.

A pull request controls its own settings, so a review that took its cases, presets, contracts files,
snapshot folder, search path and confinement from them would let the change under review decide how it is
reviewed (drop the engine that broke, add a preset that cancels the change, re-point the contracts). Here
the base's settings are the rules; the pull request's settings are part of what is reviewed. Cases that only
the pull request adds are reviewed too, and it may narrow confinement, never widen it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from harness.gates.confine import project_root, within
from harness.model.findings import INFO, Finding, Kind, RulesUsed
from harness.model.semantic_diff import value_text
from harness.model.settings import Settings, root_id
from harness.rules.contract_changes import change_finding
from harness.rules.contracts import SETTINGS, ChangeRecord
from harness.rules.protocol import TermChange

# Settings keys whose every change changes what is checked or how (a different tree, goldens, grouping), or
# what may be read or run (a search path, modules to import).
_ANY_CHANGE_NARROWS = frozenset({"config_dir", "snapshot_dir", "engine_group", "search_path", "schemas"})
# Settings keys that are a list of things checked: dropping an element narrows what is checked.
_LIST_OF_CHECKED = frozenset({"roots", "contracts", "commands", "python_sources"})
# Settings keys that describe the subject or the machine, not the rules: a change is shown, never an error.
_NEUTRAL = frozenset({"version_base", "jobs"})


@dataclass(frozen=True)
class SettingsChange:
    """One settings key that differs between the base and the pull request."""

    key: str  # `engines`, `presets.grpo`, `routes.ppo_megatron_trainer`, `source.wheel`
    old: Any  # None: the key is new
    new: Any  # None: the key is gone
    narrows: bool  # it narrows what is checked, or widens what may be read: an error without a recorded reason
    description: str

    def term(self) -> TermChange:
        """The change as a record-matching term (the mechanism contract changes use)."""
        return TermChange(SETTINGS, self.key, self.old, self.new, self.description)


@dataclass(frozen=True)
class ReviewRules:
    """Which settings a review uses, and how they differ from the pull request's."""

    settings: Settings  # what the review composes and checks with
    changes: tuple[SettingsChange, ...]
    first_adoption: bool  # the base has no settings: the pull request's apply, and every report says so
    ref: str = ""  # the git ref of the base

    def used(self) -> RulesUsed:
        """Which settings decided what is checked, as every report says first (`settings.origin` is the pull
        request's file in both cases: the base's settings are read under its name)."""
        return RulesUsed(self.settings.origin.name, self.ref, self.first_adoption)

    def findings(self, records: Iterable[ChangeRecord]) -> list[Finding]:
        """One `settings_change` finding per key: an error when it narrows and no record gives the reason."""
        records = tuple(records)
        findings = []
        for change in self.changes:
            if change.narrows:
                findings.append(change_finding(change.term(), records, Kind.SETTINGS_CHANGE))
            else:
                findings.append(Finding(Kind.SETTINGS_CHANGE, change.key, change.old, change.new, INFO, change.description))
        return findings

    def explains(self, case_id: str, records: Iterable[ChangeRecord]) -> bool:
        """True when a recorded settings change accounts for a case the base had and this tree has not."""
        recorded = [c for c in self.changes if c.narrows and any(r.contract == SETTINGS and r.path == c.key for r in records)]
        return any(_removes(change, case_id) for change in recorded)


def _keyed(table: Mapping[str, Any]) -> dict[str, Any]:
    """A settings table flattened to the keys a review compares: presets and routes one key per name."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if key == "presets" and isinstance(value, dict):
            flat.update({f"presets.{name}": overrides for name, overrides in value.items()})
        elif key == "routes" and isinstance(value, list):
            for index, route in enumerate(value):
                name = route.get("name", index) if isinstance(route, dict) else index
                flat[f"routes.{name}"] = route
        elif key == "source" and isinstance(value, dict):
            flat.update({f"source.{name}": item for name, item in value.items()})
        else:
            flat[key] = value
    if "presets" not in table:
        flat["presets.default"] = []  # what the settings module uses without a [presets] table
    return flat


def _elements(value: Any) -> list[str]:
    return [value_text(item) for item in value] if isinstance(value, list) else [] if value is None else [value_text(value)]


def _narrows(key: str, old: Any, new: Any) -> bool:
    """True when changing `key` from `old` to `new` checks less, or lets the review read more."""
    if key in _NEUTRAL or key.startswith("source."):
        return False
    if key in _ANY_CHANGE_NARROWS:
        return True
    if key.startswith(("presets.", "routes.")):
        return old is not None  # a preset or route added checks more
    if key in _LIST_OF_CHECKED:
        return bool(set(_elements(old)) - set(_elements(new)))
    if key == "engines":
        # Absent means every option of the engine group; naming a list can only leave some out.
        return new is not None and (old is None or bool(set(_elements(old)) - set(_elements(new))))
    if key == "read_outside":
        return bool(set(_elements(new)) - set(_elements(old)))  # confinement widened
    if key == "unverified":  # a change not verified that blocked at the base now only warns
        return (old or "warn") == "block" and (new or "warn") != "block"
    return True  # a key this version does not know how to weigh: the author says why


def _describe(key: str, old: Any, new: Any, narrows: bool) -> str:
    if old is None:
        what = f"{key} added: {value_text(new)}"
    elif new is None:
        what = f"{key} removed (was {value_text(old)})"
    else:
        what = f"{key}: {value_text(old)} -> {value_text(new)}"
    if key == "read_outside" and narrows:
        return f"settings {what}: widens what the harness may read"
    return f"settings {what}" + (": narrows what the review checks" if narrows else "")


def settings_changes(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[SettingsChange]:
    """Every key that differs between two settings tables, in a stable order (the base's keys first)."""
    old_keys, new_keys = _keyed(base), _keyed(head)
    changes = []
    for key in list(old_keys) + [k for k in new_keys if k not in old_keys]:
        old, new = old_keys.get(key), new_keys.get(key)
        if value_text(old) == value_text(new):
            continue
        narrows = _narrows(key, old, new)
        changes.append(SettingsChange(key, old, new, narrows, _describe(key, old, new, narrows)))
    return changes


def _removes(change: SettingsChange, case_id: str) -> bool:
    """True when the settings change takes this case out of the matrix."""
    parts = case_id.split("/")
    dropped = set(_elements(change.old)) - set(_elements(change.new))
    if change.key == "roots":
        return any(case_id.startswith(root_id(json.loads(item)) + "/") for item in dropped)
    if change.key == "engines":
        return len(parts) == 3 and (value_text(parts[1]) in dropped or change.old is None)
    if change.key == "engine_group":
        return len(parts) == 3
    if change.key.startswith("presets."):
        return len(parts) == 3 and parts[2] == change.key.removeprefix("presets.")
    if change.key.startswith("routes."):
        return case_id == f"route/{change.key.removeprefix('routes.')}"
    return False


_Item = TypeVar("_Item")


def _union(first: tuple[_Item, ...], second: tuple[_Item, ...], key: Callable[[_Item], Hashable] = lambda item: item) -> tuple[_Item, ...]:
    seen = {key(item) for item in first}
    return first + tuple(item for item in second if key(item) not in seen)


def _readable_in_review(path: Path, base: Settings) -> bool:
    """True when the base's confinement lets the review read `path` (inside the project or a folder the base names)."""
    return within(path, (project_root(base.origin.parent), *base.read_outside))


def review_settings(base: Settings, head: Settings) -> Settings:
    """The settings a review composes the pull request's tree with: the base's, plus the cases the pull request
    adds; its confinement is the base's, narrowed (never widened) by the pull request."""
    # `became` names what a base route turned into: it is the news this change brings, and it can only add a
    # comparison (the new case against the route at the base), so the pull request's word is taken for it.
    head_routes = {route.name: route for route in head.routes}
    base_routes = tuple(
        replace(route, became=route.became or head_routes[route.name].became) if route.name in head_routes else route
        for route in base.routes
    )
    engines = None if base.engines is None or head.engines is None else _union(base.engines, head.engines)
    if base.engines is not None and head.engines is None:
        engines = None  # the pull request checks every option now
    return replace(
        base,
        origin=head.origin,
        roots=_union(base.roots, head.roots),
        engines=engines,
        presets=_union(base.presets, head.presets, key=lambda preset: preset[0]),
        routes=_union(base_routes, head.routes, key=lambda route: route.name),
        contracts=_union(base.contracts, tuple(path for path in head.contracts if _readable_in_review(path, base))),
        read_outside=tuple(folder for folder in base.read_outside if folder in head.read_outside),
        source=head.source,  # the tree under review is the pull request's, fetched as its settings pin it
        version_base=head.version_base,
        jobs=head.jobs,
        cache_dir=head.cache_dir,
    )


def rules_for_review(
    head: Settings, base: Settings | None, head_table: Mapping[str, Any], base_table: Mapping[str, Any] | None, ref: str
) -> ReviewRules:
    """The rules of a review against `ref`: the base's settings when it has them, else the pull request's."""
    if base is None or base_table is None:
        # The modules a review imports come from the trusted side only: at a first adoption, none.
        return ReviewRules(replace(head, schemas=()), (), True, ref)
    return ReviewRules(review_settings(base, head), tuple(settings_changes(base_table, head_table)), False, ref)
