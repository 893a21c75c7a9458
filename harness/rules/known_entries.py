"""Known findings: what a repository already had when it adopted the harness, excused the way waivers are.

Adoption on a real repository finds problems nobody introduced now: a launch script that passes an override
Hydra cannot parse, a class the program never builds from that node, a contract the tree already breaks. They
are worth knowing once; they must not fail every later run. `init` records each cause as a waiver of its own in a
contracts file of its own (`config-harness/known.yaml`), with its finding line as the reason:

    waivers:
      - finding: launch                           # the finding's kind (instead of `contract:`)
        path: actor_rollout_ref.model.torch_dtype # the key or override; "" for a finding about no key
        source: examples/x.sh:23                  # the script line, or the config file that set the key
        what: key removed                         # the finding's own reason word, where it has one
        config: ppo_trainer                       # a launch's config name (and `launch:` for a failure about no key)
        reason: "known at adoption: key removed: ... (examples/x.sh:23)"

An entry names one cause and excuses it on any case or launch that shows it (an engine added later that inherits
the same class, key and file is excused too), never a whole script or case: a finding about no key carries its
words (`message`), and an entry with nothing but a case glob is exit 2. A launch's cause is what it means, never
where it sits (its `source` line is for the reader): a line shift, a moved script or a renamed case keeps it. There is one mechanism for excusing a
finding, waivers, and this extends it: the same file list (`contracts`), the same stale rule (an entry that
excuses nothing is reported once, `fixed: remove its entry`), and in a review the same rule as for every
loosening: a cause the pull request's entries excuse and the base's do not, or an entry whose `until` it moved
later, is a `contract_change` error unless a `changes:` record in a file the base's owners own names it (a record
in the known file itself approves nothing). An excused finding is `info` with `"status": "known"`; it fails
nothing and is one count line in every report.
"""

from __future__ import annotations

import datetime
import itertools
import json
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from harness.composition.compose import ComposeError, HydraSession
from harness.gates import linear
from harness.model.findings import (
    ERROR,
    GOLDEN_KINDS,
    INFO,
    WARNING,
    CaseResult,
    ContractRef,
    Excused,
    Finding,
    Kind,
    LaunchFix,
    NotComposed,
    Origin,
    TargetFacts,
)
from harness.model.hints import first_sentence
from harness.model.semantic_diff import value_text
from harness.model.settings import Settings, display_path
from harness.rules.contract_changes import flow_record
from harness.rules.contracts import KNOWN, KNOWN_FILE_NAME, ChangeRecord, ContractSet, Waiver

# Differences from a golden are settled by `generate`, never excused; run-level contract findings are about the
# contracts files themselves.
NEVER_KNOWN = GOLDEN_KINDS | {Kind.STALE_GOLDEN, Kind.CONTRACT_CHANGE, Kind.SETTINGS_CHANGE, Kind.HYDRA_CHANGE, Kind.FALLBACK}


# Launch reason words that name one cause: an override whose key the config lacks is `no such key` or `key removed`
# by whether the baseline had the key (harness/runner/launches.py), and the baseline differs between `check` after
# `generate` and the review of the same commit. An entry names the cause, so both are `key removed`, as every entry
# written before the two were told apart says. A group option is `no such option` or `group option removed` by whether
# git had its file (harness/runner/launches.py): both are `group option removed`, as entries written before say.
SAME_CAUSE = MappingProxyType({"no such key": "key removed", "no such option": "group option removed"})


def what_of(finding: Finding) -> str:
    """The finding's own reason word, which tells two findings on one path apart: a launch's (`key removed`), a
    target finding's (`missing_class`), a contract's name."""
    launch, target = finding.detail_as(LaunchFix), finding.detail_as(TargetFacts)
    if finding.kind == Kind.LAUNCH and launch is not None:
        return SAME_CAUSE.get(launch.reason, launch.reason)
    if finding.kind == Kind.TARGET:
        return str(target.reason) if target is not None else ""
    if finding.kind == Kind.CONTRACT:
        return finding.contract
    left_out = finding.detail_as(NotComposed)
    return left_out.what if left_out is not None else ""


def source_of(finding: Finding, root: str = "") -> str:
    """Where a finding's cause is written: a launch's script line (`examples/x.sh:23`), else the config file that set
    the key (its line left out, so an edit elsewhere in the file keeps the entry), else the case's root config file
    `root` (a required key missing from a route is not the same cause as the main tree losing it)."""
    source = finding.source
    if source is None:
        # A Hydra warning that names no file (a search path entry "is not available") is the run's, not a root's:
        # init records it once for the run (commands/known.py: run_wide_entries), with no root.
        return "" if finding.kind in (Kind.LAUNCH, Kind.HYDRA_WARNING) else root
    file, line = getattr(source, "file", None), getattr(source, "line", None)
    if file is None or getattr(source, "override", None) is not None:
        return str(source)
    return f"{file}:{line}" if finding.kind == Kind.LAUNCH and line else str(file)


def words_of(finding: Finding) -> str:
    """The finding's words on one line: what tells two findings about no key apart (two broken launches of a line)."""
    return " ".join(finding.message.split())


def unplaced(text: str, script: str = "") -> str:
    """Words with where they sit left out: `script` (a launch's own) as `the script`, and the line of every `FILE:LINE`
    and `(line N)`, so a line shift or a moved script leaves them equal."""
    if script:
        text = _the_script(text, script)
    return _LINE_WORD.sub(lambda m: m[1] + "line", _without_line_numbers(" ".join(text.split())))


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"  # `re`'s `\w` on text


def _the_script(text: str, script: str) -> str:
    """`script` wherever no path character stands beside it, as `the script` (was `(?<![\\w./-])SCRIPT(?![\\w./-])`:
    RE2 has no lookaround, so the neighbours are checked by hand, at each place `str.find` stops)."""
    pieces, start, index = [], 0, text.find(script)

    def beside(at: int) -> bool:
        return 0 <= at < len(text) and (_word(text[at]) or text[at] in "./-")

    while index >= 0:
        if beside(index - 1) or beside(index + len(script)):
            index = text.find(script, index + 1)
            continue
        pieces += [text[start:index], "the script"]
        start = index + len(script)
        index = text.find(script, start)
    return "".join([*pieces, text[start:]])


_LINE_WORD = linear.compile(r"(^|\W)line \d+")  # `\bline \d+`: a word's end is never `line`'s start
_LINE_NUMBERS = linear.compile(r"(?::\d+)+")


def _without_line_numbers(text: str) -> str:
    """Each `:12:3` after a word character or `.` left out, up to where a word ends (was
    `(?<=[\\w.])(?::\\d+)+(?=\\b|$)`): a run followed by a word character loses all but its last `:N`, which stays."""
    pieces, start = [], 0
    for run in _LINE_NUMBERS.finditer(text):
        colons = [at for at in range(run.start(), run.end()) if text[at] == ":"]
        if run.start() == 0 or not (_word(text[run.start() - 1]) or text[run.start() - 1] == "."):
            colons = colons[1:]  # a later `:N` follows a digit, a word character
        if run.end() < len(text) and _word(text[run.end()]):
            end = colons.pop() if colons else run.end()  # the last `:N` must end where a word ends
        else:
            end = run.end()
        if colons:
            pieces += [text[start : colons[0]], ""]
            start = end
    return "".join([*pieces, text[start:]])


def _launch(finding: Finding) -> LaunchFix | None:
    """A launch finding's cause and the launch it is, by content; None for any other finding (or one before launches
    carried their identity, from an earlier version's shard)."""
    launch = finding.detail_as(LaunchFix)
    return launch if finding.kind == Kind.LAUNCH and launch is not None and launch.launch else None


def cause_of(finding: Finding, root: str = "") -> dict[str, str]:
    """The cause a known entry names, as it is written: kind, key, script line or config file, reason word, and the
    finding's words where it names no key. A launch's also says which launch it is by what it means, not where it sits:
    the config name it composes (`config`) and, for a failure about no key, the launch's content identity (`launch`);
    its `FILE:LINE` is kept for the reader."""
    cause = {"finding": str(finding.kind), "path": finding.path, "source": source_of(finding, root)}
    if what_of(finding):
        cause["what"] = what_of(finding)
    if not finding.path:
        cause["message"] = words_of(finding)
    launch = _launch(finding)
    if launch is not None:
        cause["config"] = launch.config
        if not finding.path:
            cause["launch"] = launch.launch
    return cause


def _entry_cause(entry: Waiver) -> dict[str, str]:
    cause = {"finding": entry.finding, "path": entry.path, "source": entry.source}
    if entry.what:
        cause["what"] = entry.what
    if entry.message:
        cause["message"] = entry.message
    if entry.config or entry.launch:
        cause["config"] = entry.config
    if entry.launch:
        cause["launch"] = entry.launch
    return cause


def _by_meaning(cause: dict[str, str]) -> dict[str, str]:
    """A cause without where it sits (a launch's `FILE:LINE`), when it says what it means (`config`, `launch`)."""
    return {k: v for k, v in cause.items() if k != "source"} if "config" in cause else cause


def _script(source: str) -> str:
    return source.rsplit(":", 1)[0] if source.rpartition(":")[2].isdigit() else source


def excuses(waiver: Waiver, case_id: str, finding: Finding, root: str = "") -> bool:
    """True when a known entry names this finding's cause, on whatever case or launch shows it. An entry an earlier
    version wrote for a case glob (`cases`, read only from a base's file) matches its cases as it did.

    A launch's cause is what it means, never where it sits: a key's failure is the key, its reason word and the config
    name the launch composes; a failure about no key is the launch's own text and config name (`launch`) with its
    reason word. So a line shift, a moved script or a renamed case keeps the entry. An entry written before launches
    carried their identity (`source: FILE:LINE`, no `config`) names its script at any line, with its words."""
    if not waiver.finding or waiver.finding != str(finding.kind) or waiver.path != finding.path:
        return False
    if waiver.what and waiver.what != what_of(finding):
        return False
    if waiver.cases:
        return linear.glob(waiver.cases).fullmatch(case_id) is not None
    launch = _launch(finding)
    if launch is not None and (waiver.config or waiver.launch):
        return waiver.config == launch.config and (bool(finding.path) or waiver.launch == launch.launch)
    if launch is not None:
        script = _script(source_of(finding, root))
        return _script(waiver.source) == script and (
            not waiver.message or unplaced(waiver.message, _script(waiver.source)) == unplaced(words_of(finding), script)
        )
    return waiver.source == source_of(finding, root) and (not waiver.message or waiver.message == words_of(finding))


def live(entry: Waiver, today: datetime.date) -> bool:
    return entry.until is None or today <= entry.until


def excusable(finding: Finding) -> bool:
    """True for a finding a known entry may excuse: an error or warning that no golden settles."""
    return finding.severity in (ERROR, WARNING) and finding.kind not in NEVER_KNOWN and not finding.waiver


def known_entries(contract_set: ContractSet | None) -> tuple[Waiver, ...]:
    """The waivers of a set that name a finding (the known entries)."""
    return tuple(w for w in (contract_set.waivers if contract_set is not None else ()) if w.finding)


def excuse(findings: Sequence[Finding], entries: Sequence[Waiver], case_id: str, today: datetime.date, root: str = "") -> list[Finding]:
    """The findings with each one a live known entry names as `info`, status known, its entry's reason kept."""
    if not entries:
        return list(findings)
    out = []
    for finding in findings:
        entry = next((e for e in entries if excusable(finding) and excuses(e, case_id, finding, root)), None)
        if entry is not None and live(entry, today):
            finding = replace(finding, severity=INFO, waiver=entry.reason, status=Excused.KNOWN, origin=None)
        out.append(finding)
    return out


def excuse_results(results: Iterable[CaseResult], entries: Sequence[Waiver], today: datetime.date) -> list[CaseResult]:
    """Case results with their known findings excused (and a case's status `ok` when nothing else fails)."""
    from harness.model.findings import Status

    out = []
    for result in results:
        findings = tuple(excuse(result.findings, entries, result.case.id, today, result.root_file))
        status = result.status
        if status == Status.ERROR and findings != result.findings and not any(f.severity == ERROR for f in findings):
            status = Status.OK
        out.append(replace(result, findings=findings, status=status))
    return out


def _where(entry: Waiver) -> str:
    return f"{display_path(Path(entry.origin))}:{entry.line}" if entry.origin else "its file"


def _named(cause: dict[str, str]) -> str:
    """A cause in a line: `undeclared at actor.x (ref/ref.yaml)`, `config removed at run.sh:96`."""
    where = cause.get("path") or ""
    source = cause.get("source") or ""
    at = " at ".join(part for part in (where, source) if part) if where and source else where or source
    return f"{cause.get('what') or cause['finding']}" + (f" at {at}" if at else f": {cause.get('message', '')}")


def _fixed(entry: Waiver) -> str:
    """What no longer holds, in words: `the root init left out (conf/x.yaml) composes now`, `undeclared at a.b no
    longer holds`."""
    if _left_out(entry):
        return f"the {entry.what} init left out ({entry.source}) composes now"
    return _named(_entry_cause(entry)) + (f" on {entry.cases}" if entry.cases else "") + " no longer holds"


def stale_entries(entries: Sequence[Waiver], results: Iterable[CaseResult], findings: Iterable[Finding] = ()) -> list[Finding]:
    """A warning for each known entry that excuses nothing any more, in the cases or among the run's `findings`: the
    problem is fixed, the entry can go."""
    excused = [(r.case.id, f, r.root_file) for r in results for f in r.findings if f.status == Excused.KNOWN]
    excused += [("", f, "") for f in findings if f.status == Excused.KNOWN]
    stale = []
    for entry in entries:
        if any(excuses(entry, case_id, finding, root) for case_id, finding, root in excused):
            continue
        where = _where(entry)
        stale.append(
            Finding(
                Kind.CONTRACT,
                entry.path,
                None,
                None,
                WARNING,
                f"known finding fixed: {_fixed(entry)}; remove its entry ({where})",
                detail=ContractRef(source=where),
            )
        )
    return stale


def record_of(cause: dict[str, str], old_until: Any = None, until: Any = None) -> dict[str, Any]:
    """The `changes:` record that accepts a known entry a pull request added (old null) or renewed (old its date)."""
    return {
        "known": cause.get("path") or cause.get("source") or cause.get("message", ""),
        "old": None if old_until is None else {"until": old_until},
        "new": {**cause, "until": until},
        "reason": "WHY",
    }


def _iso(day: datetime.date | None) -> str | None:
    return day.isoformat() if day is not None else None


def _same_cause(base: Waiver, entry: Waiver) -> bool:
    if base.cases:  # an earlier version's entry: its key and reason word
        return base.finding == entry.finding and base.path == entry.path and base.what in ("", entry.what)
    one, other = _entry_cause(base), _entry_cause(entry)
    if base.finding == Kind.LAUNCH and ("config" in one) != ("config" in other):  # one names its launch by its line
        one, other = ({**_scripted(c), "source": _script(c["source"])} for c in (one, other))
    return _by_meaning(one) == _by_meaning(other)


def _scripted(cause: dict[str, str]) -> dict[str, str]:
    """A launch's cause as an entry written by its line names it: no `config` or `launch`."""
    return {key: value for key, value in cause.items() if key not in ("config", "launch")}


def loosenings(
    results: Iterable[CaseResult], head_entries: Sequence[Waiver], base_entries: Sequence[Waiver], today: datetime.date
) -> list[tuple[dict[str, Any], Waiver]]:
    """Each cause the pull request's known entries excuse and the base's live ones do not, and each entry whose
    `until` it moved later: the `changes:` record that would accept it, and the entry."""
    found: dict[str, tuple[dict[str, Any], Waiver]] = {}
    live_base = [e for e in base_entries if live(e, today)]
    for result in results:
        for finding in result.findings:
            if finding.status != Excused.KNOWN or any(excuses(e, result.case.id, finding, result.root_file) for e in live_base):
                continue
            entry = next((e for e in head_entries if live(e, today) and excuses(e, result.case.id, finding, result.root_file)), None)
            if entry is None:
                continue
            cause = cause_of(finding, result.root_file)
            before = [b.until for b in base_entries if _same_cause(b, entry)]
            old = _iso(max((day for day in before if day), default=None))
            found.setdefault(flow_record(cause), (record_of(cause, old, _iso(entry.until)), entry))
    for entry in head_entries:
        before = [b.until for b in base_entries if _same_cause(b, entry)]
        if not before or any(day is None or (entry.until is not None and entry.until <= day) for day in before):
            continue  # added (judged by what it excuses, above) or not renewed
        cause = _entry_cause(entry)
        found.setdefault(flow_record(cause), (record_of(cause, _iso(max(d for d in before if d)), _iso(entry.until)), entry))
    return list(found.values())


def added_entries(
    results: Iterable[CaseResult],
    head_entries: Sequence[Waiver],
    base_entries: Sequence[Waiver],
    records: Sequence[ChangeRecord],
    today: datetime.date,
    record_file: str = "",
    ref: str = "",
) -> list[Finding]:
    """In a review, every loosening of the base's known entries (`loosenings`), whatever was edited to get it: an
    error unless a `changes:` record accepts it; records in a known file accept nothing (the parser keeps them
    apart), so the reason lives in a file the base's owners own (`record_file`)."""
    return [_change(wanted, entry, records, record_file, ref) for wanted, entry in loosenings(results, head_entries, base_entries, today)]


def _change(wanted: dict[str, Any], entry: Waiver, records: Sequence[ChangeRecord], record_file: str, ref: str) -> Finding:
    cause = {key: value for key, value in wanted["new"].items() if key != "until"}
    old = (wanted["old"] or {}).get("until")
    key = (wanted["known"], value_text(wanted["old"]), value_text(wanted["new"]))
    record = next((r for r in records if r.contract == KNOWN and (r.path, value_text(r.old), value_text(r.new)) == key), None)
    until = _iso(entry.until) or "never expires"
    verb = f"renewed (until {old} -> {until})" if old else "added"
    subject = f"known entry {verb} for {_named(cause)} ({_where(entry)})"
    if record is not None:
        return Finding(
            Kind.CONTRACT_CHANGE,
            cause["path"],
            wanted["old"],
            wanted["new"],
            WARNING,
            f"{subject} [recorded reason: {record.reason}]",
            origin=Origin.INTRODUCED,
            detail=ContractRef(source=_where(entry)),
        )
    owners = " and ".join(dict.fromkeys(f for f in (display_path(Path(entry.origin)) if entry.origin else "", record_file) if f))
    return Finding(
        Kind.CONTRACT_CHANGE,
        cause["path"],
        wanted["old"],
        wanted["new"],
        ERROR,
        f"{subject} without a recorded reason; it excuses what the base reports; the owners of {owners} must approve:"
        f" add to `changes:` in {record_file or 'a contracts file the base owns'} {flow_record(wanted)}"
        f" (`config-harness known --base {ref or 'REF'} --reason TEXT` writes it)",
        origin=Origin.INTRODUCED,
        detail=ContractRef(source=_where(entry)),
    )


def unheeded_records(contract_set: ContractSet | None) -> list[Finding]:
    """A warning for each `changes:` record written in a known file: it approves nothing (the file it would loosen
    cannot hold its reason)."""
    return [
        Finding(
            Kind.CONTRACT,
            record.path,
            None,
            None,
            WARNING,
            f"a `changes:` record in a known file approves nothing ({record.origin}): write it in a contracts file the base's owners own",
            detail=ContractRef(source=record.origin),
        )
        for record in (contract_set.unheeded if contract_set is not None else ())
    ]


# ---- what init writes ----


def entries_for(results: Iterable[CaseResult], today: datetime.date, when: str = "known at adoption") -> list[dict[str, Any]]:
    """One known entry per distinct cause that already holds (errors and warnings no golden settles), in the run's
    order, each with its finding line as the reason."""
    entries: dict[str, dict[str, Any]] = {}
    for result in results:
        for finding in result.findings:
            if not excusable(finding):
                continue
            cause = cause_of(finding, result.root_file)
            key = flow_record(_by_meaning(cause))  # a launch's cause once, at the first line that shows it
            if key in entries:
                continue
            where = f" ({finding.source})" if finding.source is not None else ""
            entries[key] = {**cause, "reason": f"{when} ({today.isoformat()}): {words_of(finding)}{where}"}
    return list(entries.values())


# ---- roots and presets init left out ----

# A root or preset `init` leaves out because it does not compose is a problem the repository already has: it is
# recorded like any other (kind `error`, `what` root or preset, `source` the root's config file, relative to the
# settings' folder, or the `--preset 'NAME=OVERRIDES'` flag that gives the preset), and every whole run composes it again. While
# it still does not compose it is counted as known; once it composes, its entry excuses nothing and is stale.
ROOT, PRESET = "root", "preset"


def left_out_entry(what: str, source: str, cause: str, today: datetime.date, when: str = "known at adoption") -> dict[str, Any]:
    """The known entry for a root or preset init left out: which (`what`, `source`) and init's one-line cause."""
    return {"finding": str(Kind.ERROR), "path": "", "source": source, "what": what, "reason": f"{when} ({today.isoformat()}): {cause}"}


def root_source(settings: Settings, name: str) -> str:
    """A root's config file as a known entry names it: relative to the settings' folder, the same from any folder."""
    path = settings.config_dir / f"{name}.yaml"
    return path.relative_to(settings.origin.parent).as_posix() if path.is_relative_to(settings.origin.parent) else str(path)


def preset_source(name: str, overrides: Sequence[str]) -> str:
    """A preset as a known entry names it: the `init` flag that gives it (`--preset 'NAME=OVERRIDES'`)."""
    return shlex.join(["--preset", f"{name}={shlex.join(overrides)}"])


def _preset(source: str) -> tuple[str, list[str]]:
    """The name and overrides of a preset a known entry names (`preset_source`); ValueError for other text."""
    words = shlex.split(source)
    if len(words) != 2 or words[0] != "--preset" or "=" not in words[1]:
        raise ValueError("expected --preset 'NAME=OVERRIDES'")
    name, _, written = words[1].partition("=")
    return name, shlex.split(written)


def _root_name(settings: Settings, source: str) -> str:
    path = settings.origin.parent / source
    try:
        name = path.relative_to(settings.config_dir).with_suffix("")
    except ValueError:
        return Path(source).stem
    return name.as_posix() if ".." not in name.parts else name.name  # a name below the config folder, never above it


def _left_out(entry: Waiver) -> bool:
    return entry.finding == str(Kind.ERROR) and entry.what in (ROOT, PRESET) and bool(entry.source)


def composed_again(settings: Settings, entries: Sequence[Waiver], stems: Sequence[tuple[str, tuple[str, ...]]]) -> list[Finding]:
    """Each root or preset a known entry names as left out, composed again: an error finding (for the entry to excuse)
    while it still does not compose, none once it does. A root is composed with every preset of the settings, a preset
    on every root and engine (`stems`: config name and engine override of each)."""
    wanted = [e for e in entries if _left_out(e)]
    if not wanted:
        return []
    found = []
    with HydraSession.for_settings(settings) as session:
        for what, source in dict.fromkeys((e.what, e.source) for e in wanted):
            cause = _first_failure(session, settings, what, source, stems)
            if cause is not None:
                found.append(Finding(Kind.ERROR, "", None, None, ERROR, cause, source=source, detail=NotComposed(what)))
    return found


def _first_failure(
    session: HydraSession, settings: Settings, what: str, source: str, stems: Sequence[tuple[str, tuple[str, ...]]]
) -> str | None:
    """Why the root or preset `source` names does not compose (the first composition that fails), or None."""
    if what == ROOT:
        name = _root_name(settings, source)
        tries = [(name, list(overrides)) for _, overrides in settings.presets]
    else:
        try:
            name, overrides = _preset(source)
        except ValueError as error:
            return f"preset left out by init: {source!r} cannot be read ({error})"
        tries = [(root, [*stem, *overrides]) for root, stem in stems]
    for config_name, overrides in tries:
        try:
            session.compose(config_name, overrides)
        except ComposeError as error:
            where = f" with {' '.join(overrides)}" if overrides else ""
            return f"{what} {name} left out by init: {config_name} does not compose{where}: {first_sentence(str(error))}"
    return None


HEADER = """\
# Findings this repository already had when config-harness was adopted (written by `config-harness init`).
# Each entry excuses one finding: it is counted, not failed. Fix the problem and remove its entry (the run says
# which entries no longer match). An entry a pull request adds is reviewed like any loosened contract.
"""


def appended(text: str, items: Sequence[dict[str, Any]], key: str = "waivers") -> str:
    """A known file's text with `items` added at the end of its `waivers:` list (or a contracts file's with records
    at the end of its `changes:` list), every other byte kept; a list written in a way appending cannot follow
    (ValueError). A known file holds only `waivers:`."""
    document = yaml.safe_load(text) or {}
    if not isinstance(document, dict) or (key == "waivers" and set(document) - {"waivers"}):
        raise ValueError("a known file holds only `waivers:`; add these entries by hand or to a file of their own")
    before = list(document.get(key) or [])
    head = linear.compile(rf"^{key}:[ \t]*\[\][ \t]*$", linear.M).sub(f"{key}:", text).rstrip("\n")
    if key not in document:
        head += f"\n{key}:"
    new = head.lstrip("\n") + "\n" + _items(items)
    try:
        parsed = yaml.safe_load(new) or {}
        same = parsed.get(key) == before + list(items) and {k: v for k, v in parsed.items() if k != key} == {
            k: v for k, v in document.items() if k != key
        }
    except yaml.YAMLError:
        same = False  # an indentation appending cannot follow
    if not same:
        raise ValueError(f"its `{key}:` list is written in a way entries cannot be appended to; add them by hand")
    return new


def without_earlier_entries(text: str) -> tuple[str, int]:
    """A known file's text without the entries an earlier version wrote for a case glob (`cases:`), and how many
    went; the text as it was when there are none. Its comment lines at the top are kept."""
    document = yaml.safe_load(text) or {}
    if not isinstance(document, dict) or not isinstance(document.get("waivers") or [], list):
        return text, 0
    waivers = document.get("waivers") or []
    kept = [entry for entry in waivers if not (isinstance(entry, dict) and "finding" in entry and "cases" in entry)]
    if len(kept) == len(waivers):
        return text, 0
    if set(document) - {"waivers"}:
        raise ValueError("a known file holds only `waivers:`; remove its entries that name `cases:` by hand")
    comments = "".join(itertools.takewhile(lambda line: line.startswith("#"), text.splitlines(keepends=True)))
    head = comments or HEADER
    body = yaml.safe_dump({"waivers": kept}, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return head + body, len(waivers) - len(kept)


def with_identities(text: str, entries: Sequence[Waiver], results: Iterable[CaseResult]) -> tuple[str, int]:
    """A known file's text with each launch entry an earlier version wrote by its line (`source: FILE:LINE`, no
    `config`) given the identity of the launch it excuses now (`config`, and `launch` for a failure about no key), so a
    script moved later keeps it; and how many. Every other byte is kept. An entry that excuses nothing, or launches that
    differ in it (two config names), is left as it is, and so is the whole text where the lines cannot be added."""
    excused = [(r.case.id, f, r.root_file) for r in results for f in r.findings if f.status == Excused.KNOWN]
    lines = text.splitlines(keepends=True)
    added: dict[int, dict[str, str]] = {}
    for entry in entries:
        if entry.finding != Kind.LAUNCH or entry.config or entry.launch or entry.cases or not 0 < entry.line <= len(lines):
            continue
        found = {
            tuple((key, value) for key, value in cause_of(finding, root).items() if key in ("config", "launch"))
            for case_id, finding, root in excused
            if excuses(entry, case_id, finding, root)
        }
        if len(found) == 1 and (identity := next(iter(found))):
            added[entry.line - 1] = dict(identity)
    if not added:
        return text, 0
    out = []
    for index, line in enumerate(lines):
        out.append(line if line.endswith("\n") else line + "\n")
        indent = " " * (len(line) - len(line.lstrip(" -")))
        out += [f"{indent}{key}: {json.dumps(value)}\n" for key, value in added.get(index, {}).items()]
    new = "".join(out)
    try:
        old_document, new_document = yaml.safe_load(text) or {}, yaml.safe_load(new) or {}
    except yaml.YAMLError:
        return text, 0
    if not isinstance(old_document, dict) or not isinstance(new_document, dict) or set(old_document) != set(new_document):
        return text, 0
    before, after = old_document.get("waivers") or [], new_document.get("waivers") or []
    if len(after) != len(before) or not all(isinstance(item, dict) for item in (*before, *after)):
        return text, 0
    kept = [{key: value for key, value in item.items() if key in old} for item, old in zip(after, before, strict=True)]
    changed = sum(set(item) - set(old) <= {"config", "launch"} and item != old for item, old in zip(after, before, strict=True))
    return (new, len(added)) if kept == before and changed == len(added) else (text, 0)


def _items(entries: Sequence[dict[str, Any]]) -> str:
    return yaml.safe_dump(list(entries), sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)


def render(entries: Sequence[dict[str, Any]]) -> str:
    """The known file's text: a header, then `waivers:` with one entry per finding (an empty list when none)."""
    body = yaml.safe_dump({"waivers": list(entries)}, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return HEADER + body


def is_known_file(path: Path) -> bool:
    """True for a known file, by the name `init` and `known` give it (its records approve nothing)."""
    return path.name == KNOWN_FILE_NAME
