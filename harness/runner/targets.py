"""The value the program sees: each `_target_` node of a composed config checked against its class's source.

verl builds dataclasses from `_target_` nodes (`hydra.utils.instantiate`): a key the class does not declare
raises, a class that does not exist raises, and a field the YAML lacks silently takes the Python default.
The classes are read with `ast` from the settings' `python_sources` (harness/readers/pysource.py), never imported.
What this cannot see (`__post_init__`, code that overwrites fields, nodes the program reads raw,
interpolations inside `_target_`) is not modelled: the counts are an upper bound.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.composition.provenance import Source
from harness.composition.resolve import MISSING, is_interpolation, lookup
from harness.composition.store import tree_digest
from harness.gates.budget import NOT_READ
from harness.gates.confine import project_root
from harness.model.findings import (
    ERROR,
    INFO,
    CaseChecker,
    Difference,
    Finding,
    Kind,
    PythonDefault,
    Refiner,
    Severity,
    TargetFacts,
    TargetReason,
    ViaDefault,
)
from harness.model.matrix import Case
from harness.model.semantic_diff import describe_value, flatten, join_path, same_value, split_path, unflatten
from harness.model.settings import Settings, SettingsError, display_path
from harness.readers.builders import BuildSites, build_sites
from harness.readers.pysource import MAX_FILES, MAX_SCANNED_BYTES, Default, Missing, Outside, Param, Signature, SourceIndex
from harness.readers.writes import Write
from harness.rules.contract_changes import unreported_check
from harness.rules.contracts import TARGET_WAIVER, ContractSet, Waiver, checks_for, utc_today, waived
from harness.runner.config_writes import class_write_difference, node_write_changes, written_contract_check

# Findings that say building the node fails: made only where no code builds the node some other way.
BUILD_FAILS = frozenset({TargetReason.UNDECLARED, TargetReason.REQUIRED})
# Keys Hydra's instantiate consumes itself: never passed to the class.
RESERVED_KEYS = frozenset({"_target_", "_recursive_", "_convert_", "_partial_", "_args_"})


@dataclass(frozen=True)
class TargetNode:
    """A mapping of the composed config with a `_target_`: where it is, what it names, which keys it gives."""

    path: str
    target: str
    keys: tuple[str, ...]
    partial: bool = False  # `_partial_: true`: the program gives the rest, so no field is required here


@dataclass(frozen=True)
class Filled:
    """A key the YAML lacks that the program takes from a class's Python default."""

    node: TargetNode
    param: Param
    signature: Signature
    file: str  # the file that declares the field, as reports show it

    @property
    def where(self) -> str:
        """The field's `FILE:LINE` in the class that declares it."""
        return f"{self.file}:{self.param.line}"

    @property
    def source(self) -> Source:
        """The field's line as a finding's source: the Python line that sets the value the program sees."""
        return Source(self.file, self.param.line)

    @property
    def default(self) -> Default:
        assert self.param.default is not None
        return self.param.default

    def value(self) -> Any:
        """The default as a finding's value: the literal, or its description when it is an expression."""
        return self.default.value if self.default.literal else self.default.describe()


def target_nodes(tree: Any, prefix: str = "") -> Iterator[TargetNode]:
    """Every mapping with a string `_target_`, depth first (a list's items are `path.i`, as `lookup` reads them).

    A stack, not nested generators: every case and launch of a review walks its tree more than once, and only
    mappings and lists are entered (a leaf's path is never built)."""
    stack: list[tuple[str, Any]] = [(prefix, tree)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            target = value.get("_target_")
            if isinstance(target, str):
                keys = tuple(str(key) for key in value if key not in RESERVED_KEYS)
                yield TargetNode(path, target, keys, value.get("_partial_") is True)
            children: Iterable[tuple[Any, Any]] = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            continue
        inner = [(join_path(path, key), child) for key, child in children if isinstance(child, dict | list)]
        stack.extend(reversed(inner))


class ProgramView:
    """What the program builds from each `_target_` node, read from the Python sources (never imported)."""

    def __init__(self, index: SourceIndex) -> None:
        self.index = index
        self._shown: dict[str, str] = {}
        self._nodes: dict[TargetNode, tuple[Finding, ...]] = {}  # most nodes recur in every case of a matrix
        self._sites: BuildSites | None = None
        # The code's writes to the config (harness/runner/config_writes.py), read once per view: every case asks.
        self.entry_writes: tuple[Any, ...] | None = None
        self.entry_reads: tuple[Any, ...] = ()  # the entry points' strict reads, found by the same walk
        self.entry_unresolved: tuple[Any, ...] = ()  # the writes the same walk met and could not resolve
        self.reads_by_config: dict[str, list[Any]] | None = None  # those reads by the config name each entry composes
        self.entry_configs: dict[str, str] | None = None  # each entry point's static config name
        self.entry_writes_unread = ""  # FILE:LINE of the entry point where the writes' budget ran out, if it did
        self.class_writes: dict[str, tuple[Write, ...]] = {}
        self._digest: tuple[bytes | None] | None = None

    def digest(self) -> bytes | None:
        """The source folders and the bytes of every `.py` file in them, digested once per view (a review's base
        errors and its launches' Python defaults are kept by it). None when the files were cut short by their
        budget: a file past the cut could change unseen."""
        if self._digest is None:
            files = self.index.files()
            cut = len(files) >= MAX_FILES or sum(len(data) for _, _, data in files) > MAX_SCANNED_BYTES
            folders = (tuple(map(str, self.index.folders)), tuple(map(str, self.index.scope)))
            self._digest = (None if cut else tree_digest(folders, [(n, str(p), d) for n, p, d in files]),)
        return self._digest[0]

    def shown(self, file: str) -> str:
        """A source file as reports show it (relative to the working folder), computed once per file."""
        if file not in self._shown:
            self._shown[file] = display_path(Path(file))
        return self._shown[file]

    def _filled(self, node: TargetNode, param: Param, signature: Signature) -> Filled:
        return Filled(node, param, signature, self.shown(param.file))

    def signature(self, node: TargetNode) -> Signature | Missing | Outside | None:
        """The node's class (or function) signature; None for an interpolated `_target_` (not modelled)."""
        if is_interpolation(node.target):
            return None
        return self.index.signature(node.target)

    def node_findings(self, node: TargetNode) -> list[Finding]:
        """The findings of one node: a class that does not exist, undeclared keys, required and defaulted fields;
        a "building the node fails" only where no code of the sources builds the node some other way."""
        if node not in self._nodes:
            self._nodes[node] = tuple(self._who_builds(node, self._node_findings(node)))
        return list(self._nodes[node])

    @property
    def sites(self) -> BuildSites:
        """The sources' call sites that remove keys or build nodes (read once, and only when an error is to be judged)."""
        if self._sites is None:
            self._sites = build_sites(self.index.files())
        return self._sites

    def _who_builds(self, node: TargetNode, findings: list[Finding]) -> list[Finding]:
        """Required and undeclared errors judged against what the program's code does to the node: a key it removes
        before building, a node it builds with arguments of its own, or a node no code builds by name (the reader
        cannot tell how it is built: "built by the program", said once) become info."""
        fails = [f for f in findings if (facts := f.detail_as(TargetFacts)) is not None and facts.reason in BUILD_FAILS]
        if not fails:
            return findings
        sites = self.sites
        more = sites.builds_with_more(node.path)
        unbuilt = sites.any_builder and not sites.builds(node.path) and more is None
        kept: list[Finding] = []
        said = False
        for finding in findings:
            facts = finding.detail_as(TargetFacts)
            if facts is None or facts.reason not in BUILD_FAILS:
                kept.append(finding)
                continue
            key = finding.path.rsplit(".", 1)[-1]
            removed = sites.removes(node.path, key) if facts.reason == TargetReason.UNDECLARED else None
            if removed is not None:
                why = f"the program removes {key} before building the node ({removed})"
            elif more is not None:
                why = f"the program builds the node with arguments of its own ({more})"
            elif unbuilt:
                if said:
                    continue
                said = True
                why = f"no code of the sources builds {node.path or 'the root'} by name: built by the program"
                finding = replace(finding, path=node.path)
            else:
                kept.append(finding)
                continue
            message = finding.message.removesuffix("; building the node fails") + f"; {why}"
            kept.append(replace(finding, severity=INFO, message=message, detail=replace(facts, reason=TargetReason.BUILT_BY_PROGRAM)))
        return kept

    def _node_findings(self, node: TargetNode) -> list[Finding]:
        signature = self.signature(node)
        if signature is None or isinstance(signature, Outside):
            return []
        if isinstance(signature, Missing):
            path = join_path(node.path, "_target_")
            said = (
                f"{node.target} could not be read in the Python sources ({signature.reason})"
                if NOT_READ in signature.reason
                else f"{node.target} does not exist in the Python sources ({signature.reason}); building the node fails"
            )
            return [
                Finding(
                    Kind.TARGET,
                    path,
                    None,
                    node.target,
                    ERROR,
                    f"{path}: {said}",
                    detail=TargetFacts(TargetReason.MISSING_CLASS, target=node.target),
                )
            ]
        findings = []
        where = f"{self.shown(signature.file)}:{signature.line}"
        if signature.complete and not signature.var_kwargs:
            for key in node.keys:
                if signature.param(key) is None:
                    path = join_path(node.path, key)
                    # A field renamed where it is declared (a base class, maybe) is named at that line: the one edited.
                    near = signature.closest(key, node.keys)
                    at = f"{self.shown(near.file)}:{near.line}" if near is not None else where
                    said = (
                        f"{signature.qualname} declares no field {key} (did you mean {near.name}? {near.owner} declares it at {at})"
                        if near is not None
                        else f"{signature.qualname} ({where}) declares no field {key}"
                    )
                    findings.append(
                        Finding(
                            Kind.TARGET,
                            path,
                            None,
                            None,
                            ERROR,
                            f"{path}: {said}; building the node fails",
                            detail=TargetFacts(TargetReason.UNDECLARED, owner=signature.qualname, source=at),
                        )
                    )
        for param in signature.params:
            if param.name in node.keys or param.name in RESERVED_KEYS:
                continue
            filled = self._filled(node, param, signature)
            path = join_path(node.path, param.name)
            if param.default is None:
                if node.partial:
                    continue
                findings.append(
                    Finding(
                        Kind.TARGET,
                        path,
                        None,
                        None,
                        ERROR,
                        f"{path}: {param.owner}.{param.name} ({filled.where}) has no default and the config gives no value; "
                        "building the node fails",
                        source=filled.source,
                        detail=TargetFacts(TargetReason.REQUIRED, owner=signature.qualname, source=filled.where),
                    )
                )
                continue
            findings.append(
                Finding(
                    Kind.TARGET,
                    path,
                    None,
                    filled.value(),
                    INFO,
                    f"{path} is not in the config; the program uses the Python default {param.default.describe()} ({filled.where})",
                    source=filled.source,
                    detail=TargetFacts(TargetReason.DEFAULTED, owner=signature.qualname, source=filled.where, default=filled.value()),
                )
            )
        return findings

    def findings(self, case: Case, config: Any, tree: Any) -> list[Finding]:
        """Every node's findings for one composed case (a `CaseChecker`)."""
        return [finding for node in target_nodes(tree) for finding in self.node_findings(node)]

    def filled(self, tree: Any, path: str, inside: bool = True) -> Filled | None:
        """The Python default that fills `path` when the YAML lacks it: the key is a field of its node's class.

        For a path below the field, the default must hold it too, unless `inside` is False (the field as a whole).
        """
        keys = split_path(path)
        parents = [tree]
        for key in keys[:-1]:
            parent = parents[-1]
            if not isinstance(parent, dict) or key not in parent:
                break
            parents.append(parent[key])
        # The deepest existing mapping on the path; the key below it is the one the YAML lacks.
        cut = len(parents) - 1
        node_value = parents[cut]
        if not isinstance(node_value, dict) or not isinstance(node_value.get("_target_"), str) or keys[cut] in node_value:
            return None
        node_path = ""
        for key in keys[:cut]:
            node_path = join_path(node_path, key)
        node = TargetNode(node_path, node_value["_target_"], tuple(str(k) for k in node_value if k not in RESERVED_KEYS))
        signature = self.signature(node)
        if not isinstance(signature, Signature):
            return None
        param = signature.param(keys[cut])
        if param is None or param.default is None:
            return None
        if inside and cut + 1 < len(keys) and (not param.default.literal or _walk(param.default.value, keys[cut + 1 :]) is MISSING):
            return None  # the default has no such key inside it
        return self._filled(node, param, signature)

    def value_at(self, tree: Any, path: str) -> Any:
        """The value the program sees at `path`: the YAML's, else the Python default's (MISSING when neither)."""
        value = lookup(tree, path)
        if value is not MISSING:
            return value
        filled = self.filled(tree, path)
        if filled is None:
            return MISSING
        if not filled.default.literal:
            return filled.default
        depth = len(split_path(filled.node.path)) if filled.node.path else 0
        return _walk(filled.default.value, split_path(path)[depth + 1 :])

    def refine(self, findings: list[Finding], tree: Any) -> list[Finding]:
        """Differences read with the classes: a dropped key a Python default fills becomes one `changed` finding
        (old YAML value -> Python default, `via: python default`), and a YAML value that now equals the
        Python default says so."""
        dropped: dict[str, tuple[Filled, list[Finding]]] = {}
        refined: list[Finding] = []
        for finding in findings:
            if finding.kind == Kind.REMOVED and finding.path:
                filled = self.filled(tree, finding.path, inside=False)
                if filled is not None:
                    field_path = join_path(filled.node.path, filled.param.name)
                    if field_path not in dropped:
                        dropped[field_path] = (filled, [])
                        refined.append(finding)  # a placeholder, replaced below, keeps the order
                    dropped[field_path][1].append(finding)
                    continue
            if finding.kind in (Kind.CHANGED, Kind.ADDED) and finding.path:
                finding = self._agrees(finding, tree)
            refined.append(finding)
        merged = {id(removed[0]): self._dropped(path, filled, removed) for path, (filled, removed) in dropped.items()}
        return [self._swapped(merged.get(id(finding), finding)) for finding in refined]

    def _swapped(self, finding: Finding) -> Finding:
        """A `_target_` changed from one class to another says what the new class does differently (issue 43): the
        fields whose defaults or types differ, and the `__post_init__` writes one makes and the other does not."""
        if finding.kind != Kind.CHANGED or not finding.path or split_path(finding.path)[-1] != "_target_":
            return finding
        if not isinstance(finding.old, str) or not isinstance(finding.new, str) or finding.old == finding.new:
            return finding
        effect = self.swap_effect(finding.old, finding.new)
        return replace(finding, message=f"{finding.message}; {effect}") if effect else finding

    def swap_effect(self, old: str, new: str) -> str:
        """What building `new` does that building `old` did not, read from the sources ("" when nothing differs)."""
        before, after = self.index.signature(old), self.index.signature(new)
        if not isinstance(after, Signature):
            return ""
        if not isinstance(before, Signature):
            return f"{old} is not in the sources, so what {new} does differently is not known"
        said = []
        for param in after.params:
            was = before.param(param.name)
            where = f"{self.shown(param.file)}:{param.line}"
            if was is None:
                said.append(f"{param.name} new ({where})")
                continue
            old_default = was.default.describe() if was.default is not None else "no default"
            new_default = param.default.describe() if param.default is not None else "no default"
            if old_default != new_default:
                said.append(f"{param.name} default {old_default} -> {new_default} ({where})")
            if was.annotation != param.annotation:
                said.append(f"{param.name} type {was.annotation or '(none)'} -> {param.annotation or '(none)'} ({where})")
        said += [f"{p.name} gone" for p in before.params if after.param(p.name) is None]
        said += class_write_difference(self, before.qualname, after.qualname)
        return f"{after.qualname} differs from {before.qualname}: " + ", ".join(said) if said else ""

    def _dropped(self, path: str, filled: Filled, removed: list[Finding]) -> Finding:
        if len(removed) == 1 and removed[0].path == path:
            old = removed[0].old
        else:
            old = unflatten({f.path[len(path) + 1 :]: f.old for f in removed})
        new = filled.value()
        message = (
            f"{path}: the YAML no longer sets it (was {describe_value(old)}); the program now uses the Python default "
            f"{filled.default.describe()} of {filled.signature.qualname} ({filled.where})"
        )
        return Finding(
            Kind.CHANGED,
            path,
            old,
            new,
            removed[0].severity,
            message,
            source=filled.source,
            detail=ViaDefault(TargetFacts(TargetReason.DEFAULTED, owner=filled.signature.qualname, source=filled.where, default=new)),
        )

    def _agrees(self, finding: Finding, tree: Any) -> Finding:
        keys = split_path(finding.path)
        node_value = lookup(tree, ".".join(keys[:-1])) if len(keys) > 1 else tree
        if not isinstance(node_value, dict) or not isinstance(node_value.get("_target_"), str):
            return finding
        signature = self.index.signature(node_value["_target_"])
        param = signature.param(keys[-1]) if isinstance(signature, Signature) else None
        if param is None or param.default is None or not param.default.literal or not same_value(param.default.value, finding.new):
            return finding
        where = f"{self.shown(param.file)}:{param.line}"
        note = f" (the YAML now agrees with the Python default {param.default.describe()} of {param.owner}, {where})"
        difference = finding.detail_as(Difference) or Difference()
        return replace(
            finding, message=finding.message + note, detail=replace(difference, agrees=PythonDefault(param.default.value, where))
        )


def python_defaults(view: ProgramView, tree: Any, nodes: list[TargetNode] | None = None) -> dict[str, tuple[Finding, TargetFacts]]:
    """Every field of a composed tree that the YAML leaves to its class's Python default: path -> its `defaulted`
    finding (`new` holds the default) and its facts. `nodes`: only those of the tree's nodes."""
    return {
        finding.path: (finding, facts)
        for node in (target_nodes(tree) if nodes is None else nodes)
        for finding in view.node_findings(node)
        if (facts := finding.detail_as(TargetFacts)) is not None and facts.reason == TargetReason.DEFAULTED
    }


def default_changes(base_view: ProgramView, view: ProgramView, base_tree: Any, tree: Any, severity: Severity = INFO) -> list[Finding]:
    """A `changed` finding "via python default" for each field neither side's YAML sets whose Python default differs
    between the base's classes and this tree's: the program sees another value although no config file changed."""
    base_nodes, nodes = list(target_nodes(base_tree)), list(target_nodes(tree))  # each tree walked once, not twice
    if base_view is view:
        # One program for both sides (a review whose pull request left the sources alone): a field's default differs
        # only where its node names another class, so only those nodes are read.
        at_base = {node.path: node for node in base_nodes}
        swapped = [node for node in nodes if node.path in at_base and at_base[node.path].target != node.target]
        before = python_defaults(base_view, base_tree, [at_base[node.path] for node in swapped])
        now_defaults = python_defaults(view, tree, swapped)
    else:
        before, now_defaults = python_defaults(base_view, base_tree, base_nodes), python_defaults(view, tree, nodes)
    findings = []
    for path, (now, facts) in now_defaults.items():
        was, was_facts = before.get(path, (None, None))
        if was is None or was_facts is None or same_value(was.new, now.new):
            continue
        if isinstance(was.new, dict) and isinstance(now.new, dict):  # a nested dataclass's default: leaf by leaf
            findings += _nested_default_changes(view, path, was.new, now.new, facts, severity)
            continue
        findings.append(
            Finding(
                Kind.CHANGED,
                path,
                was.new,
                now.new,
                severity,
                f"{path}: {describe_value(was.new)} -> {describe_value(now.new)} via python default: no config sets it, and "
                f"the default of {facts.owner} ({facts.source}) changed (was {was_facts.source})",
                source=now.source,
                detail=ViaDefault(facts),
            )
        )
    return findings + node_write_changes(base_view, view, built_classes(base_view, view, base_tree, tree, (base_nodes, nodes)))


def _nested_default_changes(
    view: ProgramView, path: str, old: dict[str, Any], new: dict[str, Any], facts: TargetFacts, severity: Severity
) -> list[Finding]:
    """A field defaulted to a dataclass of the sources (`field(default_factory=ServerConfig)`) whose own defaults
    differ: one `changed` finding per leaf (`server.timeout: 60 -> 5`), at the line of the nested class's field."""
    signature = view.index.signature(facts.owner)
    param = signature.param(split_path(path)[-1]) if isinstance(signature, Signature) else None
    fields = {
        leaf: (field, file, line) for leaf, field, file, line in (param.default.leaves if param is not None and param.default else ())
    }
    before, after = flatten(old), flatten(new)
    findings = []
    for leaf in sorted(before.keys() | after.keys()):
        was, now = before.get(leaf, MISSING), after.get(leaf, MISSING)
        if was is not MISSING and now is not MISSING and same_value(was, now):
            continue
        field, file, line = fields.get(leaf, (f"{facts.owner}.{path}", "", 0))
        where = f"{view.shown(file)}:{line}" if file else facts.source
        leaf_path = join_path(path, leaf)
        findings.append(
            Finding(
                Kind.CHANGED,
                leaf_path,
                None if was is MISSING else was,
                None if now is MISSING else now,
                severity,
                f"{leaf_path}: {'new' if was is MISSING else describe_value(was)} -> {'gone' if now is MISSING else describe_value(now)} "
                f"via python default: no config sets it, and the default of {field} ({where}) changed, a dataclass "
                f"{facts.owner} builds by default_factory ({facts.source})",
                source=Source(view.shown(file), line) if file else None,
                detail=ViaDefault(replace(facts, source=where, default=None if now is MISSING else now)),
            )
        )
    return findings


def built_classes(
    base_view: ProgramView, view: ProgramView, base_tree: Any, tree: Any, walked: tuple[list[TargetNode], list[TargetNode]] | None = None
) -> list[tuple[str, str | None, str | None]]:
    """Each `_target_` node either tree builds: (path, the base's class, this tree's class), classes as the sources
    resolve them (None where a side has no such node, or its class is not in the sources). `walked`: both trees'
    `target_nodes`, when the caller has them."""
    base_nodes, nodes = walked or (list(target_nodes(base_tree)), list(target_nodes(tree)))

    def classes(program: ProgramView, config_nodes: list[TargetNode]) -> dict[str, str]:
        found = {}
        for node in config_nodes:
            signature = program.signature(node)
            if isinstance(signature, Signature):
                found[node.path] = signature.qualname
        return found

    before, after = classes(base_view, base_nodes), classes(view, nodes)
    return [(path, before.get(path), after.get(path)) for path in sorted(before.keys() | after.keys())]


def program_view(settings: Settings) -> ProgramView | None:
    """The settings' `python_sources` as a view, or None when the settings name none."""
    if not settings.python_sources:
        return None
    for folder in settings.python_sources:
        if not folder.is_dir():
            fetch = " (for a [source] tree, `config-harness fetch` unpacks it)" if settings.source is not None else ""
            raise SettingsError(f"{settings.origin}: python_sources folder {display_path(folder)} does not exist{fetch}")
    # Every file read must lie where the settings may read: a symlink in the sources cannot lead out.
    scope = (project_root(settings.origin.parent), *settings.read_outside)
    return ProgramView(SourceIndex(settings.python_sources, scope))


def _walk(value: Any, keys: list[str]) -> Any:
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return MISSING
        value = value[key]
    return value


def waive_targets(findings: list[Finding], waivers: tuple[Waiver, ...], case_id: str, today: datetime.date) -> list[Finding]:
    """Target errors a `contract: target` waiver excuses (a node read raw, a class taking more than it shows) as warnings."""
    shown = []
    for finding in findings:
        if finding.severity == ERROR:
            waiver = next((w for w in waivers if w.excuses(TARGET_WAIVER, (finding.path,), case_id)), None)
            finding = waived(finding, waiver, today)
        shown.append(finding)
    return shown


@dataclass(frozen=True)
class CaseRules:
    """The rules a run applies to each case: contract checks and target checks, and the refiners of differences."""

    checks: tuple[CaseChecker, ...] = ()
    refiners: tuple[Refiner, ...] = ()
    view: ProgramView | None = None  # the program view they read (a run's record of config writes reads the same one)


def case_rules(
    settings: Settings,
    contract_set: ContractSet,
    today: datetime.date | None = None,
    base: ContractSet | None = None,
    view: ProgramView | None = None,
) -> CaseRules:
    """The contracts (seeing Python defaults where they opt in) and, with `python_sources`, the target checks; in a
    review, `base` (the base's contracts) also judges each case, for what the pull request's contracts excuse.
    `view`: the settings' program view when the caller has it (a review shares one per side: read once)."""
    view = view if view is not None else program_view(settings)
    program = view.value_at if view is not None else None
    checks = checks_for(contract_set, today, program)
    if base is not None and base.contracts:
        checks.append(unreported_check(base, contract_set, today, program))
    if view is None:
        return CaseRules(tuple(checks))
    day = today or utc_today()
    # The value the program runs with: the contracts judged again after the entry points' literal writes.
    written = written_contract_check(contract_set, view, day, program)
    if written is not None:
        checks.append(written)
    waivers = tuple(w for w in contract_set.waivers if w.contract == TARGET_WAIVER)

    def check(case: Case, config: Any, tree: Any) -> list[Finding]:
        return waive_targets(view.findings(case, config, tree), waivers, case.id, day)

    return CaseRules((*checks, check), (view.refine,), view)
