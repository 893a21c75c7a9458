"""The finding vocabulary: kinds, severities and statuses as types, and the values a run produces."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

from harness.model.matrix import Case
from harness.model.semantic_diff import Change


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
    TARGET = "target"  # what building a `_target_` node does with it (harness/runner/targets.py)
    MOVED = "moved"  # a removed leaf or subtree whose value now sits under another path (`old`/`new` are paths)
    LAUNCH = "launch"  # a launch command in a script whose override no longer composes
    ENTRY_CHANGE = "entry_change"  # a review: an entry module's @hydra.main arguments or [commands.modules] entry differ
    LAUNCH_GONE = "launch_gone"  # a review: a launch that composed at the base is no longer in the pull request
    NEW_LAUNCH = "new_launch"  # a review: a launch the base does not have (info), named once with its script line and config
    HYDRA_WARNING = "hydra_warning"  # a warning Hydra raised while composing, once per text, with the file it names
    UNRESOLVED = "unresolved"  # an interpolation the program cannot resolve (harness/rules/invariants.py)
    OPTION_GONE = "option_gone"  # an option the case selected when its golden was written no longer exists
    CONFIG_WRITE = "config_write"  # a review: code in python_sources writes the config after composition (harness/runner/config_writes.py)
    CONFIG_READ = "config_read"  # code in python_sources reads a key the composed config lacks (harness/runner/config_writes.py)
    STALE_GOLDEN = "stale_golden"  # a review: the pull request's own golden of a case is not what its tree composes
    UNVERIFIED = "unverified"  # a review: a changed file (or line) the review cannot compare (harness/runner/unverified.py)
    ORDER = "order"  # a review: the entries of a collection of `_target_` nodes (callbacks) come in another order


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
    {Kind.REMOVED, Kind.ADDED, Kind.CHANGED, Kind.EFFECTIVE, Kind.FORMAT, Kind.MISSING_GOLDEN, Kind.FALLBACK, Kind.MOVED, Kind.ORDER}
)

# Kinds whose loosening a `changes:` record with a reason accepts (one mechanism; the review counts them).
RECORDED_KINDS = frozenset({Kind.CONTRACT_CHANGE, Kind.SETTINGS_CHANGE, Kind.HYDRA_CHANGE, Kind.ENTRY_CHANGE, Kind.LAUNCH_GONE})

# Said of a fallback the golden did not have: an error until the golden is rewritten with it.
NEW_FALLBACK = " (new: the golden did not fall back here)"

# Kinds that a rewritten golden settles.
GOLDEN_KINDS = frozenset({Kind.REMOVED, Kind.ADDED, Kind.CHANGED, Kind.EFFECTIVE, Kind.FORMAT, Kind.MISSING_GOLDEN, Kind.MOVED})

# Kinds whose path names a value in the composed config, so a file can be said to set it.
SOURCED_KINDS = frozenset(
    {Kind.CHANGED, Kind.ADDED, Kind.EFFECTIVE, Kind.CONTRACT, Kind.PARITY, Kind.FALLBACK, Kind.TARGET, Kind.UNRESOLVED}
)


class Judged(StrEnum):
    """What a run judges a finding for, which decides whether it blocks: `check` (and pytest and the pre-commit
    hook, which run it), `generate` (the goldens are written afterwards), a review (`diff --base`)."""

    CHECK = "check"
    GENERATE = "generate"
    REVIEW = "review"


@dataclass(frozen=True)
class Verdict:
    """One row of the verdict table: how loud a kind is when nothing excuses it, and in which runs it blocks.

    `golden`: a rewritten golden settles it, so a report counts it as a golden to regenerate (one line for the run,
    never one error per finding) and `generate` never blocks on it. A finding blocks only when it is an error,
    unexcused (no waiver, no known entry) and, in a review, introduced by the change (not already at the base).
    """

    severity: Severity
    blocks: frozenset[Judged]
    golden: bool = False


EVERY_RUN = frozenset(Judged)
CHECKED = frozenset({Judged.CHECK, Judged.REVIEW})  # a golden difference: check's; in a review it is news (info)

# THE verdict table: every kind's severity and the runs it blocks, read by `check`, `diff --base`, `generate`, pytest,
# the pre-commit hook and every format through `blocks` and `regenerates`. A branch that adds a kind adds its row here
# (tests/unit/reporters/test_reporters_verdict.py fails for a kind without one).
VERDICTS: MappingProxyType[Kind, Verdict] = MappingProxyType(
    {
        Kind.REMOVED: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.ADDED: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.CHANGED: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.EFFECTIVE: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.FORMAT: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.MISSING_GOLDEN: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.MOVED: Verdict(ERROR, frozenset({Judged.CHECK}), golden=True),
        Kind.FALLBACK: Verdict(ERROR, EVERY_RUN),  # a new fallback; a known one is info (it fails nothing)
        Kind.CONTRACT: Verdict(ERROR, EVERY_RUN),
        Kind.CONTRACT_CHANGE: Verdict(ERROR, CHECKED),  # unless a `changes:` record gives the reason
        Kind.SETTINGS_CHANGE: Verdict(ERROR, CHECKED),
        Kind.HYDRA_CHANGE: Verdict(ERROR, CHECKED),
        Kind.ENTRY_CHANGE: Verdict(ERROR, CHECKED),
        Kind.LAUNCH_GONE: Verdict(ERROR, CHECKED),
        Kind.PARITY: Verdict(ERROR, EVERY_RUN),
        Kind.HIDDEN_TEXT: Verdict(ERROR, EVERY_RUN),
        Kind.ERROR: Verdict(ERROR, EVERY_RUN),
        Kind.TARGET: Verdict(ERROR, EVERY_RUN),
        Kind.LAUNCH: Verdict(ERROR, EVERY_RUN),
        Kind.HYDRA_WARNING: Verdict(WARNING, EVERY_RUN),
        # A config the program cannot run: computed on the fresh composition, so regenerating never settles it.
        Kind.UNRESOLVED: Verdict(ERROR, EVERY_RUN),
        Kind.OPTION_GONE: Verdict(ERROR, EVERY_RUN),
        Kind.NEW_LAUNCH: Verdict(INFO, frozenset()),  # named once in a review, never a failure
        # Check: a write the committed record lacks (generate rewrites the record, so it never blocks there); a
        # review names writes added, removed or changed as warnings.
        Kind.CONFIG_WRITE: Verdict(ERROR, frozenset({Judged.CHECK})),
        # The program stops at the reading line. Judged against the baseline's tree (the golden had the key), so
        # `generate`, which accepts the key as gone, does not block on it; a review, against the base's, does.
        Kind.CONFIG_READ: Verdict(ERROR, CHECKED),
        # A review: `check` on the merged head would fail on this golden (stale, missing or hand-edited); the pull
        # request settles it by running `generate`, so it is counted with the goldens to regenerate.
        Kind.STALE_GOLDEN: Verdict(ERROR, CHECKED, golden=True),
        # A review: a change the readers cannot compare, named with its line; a warning, an error (it blocks) where
        # the base's settings say `unverified = "block"`.
        Kind.UNVERIFIED: Verdict(WARNING, CHECKED),
        # A review or a tree diff, both sides composed (a golden keeps sorted keys, so `check` never has one): news
        # (info) there, like any difference.
        Kind.ORDER: Verdict(ERROR, frozenset({Judged.CHECK})),
        # A kind a branch adds gets its row here, one line (tests/unit/reporters/test_reporters_verdict.py fails for a kind without one).
    }
)


def excused(finding: Finding) -> bool:
    """A finding that holds but fails nothing: waived, known, or in a review already at the base (or fixed)."""
    return finding.status is not None or bool(finding.waiver) or finding.origin in (Origin.AT_BASE, Origin.FIXED)


def blocks(finding: Finding, judged: Judged = Judged.CHECK) -> bool:
    """True for a finding that fails a run judged as `judged`: an unexcused error of a kind that blocks there."""
    verdict = VERDICTS.get(finding.kind)
    return finding.severity == ERROR and not excused(finding) and (verdict is None or judged in verdict.blocks)


def regenerates(finding: Finding) -> bool:
    """True for a blocking difference that a rewritten golden settles (check counts its case as a golden to regenerate)."""
    verdict = VERDICTS.get(finding.kind)
    return verdict is not None and verdict.golden and finding.severity == ERROR and not excused(finding)


def fails(finding: Finding) -> bool:
    """True for a finding that fails the run it was made in: `blocks` as check judges it, which is every run's
    verdict because a review makes its differences info and a written golden drops what it settles
    (`CaseResult.written_out`)."""
    return blocks(finding)


class Excused(StrEnum):
    """Why an error or warning fails nothing although it holds: JSON `status` carries the value."""

    WAIVED = "waived"  # a contract's (or `contract: target`) waiver turned it into a warning
    KNOWN = "known"  # a known entry (harness/rules/known_entries.py) excuses it: info


class TargetReason(StrEnum):
    """Why a target finding was made (harness/runner/targets.py); JSON carries it as `detail.reason`."""

    MISSING_CLASS = "missing_class"
    UNDECLARED = "undeclared"
    REQUIRED = "required"
    DEFAULTED = "defaulted"
    BUILT_BY_PROGRAM = "built_by_program"  # info: code removes the key, or builds the node itself (harness/readers/builders.py)


class _NoDefault(Enum):
    # A member, not an object(): findings travel from forked workers pickled, and a member unpickles as itself.
    NO_DEFAULT = "no default"


NO_DEFAULT: Any = _NoDefault.NO_DEFAULT  # target facts without a Python default (a default may be None)


@dataclass(frozen=True)
class Difference:
    """A removed, added or changed leaf, or a parity difference: how it reads beyond its old and new value."""

    lines: tuple[str, ...] = ()  # a changed list: one line per changed element or key inside it (JSON `detail`)
    subtree: str = ""  # a removed or added leaf: the highest mapping the other side lacks, which reports fold by
    effective_same: bool = False  # a changed text whose resolved value did not change (a refactor)
    agrees: PythonDefault | None = None  # the YAML value now equals its class's Python default

    def json_fields(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"detail": list(self.lines)} if self.lines else {}
        if self.agrees is not None:
            extra["detail"] = {"python_default": self.agrees.value, "python_source": self.agrees.source}
        return {**extra, "subtree": self.subtree} if self.subtree else extra


@dataclass(frozen=True)
class PythonDefault:
    """A field's Python default as its class declares it, and where (FILE:LINE)."""

    value: Any
    source: str


@dataclass(frozen=True)
class TargetFacts:
    """What building a `_target_` node does with one key (a target finding's JSON `detail`)."""

    reason: TargetReason
    target: str = ""  # missing_class: the `_target_` no Python source defines
    owner: str = ""  # the class (or function) whose field it is: JSON `class`
    source: str = ""  # FILE:LINE of the class, or of the field's default
    default: Any = NO_DEFAULT  # defaulted: the value the program takes

    def json_fields(self) -> dict[str, Any]:
        return {"detail": self.as_dict()}

    def as_dict(self) -> dict[str, Any]:
        """The facts as JSON `detail` spells them, in the order each reason has always written them."""
        if self.reason == TargetReason.MISSING_CLASS:
            return {"reason": str(self.reason), "target": self.target}
        if self.default is not NO_DEFAULT:
            return {"reason": str(self.reason), "default": self.default, "source": self.source, "class": self.owner}
        return {"reason": str(self.reason), "class": self.owner, "source": self.source}


VIA_PYTHON_DEFAULT = "python default"


@dataclass(frozen=True)
class ViaDefault:
    """A changed value that the program takes from a class's Python default, not from the YAML (JSON `via`)."""

    facts: TargetFacts  # the `defaulted` facts: the class, where its default is written, the value

    def json_fields(self) -> dict[str, Any]:
        return {"detail": self.facts.as_dict(), "via": VIA_PYTHON_DEFAULT}


@dataclass(frozen=True)
class Moved:
    """A moved leaf or subtree (`old` and `new` are its paths): the value, or subtree, that moved."""

    value: Any
    # The subtree of the case's first removed finding, which moves.fold_moves has always copied onto every move it
    # makes (JSON `subtree`); it says nothing about this move, and is kept only so that answers stay the same.
    subtree: str = ""

    def json_fields(self) -> dict[str, Any]:
        return {"value": self.value, **({"subtree": self.subtree} if self.subtree else {})}


# A launch's reason word when the config it names does not compose at all (no override of the script is to blame).
DOES_NOT_COMPOSE = "does not compose"
KEY_REMOVED = "key removed"  # a launch's reason word: the baseline had the key its override sets (the golden, or the base's launch)


@dataclass(frozen=True)
class LaunchFix:
    """A launch finding's cause word (`key removed`) and the override to write instead, where one is known; and which
    launch it is by content, never by where it sits: the config name it composes (`config`) and a digest of what it runs
    (`launch`: its program, config name and overrides' keys). A known entry and a review's `at_base` name a
    launch by these, so a line shift, a moved script or a renamed case keeps them. Two findings with the same cause
    and fix are equal whichever launch they are on."""

    reason: str
    fix: str | None = None
    config: str = field(default="", compare=False)
    launch: str = field(default="", compare=False)

    def json_fields(self) -> dict[str, Any]:
        return {"detail": [self.reason], "fix": self.fix}


@dataclass(frozen=True)
class ContractRef:
    """The contract a finding comes from: its name, and FILE:LINE of it, where to fix or record it."""

    name: str = ""
    source: str = ""
    # The code that writes the value the contract breaks (`app.main.main`): the finding's source is the writing line,
    # never the config file that set the key before it (harness/runner/config_writes.py `written_contract_check`).
    written_by: str = ""

    def json_fields(self) -> dict[str, Any]:
        fields = {"contract_source": self.source} if self.source else {}
        return fields | ({"written_by": self.written_by} if self.written_by else {})


@dataclass(frozen=True)
class ContractHygiene:
    """A warning about a contracts file itself: the contract (or waiver's contract) it is about, and whether the
    contract checks nothing at all (in a review, how a pull request can switch one off: an error)."""

    contract: str
    checks_nothing: bool = False

    def json_fields(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class NotComposed:
    """A root or preset `init` left out because it does not compose, composed again by every whole run because a
    known entry names it (harness/rules/known_entries.py): `what` is `root` or `preset`."""

    what: str

    def json_fields(self) -> dict[str, Any]:
        return {"detail": [self.what]}


@dataclass(frozen=True)
class Replaced:
    """One value the composed config holds where a config write lands, before the code writes it (as the goldens of
    the cases hold it, unresolved), and the cases that hold it; `present` False for a key the YAML lacks."""

    value: Any
    present: bool
    cases: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "present": self.present, "cases": list(self.cases)}


@dataclass(frozen=True)
class WriteFacts:
    """A config write of an entry point (kind `config_write`): the config name its `@hydra.main` composes, and the
    values the YAML gives the key it writes in the cases of that config (JSON `replaces`): what the write changes
    from. Empty when the key or the config is not known statically, or no case of it has a golden."""

    config: str = ""
    replaces: tuple[Replaced, ...] = field(default=(), compare=False)
    # What `old` and `new` hold: a written `value`, the `code` that computes it, a key `deleted`, or "" (no write).
    old_form: str = ""
    new_form: str = ""

    def json_fields(self) -> dict[str, Any]:
        return {"replaces": [r.as_dict() for r in self.replaces]} if self.replaces else {}


# What a finding says beyond its core, one value per kind (a changed value: a Difference or a ViaDefault; a contract
# finding: a ContractRef, or ContractHygiene about the file). Each writes its own JSON fields (`json_fields`), which
# follow the core's in the finding's JSON.
Detail = Difference | ViaDefault | TargetFacts | Moved | LaunchFix | ContractRef | ContractHygiene | NotComposed | WriteFacts


@dataclass(frozen=True)
class Finding:
    """One thing the harness has to say about a case: the core every kind has, and its kind's `detail`."""

    kind: Kind
    path: str
    old: Any = None
    new: Any = None
    severity: Severity = ERROR
    message: str = ""
    source: Any = None  # a provenance.Source: the file and line (or override) that sets the new value
    origin: Origin | None = None  # a review: introduced, at_base (held at the base too: it fails nothing) or fixed
    status: Excused | None = None  # waived or known: it fails nothing
    waiver: str = ""  # the reason (and expiry) of the waiver or known entry that excuses it
    detail: Detail | None = None

    def detail_as(self, of: type[D]) -> D | None:
        """The finding's detail when it is an `of`, else None."""
        return self.detail if isinstance(self.detail, of) else None

    @property
    def contract(self) -> str:
        """The contract a contract (or contract change) finding comes from; "" for any other."""
        ref = self.detail_as(ContractRef)
        return ref.name if ref is not None else ""

    @property
    def effective_same(self) -> bool:
        """True for a changed text whose resolved value did not change (a refactor)."""
        difference = self.detail_as(Difference)
        return difference is not None and difference.effective_same

    def as_dict(self) -> dict[str, Any]:
        """The finding as the JSON interface spells it; its detail's fields (`detail`, `via`, `value`, `fix`,
        `contract_source`, `subtree`), `origin` and `status` only on the findings they apply to."""
        extra = self.detail.json_fields() if self.detail is not None else {}
        if self.origin:
            extra["origin"] = str(self.origin)
        if self.status:
            extra["status"] = str(self.status)
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


D = TypeVar("D", Difference, ViaDefault, TargetFacts, Moved, LaunchFix, ContractRef, ContractHygiene, NotComposed, WriteFacts)


@dataclass(frozen=True)
class CaseResult:
    """A case's status against its baseline and every finding about it."""

    case: Case
    golden: str
    status: Status
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
            for f in self.findings
            if f.kind not in GOLDEN_KINDS
        )
        status = Status.ERROR if any(f.severity == ERROR for f in findings) else Status.OK
        return replace(self, findings=findings, status=status, written=True)


@dataclass(frozen=True)
class RulesUsed:
    """A review: which settings decided what was checked (every format says it first)."""

    file: str  # the settings file's name
    ref: str  # the base's git ref
    first_adoption: bool  # the base has no settings: this change's apply


@dataclass(frozen=True)
class Approvals:
    """A review: how many loosenings carry a recorded reason, and the files whose owners must approve them."""

    recorded: int
    files: tuple[str, ...]


@dataclass(frozen=True)
class LaunchTally:
    """How many launches were found, extracted, composed and failing (issue 24)."""

    found: int
    extracted: int
    composed: int
    failing: int
    unavailable: tuple[tuple[str, int], ...] = ()  # (submodule, launches of its programs) for each absent submodule
    # Of those found, the readings of a launch under an environment its script tests (`only when ...`, issue 51)
    environments: int = 0


@dataclass(frozen=True)
class MatrixResult:
    """All case results of one run plus the orphan goldens, and what the run as a whole found."""

    cases: tuple[CaseResult, ...] = ()
    orphans: tuple[str, ...] = ()
    pruned: tuple[str, ...] = ()
    baseline: str = ""  # what the cases were compared with, said in every format
    findings: tuple[Finding, ...] = ()  # about the run as a whole (contract changes, stale waivers)
    rules: RulesUsed | None = None  # a review: which settings decided what was checked
    launches: LaunchTally | None = None  # the settings' launch commands, counted
    approvals: Approvals | None = None  # a review: the loosenings with recorded reasons, and who approves them
    comparison: Comparison | None = None  # a `diff OLD NEW`: its mode, stated in every format
    # A review: every file the pull request changes, as (file, verdict, reason, line): compared, not relevant or not
    # verified (JSON `changed_files`; the not-verified ones are also `unverified` findings)
    accounted: tuple[tuple[str, str, str, int | None], ...] = ()

    @property
    def ok(self) -> bool:
        """No error finding and no orphan golden: the same rule as exit code 0."""
        return not self.orphans and not any(result.failed for result in self.cases) and not any(fails(f) for f in self.findings)


# A rule run on every freshly composed case: (case, config, plain tree) -> findings.
CaseChecker = Callable[[Case, Any, Any], list[Finding]]

# A rule that rereads a case's differences from its baseline: (findings, plain tree) -> findings
# (a dropped key a Python default fills becomes one `changed` finding; harness/runner/targets.py).
Refiner = Callable[[list[Finding], Any], list[Finding]]
