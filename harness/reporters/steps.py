"""Every next step a report can print, in one table: when it applies, what it says and what doing it achieves.

`check`, a review (`diff --base`), the pytest plugin, the pre-commit hook and `generate` (what is left after it
wrote the goldens) print their `Next:` lines (JSON `next_steps`, markdown's "Next steps") from `STEPS` alone. A
step's words are the exact command to run (between backticks, with this run's own flags) or the file and line to
edit. tests/integration/test_next_steps.py and tests/e2e/test_next_steps_verl.py do what each row says on scratch
repositories (a small one with a failing test suite of its own, and verl's real tree) and assert it does what `does`
says; a row without a scenario there fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.gates import linear
from harness.model.findings import (
    DOES_NOT_COMPOSE,
    ERROR,
    GOLDEN_KINDS,
    KEY_REMOVED,
    RECORDED_KINDS,
    ContractRef,
    Kind,
    LaunchFix,
    MatrixResult,
)
from harness.model.grouping import Group, Tier
from harness.model.matrix import LAUNCH_PREFIX
from harness.reporters.base import NextSteps, ReportOptions
from harness.reporters.layout import count_of

SHOWN_PLACES = 3  # the lines a step names before it says how many more (the report above lists them all)


@dataclass(frozen=True)
class Facts:
    """What a step reads: the run's errors (groups; none already at the base), its result and how it is reported."""

    errors: tuple[Group, ...]
    result: MatrixResult
    review: bool
    steps: NextSteps
    base: str | None = None
    groups: tuple[Group, ...] = ()  # every group of the run, warnings and differences too

    def of(self, *kinds: Kind) -> list[Group]:
        """The errors of these kinds, in report order."""
        return [g for g in self.errors if g.kind in kinds]


@dataclass(frozen=True)
class NextStep:
    """One row of the table: its name (the tests' key), the words its line starts with and the lines it prints for a
    run (none when it does not apply). What doing the step achieves is what its scenario in
    tests/integration/test_next_steps.py asserts after doing it (the scenario's docstring says it)."""

    name: str
    lead: str
    says: Callable[[Facts], list[str]]


def _places(places: Sequence[str]) -> str:
    """`a.yaml:3`, `a.yaml:3, b.yaml:9 and 2 more`: the first few of a list the report above names in full."""
    shown = ", ".join(places[:SHOWN_PLACES])
    return shown + (f" and {len(places) - SHOWN_PLACES} more" if len(places) > SHOWN_PLACES else "")


def _breaks(groups: Sequence[Group]) -> str:
    """`2 cases and 153 launches`: what a set of causes breaks, counted by what each is."""
    cases = {case for g in groups for case in g.cases}
    launches = sum(case.startswith(LAUNCH_PREFIX) for case in cases)
    parts = [count_of(len(cases) - launches, "case", "cases")] if len(cases) > launches else []
    parts += [count_of(launches, "launch", "launches")] if launches else []
    return " and ".join(parts)


def _contract(facts: Facts) -> list[str]:
    contracts = dict.fromkeys(
        (ref.name, ref.source) for g in facts.of(Kind.CONTRACT) if (ref := g.finding.detail_as(ContractRef)) is not None and ref.name
    )
    return [
        f"contract {name} fails: fix the config, or change the contract at {where or 'its contracts file'} "
        "(a violation the tree already had: `config-harness known` records it, or add a waiver with a reason)"
        for name, where in contracts
    ]


def _recorded(group: Group) -> bool:
    """A loosening a `changes:` record accepts (a contract or settings change, ...), other than a known entry's."""
    return group.kind in RECORDED_KINDS and not _known_entry(group)


def _known_entry(group: Group) -> bool:
    return group.kind == Kind.CONTRACT_CHANGE and group.finding.message.startswith("known entry ")


def _record_reason(facts: Facts) -> list[str]:
    if not any(_recorded(g) for g in facts.errors):
        return []
    return [
        "a loosening has no recorded reason: add the `changes:` record its line above gives to a contracts file of "
        "the settings (not the known file), with your reason in place of WHY; the owners of that file approve it"
    ]


def _known_reason(facts: Facts) -> list[str]:
    if not any(_known_entry(g) for g in facts.errors):
        return []
    base = facts.base or "REF"
    return [
        "a known entry was added or renewed without a reason: "
        f"`config-harness known --base {base} --reason 'WHY'` writes the records (your reason in place of WHY) in a "
        "contracts file the base's owners own (the known file's own records approve nothing)"
    ]


def _config_broken(group: Group) -> bool:
    """A launch that fails because its config itself does not compose: the config is to fix, not the script."""
    launch = group.finding.detail_as(LaunchFix)
    return group.kind == Kind.LAUNCH and launch is not None and launch.reason == DOES_NOT_COMPOSE


def _compose(facts: Facts) -> list[str]:
    if not (facts.of(Kind.ERROR) or any(_config_broken(g) for g in facts.errors)):
        return []
    return ["a case cannot be composed: fix the config named in its error above"]


MISSING_KEY = linear.compile(r"(\S+) is not in the config\n?$")  # `\n?`: where `re`'s `$` stood too


def _unresolved(facts: Facts) -> list[str]:
    groups = facts.of(Kind.UNRESOLVED)
    if not groups:
        return []
    lines = [str(g.source) for g in groups if g.source is not None and getattr(g.source, "line", None)]
    keys = list(dict.fromkeys(m.group(1) for g in groups if (m := MISSING_KEY.search(g.message))))
    what = "an interpolation reads a key the config no longer has" + (f" ({_breaks(groups)})" if any(g.cases for g in groups) else "")
    read = (
        f"edit {_places(lines)}, the line{'s' * (len(lines) != 1)} that still read{'s' * (len(lines) == 1)} it"
        if lines
        else "edit the value named above"
    )
    restore = f"restore {_places(keys)}" if keys else "restore the key it reads"
    return [f"{what}: {read}, or {restore}"]


def _target(facts: Facts) -> list[str]:
    if not facts.of(Kind.TARGET):
        return []
    return [
        "the program cannot build a node from the config: fix the key in the file named above, or the class at "
        "its FILE:LINE (a node the program reads raw: a `contract: target` waiver with the reason)"
    ]


def _launch(facts: Facts) -> list[str]:
    if not [g for g in facts.of(Kind.LAUNCH) if not _config_broken(g)]:
        return []
    return ["a launch no longer composes: edit the script at the line named above (write its fix where one is given)"]


def _launch_keys_removed(facts: Facts) -> set[str]:
    """The keys launches set that the config no longer has although the baseline had them."""
    return {
        g.path for g in facts.of(Kind.LAUNCH) if (launch := g.finding.detail_as(LaunchFix)) is not None and launch.reason == KEY_REMOVED
    }


def _removed(facts: Facts) -> list[str]:
    """A removed key: in `check` an error until the golden is rewritten; in any run, the cause of a launch that sets
    it (the removal itself may be only a warning: a Python default gives the program the same value)."""
    launched = _launch_keys_removed(facts)
    errors = [] if facts.review else facts.of(Kind.REMOVED)
    groups = errors + [g for g in facts.groups if g.kind == Kind.REMOVED and g.path in launched and g not in errors]
    if not groups:
        return []
    traced = dict.fromkeys(f"{g.path} at {g.source}" for g in groups if g.source is not None and getattr(g.source, "line", None))
    also = "; the launches that set it compose again" if any(g.path in launched for g in groups) else ""
    if traced:
        return [f"a key was removed: if that was not intended, restore it where the golden says it was set ({_places(list(traced))}){also}"]
    return [f"a key was removed: if that was not intended, restore it (`config-harness diff --base HEAD` names the file that set it){also}"]


def _settled_by_goldens(facts: Facts) -> bool:
    return not facts.review and any(g.kind in GOLDEN_KINDS for g in facts.errors)


def _regenerate(facts: Facts) -> list[str]:
    steps = facts.steps
    if not _settled_by_goldens(facts) or steps.in_commit_hook:
        return []
    return [f"if these changes are intended: run `{steps.regenerate}` and commit {steps.goldens}"]


def _hook(facts: Facts) -> list[str]:
    steps = facts.steps
    if not _settled_by_goldens(facts) or not steps.in_commit_hook:
        return []
    return [f"pre-commit checks what is staged: run `{steps.regenerate}` if you have not, then `git add {steps.goldens}` and commit again"]


def _config_write(facts: Facts) -> list[str]:
    if facts.review or not facts.of(Kind.CONFIG_WRITE):
        return []
    steps = facts.steps
    return [
        f"the code's writes to the config differ from their record: if that is intended, run `{steps.generate}` "
        f"(it records them beside the goldens) and commit {steps.goldens}"
    ]


def _unverified(facts: Facts) -> list[str]:
    if not facts.review or not facts.of(Kind.UNVERIFIED):
        return []
    return [
        'changes not verified block (the base\'s `unverified = "block"`): make each readable (a config file a case '
        "selects, a write the reader follows), or compare it by hand and have the base's owners approve the pull request"
    ]


def _stale_golden(facts: Facts) -> list[str]:
    if not facts.review or not facts.of(Kind.STALE_GOLDEN):
        return []
    # The push to main runs `check` on these goldens: the review fails now rather than main after the merge.
    return [f"goldens to regenerate: run `{facts.steps.regenerate}` and commit {facts.steps.goldens} (the push to main checks them)"]


def _orphans(facts: Facts) -> list[str]:
    return [f"remove orphan goldens: `{facts.steps.generate} --prune`"] if facts.result.orphans else []


# THE table, most blocking first: every `Next:` line of every report comes from one of these rows.
STEPS: tuple[NextStep, ...] = (
    NextStep("contract", "contract ", _contract),
    NextStep("record_reason", "a loosening has no recorded reason", _record_reason),
    NextStep("known_reason", "a known entry was added or renewed", _known_reason),
    NextStep("compose", "a case cannot be composed", _compose),
    NextStep("unresolved", "an interpolation reads a key", _unresolved),
    NextStep("target", "the program cannot build a node", _target),
    NextStep("removed", "a key was removed", _removed),
    NextStep("launch", "a launch no longer composes", _launch),
    NextStep("regenerate", "if these changes are intended", _regenerate),
    NextStep("hook", "pre-commit checks what is staged", _hook),
    NextStep("config_write", "the code's writes to the config", _config_write),
    NextStep("unverified", "changes not verified block", _unverified),
    NextStep("stale_golden", "goldens to regenerate", _stale_golden),
    NextStep("orphans", "remove orphan goldens", _orphans),
)


def next_steps(groups: Sequence[Group], result: MatrixResult, options: ReportOptions) -> list[str]:
    """What to do about each kind of error in the run, most blocking first (the table's order); nothing when there is
    no error, or when the shell gave no `NextSteps` (a run that names no command of its own)."""
    if options.steps is None:
        return []
    errors = tuple(g for g in groups if g.severity == ERROR and g.tier != Tier.AT_BASE)
    if not (errors or result.orphans):
        return []
    facts = Facts(errors, result, options.review, options.steps, options.base, tuple(groups))
    return [line for step in STEPS for line in step.says(facts)]
