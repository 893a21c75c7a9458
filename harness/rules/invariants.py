"""Invariants of a runnable config, whatever the goldens say: every interpolation resolves as the program would
resolve it (`unresolved`), and every option a case selected when its golden was written still exists
(`option_gone`).

Both are computed on the fresh composition, never on a golden, so regenerating a golden never hides them (as
contracts). A review computes them at both sides and marks what the base already had.

Resolving as the program does: the program receives the job config (Hydra deletes its `hydra:` node before the
task runs), so `${hydra.x}` there fails and `${hydra:x}` reads Hydra's config, which Hydra completes at run time
(`hydra.runtime.*`, `hydra.job.*`). The `hydra:` subtree itself (`hydra.run.dir`, the log file) is resolved
against the whole config, as Hydra does when it starts. Host lookups (`oc.env`, `now`, ...) are never read: they
are values known only at run time. A resolver the program registers itself (OmegaConf has no such name here) is
read as unknown and counted, never guessed.

Speed: nearly every interpolation is a plain reference (`${a.b}`) or an `oc.select`, and those are checked by
looking the key up in the plain tree, without OmegaConf's grammar (about 1.5 ms a parse); anything else is
resolved by OmegaConf under the resolver policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import (
    GrammarParseError,
    InterpolationKeyError,
    MissingMandatoryValue,
    OmegaConfBaseException,
    UnsupportedInterpolationType,
)

from harness.composition.policy import HOST_RESOLVERS, resolution_policy
from harness.composition.resolve import MANDATORY, MISSING, long_chains, lookup, select_key
from harness.gates import linear
from harness.model.findings import ERROR, INFO, Finding, Kind
from harness.model.semantic_diff import join_path, split_path

# What Hydra fills in when the application starts (hydra.conf.RuntimeConf): present, values unknown here.
RUNTIME_KEYS = ("version", "version_base", "cwd", "config_sources", "output_dir", "choices")
AT_RUN_TIME = "(set by Hydra at run time)"

SLOW: Any = object()  # a text the fast reading does not cover: OmegaConf resolves it
PLAIN_KEY = linear.compile(r"\s*(\.*)([A-Za-z_][\w\-]*(?:\.[\w\-]+)*)\s*")
CALL = linear.compile(r"\s*([A-Za-z_][\w.]*)\s*:(.*)", linear.S)
# Resolvers whose first argument is a key that must exist (`oc.select` has a default: never unresolved).
KEY_RESOLVERS = frozenset({"oc.dict.keys", "oc.dict.values"})


def segments(text: str) -> list[str] | None:
    """The insides of the top-level `${...}` of a text (braces inside counted, `{}` arguments too); None when they
    do not balance."""
    found, index = [], 0
    while (start := text.find("${", index)) != -1:
        depth, at = 0, start + 1
        while at < len(text):
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            if depth == 0:
                break
            at += 1
        if depth:
            return None
        found.append(text[start + 2 : at])
        index = at + 1
    return found


def split_argument(arguments: str) -> tuple[str, str, str]:
    """The first argument of a resolver call, the comma, and the rest (a comma inside braces or brackets is not one)."""
    depth = 0
    for index, char in enumerate(arguments):
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            return arguments[:index].strip(), ",", arguments[index + 1 :].strip()
    return arguments.strip(), "", ""


@dataclass(frozen=True)
class Problem:
    """One interpolation leaf that does not resolve: the key that holds it, what it says, and why."""

    path: str
    written: str
    reason: str


@dataclass(frozen=True)
class Resolution:
    """What checking a case's interpolations found: the leaves that fail, and the resolvers read as unknown."""

    problems: tuple[Problem, ...] = ()
    unknown: tuple[tuple[str, str], ...] = ()  # (leaf path, resolver name) read through a resolver the program registers


def text_leaves(tree: Any, holding: str, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every string leaf of a plain tree that holds `holding`, list items included (`a.l.0`), with its path, in order."""
    pending: list[tuple[str, Any]] = [(prefix, tree)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            pending += [(join_path(path, key), item) for key, item in reversed(list(value.items()))]
        elif isinstance(value, list):
            pending += [(join_path(path, index), item) for index, item in reversed(list(enumerate(value)))]
        elif isinstance(value, str) and holding in value and path:
            yield path, value


def interpolations(tree: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every string holding `${` in a plain tree, list items included (`a.l.0`), with its path."""
    return text_leaves(tree, "${", prefix)


def absolute(path: str, dots: int, key: str) -> str:
    """The absolute key `${..key}` names from the leaf at `path` (one dot: the leaf's own node)."""
    if not dots:
        return key
    parents = split_path(path)[:-dots]
    return ".".join([*parents, key]) if parents else key


def with_runtime(hydra: Any) -> dict[str, Any]:
    """The `hydra:` subtree as Hydra completes it when the application starts: runtime and job values present."""
    full = dict(hydra) if isinstance(hydra, dict) else {}
    full["runtime"] = {key: AT_RUN_TIME for key in RUNTIME_KEYS}
    full.setdefault("overrides", {"hydra": [], "task": []})
    return full


class Resolver:
    """Checks the interpolations of one case: the job config (`tree`, `config`) and, when given, its `hydra:` subtree."""

    def __init__(self, config: DictConfig | None, tree: Any, hydra: Any = None, whole_hydra: bool = True) -> None:
        self.config, self.tree = config, tree
        self.hydra = with_runtime(hydra) if hydra is not None else None
        # False: `hydra` holds only what the config files write there, not Hydra's own keys: a `hydra.*` key is taken
        # as present (Hydra has most), and only what the job config must hold is checked.
        self.whole_hydra = whole_hydra
        self.whole = {"hydra": self.hydra} if self.hydra is not None else None
        self._written = ""  # the leaf being checked, as written
        self._built: dict[bool, DictConfig] = {}  # the configs the slow path resolves in, built once

    def run(self) -> Resolution:
        problems: list[Problem] = []
        unknown: list[tuple[str, str]] = []
        leaves = [(path, written, False) for path, written in interpolations(self.tree)]
        if self.hydra is not None:
            leaves += [(path, written, True) for path, written in interpolations(self.hydra, "hydra")]
        for path, written, in_hydra in leaves:
            self._written = written
            outcome = self._leaf(path, written, in_hydra)
            if isinstance(outcome, Problem):
                problems.append(outcome)
            elif outcome:
                unknown.append((path, outcome))
        # A key that exists can still never resolve: a cycle, or a chain longer than OmegaConf follows.
        texts = {path: text for path, text, in_hydra in leaves if not in_hydra}
        failing = {p.path for p in problems}
        for path in sorted(long_chains(texts) - failing):
            problems.append(Problem(path, texts[path], "a circular interpolation, or a chain too long to follow"))
        return Resolution(tuple(problems), tuple(unknown))

    def _exists(self, key: str, in_hydra: bool) -> bool:
        if key == "hydra" or key.startswith("hydra."):
            # The task's config has no `hydra:` node; Hydra's own subtree sees itself.
            if in_hydra and not self.whole_hydra:
                return True
            return in_hydra and self.whole is not None and lookup(self.whole, key) is not MISSING
        return lookup(self.tree, key) is not MISSING

    def _leaf(self, path: str, written: str, in_hydra: bool) -> Problem | str | None:
        """A Problem, the name of an unknown resolver the leaf reads, or None when it resolves."""
        if "\\${" in written:
            return self._slow(path, written, in_hydra)  # an escaped interpolation: OmegaConf's grammar decides
        outcome = self._text(path, written, in_hydra)
        return self._slow(path, written, in_hydra) if outcome is SLOW else outcome

    def _text(self, path: str, text: str, in_hydra: bool) -> Any:
        """What the `${...}` parts of a text come to: a Problem, an unknown resolver's name, None, or SLOW."""
        insides = segments(text)
        if insides is None:
            return SLOW
        unknown = None
        for inside in insides:
            outcome = self._inside(path, inside, in_hydra)
            if outcome is SLOW or isinstance(outcome, Problem):
                return outcome
            unknown = unknown or outcome
        return unknown

    def _inside(self, path: str, inside: str, in_hydra: bool) -> Any:
        """One `${...}` (its inside): a plain key, or a resolver call the harness knows how to read."""
        plain = PLAIN_KEY.fullmatch(inside)
        if plain is not None:
            key = absolute(path, len(plain.group(1)), plain.group(2))
            return None if self._exists(key, in_hydra) else self._problem(path, key, in_hydra)
        call = CALL.fullmatch(inside)
        if call is None:
            return SLOW
        name, arguments = call.group(1), call.group(2)
        if name == "oc.select":
            key_text, _, default = split_argument(arguments)
            bare = PLAIN_KEY.fullmatch(key_text)
            if bare is None or "${" in key_text:
                return SLOW
            if self._exists(absolute(path, len(bare.group(1)), bare.group(2)), in_hydra):
                return None
            # A missing key falls back to the default (a `fallback` finding says so); an interpolated default must resolve.
            return self._text(path, default, in_hydra) if "${" in default else None
        if name == "hydra":
            key = arguments.strip()
            if (
                self.whole_hydra
                and self.hydra is not None
                and lookup(self.hydra, key) is MISSING
                and not key.startswith("runtime.choices.")
            ):
                return Problem(path, self._written, f"hydra:{key} is not a value Hydra provides (no hydra.{key})")
            return None
        if name in HOST_RESOLVERS:
            return None  # read at run time (the environment, the clock): never read here
        if name in KEY_RESOLVERS:
            bare = PLAIN_KEY.fullmatch(arguments)
            if bare is None:
                return SLOW
            key = absolute(path, len(bare.group(1)), bare.group(2))
            return None if self._exists(key, in_hydra) else self._problem(path, key, in_hydra)
        if not OmegaConf.has_resolver(name):
            return name  # registered by the program when it runs: unknown, counted
        return SLOW

    def _problem(self, path: str, key: str, in_hydra: bool) -> Problem:
        return Problem(path, self._written, self._missing_reason(key, in_hydra))

    @staticmethod
    def _missing_reason(key: str, in_hydra: bool) -> str:
        if not in_hydra and (key == "hydra" or key.startswith("hydra.")):
            return f"{key} is not in the program's config (Hydra removes `hydra:` before the task runs; `${{hydra:{key[6:]}}}` reads it)"
        return f"{key} is not in the config"

    def _slow(self, path: str, written: str, in_hydra: bool) -> Problem | str | None:
        """OmegaConf's own resolution of one leaf, under the resolver policy (host lookups stay text)."""
        if not in_hydra and self.config is not None:
            config = self.config
        else:
            if in_hydra not in self._built:
                self._built[in_hydra] = OmegaConf.create({**self.tree, **({"hydra": self.hydra} if in_hydra else {})})
            config = self._built[in_hydra]
        with resolution_policy():
            try:
                OmegaConf.select(config, select_key(path), throw_on_missing=True)
            except MissingMandatoryValue:
                return None  # a `???` the command line must give: a contract's business, not a broken reference
            except UnsupportedInterpolationType as error:
                name = linear.compile(r"type '?([\w.]+)").search(str(error))
                return name.group(1) if name else "?"
            except (InterpolationKeyError, GrammarParseError, OmegaConfBaseException) as error:
                return Problem(path, written, " ".join(str(error).split("\n")[0].split()))
            except RecursionError:
                return Problem(path, written, "circular interpolation, or a chain too long to follow")
        return None


def resolution(config: DictConfig | None, tree: Any, hydra: Any = None, whole_hydra: bool = True) -> Resolution:
    """Every interpolation of a composed case checked as the program resolves it (see the module's docstring);
    `whole_hydra` False: `hydra` is only what the config files write under `hydra:`."""
    return Resolver(config, tree, hydra, whole_hydra).run()


def unresolved_findings(config: DictConfig | None, tree: Any, hydra: Any = None, whole_hydra: bool = True) -> list[Finding]:
    """One `unresolved` error per leaf the program cannot resolve (its written value `new`), and one info finding
    counting the leaves read through resolvers the program registers itself."""
    found = resolution(config, tree, hydra, whole_hydra)
    findings = problem_findings(found.problems)
    if found.unknown:
        names = sorted({name for _, name in found.unknown})
        findings.append(
            Finding(
                Kind.UNRESOLVED,
                "",
                None,
                len(found.unknown),
                INFO,
                f"{len(found.unknown)} value(s) read through resolvers the program registers ({', '.join(names)}): "
                "unknown until it runs, not checked",
            )
        )
    return findings


class LaunchInvariants:
    """The `unresolved` problems of launches, each base composition (a config and its group overrides) resolved once.

    A launch applies value overrides to its base. When its base resolves and every override writes a plain value
    (no `${` in it) where no mapping stands, or merges a mapping into one, every key the base has is still there
    and nothing new reads a key: the launch resolves as its base. Only a launch with another kind of override (a
    delete, an interpolation, a value over a mapping) is resolved on its own (its config read whole).
    """

    def __init__(self) -> None:
        self._bases: dict[bytes, tuple[Any, tuple[Problem, ...]]] = {}
        self._mandatory: dict[bytes, tuple[str, ...]] = {}  # each base's `???` leaves, found once

    def see_base(self, base_key: bytes, config: DictConfig) -> None:
        """Resolve a base (`config` before any value override) the first time it is met."""
        if base_key not in self._bases:
            tree = OmegaConf.to_container(config, resolve=False)
            self._bases[base_key] = (tree, resolution(config, tree).problems)

    def problems(self, base_key: bytes, config: DictConfig, overrides: Any) -> tuple[Problem, ...]:
        """The problems of a launch of a base `see_base` has seen, composed as `config` after `overrides` (Hydra's
        parsed value overrides)."""
        tree, problems = self._bases[base_key]
        if not overrides or (not problems and all(_keeps_keys(tree, parsed) for parsed in overrides)):
            return problems
        return resolution(config, OmegaConf.to_container(config, resolve=False)).problems

    def unset(self, base_key: bytes, config: DictConfig, overrides: Any, given: Any = ()) -> tuple[str, ...]:
        """The mandatory (`???`) keys a launch of a base `see_base` has seen leaves unset, composed as `config` after
        `overrides` (Hydra's parsed value overrides): every `???` leaf of its base, and every key an override sets to
        `???`, whose value is still `???`. `given`: keys the launch does give, with a value the harness cannot check
        (an unknown value the key's type refused, an override that failed and is named already): never said unset."""
        if base_key not in self._mandatory:
            self._mandatory[base_key] = tuple(mandatory_paths(self._bases[base_key][0]))
        keys = list(self._mandatory[base_key])
        for parsed in overrides:
            try:
                if not parsed.is_delete() and parsed.value() == MANDATORY:
                    keys.append(parsed.key_or_group)
            except Exception:  # an override Hydra reads in another way: not a `???` we can name
                continue
        given = tuple(given)
        return tuple(
            key
            for key in dict.fromkeys(keys)
            if not any(_same_or_nested(key, other) for other in given) and is_mandatory(config, key) and not switched_off(config, key)
        )


def mandatory_paths(tree: Any) -> Iterator[str]:
    """Every `???` leaf of a plain tree (list items included), with its path: a value the command line must give."""
    return (path for path, value in text_leaves(tree, MANDATORY) if value == MANDATORY)


def is_mandatory(config: DictConfig, path: str) -> bool:
    """True when the value at `path` of a composed config is `???` (OmegaConf's missing value): reading it stops the
    program. A key the config does not have, or a value that fails for another reason, is not."""
    with resolution_policy():
        try:
            OmegaConf.select(config, select_key(path), throw_on_missing=True)
        except MissingMandatoryValue:
            return True
        except Exception:  # not this check's business: `unresolved` names a broken interpolation
            return False
    return False


# The switches a node is turned off by (`reward_model: {enable: false, rollout: {name: ???}}`): a program reads nothing
# below a node it does not use.
SWITCHES = ("enable", "enabled")


def switched_off(config: DictConfig, path: str) -> bool:
    """True when a node above `path` is switched off in `config` (its `enable` or `enabled` is false): the program does
    not read the value (verl's `reward.reward_model.rollout.name: ???` under `reward_model.enable: false`). A launch
    that turns the node on (`reward.reward_model.enable=true`) and leaves the value unset is judged."""
    nodes, node = [], ""
    for part in split_path(path)[:-1]:
        node = join_path(node, part)
        nodes.append(node)
    with resolution_policy():
        for node in reversed(nodes):
            for switch in SWITCHES:
                try:
                    value = OmegaConf.select(config, select_key(join_path(node, switch)), default=None)
                except Exception:  # a switch that does not resolve: not known to be off
                    continue
                if value is False:
                    return True
    return False


def _same_or_nested(key: str, other: str) -> bool:
    return key == other or key.startswith(other + ".") or other.startswith(key + ".")


def _keeps_keys(tree: Any, parsed: Any) -> bool:
    """True when a parsed value override keeps every key of `tree` and reads none: a plain value written where no
    mapping stands, or a mapping merged into a mapping."""
    try:
        if parsed.is_delete() or parsed.package is not None:
            return False
        value = parsed.value()
    except Exception:  # an override Hydra reads in another way: resolve the launch on its own
        return False
    if "${" in repr(value):
        return False
    current = lookup(tree, parsed.key_or_group)
    return not isinstance(current, dict) or isinstance(value, dict)


def problem_findings(problems: tuple[Problem, ...]) -> list[Finding]:
    """One `unresolved` error per problem (the written value is `new`)."""
    return [
        Finding(Kind.UNRESOLVED, p.path, None, p.written, ERROR, f"{p.path} cannot be resolved: {p.written}: {p.reason}") for p in problems
    ]
