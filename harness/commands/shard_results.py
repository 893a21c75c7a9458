"""What a `--shard K/N` run's JSON carries for `merge` (harness.commands.merge): each of its cases' results and its
launches', encoded losslessly, and what every shard of one run shares (the commit, the settings, the matrix)."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from enum import Enum
from types import MappingProxyType
from typing import Any

from harness.baselines import gitrepo
from harness.commands import common
from harness.composition.provenance import Source
from harness.composition.shards import Shard
from harness.gates.reader import read_bytes
from harness.model import findings as model
from harness.model.findings import CaseResult, Finding, LaunchTally
from harness.model.matrix import Case
from harness.model.semantic_diff import Change
from harness.model.settings import Settings
from harness.runner.run import Runner

MAX_SETTINGS_BYTES = 64 * 1024 * 1024  # the settings and contracts files hashed into a shard's identity

# What a shard's results are made of: each type by name, and nothing else is built from a file.
TYPES: Mapping[str, type] = MappingProxyType(
    {
        cls.__name__: cls
        for cls in (
            CaseResult,
            Case,
            Finding,
            Source,
            Change,
            LaunchTally,
            model.Difference,
            model.PythonDefault,
            model.TargetFacts,
            model.ViaDefault,
            model.Moved,
            model.LaunchFix,
            model.ContractRef,
            model.ContractHygiene,
            model.Kind,
            model.Severity,
            model.Origin,
            model.Status,
            model.Excused,
            model.TargetReason,
            type(model.NO_DEFAULT),
        )
    }
)


def encode(value: Any) -> Any:
    """A result's value as JSON: lists stay lists; tuples, mappings (any key), enums and dataclasses are tagged."""
    if isinstance(value, Enum):  # before str: a StrEnum is a str, and merge must get the enum back, not its text
        return {"e": type(value).__name__, "v": value.value}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, tuple):
        return {"t": [encode(item) for item in value]}
    if isinstance(value, dict):
        return {"d": [[encode(key), encode(item)] for key, item in value.items()]}
    if dataclasses.is_dataclass(value) and type(value).__name__ in TYPES:
        fields = {field.name: encode(getattr(value, field.name)) for field in dataclasses.fields(value) if field.name != "rendered"}
        return {"c": type(value).__name__, "v": fields}
    raise TypeError(f"a shard's result holds a {type(value).__name__}, which merge cannot carry")


def identity(settings: Settings, run: dict[str, Any], case_ids: Sequence[str]) -> dict[str, Any]:
    """What every shard of one run shares, and `merge` checks: the commit, the settings and contracts as read, how
    the run was asked for, and the matrix (the cases' ids)."""
    digest = hashlib.sha256()
    for path in (settings.origin, *settings.contracts):
        try:
            digest.update(str(path).encode() + b"\0" + read_bytes(path, None, MAX_SETTINGS_BYTES) + b"\0")
        except Exception:  # unreadable here: the path alone (the run itself says what is wrong with the file)
            digest.update(str(path).encode() + b"\0(unreadable)\0")
    digest.update(json.dumps(run, sort_keys=True).encode())
    matrix = hashlib.sha256("\0".join(case_ids).encode()).hexdigest()
    return {"commit": _commit(settings), "settings": digest.hexdigest(), "matrix": matrix}


def _commit(settings: Settings) -> str | None:
    try:
        return gitrepo.verify_ref(gitrepo.toplevel(settings.origin), "HEAD")
    except Exception:  # not a git checkout (or no commit yet): the settings and the matrix still have to agree
        return None


def invocation(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """How the run was asked for, as `merge` rebuilds it: the command, its selection and rules, the settings flags."""
    keys = ("case", "strict_waivers", "base", "compose_base", "title", *common.SETTINGS_FLAGS)
    return {"command": command, **{key: getattr(args, key, None) for key in keys}}


def shard_document(args: argparse.Namespace, command: str, engine: Runner, settings: Settings) -> dict[str, Any] | None:
    """The `shard` member of a sharded run's JSON (None: not sharded)."""
    shard: Shard | None = args.shard
    if shard is None:
        return None
    results, launches = engine.checked()
    run = invocation(args, command)
    return {
        **shard.as_dict(),
        **identity(settings, run, [case.id for case in engine.cases]),
        "run": run,
        "sourced": sorted(engine.run_spec.sourced),
        "results": encode(results),
        "launches": None if launches is None else encode(list(launches)),
    }
