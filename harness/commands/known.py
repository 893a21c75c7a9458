"""`known`: record the findings that hold now as known entries (what `init` does at adoption), for later adoptions
of a rule: contracts written after `init`, `python_sources` turned on, a new `[[commands]]` glob. With `--reason`,
it also writes the `changes:` records a review asks for, in a contracts file that is not the known file (the file
a pull request loosens cannot hold the reason that approves it): one per entry it adds, and with `--base REF` one
per entry the file holds that REF's known file does not (added, or its `until` moved later)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.commands import common
from harness.gates.errors import ExitCode
from harness.model.settings import Settings, display_path

NAME = "known"
HELP = "record every finding that holds now as a known entry (appended; existing entries stay)"
GLOBALS = AFTER = common.RUN_FLAGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", metavar="FILE", help="the known file (default: the contracts file named known.yaml)")
    parser.add_argument(
        "--reason",
        metavar="TEXT",
        help="why the entries are accepted: a `changes:` record for each entry added, written in the settings' first contracts file that is not a known file",
    )
    parser.add_argument(
        "--base",
        metavar="REF",
        help="with --reason: also record the entries REF's known file does not have (what a review against REF asks for)",
    )
    common.add_quiet(parser, "print nothing")


def run(args: argparse.Namespace) -> int:
    from harness.rules import known_entries

    settings = common.settings_from(args)
    target = Path(args.file) if args.file else next((path for path in settings.contracts if known_entries.is_known_file(path)), None)
    if target is None:
        raise common.UsageError(
            f"{settings.origin}: no contracts file is named known.yaml; name one with --file "
            "(it must be one of the settings' contracts files)"
        )
    if target.resolve() not in {path.resolve() for path in settings.contracts}:
        raise common.UsageError(f"--file {target}: not one of the settings' contracts files, so it would excuse nothing")
    if args.base and not args.reason:
        raise common.UsageError("known --base REF: give --reason TEXT too (the records it writes need one)")
    owned = _record_file(settings, target) if args.reason else None
    dropped = _drop_earlier_entries(settings, target)
    added, records, causes = _recorded(settings, target, args)
    if owned is not None:
        _write_records(settings, owned, records, args.reason)
    if not args.quiet:
        from harness.reporters.layout import known_recorded

        if dropped:
            common.say(
                f"{dropped} entr{'ies' if dropped != 1 else 'y'} an earlier version wrote for a case glob dropped from {display_path(target)}"
            )
        common.say(known_recorded(causes if added else [], len(added), display_path(target)))
        if owned is not None:
            from harness.model.grouping import plural

            common.say(f"{plural(len(records), '`changes:` record')} written in {display_path(owned)} (its owners approve them)")
    return ExitCode.OK


def _record_file(settings: Settings, target: Path) -> Path:
    from harness.rules import known_entries

    owned = next(
        (path for path in settings.contracts if path.resolve() != target.resolve() and not known_entries.is_known_file(path)), None
    )
    if owned is None:
        raise common.UsageError(
            f"{settings.origin}: known --reason needs a contracts file that is not a known file for its records (the known file's own records approve nothing)"
        )
    return owned


def _drop_earlier_entries(settings: Settings, target: Path) -> int:
    """Entries an earlier version wrote for a case glob (`cases:`) are dropped so the run below records their causes
    anew; every other byte of the file is kept when it holds none."""
    from harness.gates.reader import read_text
    from harness.gates.writer import write_atomic
    from harness.rules import known_entries
    from harness.rules.contracts import parse_contracts

    try:
        text = read_text(target, settings.read_scope, what=str(target))
    except FileNotFoundError:
        return 0
    except UnicodeDecodeError as error:
        raise common.UsageError(f"{display_path(target)}: not UTF-8 (offset {error.start})") from None
    # Its shape first, by the one schema (a ContractError names the file, line and key): what follows reads it as YAML.
    parse_contracts(text, target, legacy_known=True)
    try:
        rewritten, dropped = known_entries.without_earlier_entries(text)
    except ValueError as error:
        raise common.UsageError(f"{display_path(target)}: {error}") from None
    if dropped:
        write_atomic(target, rewritten)
    return dropped


def record(
    settings: Settings, target: Path, args: argparse.Namespace, when: str = "known since", also: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """Run the checks on the settings and append to `target` an entry for every finding no entry excuses yet, and the
    entries `also` names (what init left out)."""
    return _recorded(settings, target, args, when, also)[0]


def _recorded(
    settings: Settings, target: Path, args: argparse.Namespace, when: str = "known since", also: Sequence[dict[str, Any]] = ()
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Any]]:
    """`record`, and with `args.reason` the records that accept what it added (with `args.base`, also what the
    file's entries excuse that REF's do not); and what it recorded, grouped as `check` groups its causes."""
    from harness.gates.reader import read_text
    from harness.gates.writer import write_atomic
    from harness.rules import known_entries
    from harness.rules.contract_changes import flow_record
    from harness.rules.contracts import utc_today
    from harness.runner.run import Run, Runner

    result = Runner(Run.check(settings, common.rule_set_of(settings, args))).run()
    _identified(settings, target, result.cases, args)
    causes = recorded_causes(result)
    entries = [*also, *known_entries.entries_for(result.cases, utc_today(), when), *run_wide_entries(result.findings, utc_today(), when)]
    if entries:
        text = read_text(target, settings.read_scope, what=str(target))
        try:
            write_atomic(target, known_entries.appended(text, entries))
        except ValueError as error:
            raise common.UsageError(f"{display_path(target)}: {error}") from None
    if not getattr(args, "reason", None):
        return entries, [], causes
    records = [known_entries.record_of({key: value for key, value in entry.items() if key != "reason"}) for entry in entries]
    if getattr(args, "base", None):
        fresh = {flow_record(r) for r in records}
        records += [r for r in _records_since(settings, target, args.base, result.cases) if flow_record(r) not in fresh]
    return entries, records, causes


def recorded_causes(result: Any) -> list[Any]:
    """The findings `known` records (errors and warnings no entry excuses yet, no golden settles), grouped as `check`
    groups them: `known` says how many causes and findings it recorded in check's words."""
    from dataclasses import replace

    from harness.model.findings import Kind
    from harness.model.grouping import group_findings
    from harness.rules import known_entries

    cases = [replace(r, findings=tuple(f for f in r.findings if known_entries.excusable(f))) for r in result.cases]
    run_wide = [f for f in result.findings if f.kind == Kind.HYDRA_WARNING and known_entries.excusable(f)]
    return group_findings([r for r in cases if r.findings], run_wide)


def _identified(settings: Settings, target: Path, cases: Any, args: argparse.Namespace) -> None:
    """The file's launch entries an earlier version wrote by their line (`source: FILE:LINE`) given their launch's
    identity (`config`, `launch`), so a script moved later keeps them; said in a line."""
    from harness.gates.reader import read_text
    from harness.gates.writer import write_atomic
    from harness.rules import known_entries
    from harness.rules.contracts import load_contracts

    try:
        text = read_text(target, settings.read_scope, what=str(target))
    except FileNotFoundError:
        return
    entries = known_entries.known_entries(load_contracts([target], settings.read_scope))
    rewritten, count = known_entries.with_identities(text, entries, cases)
    if count:
        write_atomic(target, rewritten)
        if not getattr(args, "quiet", False):
            common.say(
                f"{count} launch entr{'ies' if count != 1 else 'y'} in {display_path(target)} given their launch's identity (config, launch)"
            )


def _records_since(settings: Settings, target: Path, ref: str, cases: Any) -> list[dict[str, Any]]:
    """The records a review against `ref` asks for: each cause the file's entries excuse that `ref`'s do not, and
    each entry whose `until` moved later."""
    from harness.baselines import gitrepo
    from harness.rules import known_entries
    from harness.rules.contract_changes import read_contract_files
    from harness.rules.contracts import load_contracts, utc_today
    from harness.rules.protocol import ContractError

    top = gitrepo.toplevel(settings.origin)
    commit = gitrepo.verify_ref(top, ref)
    raw = gitrepo.read_file(top, commit, gitrepo.inside(top, target))
    try:
        base = known_entries.known_entries(read_contract_files({str(target): raw.decode("utf-8") if raw is not None else None}))
        head = known_entries.known_entries(load_contracts([target], settings.read_scope))
    except (ContractError, UnicodeDecodeError) as error:
        raise common.UsageError(f"{ref}:{display_path(target)}: {error}") from None
    today = utc_today()
    return [wanted for wanted, _ in known_entries.loosenings(known_entries.excuse_results(cases, head, today), head, base, today)]


def _write_records(settings: Settings, owned: Path, records: list[dict[str, Any]], reason: str) -> None:
    from harness.gates.reader import read_text
    from harness.gates.writer import write_atomic
    from harness.rules import known_entries

    if not records:
        return
    try:
        text = read_text(owned, settings.read_scope, what=str(owned))
    except FileNotFoundError:
        text = ""
    try:
        write_atomic(owned, known_entries.appended(text, [{**r, "reason": reason} for r in records], key="changes"))
    except ValueError as error:
        raise common.UsageError(f"{display_path(owned)}: {error}") from None


def run_wide_entries(findings: Any, today: Any, when: str) -> list[dict[str, Any]]:
    """An entry for each of Hydra's warnings, which a run says once rather than per case (RAGEN's "Defaults list is
    missing `_self_`" on every run), written as `known_entries.entries_for` writes a case's."""
    from harness.model.findings import Kind
    from harness.rules import known_entries

    entries = []
    for finding in findings:
        if finding.kind == Kind.HYDRA_WARNING and known_entries.excusable(finding):
            where = f" ({finding.source})" if finding.source is not None else ""
            entries.append(
                {**known_entries.cause_of(finding), "reason": f"{when} ({today.isoformat()}): {known_entries.words_of(finding)}{where}"}
            )
    return entries
