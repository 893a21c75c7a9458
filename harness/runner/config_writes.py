"""Config writes as findings: what the program's code writes to the composed config, compared between two trees.

The writes themselves are read by harness/readers/writes.py (with `ast`, never run). A review (`diff --base REF`)
compares the base's sources with the pull request's: an entry point's writes are findings about the run (kind
`config_write`, `path` the key, `source` FILE:LINE, `old`/`new` the written values or the code's text), and a
`_target_` class's `__post_init__` writes are findings of each case and launch that builds the class, at the node's
path. `explain KEY` names the code that writes the key after the YAML's provenance. A key an entry point reads that a
case no longer has (its baseline had it) is a `config_read` error at the reading line (`read_findings`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from harness.composition.provenance import Source
from harness.gates.budget import MAX_WRITE_STATEMENTS, NOT_READ
from harness.model.findings import ERROR, WARNING, Finding, Kind, Replaced, Severity, Status, WriteFacts
from harness.model.semantic_diff import join_path, split_path, value_text
from harness.model.settings import display_path
from harness.readers.pysource import Signature
from harness.readers.writes import (
    UNPLACED,
    OverBudget,
    Read,
    StatementBudget,
    Unresolved,
    Write,
    class_writes,
    describe,
    entry_points,
    entry_walk,
    holds,
)

Located = TypeVar("Located", Write, Read)


@dataclass(frozen=True)
class OwnedWrite:
    """A write and the entry point (or class) whose code makes it."""

    owner: str
    write: Write
    label: str = ""  # the owner as messages name it, when `owner` only pairs writes (a swapped class: "")

    @property
    def named(self) -> str:
        return self.label or self.owner

    def identity(self) -> tuple[Any, ...]:
        return (self.owner, *self.write.identity())

    def slot(self) -> tuple[str, str, str, str]:
        """What a changed write keeps: its owner, file, key and action (the value is what changes)."""
        return (self.owner, self.write.file, self.write.key, self.write.action)


def program_writes(view: Any) -> list[OwnedWrite]:
    """Every write of every entry point of a program view's sources (memoized on the view: both reviews ask). The
    walks share one budget of statements; past it the rest is not read, and `view.entry_writes_unread` names the
    entry point where the reading stopped."""
    if view.entry_writes is None:
        found: list[OwnedWrite] = []
        reads: list[tuple[str, Read]] = []
        unresolved: list[Unresolved] = []
        budget = StatementBudget()
        for entry in entry_points(view.index):
            try:
                reach = entry_walk(view.index, entry, budget)
            except OverBudget:
                view.entry_writes_unread = f"{entry.file}:{entry.line}"
                break
            found += [OwnedWrite(entry.name, write) for write in reach.writes]
            reads += [(entry.name, read) for read in reach.reads]
            unresolved += reach.unresolved
        view.entry_writes = tuple(found)
        view.entry_reads = tuple(reads)
        view.entry_unresolved = tuple(dict.fromkeys(unresolved))
    return list(view.entry_writes)


def program_unresolved(view: Any) -> list[Unresolved]:
    """The writes the entry points' walks met but could not resolve (a review names their lines)."""
    program_writes(view)
    return list(view.entry_unresolved)


def program_reads(view: Any) -> list[tuple[str, Read]]:
    """Every strict read of the config by every entry point (with its name), read in the same walk as the writes."""
    program_writes(view)
    return list(view.entry_reads)


def unread_findings(view: Any) -> list[Finding]:
    """One error when the view's entry points were not all read for config writes (their budget ran out): a pull
    request cannot hide a write behind code too big to read."""
    program_writes(view)
    where = view.entry_writes_unread
    if not where:
        return []
    message = (
        f"config writes: {NOT_READ} the budget of {MAX_WRITE_STATEMENTS:,} statements read from the entry points "
        f"exceeded at {where}; the writes of the rest are not compared"
    )
    file, _, line = where.rpartition(":")
    return [Finding(Kind.CONFIG_WRITE, "", None, None, ERROR, message, source=Source(file, int(line)))]


def _changes(
    before: Sequence[OwnedWrite],
    after: Sequence[OwnedWrite],
    path_of: Any,
    severity: Severity,
    what: str,
    configs: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Writes added, removed or changed between two lists (compared by owner, key, action and value, never by line).
    `configs`: each entry point's config name, which the findings carry (`with_replaced` finds the YAML's value)."""

    def _finding(
        path: str, old: Any, new: Any, severity: Severity, message: str, owned: OwnedWrite, was: OwnedWrite | None = None
    ) -> Finding:
        # A removed write's line is the base's (the message says so).
        forms = (_form(was), _form(owned)) if was is not None else ("", _form(owned)) if new is not None else (_form(owned), "")
        facts = WriteFacts(configs.get(owned.owner, ""), (), *forms) if configs is not None else None
        source = Source(owned.write.file, owned.write.line)
        return Finding(Kind.CONFIG_WRITE, path, old, new, severity, message, source=source, detail=facts)

    old_ids = {w.identity() for w in before}
    new_ids = {w.identity() for w in after}
    removed = [w for w in before if w.identity() not in new_ids]
    added = [w for w in after if w.identity() not in old_ids]
    removed_by_slot: dict[tuple[str, str, str, str], list[OwnedWrite]] = {}
    for owned in removed:
        removed_by_slot.setdefault(owned.slot(), []).append(owned)
    findings = []
    for owned in added:
        was = removed_by_slot.get(owned.slot())
        write = owned.write
        path = path_of(write.key)
        if was:
            old = was.pop(0)
            message = (
                f"{path or 'config'}: a config write changed{what}: {describe(write, owned.named)} (was {_value(old.write)} at the base)"
            )
            findings.append(_finding(path, _value(old.write), _value(write), severity, message, owned, old))
        else:
            message = f"{path or 'config'}: a config write added{what}: {describe(write, owned.named)}"
            findings.append(_finding(path, None, _value(write), severity, message, owned))
    for left in removed_by_slot.values():
        for owned in left:
            write = owned.write
            path = path_of(write.key)
            message = f"{path or 'config'}: a config write removed{what}: {describe(write, owned.named)} at the base"
            findings.append(_finding(path, _value(write), None, severity, message, owned))
    return findings


def located(view: Any, write: Located) -> Located:
    """A write with its file as reports show it in this tree (`src/app/main.py`), found from the module path the
    reader keeps (`app/main.py`, the same on both sides of a review): the first folder of the sources holding it."""
    candidates = []
    for folder in view.index.folders:
        top = write.file.split("/", 1)[0].removesuffix(".py")
        if (folder / "__init__.py").is_file():
            if folder.name == top:
                candidates.append(folder.parent / write.file)
        else:
            candidates.append(folder / write.file)
    found = next((c for c in candidates if Path(c).is_file()), candidates[0] if candidates else None)
    return replace(write, file=display_path(found)) if found is not None else write


def _form(owned: OwnedWrite) -> str:
    """What a finding's value of this write is: `deleted`, the `code` that computes it, or the written `value`."""
    write = owned.write
    return "deleted" if write.action == "delete" else "value" if write.literal else "code"


def _value(write: Write) -> Any:
    return write.shown


def _entry_path(key: str) -> str:
    return "" if key == UNPLACED else key


def entry_write_changes(base_view: Any, view: Any, severity: Severity = WARNING) -> list[Finding]:
    """Findings about the run: the writes every entry point's code makes at the base against the pull request's."""
    configs = entry_config_names(base_view) | entry_config_names(view)
    changes = _changes(_located(view, program_writes(base_view)), _located(view, program_writes(view)), _entry_path, severity, "", configs)
    return unread_findings(view) + changes


def _located(view: Any, owned: Sequence[OwnedWrite]) -> list[OwnedWrite]:
    return [OwnedWrite(o.owner, located(view, o.write), o.label) for o in owned]


def node_write_changes(
    base_view: Any, view: Any, nodes: Iterable[tuple[str, str | None, str | None]], severity: Severity = WARNING
) -> list[Finding]:
    """Per case: for each `_target_` node (path, the base's class, this tree's class) the writes its class's
    `__post_init__` makes to the node's fields at the base against the pull request's (a class swapped for another
    compares the two classes)."""
    findings: list[Finding] = []
    for path, old_class, new_class in nodes:
        before = [OwnedWrite(old_class, w) for w in _class_writes(base_view, old_class)] if old_class else []
        after = [OwnedWrite(new_class, w) for w in _class_writes(view, new_class)] if new_class else []
        if before == after:  # located alike on both sides, equal writes change nothing: skip finding their files
            continue
        if old_class != new_class:  # a swapped class: compared by key, whichever class writes it
            before = [OwnedWrite("", o.write, o.owner) for o in before]
            after = [OwnedWrite("", o.write, o.owner) for o in after]
        swap = f" (_target_ {old_class} -> {new_class})" if old_class != new_class else ""

        def path_of(key: str, node: str = path) -> str:
            return node if key == UNPLACED else f"{node}.{key}" if node and key else node or key

        findings += _changes(_located(view, before), _located(view, after), path_of, severity, swap)
    return findings


def _class_writes(view: Any, qualname: str) -> tuple[Write, ...]:
    cached: dict[str, tuple[Write, ...]] = view.class_writes  # a targets.ProgramView's, kept per view
    if qualname not in cached:
        cached[qualname] = class_writes(view.index, qualname)
    return cached[qualname]


def writes_of(view: Any, key: str) -> list[OwnedWrite]:
    """The entry points' writes to `key` or a node above it (`explain`): what the code does after composition."""
    found = []
    for owned in program_writes(view):
        written = owned.write.key
        if written == UNPLACED:
            continue
        if key == written or key.startswith(written + ".") or (written == "" and owned.write.action == "merge"):
            found.append(OwnedWrite(owned.owner, located(view, owned.write), owned.label))
    return found


def class_writes_of(view: Any, tree: Any, key: str) -> list[tuple[str, Write]]:
    """The writes the `__post_init__` of the class building `key`'s nearest `_target_` node makes to `key`."""
    keys = split_path(key)
    node, path = tree, ""
    best: tuple[str, dict[Any, Any]] | None = None  # a plain config node (OmegaConf allows non-str keys)
    for part in keys[:-1]:
        if not isinstance(node, dict) or part not in node:
            break
        node, path = node[part], join_path(path, part)
        if isinstance(node, dict) and isinstance(node.get("_target_"), str):
            best = (path, node)
    if best is None:
        return []
    path, value = best
    signature = view.index.signature(value["_target_"])
    if not isinstance(signature, Signature):
        return []
    rest = key[len(path) + 1 :]
    return [
        (signature.qualname, located(view, write))
        for write in _class_writes(view, signature.qualname)
        if write.placed and (rest == write.key or rest.startswith(write.key + "."))
    ]


def class_write_difference(view: Any, old: str, new: str) -> list[str]:
    """The `__post_init__` writes (and setters') one class makes and the other does not, as short phrases."""
    before = {w.identity(): w for w in _class_writes(view, old)}
    after = {w.identity(): w for w in _class_writes(view, new)}
    said = [f"{new}'s __post_init__ {describe(located(view, w), '').strip()}" for key, w in after.items() if key not in before]
    said += [f"{old}'s __post_init__ no longer {describe(located(view, w), '').strip()}" for key, w in before.items() if key not in after]
    return said


# ---- the record: the entry points' writes kept beside the goldens, compared by `check` ----

RECORD_NAME = "_config_writes.yaml"  # not golden-named (`_generated_*`): no case claims it, and it is never an orphan
RECORD_HEADER = (
    "# The writes the program's code makes to the composed config, per entry point (written by `config-harness generate`;\n"
    "# read from python_sources with ast, never run). `check` compares the code with it; a review compares the two sides.\n"
)


def record_text(view: Any) -> str:
    """The record of a view's entry points' writes: sorted, no lines (code that moves is no change), no host paths."""
    import yaml

    entries: dict[str, list[dict[str, Any]]] = {}
    for owned in program_writes(view):
        write = owned.write
        item: dict[str, Any] = {"key": write.key, "action": write.action, "file": write.file}
        item["value" if write.literal else "code"] = write.value if write.literal else write.code
        if write.open_dict:
            item["open_dict"] = True
        entries.setdefault(owned.owner, []).append(item)
    ordered = {owner: sorted(items, key=lambda i: yaml.safe_dump(i, sort_keys=True)) for owner, items in sorted(entries.items())}
    return RECORD_HEADER + yaml.safe_dump({"entry_points": ordered}, sort_keys=True, allow_unicode=True, width=10_000)


def record_path(snapshot_dir: Path) -> Path:
    return snapshot_dir / RECORD_NAME


def write_record(view: Any, snapshot_dir: Path) -> Path | None:
    """`generate`: write the record when it differs from the code's writes (and the code writes anything)."""
    from harness.gates.writer import write_atomic

    text = record_text(view)
    path = record_path(snapshot_dir)
    if not program_writes(view) and not path.exists():
        return None
    from harness.gates.reader import InputLimitError, read_text

    try:
        if read_text(path, (snapshot_dir,)) == text:
            return None
    except (OSError, InputLimitError, UnicodeDecodeError):
        pass  # no record yet, or one that is not text: written anew
    write_atomic(path, text, folder=snapshot_dir)
    return path


def record_findings(view: Any, snapshot_dir: Path) -> list[Finding]:
    """`check`: the code's writes against the record (an error each, as a golden's difference is); nothing when no
    record exists (a repository adopted before the record: `generate` writes it). Bad record: one line, exit 2."""
    import yaml

    from harness.composition.render import parse_yaml
    from harness.gates.reader import InputLimitError, read_text
    from harness.model.settings import SettingsError

    path = record_path(snapshot_dir)
    if not path.is_file():
        return []
    shown = display_path(path)
    try:
        tree = parse_yaml(read_text(path, (snapshot_dir,)))
    except (OSError, InputLimitError, UnicodeDecodeError, ValueError) as error:
        raise SettingsError(f"{shown}: cannot be read ({error})") from None
    except yaml.YAMLError as error:  # the parser's own message names the line
        raise SettingsError(f"{shown}: not valid YAML ({str(error).splitlines()[0]})") from None
    entries = tree.get("entry_points") if isinstance(tree, dict) else None
    if not isinstance(entries, dict):
        raise SettingsError(f"{shown}: expected a mapping `entry_points:` of entry point -> list of writes")
    recorded: list[OwnedWrite] = []
    for owner, items in entries.items():
        if not isinstance(owner, str) or not isinstance(items, list):
            raise SettingsError(f"{shown}: entry point {owner!r}: expected a list of writes")
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("key"), str) or not isinstance(item.get("action"), str):
                raise SettingsError(f"{shown}: entry point {owner}: each write needs `key` and `action` (got {item!r})")
            literal = "value" in item
            write = Write(
                item["key"],
                item["action"],
                item.get("value"),
                literal,
                str(item.get("file", "")),
                0,
                str(item.get("code", "")),
                item.get("open_dict") is True,
            )
            recorded.append(OwnedWrite(owner, write))
    now = [OwnedWrite(o.owner, replace(o.write, code=o.write.code if not o.write.literal else "")) for o in program_writes(view)]
    recorded = [OwnedWrite(o.owner, replace(o.write, code="" if o.write.literal else o.write.code)) for o in recorded]
    suffix = f" (against {shown}; `generate` records it)"
    changes = _changes(_located(view, recorded), _located(view, now), _entry_path, ERROR, suffix, entry_config_names(view))
    return unread_findings(view) + changes


def with_replaced(findings: Sequence[Finding], cases: Sequence[Any], tree_of: Callable[[Any], Any]) -> list[Finding]:
    """The entry points' config writes told the value they change from: the YAML's value at the written key in each
    case of the config the entry point composes (`tree_of(case)`: its golden's tree, None without one), so a report
    shows `trainer.epochs: 1 -> 4` as it shows a change in a YAML file. Goldens are read only when a write is found,
    once each; a write inside a list, or to the whole config, is left as it is."""
    wanted = [f for f in findings if f.kind == Kind.CONFIG_WRITE and f.path and (f.detail_as(WriteFacts) or WriteFacts()).config]
    if not wanted:
        return list(findings)
    trees: dict[str, Any] = {}

    def values(config: str, path: str) -> tuple[Replaced, ...]:
        held: dict[str, tuple[Any, bool, list[str]]] = {}
        for case in cases:
            if case.config_name != config:
                continue
            if case.id not in trees:
                trees[case.id] = tree_of(case)
            if trees[case.id] is None:
                continue
            node, present = trees[case.id], True
            for part in split_path(path):
                if not isinstance(node, dict) or part not in node:
                    node, present = None, False
                    break
                node = node[part]
            shown = value_text(node) if present else ""
            held.setdefault(f"{present}:{shown}", (node, present, []))[2].append(case.id)
        return tuple(Replaced(value, present, tuple(ids)) for value, present, ids in held.values())

    out, asked = [], {id(f) for f in wanted}
    for finding in findings:
        facts = finding.detail_as(WriteFacts)
        if id(finding) in asked and facts is not None:
            finding = replace(finding, detail=replace(facts, replaces=values(facts.config, finding.path)))
        out.append(finding)
    return out


def golden_tree(snapshot_dir: Path) -> Callable[[Any], Any]:
    """A case's golden in `snapshot_dir` as a plain tree, or None (no golden, or one that is not YAML: `check` says so)."""
    import yaml

    from harness.baselines.goldens import golden_path, read_golden
    from harness.composition.render import parse_yaml
    from harness.gates.confine import UnsafeInput

    def tree(case: Any) -> Any:
        try:
            text = read_golden(golden_path(snapshot_dir, case))
            return parse_yaml(text) if text is not None else None
        except (UnsafeInput, yaml.YAMLError, ValueError):
            return None

    return tree


# ---- keys the program reads: a case that no longer has one stops the program there ----


def _absent(tree: Any, key: str) -> str | None:
    """The first prefix of `key` the tree does not have (`optim.bnb_optimizer`), or None: it has the key, or a value on
    the way is not a mapping (a list, a leaf, None: what reading it does is not this check's to say)."""
    node, path = tree, ""
    for part in split_path(key):
        if not isinstance(node, dict):
            return None
        path = join_path(path, part)
        if part not in node:
            return path
        node = node[part]
    return None


def reads_by_config(view: Any) -> dict[str, list[tuple[str, Read]]]:
    """The entry points' strict reads (each with its entry point's name, located) by the config name its
    `@hydra.main` composes, memoized on the view (every case asks)."""
    if view.reads_by_config is None:
        names = entry_config_names(view)
        found: dict[str, list[tuple[str, Read]]] = {}
        for owner, read in program_reads(view):
            if owner in names:
                found.setdefault(names[owner], []).append((owner, located(view, read)))
        view.reads_by_config = found
    return dict(view.reads_by_config)


def read_findings(view: Any, case: Any, tree: Any, before: Callable[[], Any]) -> list[Finding]:
    """Each key an entry point composing the case's config reads strictly (`config.optim.lr`, not `.get`, `in`, a key
    the code wrote first, or one in a branch this case does not take) that the case's tree no longer has: an error
    (kind `config_read`) at the reading line. "No longer": the baseline's tree (`before()`, the golden or the base's
    case; parsed only when a read misses) had it, so a key the program reads only with an override of its launches
    (`+data.output_path=...`) is not a finding."""
    missing: dict[str, list[tuple[str, Read]]] = {}
    for owner, read in reads_by_config(view).get(case.config_name, ()):
        if all(holds(test, tree) for test in read.when):  # not inside a branch this case skips or does not decide
            gone = _absent(tree, read.key)
            if gone is not None:
                missing.setdefault(gone, []).append((owner, read))
    if not missing:
        return []
    base = before()
    findings = []
    for gone, found in missing.items():
        if base is None or _absent(base, gone) is not None:
            continue  # the baseline did not have it either: not this change's doing
        owner, read = found[0]
        more = f" (and {len(found) - 1} more read{'s' if len(found) > 2 else ''} of it)" if len(found) > 1 else ""
        message = f"{gone}: read by {owner} at {read.where} ({read.code}), but the composed config no longer has it{more}"
        findings.append(Finding(Kind.CONFIG_READ, gone, None, None, ERROR, message, source=Source(read.file, read.line)))
    return findings


def launch_reads(view: Any, result: Any) -> Any:
    """A launch's result with an error (kind `config_read`, at the reading line) for each key an entry point composing
    its config reads strictly that one of its overrides deletes (`~optim.bnb_optimizer`, or renames: `~a.old
    +a.new=1`): the job stops there. A read under a test on the config is left out (the launch's values are not at
    hand here to decide it); `.get`, `in` and a key the code wrote first are not reads that fail."""
    deleted = [(o.split("=", 1)[0][1:], o) for o in result.case.overrides if o.startswith("~")]
    if not deleted:
        return result
    findings = []
    for owner, read in reads_by_config(view).get(result.case.config_name, ()):
        if not all(holds(test, {}) is True for test in read.when):
            continue
        gone = next(((key, o) for key, o in deleted if read.key == key or read.key.startswith(key + ".")), None)
        if gone is not None:
            message = f"{gone[0]}: read by {owner} at {read.where} ({read.code}), but the launch deletes it ({gone[1]})"
            findings.append(Finding(Kind.CONFIG_READ, gone[0], None, None, ERROR, message, source=Source(read.file, read.line)))
    if not findings:
        return result
    return replace(result, status=Status.ERROR, findings=(*result.findings, *findings))


# ---- contracts judged on the value the program runs with ----

WRITTEN_ACTIONS = frozenset({"set", "update"})  # a write that leaves one literal value at its key


def entry_config_names(view: Any) -> dict[str, str]:
    """Each entry point's config name, as its `@hydra.main` gives it statically (memoized on the view); an entry point
    whose config name is not a static text is left out (the cases it runs cannot be told)."""
    if view.entry_configs is None:
        from harness.readers.entries import main_arguments

        names: dict[str, str] = {}
        for entry in entry_points(view.index):
            module = view.index.module(entry.module)
            found = main_arguments(module.tree, None) if module is not None and module.tree is not None else None
            name = found[0].get("config_name") if found is not None else None
            if isinstance(name, str):
                names[entry.name] = name.removesuffix(".yaml")
        view.entry_configs = names
    return dict(view.entry_configs)


def runs_with(view: Any, config_name: str) -> list[OwnedWrite]:
    """The literal writes every entry point that composes `config_name` makes to one key (`set`, `update`), located."""
    names = entry_config_names(view)
    return [
        OwnedWrite(o.owner, located(view, o.write), o.label)
        for o in program_writes(view)
        if names.get(o.owner) == config_name and o.write.literal and o.write.placed and o.write.key and o.write.action in WRITTEN_ACTIONS
    ]


def _touches(key: str, path: str) -> bool:
    return key == path or path.startswith(key + ".") or key.startswith(path + ".")


def _written_tree(tree: Any, writes: Sequence[OwnedWrite]) -> Any:
    """A copy of a case's plain tree with each write applied in order (a missing parent only inside `open_dict`, as
    OmegaConf's struct mode allows); None when no write lands."""
    import copy

    written, landed = copy.deepcopy(tree), False
    for owned in writes:
        keys = split_path(owned.write.key)
        node = written
        for part in keys[:-1]:
            if isinstance(node, dict) and isinstance(node.get(part), dict):
                node = node[part]
            elif isinstance(node, dict) and part not in node and owned.write.open_dict:
                node = node.setdefault(part, {})
            else:
                node = None
                break
        if isinstance(node, dict) and (keys[-1] in node or owned.write.open_dict):
            node[keys[-1]] = owned.write.value
            landed = True
    return written if landed else None


def written_contract_check(contract_set: Any, view: Any, today: Any, program: Any = None) -> Any:
    """A case check: the contracts judged again on the value the program runs with, after the literal writes of the
    entry points that compose the case's config (`with open_dict(config): config.a.b = 4` in `main`). A write that
    breaks a term the YAML's value kept is that contract's error, at the writing line (FILE:LINE); a live waiver for
    the contract and path excuses it as it excuses the YAML's. The check is None when no contract names a key."""
    from omegaconf import OmegaConf

    from harness.rules.contracts import violation_finding, violations

    contracts = [c for c in contract_set.contracts if c.paths()]
    if not contracts:
        return None
    paths = {path for contract in contracts for path in contract.paths()}
    # Each config name's writes to a key some contract names, read on the first case judged: a warm run whose
    # results are all kept parses no Python source (the runner reads the view before its workers fork).
    relevant: dict[str, list[OwnedWrite]] = {}
    read = False

    def check(case: Any, config: Any, tree: Any) -> list[Finding]:
        nonlocal read
        if not read:
            if program_writes(view):
                for name in set(entry_config_names(view).values()):
                    if found := [o for o in runs_with(view, name) if any(_touches(o.write.key, path) for path in paths)]:
                        relevant[name] = found
            read = True
        # Only the writes the case's tree takes the branches of: one under a test the tree does not decide (the
        # environment, a loop that may not run) is not a value the program is known to run with.
        writes = [o for o in relevant.get(case.config_name, []) if all(holds(test, tree) is True for test in o.write.when)]
        written = _written_tree(tree, writes) if writes else None
        if written is None:
            return []
        try:
            written_config = OmegaConf.create(written)
        except Exception:  # a written value OmegaConf cannot hold: the program would stop there, not this check's business
            return []
        findings = []
        for contract in contracts:
            before = {(v.path, value_text(v.actual)) for v in violations(contract, config, tree, program, case.id)}
            for violation in violations(contract, written_config, written, program, case.id):
                by = [o for o in writes if _touches(o.write.key, violation.path)]
                if not by or (violation.path, value_text(violation.actual)) in before:
                    continue
                owned = by[-1]  # the last write wins, as the program runs them in order
                write = owned.write
                said = f": the program runs with the value {owned.named} writes at {write.where}"
                source = Source(write.file, write.line)
                findings.append(violation_finding(contract_set, contract, violation, case.id, today, said, source, owned.named))
        return findings

    return check
