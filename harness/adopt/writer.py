"""Every byte init writes: the settings table (appended, or replacing one init wrote and nobody edited, proven by
its fingerprint or its recorded flags), the empty contracts file, the known file and the snapshot folder."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adopt.discovery import one_line
from harness.adopt.plan import DEFAULT_SNAPSHOT_DIR, KNOWN_NAME, RECORDED, Plan, plan, recorded_inputs
from harness.gates import linear
from harness.gates.budget import BudgetExceeded, toml_document
from harness.gates.reader import InputLimitError, read_bytes, read_text
from harness.gates.writer import write_atomic
from harness.model.matrix import GOLDEN_PREFIX
from harness.model.settings import TABLE
from harness.rules.known_entries import render as known_text
from harness.runner.hydra_starts import (
    AdoptError,
)

EMPTY_CONTRACTS = """\
# config-harness contracts: what must hold in every composed case, whatever the goldens say.
# Checked by `config-harness check`, `config-harness generate` and pytest. See config-harness's docs/contracts.md.
#
# contracts:
#   - name: my-contract
#     cases: "*"                       # glob over case ids
#     require: [some.key]              # must exist
#     equal: {some.flag: false}        # must have this value
#     forbid: [some.deprecated.key]    # must not exist
#     agree: [[a.alias, b.alias]]      # must be equal
# waivers:
#   - contract: my-contract
#     path: some.key
#     reason: "why this is known and accepted"
#     until: 2027-06-30
contracts: []
waivers: []
"""


def existing_document(settings_file: Path, in_pyproject: bool) -> tuple[bytes, dict[str, Any] | None]:
    """The settings file's bytes (empty when absent) and the settings table it already holds (None when none)."""
    try:
        data = read_bytes(settings_file)
    except FileNotFoundError:
        return b"", None
    except (InputLimitError, OSError) as error:
        raise AdoptError(str(error)) from None
    if not in_pyproject and not data.strip():
        return data, None
    try:
        document = toml_document(data.decode("utf-8"), str(settings_file))
    except BudgetExceeded as error:
        raise AdoptError(str(error)) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        if not in_pyproject:
            raise AdoptError(f"{settings_file}: already exists; init writes a new settings file only") from None
        raise AdoptError(f"{settings_file}: invalid TOML: {one_line(str(error))}") from None
    if not in_pyproject:
        return data, document
    tool = document.get("tool")
    if isinstance(tool, list):  # `[[tool]]`: a table appended below it is valid TOML, and read as its last entry's
        raise AdoptError(
            f"{settings_file}: `tool` is an array of tables ([[tool]]); a [{TABLE}] appended would belong to its last"
            " entry; use --settings FILE for a standalone settings file"
        )
    table = tool.get("config-harness") if isinstance(tool, dict) else None
    return data, table if isinstance(table, dict) else ({} if table is not None else None)


def _appended(existing: bytes, addition: str, settings_file: Path, replacing: Written | None = None) -> bytes:
    """The file's bytes with the table appended (or put in place of what init wrote, `replacing`); the result must
    still be TOML that reads back as written."""
    if replacing is not None:
        text = existing.decode("utf-8")
        data = (text[: replacing.start] + addition + text[replacing.end :]).encode("utf-8")
    else:
        separator = b"" if not existing else (b"\n" if existing.endswith(b"\n") else b"\n\n")
        data = existing + separator + addition.encode("utf-8")
    try:
        toml_document(data.decode("utf-8"), str(settings_file))
    except (tomllib.TOMLDecodeError, BudgetExceeded) as error:
        raise AdoptError(
            f"{settings_file}: appending [{TABLE}] would make invalid TOML ({one_line(str(error))}); "
            "use --settings FILE for a standalone settings file"
        ) from None
    return data


FINGERPRINT = linear.compile(r"^# Written by `config-harness init` \(fingerprint ([0-9a-f]{16}) of the (\d+) lines below\)", linear.M)


def fingerprint(text: str) -> str:
    """The digest init records of the text it wrote (16 hex digits of its SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fingerprinted(body: str, rest: str = "") -> str:
    """`body` (whole lines) under the line that records its fingerprint; `rest` ends that line."""
    return f"# Written by `config-harness init` (fingerprint {fingerprint(body)} of the {body.count(chr(10))} lines below){rest}\n{body}"


@dataclass(frozen=True)
class Written:
    """Where init's fingerprinted text lies in a file's text (character offsets) and whether it is as init wrote it."""

    start: int
    end: int
    unedited: bool


def written_by_init(text: str) -> Written | None:
    """The text init wrote into `text` (its fingerprint line and the lines it counts); None without a fingerprint
    line. Two fingerprint lines, or lines missing or changed below one, are an edit."""
    found = list(FINGERPRINT.finditer(text))
    if not found:
        return None
    match = found[0]
    end = text.find("\n", match.end()) + 1
    body_start = end
    if len(match.group(2)) > 9:  # more lines than any file holds (and `int()` refuses 4,300 digits): an edit
        return Written(match.start(), len(text), False)
    for _ in range(int(match.group(2))):
        if end == 0 or end >= len(text):
            return Written(match.start(), len(text), False)
        end = text.find("\n", end) + 1
    if end == 0:
        return Written(match.start(), len(text), False)
    return Written(match.start(), end, len(found) == 1 and fingerprint(text[body_start:end]) == match.group(1))


def whole_file_by_init(text: str) -> bool | None:
    """True when the whole text is init's unedited fingerprinted text, False when it was edited, None when init did
    not write it (no fingerprint line)."""
    written = written_by_init(text)
    if written is None:
        return None
    return written.unedited and written.start == 0 and written.end == len(text)


def stamp_known(path: Path) -> None:
    """Give the known file init filled its fingerprint line: init may replace it while nobody edited it."""
    write_atomic(path, fingerprinted(read_text(path), ": init records it again while this matches"))


def _is_stub(contracts_file: Path) -> bool:
    try:
        return read_text(contracts_file) == EMPTY_CONTRACTS
    except (OSError, UnicodeDecodeError, InputLimitError):
        return False


def previous_engines(table: dict[str, Any]) -> str:
    group = table.get("engine_group")
    return f"engine group {group}" if isinstance(group, str) else "no engine group"


def _where(settings_file: Path, in_pyproject: bool) -> str:
    return f"{settings_file}: already has a [{TABLE}] table" if in_pyproject else f"{settings_file}: already exists"


def refuse_rewrite(settings_file: Path, existing: bytes, in_pyproject: bool) -> None:
    """init without `--engine-group` on a settings file that already holds a table: the one line that says what to do."""
    hint = (
        "; `init --engine-group GROUP` rewrites it while it is exactly what init wrote" if RECORDED.search(existing.decode("utf-8")) else ""
    )
    where = _where(settings_file, in_pyproject)
    raise AdoptError(
        f"{where}; edit it, or remove it to run init again{hint}"
        if in_pyproject
        else f"{where}; init writes a new settings file only{hint}"
    )


def rewritable(
    settings_file: Path, existing: bytes, previous: dict[str, Any], in_pyproject: bool, engine_group: str, cache_dir: Path | None = None
) -> Written:
    """Where the table init wrote lies in the settings file, when `init --engine-group` may rewrite it: it is byte for
    byte what init writes again now from the flags its first line records (nothing a reader could forge: a recorded
    line only makes init write its own table again), nothing else in the file adds to the table, and no golden was
    generated from it. Otherwise the one line that says what to do (AdoptError)."""
    text = existing.decode("utf-8")
    found = list(RECORDED.finditer(text))
    where = _where(settings_file, in_pyproject)
    by_hand = f'set engine_group = "{engine_group}" in it by hand, or remove it to run init again'
    if not found:
        raise AdoptError(f"{where} that init did not write (no line recording init's flags); {by_hand}")
    start, edit = found[0].start(), None
    inputs = recorded_inputs(found[0].group("flags"), settings_file.parent)
    if len(found) > 1:
        edit = "two lines record init's flags"
    elif inputs is None:
        edit = "its first line records flags init does not take"
    else:
        try:
            expected = plan(inputs, settings_file, cache_dir).text
        except AdoptError as error:
            expected, edit = "", f"its recorded flags no longer write a table: {one_line(str(error))}"
        if edit is None and text[start : start + len(expected)] != expected:
            edit = f"it is not byte for byte what `config-harness init{found[0].group('flags')}` writes now"
        elif edit is None and in_pyproject and tomllib.loads(expected).get("tool", {}).get("config-harness") != previous:
            edit = "the file adds keys to it outside the lines init wrote"
        elif edit is None and not in_pyproject and (start, len(expected)) != (0, len(text)):
            edit = "the file has lines init did not write"
    if edit is not None:
        raise AdoptError(f"{where}, edited since init wrote it ({edit}); {by_hand}")
    folder = previous.get("snapshot_dir", DEFAULT_SNAPSHOT_DIR)
    snapshots = settings_file.parent / folder if isinstance(folder, str) else None
    goldens = sorted(snapshots.rglob(f"{GOLDEN_PREFIX}*")) if snapshots is not None and snapshots.is_dir() else []
    if goldens:
        raise AdoptError(
            f"{snapshots}: holds {len(goldens)} golden(s) generated since init wrote the table in {settings_file}; "
            f'init rewrites it only before the first generate: set engine_group = "{engine_group}" in the table by hand and run '
            "`config-harness generate` (the old goldens are then orphans)"
        )
    return Written(start, start + len(expected), True)


def known_file_state(known_file: Path, rewriting: bool, engine_group: str | None) -> bool:
    """True when init writes the known file anew: it is absent, or it is init's own and nobody edited it. A known
    file init did not write is kept as it was; one edited since init wrote it stops a rewrite (AdoptError), since
    its entries name the old table's cases."""
    try:
        state = whole_file_by_init(read_text(known_file))
    except FileNotFoundError:
        return True
    except (OSError, UnicodeDecodeError, InputLimitError):
        state = None
    if state is False and rewriting:
        raise AdoptError(
            f"{known_file}: edited since init wrote it (the fingerprint on its first line no longer matches), "
            f'and its entries name the cases of the table init would rewrite; set engine_group = "{engine_group}" '
            "in the table by hand, then run `config-harness known` to record what the new cases already have"
        )
    return bool(state)


@dataclass(frozen=True)
class Writes:
    """The files one adoption writes, every refusal already passed: nothing is written until all of them hold."""

    settings_file: Path
    data: bytes  # the settings file's whole new content
    contracts_file: Path
    snapshot_dir: Path
    known_file: Path
    known_anew: bool  # a new known.yaml, filled by the shell once the settings exist


def planned_writes(planned: Plan, settings_file: Path, existing: bytes, replacing: Written | None, engine_group: str | None) -> Writes:
    """What `write` writes for a plan; raises AdoptError (nothing written) when the known file or the settings refuse."""
    known_file = planned.contracts_file.parent / KNOWN_NAME
    known_anew = known_file_state(known_file, replacing is not None, engine_group)
    data = _appended(existing, planned.text, settings_file, replacing)
    return Writes(settings_file, data, planned.contracts_file, planned.snapshot_dir, known_file, known_anew)


def write(writes: Writes) -> tuple[bool, bool]:
    """Write the settings, an empty contracts file and known file where none is, and the snapshot folder: (whether the
    contracts file was created, whether it is still the empty stub)."""
    contracts_created = not writes.contracts_file.exists()
    stub = contracts_created or _is_stub(writes.contracts_file)
    if contracts_created:
        write_atomic(writes.contracts_file, EMPTY_CONTRACTS)
    if writes.known_anew:  # filled by the shell once the settings exist (commands/init.py); a user's is never overwritten
        write_atomic(writes.known_file, known_text([]))
    writes.snapshot_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(writes.settings_file, writes.data)
    return contracts_created, stub
