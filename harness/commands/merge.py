"""`merge RESULT.json...`: one verdict from the JSON results of `--shard K/N` runs, in every format.

A shard's JSON carries, under `shard`, what it checked before judging the run as a whole: each of its cases' results
and its launches', encoded losslessly (`encode`). `merge` rebuilds the same run in the same checkout (the shards'
commit and settings, checked), hands it the shards' results instead of composing again, and lets the engine finish
once: settings changes, orphans, stale waivers and known entries, Hydra's warnings and the launches' tally are judged
over the whole run, exactly as the unsharded run judges them. Its exit codes are `check`'s.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from harness.baselines.moves import moved_paths
from harness.commands import common
from harness.commands.shard_results import TYPES, identity, invocation
from harness.composition.shards import MAX_SHARDS
from harness.gates.confine import UnsafeInput
from harness.gates.reader import InputLimitError, read_bytes
from harness.model import findings as model
from harness.model.findings import SOURCED_KINDS, CaseResult, Finding, LaunchTally, MatrixResult
from harness.model.settings import Settings
from harness.runner.run import Runner

NAME = "merge"
HELP = "one verdict from the JSON results of `--shard K/N` runs (every shard's), in any format"
GLOBALS = (*common.SETTINGS_FLAGS, *common.CACHE_FLAGS)  # merge's own: a shard's file never sets them
AFTER = common.CACHE_FLAGS

MAX_RESULT_BYTES = 512 * 1024 * 1024  # a 10,000-case shard writes tens of MB; past this it is not a shard's result
MAX_DEPTH = 200  # the encoded values nest as deep as a config does; the JSON parser stops near 1,000 anyway


class ShardMismatch(common.UsageError):
    """Results that are not the shards of one run: one line naming the file."""


# What a shard's `run` member may say (how the run was asked for: shard_results.invocation) and of which type. The
# rest of merge's options (formats, reports, the cache) are its own command line's, never a shard file's: a forged
# `report: []` dropped the summary, and `cache_dir` made a folder where the file said.
RUN_KEYS: Mapping[str, type | tuple[type, ...]] = types.MappingProxyType(
    {
        "command": str,
        "case": (str, type(None)),
        "strict_waivers": (bool, type(None)),
        "base": (str, type(None)),
        "compose_base": (bool, type(None)),
        "title": (str, type(None)),
        **{flag: (str, type(None)) for flag in common.SETTINGS_FLAGS},
    }
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="+", metavar="RESULT.json", help="every shard's `--format json` result (or --report json:FILE)")
    common.add_format_flags(parser)
    common.add_quiet(parser, "text: only errors, plus the verdict")
    parser.add_argument("--verbose", action="store_true", help="text: name every case of each waived warning, list refactors and info")


# -- merge --------------------------------------------------------------------------------------------------------------


def decode(value: Any, depth: int = 0) -> Any:
    """`encode`'s value back; ValueError on anything `encode` does not write."""
    if depth > MAX_DEPTH:
        raise ValueError(f"values nested more than {MAX_DEPTH} deep")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [decode(item, depth + 1) for item in value]
    if not isinstance(value, dict) or len(value) not in (1, 2):
        raise ValueError(f"not an encoded value: {str(value)[:80]}")
    if set(value) == {"t"} and isinstance(value["t"], list):
        return tuple(decode(item, depth + 1) for item in value["t"])
    if set(value) == {"d"} and isinstance(value["d"], list):
        pairs = [decode(pair, depth + 1) for pair in value["d"]]
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
            raise ValueError("a mapping's entries are not key-value pairs")
        return {_hashable(key): item for key, item in pairs}
    kind = TYPES.get(value.get("e") or value.get("c") or "")
    if set(value) == {"e", "v"} and kind is not None and issubclass(kind, Enum):
        return kind(value["v"])
    if set(value) == {"c", "v"} and kind is not None and dataclasses.is_dataclass(kind) and isinstance(value["v"], dict):
        names = {field.name for field in dataclasses.fields(kind)}
        if not set(value["v"]) <= names:
            raise ValueError(f"{kind.__name__} has no field {sorted(set(value['v']) - names)[0]!r}")
        fields = {name: decode(item, depth + 1) for name, item in value["v"].items()}
        hints = _hints(kind)
        for name, item in fields.items():
            if not _is(item, hints[name]):
                raise ValueError(f"{kind.__name__}.{name} is not a {hints[name]}: {str(item)[:80]}")
        return kind(**fields)
    raise ValueError(f"not an encoded value: {str(value)[:80]}")


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _is(value: Any, hint: Any) -> bool:
    """Whether a decoded value has its field's declared type: a forged file's value of another type is refused here,
    in one line, instead of failing deep in the run (exit 3)."""
    if hint is Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_is(value, arg) for arg in args)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_is(item, args[0]) for item in value)
        return len(args) == len(value) and all(_is(item, arg) for item, arg in zip(args, value))
    if origin is dict:
        return isinstance(value, dict) and all(_is(k, args[0]) and _is(v, args[1]) for k, v in value.items())
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _hashable(key: Any) -> Any:
    if isinstance(key, list | dict):
        raise ValueError("a mapping key that is a list or mapping")
    return key


def run(args: argparse.Namespace) -> int:
    shards = [_read(Path(name)) for name in args.results]
    first = _one_run(shards)
    recorded = _run_of(first, args)
    builders: dict[str, Callable[[argparse.Namespace], tuple[Runner, Settings, Callable[[MatrixResult], int]]]] = _builders()
    if recorded.get("command") not in builders:
        raise ShardMismatch(f"{args.results[0]}: a shard of {recorded.get('command')!r}, which merge does not know")
    rebuilt = argparse.Namespace(**{**vars(args), **recorded, "shard": None, "jobs": None, "plain": False})
    rebuilt.verbose, rebuilt.quiet = args.verbose, args.quiet
    engine, settings, report = builders[recorded["command"]](rebuilt)
    here = identity(settings, invocation(rebuilt, recorded["command"]), [case.id for case in engine.cases])
    for key, what in (("commit", "commit"), ("settings", "settings or contracts"), ("matrix", "matrix of cases")):
        if here[key] != first[key]:
            raise ShardMismatch(f"{args.results[0]}: the shards ran on another {what} than this checkout's; merge where they ran")
    results, launches = _gathered(shards, args.results, [case.id for case in engine.selected], settings)
    wanted = common.sourced(rebuilt, review=engine.run_spec.review is not None)
    results = [_sourced_as(result, wanted) for result in results]
    if launches is not None:
        moves = moved_paths(f for r in results for f in r.findings)
        removed = frozenset(f.path for r in results for f in r.findings if f.kind == model.Kind.REMOVED)
        launches = ([_sourced_as(_with_moves(r, moves, removed), wanted) for r in launches[0]], launches[1], launches[2])
    engine.adopt(results, launches)
    return report(engine.finish())


def _run_of(shard: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """How the shards' run was asked for (`_read` checked its keys and types). Settings flags are merge's own when
    it is given any; a shard's are taken only as paths inside the working folder (a shard's file
    named any file to open as settings), and the settings read must be the shards' (their digest is checked)."""
    recorded: dict[str, Any] = shard["run"]
    own = {flag: getattr(args, flag, None) for flag in common.SETTINGS_FLAGS}
    if any(value is not None for value in own.values()):
        return {**recorded, **own}
    for flag in common.SETTINGS_FLAGS:
        value = recorded.get(flag)
        if value is not None and (Path(value).is_absolute() or ".." in Path(value).parts):
            raise ShardMismatch(
                f"{shard['file']}: its run's {common.flag_of(flag)} {value!r} is not inside the working folder; give merge the flag itself"
            )
    return recorded


def _builders() -> dict[str, Callable[[argparse.Namespace], tuple[Runner, Settings, Callable[[MatrixResult], int]]]]:
    from harness.commands import check, diff_review, generate

    return {"check": check.merged, "generate": generate.merged, "review": diff_review.merged}


def _read(path: Path) -> dict[str, Any]:
    """One shard's JSON result, checked for the shape `merge` needs; one line naming the file otherwise."""
    try:
        data = read_bytes(path, None, MAX_RESULT_BYTES)
        document = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ShardMismatch(f"{path}: no such file") from None
    except InputLimitError:
        raise ShardMismatch(f"{path}: more than {MAX_RESULT_BYTES} bytes; not a shard's result") from None
    except (OSError, UnsafeInput) as error:
        raise ShardMismatch(f"{path}: cannot read it ({getattr(error, 'strerror', None) or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ShardMismatch(f"{path}: not JSON ({error})") from None
    shard = document.get("shard") if isinstance(document, dict) else None
    if not isinstance(shard, dict):
        raise ShardMismatch(f"{path}: not the JSON result of a `--shard K/N` run (no `shard` member)")
    for key, kind in (("index", int), ("count", int), ("run", dict), ("results", list), ("settings", str), ("matrix", str)):
        if not isinstance(shard.get(key), kind) or isinstance(shard.get(key), bool):
            raise ShardMismatch(f"{path}: its `shard` member has no valid {key!r}")
    for key, value in shard["run"].items():
        if key not in RUN_KEYS:
            raise ShardMismatch(f"{path}: its `run` member holds {key!r}, which is not how a run is asked for")
        if not isinstance(value, RUN_KEYS[key]):
            raise ShardMismatch(f"{path}: its `run` member's {key!r} is not a {RUN_KEYS[key]}")
    if not 1 <= shard["index"] <= shard["count"] <= MAX_SHARDS:  # a forged count of 1e9 was a list of 1e9 missing shards
        raise ShardMismatch(f"{path}: shard {shard['index']} of {shard['count']} is not a shard of at most {MAX_SHARDS}")
    return {**shard, "file": str(path)}


def _one_run(shards: list[dict[str, Any]]) -> dict[str, Any]:
    """The shards of one run, every one of them once; the first shard's identity."""
    first = shards[0]
    for shard in shards:
        for key, what in (("commit", "commit"), ("settings", "settings or contracts"), ("run", "command"), ("matrix", "matrix of cases")):
            if shard.get(key) != first.get(key):
                raise ShardMismatch(f"{shard['file']}: from another {what} than {first['file']}")
        if shard["count"] != first["count"]:
            raise ShardMismatch(f"{shard['file']}: shard {shard['index']} of {shard['count']}, but {first['file']} is of {first['count']}")
    seen: dict[int, str] = {}
    for shard in shards:
        if shard["index"] in seen:
            raise ShardMismatch(f"{shard['file']}: shard {shard['index']} again (also {seen[shard['index']]})")
        seen[shard["index"]] = shard["file"]
    missing = [index for index in range(1, first["count"] + 1) if index not in seen]
    if missing:
        raise ShardMismatch(f"shard {missing[0]} of {first['count']} is missing (given: {', '.join(str(i) for i in sorted(seen))})")
    return first


def _gathered(
    shards: list[dict[str, Any]], names: Sequence[str], selected: Sequence[str], settings: Settings
) -> tuple[list[CaseResult], tuple[list[CaseResult], LaunchTally, list[Finding]] | None]:
    """Every shard's case results in the run's order (each case from exactly one shard), and their launches as one."""
    by_id: dict[str, CaseResult] = {}
    parts = []
    for shard in sorted(shards, key=lambda s: s["index"]):
        try:
            results = decode(shard["results"])
            launches = None if shard.get("launches") is None else decode(shard["launches"])
        except (ValueError, TypeError, RecursionError) as error:
            raise ShardMismatch(f"{shard['file']}: its results cannot be read ({error})") from None
        if not isinstance(results, list) or not all(isinstance(r, CaseResult) for r in results):
            raise ShardMismatch(f"{shard['file']}: its results are not case results")
        if launches is not None and not _is_launches(launches):
            raise ShardMismatch(f"{shard['file']}: its launches are not launch results, a tally and findings")
        for result in results:
            if result.case.id in by_id:
                raise ShardMismatch(f"{shard['file']}: case {result.case.id} is in another shard too")
            by_id[result.case.id] = result
        parts.append((shard["file"], launches))
    absent = [case_id for case_id in selected if case_id not in by_id]
    if absent or len(by_id) != len(selected):
        named = absent[0] if absent else next(iter(set(by_id) - set(selected)))
        raise ShardMismatch(f"{names[0]}: the shards' cases are not this run's (case {named})")
    with_launches = [launches for _, launches in parts if launches is not None]
    if not with_launches:
        return [by_id[case_id] for case_id in selected], None
    if len(with_launches) != len(parts):
        raise ShardMismatch(f"{parts[0][0]}: some shards checked launches and some did not")
    cases = [result for launches in with_launches for result in launches[0]]
    tallies = [launches[1] for launches in with_launches]
    unavailable: dict[str, int] = {}
    for tally in tallies:
        for submodule, count in tally.unavailable:
            unavailable[submodule] = unavailable.get(submodule, 0) + count
    counted = ("found", "extracted", "composed", "failing", "environments")
    total = LaunchTally(**{name: sum(getattr(t, name) for t in tallies) for name in counted})
    total = dataclasses.replace(total, unavailable=tuple(sorted(unavailable.items())))
    entries = [finding for launches in with_launches for finding in launches[2]]
    if sum(bool(launches[0]) for launches in with_launches) > 1:
        cases = _launch_order(cases, settings)
    return [by_id[case_id] for case_id in selected], (cases, total, entries)


def _is_launches(value: Any) -> bool:
    """The shape `Runner.checked()` gives a shard's launches: its launch results, their tally, the entry findings."""
    return (
        isinstance(value, list | tuple)
        and len(value) == 3
        and isinstance(value[0], list | tuple)
        and all(isinstance(r, CaseResult) for r in value[0])
        and isinstance(value[1], LaunchTally)
        and isinstance(value[2], list | tuple)
        and all(isinstance(f, Finding) for f in value[2])
    )


def _launch_order(cases: list[CaseResult], settings: Settings) -> list[CaseResult]:
    """The launches in the order the scripts hold them, as one run checks them (each shard checked its share in
    that order; a review's gone launches, from the first shard alone, stay last)."""
    from harness.runner import launches

    found = {case.id: position for position, case in enumerate(launches.discover(settings))}
    return sorted(cases, key=lambda result: found.get(result.case.id, len(found)))


def _with_moves(result: CaseResult, moves: dict[str, str], removed: frozenset[str] = frozenset()) -> CaseResult:
    """A launch's `no such key` findings whose key the goldens had told `key removed`, its `key removed` findings told
    where their key moved, as harness.runner.launches.findings_of tells them, and (a review) its values under the moved
    key left to that finding, as harness.runner.launch_review.value_findings leaves them: a shard checks launches
    without the moves and removed keys, which are known only from every shard's cases."""
    from harness.model.findings import KEY_REMOVED
    from harness.runner.launches import as_removed, had, moved_key, moved_override

    findings, moved_to = [], []
    for finding in result.findings:
        if had(finding.path, moves, removed):
            finding = as_removed(finding)
        fix = finding.detail_as(model.LaunchFix)
        moved = (
            moved_override(finding.new, moves) if fix is not None and fix.reason == KEY_REMOVED and isinstance(finding.new, str) else None
        )
        if moved is not None and fix is not None:
            finding = dataclasses.replace(
                finding, message=f"{finding.message}; it moved to {moved_key(moved)}", detail=dataclasses.replace(fix, fix=moved)
            )
            moved_to.append(moved_key(moved))
        findings.append(finding)
    if not moved_to:
        return result

    def under_moved(finding: Finding) -> bool:
        if finding.kind in (model.Kind.LAUNCH, model.Kind.HYDRA_WARNING):
            return False
        touches = any(key == finding.path or finding.path.startswith(key + ".") or key.startswith(finding.path + ".") for key in moved_to)
        reads = any(isinstance(side, str) and "${" + key + "}" in side for side in (finding.old, finding.new) for key in moved_to)
        return touches or reads

    return dataclasses.replace(result, findings=tuple(f for f in findings if not under_moved(f)))


def _sourced_as(result: CaseResult, wanted: frozenset[Any]) -> CaseResult:
    """The result as a run whose formats source only `wanted` severities sees it: a shard sources every severity a
    format may need (any format may merge it), and a value's file is shown only where the unsharded run shows it."""
    drop = [f.kind in SOURCED_KINDS and f.path and f.severity not in wanted and not _rule_sourced(f) for f in result.findings]
    kept_paths = {f.path for f in result.findings if f.severity in wanted and f.path}
    lines = {path: line for path, line in result.golden_lines.items() if path in kept_paths}
    if not any(drop) and lines == result.golden_lines:
        return result
    findings = tuple(dataclasses.replace(f, source=None) if gone else f for f, gone in zip(result.findings, drop))
    return dataclasses.replace(result, findings=findings, golden_lines=lines)


def _rule_sourced(finding: Finding) -> bool:
    """A finding whose rule names its source itself (a Python default's class line), not the config files."""
    return isinstance(finding.detail, model.TargetFacts | model.ViaDefault)
