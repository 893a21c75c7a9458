"""The finding vocabulary: kinds, severities and statuses as types, and the values a run produces."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from harness.diff import Change
from harness.matrix import Case


class Kind(StrEnum):
    """What a finding is about; JSON carries the value."""

    REMOVED = "removed"
    ADDED = "added"
    CHANGED = "changed"
    EFFECTIVE = "effective"  # written the same, resolves differently
    CONTRACT = "contract"
    CONTRACT_CHANGE = "contract_change"
    SETTINGS_CHANGE = "settings_change"  # a review: the pull request's settings differ from the base's
    HYDRA_CHANGE = "hydra_change"  # a review: a leaf of the composed `hydra:` subtree differs
    PARITY = "parity"
    FALLBACK = "fallback"
    MISSING_GOLDEN = "missing_golden"
    FORMAT = "format"  # the golden differs in text only
    HIDDEN_TEXT = "hidden_text"  # a key or value holds control, bidi or zero-width characters (shown escaped)
    ERROR = "error"
    TARGET = "target"  # what building a `_target_` node does with it (harness/targets.py)
    MOVED = "moved"  # a removed leaf or subtree whose value now sits under another path (`old`/`new` are paths)
    LAUNCH = "launch"  # a launch command in a script whose override no longer composes
    ENTRY_CHANGE = "entry_change"  # a review: an entry module's @hydra.main arguments or [commands.modules] entry differ
    LAUNCH_GONE = "launch_gone"  # a review: a launch that composed at the base is no longer in the pull request
    HYDRA_WARNING = "hydra_warning"  # a warning Hydra raised while composing, once per text, with the file it names


class Severity(StrEnum):
    """How loud a finding is: errors fail the run."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Origin(StrEnum):
    """In a review, whether a finding's error already held at the base."""

    INTRODUCED = "introduced"
    AT_BASE = "at_base"
    FIXED = "fixed"


class Status(StrEnum):
    """A case's status against its baseline."""

    OK = "ok"
    CHANGED = "changed"
    NEW = "new"  # no baseline for this case
    GONE = "gone"  # only the baseline has this case
    ERROR = "error"


class Mode(StrEnum):
    """What `diff OLD NEW` compares; JSON `mode` carries the value."""

    FILES = "files"  # two YAML files, or the same-named YAML files of two folders (`--files`), as they are
    GOLDENS = "goldens"  # the same-named goldens of two snapshot folders, as they are
    TREES = "trees"  # the cases of two config trees, each composed (the upgrade report)


@dataclass(frozen=True)
class Comparison:
    """The mode a `diff OLD NEW` runs in and the two things it compares, as the command line named them."""

    mode: Mode
    old: str
    new: str
    folders: bool = False  # two folders (else two files)

    @property
    def what(self) -> str:
        """What is compared, in words: `two YAML files`, `two snapshot folders` ..."""
        if self.mode == Mode.FILES:
            return "two folders file by file" if self.folders else "two YAML files"
        return "two snapshot folders" if self.mode == Mode.GOLDENS else "two config trees"

    @property
    def unit(self) -> str:
        """What one result of the run is: a file, a golden or a case."""
        return {Mode.FILES: "file", Mode.GOLDENS: "golden"}.get(self.mode, "case")


ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Kinds that only say "this differs from the baseline": the change under review, not a failure of a rule.
DIFFERENCE_KINDS = frozenset(
    {Kind.REMOVED, Kind.ADDED, Kind.CHANGED, Kind.EFFECTIVE, Kind.FORMAT, Kind.MISSING_GOLDEN, Kind.FALLBACK, Kind.MOVED}
)

# Kinds whose loosening a `changes:` record with a reason accepts (one mechanism; the review counts them).
RECORDED_KINDS = frozenset({Kind.CONTRACT_CHANGE, Kind.SETTINGS_CHANGE, Kind.HYDRA_CHANGE, Kind.ENTRY_CHANGE, Kind.LAUNCH_GONE})

# Said of a fallback the golden did not have: an error until the golden is rewritten with it.
NEW_FALLBACK = " (new: the golden did not fall back here)"

# Kinds that a rewritten golden settles.
GOLDEN_KINDS = frozenset({Kind.REMOVED, Kind.ADDED, Kind.CHANGED, Kind.EFFECTIVE, Kind.FORMAT, Kind.MISSING_GOLDEN, Kind.MOVED})

# Kinds whose path names a value in the composed config, so a file can be said to set it.
SOURCED_KINDS = frozenset({Kind.CHANGED, Kind.ADDED, Kind.EFFECTIVE, Kind.CONTRACT, Kind.PARITY, Kind.FALLBACK, Kind.TARGET})


def fails(finding: Finding) -> bool:
    """True for an error that fails a run: every error, except in a review one that already held at the base."""
    return finding.severity == ERROR and finding.origin != Origin.AT_BASE


@dataclass(frozen=True)
class Finding:
    """One thing the harness has to say about a case."""

    kind: str
    path: str
    old: Any = None
    new: Any = None
    severity: str = ERROR
    message: str = ""
    source: Any = None  # a provenance.Source: the file and line (or override) that sets the new value
    effective_same: bool = False  # a changed text whose resolved value did not change (a refactor)
    contract: str = ""  # the contract a contract finding comes from
    waiver: str = ""  # the waiver reason (and expiry) that turned a contract error into a warning
    detail: tuple[str, ...] = ()  # a changed list: one line per changed element or key inside it
    origin: str = ""  # a review: introduced, at_base (held at the base too: it fails nothing) or fixed
    facts: tuple[tuple[str, Any], ...] = ()  # a target finding's `detail` mapping (reason, default, source)
    via: str = ""  # "python default": the new value is the one the program takes from a class, not the YAML
    value: Any = None  # a moved finding: the value (or subtree) that moved
    fix: str | None = None  # a launch finding: the override to write instead, where one is known
    contract_source: str = ""  # FILE:LINE of the contract a contract finding comes from, where to fix or record it
    subtree: str = ""  # a removed or added leaf: the highest mapping the other side lacks, which reports fold by
    status: str = ""  # "known": a known entry (harness/known.py) excuses it; a contract waiver's is "waived"

    def as_dict(self) -> dict[str, Any]:
        """The finding as the JSON interface spells it; `detail`, `via`, `value`, `fix`, `contract_source`,
        `subtree` and `origin` only on the findings they apply to."""
        extra: dict[str, Any] = {"detail": list(self.detail)} if self.detail else {}
        if self.facts:
            extra = {"detail": dict(self.facts)}
        if self.via:
            extra["via"] = self.via
        if self.kind == Kind.MOVED:
            extra["value"] = self.value
        if self.kind == Kind.LAUNCH:
            extra["fix"] = self.fix
        if self.contract_source:
            extra["contract_source"] = self.contract_source
        if self.subtree:
            extra["subtree"] = self.subtree
        if self.origin:
            extra["origin"] = str(self.origin)
        if self.status or self.waiver:
            extra["status"] = self.status or "waived"
        return {
            "kind": str(self.kind),
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "severity": str(self.severity),
            "message": self.message,
            "source": None if self.source is None else str(self.source),
            **extra,
        }


@dataclass(frozen=True)
class CaseResult:
    """A case's status against its baseline and every finding about it."""

    case: Case
    golden: str
    status: str
    findings: tuple[Finding, ...] = ()
    written: bool = False
    golden_lines: dict[str, int] = field(default_factory=dict)  # finding path -> its line in the golden
    rendered: str | None = field(default=None, repr=False, compare=False)  # the golden text, for a shell that writes it
    root_file: str = ""  # the case's root config file in the tree under test, as shown (where an annotation can point)
    baseline_id: str = ""  # the baseline's case this was compared with (a route that `became` it, or the case itself)
    changes: tuple[Change, ...] = ()  # two documents: every leaf that differs, unfolded (JSON `changes`, the interface's)
    digest: str = field(default="", repr=False, compare=False)  # the composed config's golden body, hashed: same config, same digest

    @property
    def failed(self) -> bool:
        """True when any finding is an error that this change is responsible for (not one already at the base)."""
        return any(fails(f) for f in self.findings)

    def written_out(self) -> CaseResult:
        """This case after its golden was rewritten: the differences are gone, the rules' findings stay (a fallback
        stays as the notice a check of the new golden gives, no longer new to it)."""
        findings = tuple(
            replace(f, severity=INFO, message=f.message.removesuffix(NEW_FALLBACK)) if f.kind == Kind.FALLBACK else f
            for f in self.findings if f.kind not in GOLDEN_KINDS
        )
        status = Status.ERROR if any(f.severity == ERROR for f in findings) else Status.OK
        return replace(self, findings=findings, status=status, written=True)


@dataclass
class MatrixResult:
    """All case results of one run plus the orphan goldens."""

    cases: list[CaseResult] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    baseline: str = ""  # what the cases were compared with, said in every format
    findings: list[Finding] = field(default_factory=list)  # about the run as a whole (contract changes, stale waivers)
    rules: str = ""  # a review: which settings decided what was checked (the first line of every format)
    launches: str = ""  # how many launch commands were found, extracted, composed and failing (issue 24)
    approvals: str = ""  # a review: how many loosenings carry recorded reasons, and whose owners must approve them
    comparison: Comparison | None = None  # a `diff OLD NEW`: its mode, stated in every format

    @property
    def ok(self) -> bool:
        """No error finding and no orphan golden: the same rule as exit code 0."""
        return (
            not self.orphans
            and not any(result.failed for result in self.cases)
            and not any(fails(f) for f in self.findings)
        )


# A rule run on every freshly composed case: (case, config, plain tree) -> findings.
CaseChecker = Callable[[Case, Any, Any], list[Finding]]

# A rule that rereads a case's differences from its baseline: (findings, plain tree) -> findings
# (a dropped key a Python default fills becomes one `changed` finding; harness/targets.py).
Refiner = Callable[[list[Finding], Any], list[Finding]]
