"""The finding vocabulary: kinds, severities and statuses as types, and the values a run produces."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from harness.matrix import Case


class Kind(StrEnum):
    """What a finding is about; JSON carries the value."""

    REMOVED = "removed"
    ADDED = "added"
    CHANGED = "changed"
    EFFECTIVE = "effective"  # written the same, resolves differently
    CONTRACT = "contract"
    CONTRACT_CHANGE = "contract_change"
    PARITY = "parity"
    FALLBACK = "fallback"
    MISSING_GOLDEN = "missing_golden"
    FORMAT = "format"  # the golden differs in text only
    HIDDEN_TEXT = "hidden_text"  # a key or value holds control, bidi or zero-width characters (shown escaped)
    ERROR = "error"


class Severity(StrEnum):
    """How loud a finding is: errors fail the run."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Status(StrEnum):
    """A case's status against its baseline."""

    OK = "ok"
    CHANGED = "changed"
    NEW = "new"  # no baseline for this case
    GONE = "gone"  # only the baseline has this case
    ERROR = "error"


ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Kinds that only say "this differs from the baseline": the change under review, not a failure of a rule.
DIFFERENCE_KINDS = frozenset({Kind.REMOVED, Kind.ADDED, Kind.CHANGED, Kind.EFFECTIVE, Kind.FORMAT, Kind.MISSING_GOLDEN, Kind.FALLBACK})

# Kinds that a rewritten golden settles.
GOLDEN_KINDS = frozenset({Kind.REMOVED, Kind.ADDED, Kind.CHANGED, Kind.EFFECTIVE, Kind.FORMAT, Kind.MISSING_GOLDEN})

# Kinds whose path names a value in the composed config, so a file can be said to set it.
SOURCED_KINDS = frozenset({Kind.CHANGED, Kind.ADDED, Kind.EFFECTIVE, Kind.CONTRACT, Kind.PARITY, Kind.FALLBACK})


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

    def as_dict(self) -> dict[str, Any]:
        """The finding as the JSON interface spells it (`detail` only on a list that changed)."""
        detail = {"detail": list(self.detail)} if self.detail else {}
        return {
            "kind": str(self.kind),
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "severity": str(self.severity),
            "message": self.message,
            "source": None if self.source is None else str(self.source),
            **detail,
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
    baseline_id: str = ""  # the baseline's case this was compared with (a route that `became` it, or the case itself)

    @property
    def failed(self) -> bool:
        """True when any finding is an error."""
        return any(f.severity == ERROR for f in self.findings)

    def written_out(self) -> CaseResult:
        """This case after its golden was rewritten: the differences are gone, the rules' findings stay."""
        findings = tuple(f for f in self.findings if f.kind not in GOLDEN_KINDS)
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

    @property
    def ok(self) -> bool:
        """No error finding and no orphan golden: the same rule as exit code 0."""
        return (
            not self.orphans
            and not any(result.failed for result in self.cases)
            and not any(f.severity == ERROR for f in self.findings)
        )


# A rule run on every freshly composed case: (case, config, plain tree) -> findings.
CaseChecker = Callable[[Case, Any, Any], list[Finding]]
