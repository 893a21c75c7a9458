"""`config-harness init`: discover a repository's matrix and write its settings, contracts and snapshot folder."""

from __future__ import annotations

import ast
import hashlib
import os
import shlex
import tomllib
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from harness.composition.compose import ComposeError, HydraSession
from harness.gates import linear
from harness.gates.budget import BudgetExceeded, python_tree, toml_document
from harness.gates.confine import ENV_READ
from harness.gates.reader import InputLimitError, read_bytes, read_text
from harness.gates.writer import write_atomic
from harness.model.hints import first_sentence
from harness.model.matrix import GOLDEN_PREFIX, build_cases, group_override
from harness.model.settings import TABLE, VERSION_BASES, SettingsError, check_name, check_root, parse_settings, root_id
from harness.readers.pysource import literal
from harness.rules.known_entries import render as known_text
from harness.runner.config_trees import other_trees_note
from harness.runner.hydra_starts import (
    NO_START,
    SKIPPED_FOLDERS,
    AdoptError,
    ConfigFolder,
    EntryGuess,
    composed_folders,
    config_folders,
    find_config_dir,
    hydra_mains,
    is_hydra_main_call,
    is_within,
    python_files,
    read_entry_points,
    repository_package,
    shown_relative,
    walked_into,
)
from harness.runner.root_kinds import fragments, required_group

DEFAULT_SNAPSHOT_DIR = "config-harness/snapshots"
DEFAULT_CONTRACTS = "config-harness/contracts.yaml"
KNOWN_NAME = "known.yaml"  # beside the contracts file: the findings the repository already has (harness/rules/known_entries.py)

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


@dataclass(frozen=True)
class LeftOut:
    """A root config or engine that init did not put in the matrix, and why."""

    name: str
    reason: str
    overrides: tuple[str, ...] = ()  # a preset's, so its known entry can compose it again


@dataclass(frozen=True)
class Discovery:
    """What a config folder offers: roots (with the engine group), routes (without it), and what was left out."""

    roots: tuple[str, ...]
    routes: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    all_engines: tuple[str, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    left_out_engines: tuple[LeftOut, ...] = ()
    same_as: tuple[tuple[str, str], ...] = ()  # (route, case id) for roots that are another root plus an engine
    candidates: tuple[GroupEvidence, ...] = ()  # without --engine-group: the groups that may be the engine, likeliest first
    chosen: GroupEvidence | None = None  # the one init took itself (decisive evidence); None: it asks
    dropped_presets: tuple[LeftOut, ...] = ()  # presets that do not compose with the engine group


@dataclass(frozen=True)
class Guess:
    """What init found out about the repository before composing, and from where (said in one line each)."""

    version_base: str | None = None
    version_base_reason: str = NO_START
    roots_glob: tuple[str, ...] = ("*.yaml",)
    presets: tuple[tuple[str, tuple[str, ...]], ...] = (("default", ()),)
    search_path: tuple[Path, ...] = ()
    verbose: bool = False


@dataclass(frozen=True)
class Adoption:
    """The result of init: the files it wrote and what it found."""

    settings_file: Path
    table: dict[str, Any]
    discovery: Discovery
    contracts_file: Path
    contracts_created: bool
    snapshot_dir: Path
    notes: tuple[str, ...] = field(default=())
    guess: Guess = field(default_factory=Guess)
    known_created: bool = False  # the known file is new (empty): init records what already holds in it
    nested_reason: str | None = None  # why an engine group's nested options became presets
    rewritten: str | None = None  # the table replaced (init wrote it, nobody edited it): what it had, in a few words
    contracts_stub: bool = False  # the contracts file is init's empty stub, as it wrote it
    found_by: ConfigFolder | None = None  # without --config-dir: the folder the entry points name, and which they are


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _reason(error: BaseException, verbose: bool) -> str:
    return _one_line(str(error)) if verbose else first_sentence(str(error))


def _selects_group(session: HydraSession, config_name: str, group: str, overrides: Sequence[str] = ()) -> bool:
    """True when the config's defaults list picks an option of `group` (so `group=option` can replace it)."""
    return any(entry.config_path.startswith(f"{group}/") for entry in session.defaults_entries(config_name, list(overrides)))


def candidate_roots(config_dir: Path, globs: Sequence[str]) -> list[str]:
    """Config names (paths below the folder, without `.yaml`) that the `--roots` globs match, sorted."""
    names = set()
    for pattern in globs:
        for path in config_dir.glob(pattern):
            if path.is_file() and path.suffix == ".yaml":
                names.add(path.relative_to(config_dir).with_suffix("").as_posix())
    return sorted(names)


def offered_roots(config_dir: Path, guess: Guess) -> list[str]:
    """Candidate roots of the config folder and of each `--search-path` folder (a SearchPathPlugin's own roots,
    sail-on-client's `test_config`), sorted; Hydra finds each through the search path."""
    names = set(candidate_roots(config_dir, guess.roots_glob))
    for folder in guess.search_path:
        names.update(candidate_roots(folder, guess.roots_glob))
    return sorted(names)


def _composes_with_every_preset(session: HydraSession, name: str, guess: Guess) -> str | None:
    """None when the config composes with every preset; else the one-line reason."""
    for preset, overrides in guess.presets:
        try:
            session.compose(name, list(overrides))
        except ComposeError as error:
            where = f" with preset {preset}" if overrides else ""
            return f"does not compose{where}: {_reason(error, guess.verbose)}"
    return None


def discover(
    config_dir: Path,
    engine_group: str | None,
    cache_dir: Path | None,
    guess: Guess | None = None,
    launch_keys: Counter[str] | None = None,
    rank: bool = True,
) -> Discovery:
    """Compose every candidate root of the folder (and each engine of the group) to find what works. Without an
    engine group, the group the evidence decides is taken (see `decisive`); else none, with the candidates. A root
    that composes only once a mandatory group (`experiment: ???`) is chosen offers that group as an engine group."""
    guess = guess or Guess()
    left_out: list[LeftOut] = []
    composing: list[str] = []
    requiring: dict[str, tuple[str, str]] = {}  # root -> (the mandatory group it needs chosen, why it fails alone)
    with warnings.catch_warnings(), HydraSession(config_dir, cache_dir, guess.search_path, guess.version_base) as session:
        # Hydra warns about every Hydra 1.0-style file under version_base 1.1: the application chose that style.
        warnings.simplefilter("ignore", UserWarning)
        offered = offered_roots(config_dir, guess)
        parts = fragments(config_dir, offered)
        for name in offered:
            if name.rsplit("/", 1)[-1].startswith(GOLDEN_PREFIX):
                left_out.append(LeftOut(name, f"a generated file ({GOLDEN_PREFIX}*), not a config to compose"))
                continue
            if name in parts:
                left_out.append(LeftOut(name, f"a part of {parts[name]}.yaml (its defaults list includes it), not a root of its own"))
                continue
            try:
                check_root(name, "root")
            except SettingsError:
                left_out.append(LeftOut(name, "its name cannot name a golden file (whitespace, '__' or '$')"))
                continue
            failure = _composes_with_every_preset(session, name, guess)
            if failure is None:
                composing.append(name)
            elif (group := required_group(config_dir / f"{name}.yaml", failure)) is not None:
                requiring[name] = (group, failure)
            else:
                left_out.append(LeftOut(name, failure))

        def out_unless(group: str | None) -> list[LeftOut]:
            return left_out + [LeftOut(root, why) for root, (needed, why) in requiring.items() if needed != group]

        def required_by(group: str) -> list[str]:
            return [root for root, (needed, _) in requiring.items() if needed == group]

        if not composing and (engine_group is None or not required_by(engine_group)):
            if not requiring or not rank:
                raise AdoptError(_nothing_composes(config_dir, out_unless(None), guess, _preset_hint(session, requiring, guess)))
        if engine_group is None and not rank:
            return Discovery(roots=tuple(composing), left_out=tuple(out_unless(None)))
        if engine_group is None:
            ranked = engine_groups(session, composing, guess, launch_keys, {root: group for root, (group, _) in requiring.items()})
            chosen = decisive(ranked)
            if chosen is None:
                if not composing:
                    raise AdoptError(_nothing_composes(config_dir, out_unless(None), guess, _preset_hint(session, requiring, guess)))
                return Discovery(roots=tuple(composing), left_out=tuple(out_unless(None)), candidates=tuple(ranked))
            needing = required_by(chosen.group)
            found = _with_engines(session, config_dir, chosen.group, composing + needing, out_unless(chosen.group), guess, needing)
            return replace(found, candidates=tuple(ranked), chosen=chosen)
        needing = required_by(engine_group)
        return _with_engines(session, config_dir, engine_group, composing + needing, out_unless(engine_group), guess, needing)


def _nothing_composes(config_dir: Path, left_out: Sequence[LeftOut], guess: Guess, hint: str) -> str:
    reasons = "; ".join(f"{entry.name}: {entry.reason}" for entry in left_out) or f"no file matches {', '.join(guess.roots_glob)}"
    return f"{config_dir}: no root config composes ({reasons}){hint}"


def _preset_hint(session: HydraSession, requiring: dict[str, tuple[str, str]], guess: Guess) -> str:
    """For roots that need a mandatory group chosen whose options lie in subfolders (vissl's `config: ???`, every
    option below `config/pretrain/...`): the `--preset` that composes one, found by composing the options in order
    (the shallowest first, at most a few); "" when there is none."""
    for root, (group, _) in sorted(requiring.items()):
        options = [*session.group_options(group), *nested_options(session, group)]
        # The shallowest first: whole configs sit above the folders of the parts they combine (vissl's
        # `feature_extraction/extract_resnet_in1k_8gpu` beside `benchmark/fulltune/imagenet1k/datasets/imagenet_1k`).
        for option in sorted(options, key=lambda option: (option.count("/"), option))[:PRESET_TRIES]:
            override = f"{group}={option}"
            try:
                session.compose(root, [override, *guess.presets[0][1]])
            except ComposeError:
                continue
            name = option.rsplit("/", 1)[-1]
            return (
                f"; {root} needs its mandatory group {group} chosen ({len(options)} options): "
                f"config-harness init --preset '{name}={override}' composes it (one --preset per option to check)"
            )
    return ""


PRESET_TRIES = 20  # options composed to find the one a hint names; a tree's first options compose or none does


def _plain(session: HydraSession, name: str, overrides: Sequence[str]) -> Any:
    return OmegaConf.to_container(session.compose(name, list(overrides)), resolve=False)


def _same_as(session: HydraSession, group: str, roots: list[str], engines: list[str], guess: Guess) -> list[tuple[str, str]]:
    """Roots that are another root plus an engine override (`defaults: [ppo_trainer, override model_engine: megatron]`):
    (that root, the case id it equals) when every preset composes them identically."""
    found = []
    first = guess.presets[0][1]
    for root in roots:
        entries = session.defaults_entries(root, first)
        bases = [other for other in roots if other != root and any(entry.config_path == other for entry in entries)]
        chosen = [entry.config_path.split("/", 1)[1] for entry in entries if entry.config_path.startswith(f"{group}/")]
        for base in bases:
            engine = chosen[-1] if chosen else None
            if engine not in engines:
                continue
            override = group_override(group, engine)
            try:
                same = all(
                    _plain(session, root, overrides) == _plain(session, base, [override, *overrides]) for _, overrides in guess.presets
                )
            except ComposeError:
                same = False
            if same:
                found.append((root, f"{root_id(base)}/{engine}/{guess.presets[0][0]}"))
                break
    return found


@dataclass(frozen=True)
class GroupEvidence:
    """Why a group may be the engine: the roots that select it (or leave it `null`), its options, the defaults entries
    that interpolate its value (verl's `${model_engine}_actor`), how often launches set it, and the first option
    that does not compose (None when all do with every root)."""

    group: str
    roots: int
    options: int
    interpolated: tuple[str, ...] = ()
    launches: int = 0
    failing: str | None = None
    required: tuple[str, ...] = ()  # the roots whose defaults list leaves it mandatory (`experiment: ???`)

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        return (bool(self.interpolated), bool(self.required), self.failing is None, self.launches, self.roots)

    def shown(self) -> str:
        return f"{self.group}: {self.evidence()}"

    def evidence(self) -> str:
        """What speaks for the group, in a few words each."""
        said = [f"{self.roots} root(s) select it", f"{self.options} options"]
        if self.required:
            said.insert(1, f"{len(self.required)} compose only with it chosen ({self.group}: ??? in {', '.join(self.required[:3])})")
        if self.interpolated:
            said.append(f"other defaults interpolate it ({self.interpolated[0]}{', ...' if len(self.interpolated) > 1 else ''})")
        if self.launches:
            said.append(f"launches set it {self.launches} time(s)")
        said.append("every option composes with every root" if self.failing is None else f"not every option composes ({self.failing})")
        return "; ".join(said)


def null_groups(root_file: Path, optional: bool = True) -> list[str]:
    """The groups a root's defaults list names with no option (`G: null`, and `optional G: null` unless `optional`
    is False): `G=X` composes."""
    try:
        document = yaml.safe_load(read_text(root_file))
    except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
        return []
    defaults = document.get("defaults") if isinstance(document, dict) else None
    found = []
    for entry in defaults if isinstance(defaults, list) else []:
        if isinstance(entry, dict) and len(entry) == 1:
            ((key, value),) = entry.items()
            key = key.removeprefix("optional ").strip() if isinstance(key, str) and optional else key
            if value is None and isinstance(key, str) and not key.startswith(("override ", "optional ", "/")) and "@" not in key:
                found.append(key)
    return found


def defaults_keys(config_file: Path) -> set[str]:
    """The groups a config's own defaults list names, as written (`override `, `optional `, `@package` and a
    leading `/` taken off): `environment` for `- environment: pufferlib_ocean/bandit`."""
    try:
        document = yaml.safe_load(read_text(config_file))
    except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
        return set()
    defaults = document.get("defaults") if isinstance(document, dict) else None
    keys = set()
    for entry in defaults if isinstance(defaults, list) else []:
        key = next(iter(entry), None) if isinstance(entry, dict) and len(entry) == 1 else None
        if isinstance(key, str):
            keys.add(key.removeprefix("override ").removeprefix("optional ").strip().partition("@")[0].strip("/"))
    return keys


def _selected_group(config_path: str, keys: set[str]) -> str:
    """The group a root's entry selects from: the longest folder of its file the root names as a group
    (`environment` for `environment/pufferlib_ocean/bandit` chosen as `environment: pufferlib_ocean/bandit`; a
    nested group `model/representation` when the root names it so), else the file's top folder."""
    parts = config_path.split("/")[:-1]
    return next(("/".join(parts[:n]) for n in range(len(parts), 0, -1) if "/".join(parts[:n]) in keys), parts[0])


_INTERPOLATION = linear.compile(r"\$\{([\w./-]+)\}")


def interpolated_groups(config_dir: Path, limit: int = 2000) -> dict[str, list[str]]:
    """Group -> the defaults entries (`FILE: entry`) whose option is built from that group's value, as verl's
    `- actor@actor_rollout_ref.actor: ${model_engine}_actor`: what they select follows the engine."""
    found: dict[str, list[str]] = {}
    for path in sorted(config_dir.rglob("*.yaml"))[:limit]:
        try:
            text = read_text(path)
            if "${" not in text or "defaults" not in text:
                continue
            document = yaml.safe_load(text)
        except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
            continue
        defaults = document.get("defaults") if isinstance(document, dict) else None
        for entry in defaults if isinstance(defaults, list) else []:
            if isinstance(entry, dict) and len(entry) == 1:
                ((key, value),) = entry.items()
                for name in _INTERPOLATION.findall(value) if isinstance(value, str) else ():
                    found.setdefault(name, []).append(f"{shown_relative(path, config_dir)}: {key}: {value}")
    return found


def engine_groups(
    session: HydraSession,
    roots: list[str],
    guess: Guess,
    launch_keys: Counter[str] | None = None,
    requiring: dict[str, str] | None = None,
) -> list[GroupEvidence]:
    """The groups that may be the engine, most likely first, each with its evidence. Cheap evidence ranks every
    group; only the first four are composed option by option (every option with every root that selects it).
    `requiring`: roots that compose only once their mandatory group is chosen (root -> group); each such group is
    a candidate, whatever its count of options."""
    launch_keys = launch_keys or Counter()
    requiring = requiring or {}
    first = guess.presets[0][1]
    config_dir = session.config_dir
    selecting: dict[str, set[str]] = {}
    for root in roots:
        keys = defaults_keys(config_dir / f"{root}.yaml")
        for entry in session.defaults_entries(root, first):
            if "/" in entry.config_path and entry.parent == root and not entry.config_path.startswith("hydra/"):
                selecting.setdefault(_selected_group(entry.config_path, keys), set()).add(root)
        for group in null_groups(config_dir / f"{root}.yaml"):
            selecting.setdefault(group, set()).add(root)
    for root, group in requiring.items():
        selecting.setdefault(group, set()).add(root)
    interpolated = interpolated_groups(config_dir)
    cheap = []
    for group in sorted(selecting):
        options = session.group_options(group)
        required = tuple(sorted(root for root, needed in requiring.items() if needed == group))
        if len(options) >= 2 or (required and options):
            evidence = GroupEvidence(
                group, len(selecting[group]), len(options), tuple(interpolated.get(group, ())), launch_keys[group], required=required
            )
            cheap.append(evidence)
    cheap.sort(key=lambda item: item.key, reverse=True)
    ranked = []
    for evidence in cheap[:4]:
        failing = None
        for root in sorted(selecting[evidence.group]):
            for option in session.group_options(evidence.group):
                try:
                    session.compose(root, [group_override(evidence.group, option), *first])
                except (ComposeError, SettingsError) as error:
                    failing = f"{root} with {evidence.group}={option}: {first_sentence(str(error), 100)}"
                    break
            if failing is not None:
                break
        ranked.append(replace(evidence, failing=failing))
    return sorted(ranked, key=lambda item: item.key, reverse=True)


def decisive(ranked: Sequence[GroupEvidence]) -> GroupEvidence | None:
    """The group init takes as the engine without asking: the only one whose value other defaults interpolate, with
    every option composing; without such a group, the only mandatory one (`experiment: ???`: its roots compose with
    no other choice) whose every option composes. Counts alone (roots, launches) are never decisive: a cluster or a
    dataset group can lead them on a tree whose engines are something else."""
    interpolated = [item for item in ranked if item.interpolated]
    if len(interpolated) == 1 and interpolated[0].failing is None:
        return interpolated[0]
    required = [item for item in ranked if item.required]
    if not interpolated and len(required) == 1 and required[0].failing is None:
        return required[0]
    return None


def _with_engines(
    session: HydraSession,
    config_dir: Path,
    group: str,
    composing: list[str],
    left_out: list[LeftOut],
    guess: Guess,
    required: Sequence[str] = (),
) -> Discovery:
    """Split composing configs into roots (they select the group) and routes; keep engines every root composes with.
    `required`: configs that compose only with the group chosen (a mandatory group): roots."""
    options = tuple(session.group_options(group))
    if not options:
        raise AdoptError(f"{config_dir}: engine group {group!r} has no options (no {group}/*.yaml)")
    roots = [
        name
        for name in composing
        if name in required
        or any(_selects_group(session, name, group, overrides) for _, overrides in guess.presets)
        or group in null_groups(config_dir / f"{name}.yaml")
    ]
    routes = [name for name in composing if name not in roots]
    if not roots:
        raise AdoptError(f"{config_dir}: no root config selects an option of engine group {group!r} in its defaults list")
    named = [engine for engine in options if _golden_name(engine)]
    left_out_engines = [
        LeftOut(engine, "its name cannot name a golden file (whitespace, '__' or '$')") for engine in options if engine not in named
    ]
    # failures[preset][engine]: the first root that does not compose with both, and Hydra's reason.
    failures: dict[str, dict[str, str]] = {name: {} for name, _ in guess.presets}
    for engine in named:
        for root in roots:
            for preset, overrides in guess.presets:
                if engine in failures[preset]:
                    continue
                try:
                    session.compose(root, [group_override(group, engine), *overrides])
                except ComposeError as error:
                    failures[preset][engine] = f"{root} does not compose with {group}={engine}: {_reason(error, guess.verbose)}"
    # A preset with which no option composes does not compose with the group (schnetpack's preset without an
    # experiment leaves `model: null`, so `model/representation=X` cannot be overridden): init drops it, not the group.
    dropped = [
        LeftOut(preset, f"does not compose with engine group {group}: {failures[preset][named[0]]}", overrides)
        for preset, overrides in guess.presets
        if named and len(failures[preset]) == len(named)
    ]
    kept = tuple((preset, overrides) for preset, overrides in guess.presets if preset not in {entry.name for entry in dropped})
    if not kept:
        raise AdoptError(
            f"{config_dir}: no preset composes with engine group {group!r} ({'; '.join(f'{e.name}: {e.reason}' for e in dropped)})"
        )
    engines: list[str] = []
    for engine in named:
        failure = next((failures[preset][engine] for preset, _ in kept if engine in failures[preset]), None)
        if failure is None:
            engines.append(engine)
        else:
            left_out_engines.append(LeftOut(engine, failure))
    if not engines:
        raise AdoptError(f"{config_dir}: no option of engine group {group!r} composes with every root")
    guess = replace(guess, presets=kept)
    same_as = _same_as(session, group, [root for root in roots if root not in required], engines, guess)
    derived = {root for root, _ in same_as}
    return Discovery(
        roots=tuple(root for root in roots if root not in derived),
        routes=tuple([*routes, *(root for root in roots if root in derived)]),
        engines=tuple(engines),
        all_engines=options,
        left_out=tuple(left_out),
        left_out_engines=tuple(left_out_engines),
        same_as=tuple(same_as),
        dropped_presets=tuple(dropped),
    )


def _golden_name(engine: str) -> bool:
    try:
        check_name(engine, "engine")
    except SettingsError:
        return False
    return True


def settings_table(
    discovery: Discovery,
    config_dir: str,
    snapshot_dir: str,
    contracts: str,
    engine_group: str | None,
    guess: Guess | None = None,
    search_path: Sequence[str] = (),
) -> dict[str, Any]:
    """The settings table for a discovery; paths are already relative to the settings file."""
    guess = guess or Guess()
    table: dict[str, Any] = {
        "config_dir": config_dir,
        "snapshot_dir": snapshot_dir,
        "contracts": [contracts, str(Path(contracts).parent / KNOWN_NAME)],
        "roots": list(discovery.roots),
    }
    if guess.version_base is not None:
        table["version_base"] = guess.version_base
    if search_path:
        table["search_path"] = list(search_path)
    if engine_group is not None:
        table["engine_group"] = engine_group
        if discovery.left_out_engines:  # an explicit list, so the engines that do not compose stay out
            table["engines"] = list(discovery.engines)
    table["presets"] = {name: list(overrides) for name, overrides in guess.presets}
    same_as = dict(discovery.same_as)
    routes = []
    for name in discovery.routes:
        route: dict[str, Any] = {"name": root_id(name), "config_name": name}
        if len(guess.presets) == 1 and guess.presets[0][1]:
            route["overrides"] = list(guess.presets[0][1])  # a route composes with what its roots need
        if name in same_as:
            route["same_as"] = same_as[name]
        routes.append(route)
    if routes:
        table["routes"] = routes
    return table


def parse_preset(text: str) -> tuple[str, tuple[str, ...]]:
    """`NAME=OVERRIDES` of `--preset`: a preset name and its Hydra overrides, split as a shell would."""
    name, equals, overrides = text.partition("=")
    if not equals:
        raise AdoptError(f"--preset {text!r}: expected NAME=OVERRIDES, e.g. --preset 'mappo=algorithm=mappo task=vmas/balance'")
    try:
        check_name(name, "--preset")
        return name, tuple(shlex.split(overrides))
    except (SettingsError, ValueError) as error:
        raise AdoptError(str(error)) from None


def toml_text(table: dict[str, Any], prefix: str | None, comments: Iterable[str] = ()) -> str:
    """The settings table as TOML text, written by tomlkit: under `[prefix]` (pyproject.toml) or at the top level
    (standalone file), each comment on a line of its own above it. Plain keys first, then sub-tables."""
    import tomlkit

    document = tomlkit.document()
    for comment in comments:
        document.add(tomlkit.comment(comment))
    body = tomlkit.table() if prefix else document
    for key, value in sorted(table.items(), key=lambda item: isinstance(item[1], dict) or _is_array_of_tables(item[1])):
        if isinstance(value, dict):
            sub = tomlkit.table()
            sub.update(value)
            body.add(key, sub)
        elif _is_array_of_tables(value):
            array = tomlkit.aot()
            for entry in value:
                row = tomlkit.table()
                row.update(entry)
                array.append(row)
            body.add(key, array)
        else:
            body.add(key, value)
    if prefix:
        *outer, last = prefix.split(".")
        for name in reversed(outer):  # `[tool.config-harness]`: `tool` is a super table, written in the header only
            holder = tomlkit.table(is_super_table=True)
            holder.add(last, body)
            body, last = holder, name
        document.add(last, body)
    return tomlkit.dumps(document)


def _is_array_of_tables(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(item, dict) for item in value)


def _package_around(path: Path, stop: Path) -> Path | None:
    """The outermost folder between `stop` and `path` that is a Python package (has __init__.py), if any."""
    found = None
    for folder in [path, *path.parents]:
        if folder == stop or stop not in folder.parents:
            break
        if (folder / "__init__.py").is_file():
            found = folder
    return found


def _existing_document(settings_file: Path, in_pyproject: bool) -> tuple[bytes, dict[str, Any] | None]:
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
        raise AdoptError(f"{settings_file}: invalid TOML: {_one_line(str(error))}") from None
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
            f"{settings_file}: appending [{TABLE}] would make invalid TOML ({_one_line(str(error))}); "
            "use --settings FILE for a standalone settings file"
        ) from None
    return data


# What init wrote, and whether anyone edited it since (issue 32): `init --engine-group G` takes a suggestion in one
# step by rewriting what init wrote, and only that. The proof is a fingerprint, not a guess: the first line of
# the table (and of the known file) init writes records the digest of the lines below it.

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


def _previous_engines(table: dict[str, Any]) -> str:
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
            expected, edit = "", f"its recorded flags no longer write a table: {_one_line(str(error))}"
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


def command_globs(base: Path, config_dir: Path) -> list[str]:
    """`[[commands]]` globs for the shell scripts below `base` that launch one of its Hydra entry points:
    one `<top folder>/**/*.sh` per top-level folder that holds such a script (scripts are parsed, never run)."""
    from harness.gates.confine import project_root
    from harness.readers.bash import launches_in
    from harness.runner.launches import Project, submodule_paths

    project = Project(base, config_dir, {})
    tops: set[str] = set()
    root = project_root(base)
    submodules = {(root / path).resolve() for path in submodule_paths(root)}
    for folder, subfolders, files in os.walk(base):
        # A submodule's scripts are another repository's launches (RAGEN's verl/): never globbed by default.
        subfolders[:] = sorted(
            d
            for d in subfolders
            if d not in SKIPPED_FOLDERS
            and not d.startswith(".")
            and Path(folder, d).resolve() not in submodules
            and not Path(folder, d, ".git").exists()
        )
        for name in sorted(files):
            path = Path(folder, name)
            relative = path.relative_to(base)
            top = relative.parts[0] if len(relative.parts) > 1 else ""
            if not name.endswith(".sh") or top in tops or path.is_symlink():
                continue
            try:
                data = read_bytes(path, limit=1024 * 1024)
            except (OSError, InputLimitError):
                continue
            launches = (
                launches_in(relative.as_posix(), data, _entry_near(path.parent, base, project))
                if b"-m" in data or b"python" in data
                else []
            )
            # As check counts them: a program that is not the repository's and takes no Hydra argument is no launch.
            if any(not launch.error or launch.hydra_like for launch in launches):
                tops.add(top)
    return sorted(f"{top}/**/*.sh" if top else "*.sh" for top in tops)


def composing_programs(base: Path, config_dir: Path, globs: Sequence[str], limit: int = 5000) -> dict[str, str]:
    """The programs the launch scripts run that have no `@hydra.main` but hand their command line (`sys.argv`) to a
    module of the repository that composes a config of `config_dir` with Hydra's compose API, as vissl's
    `tools/run_distributed_engines.py` does (`BINARY="python tools/run_distributed_engines.py"; $BINARY config=...`):
    each program, as `[commands.modules]` names it, with the config it composes."""
    from harness.readers.bash import launches_in
    from harness.readers.entries import module_file
    from harness.runner.hydra_starts import _call_folder, hydra_calls
    from harness.runner.launches import NOT_HYDRA, Project, Refusal

    composing: dict[Path, str] = {}
    for call in hydra_calls(base, limit):
        name = call.keywords.get("config_name")
        folder = _call_folder(call, base) if call.kind != "main" else None
        if isinstance(name, str) and folder == config_dir and (config_dir / f"{name}.yaml").is_file():
            composing.setdefault(call.path.resolve(), name)
    if not composing:
        return {}
    project = Project(base, config_dir, {})
    scripts = sorted({path for pattern in globs for path in base.glob(pattern) if path.is_file() and not path.is_symlink()})[:limit]
    mapped: dict[str, str] = {}
    for script in scripts:
        try:
            data = read_bytes(script, (base,), limit=1024 * 1024)
        except (OSError, InputLimitError):
            continue
        for launch in launches_in(script.relative_to(base).as_posix(), data, project.is_entry):
            refused = project.entry(launch.program, launch.is_module) if launch.entry and launch.program not in mapped else None
            program = project.entry_file(launch.program, launch.is_module) if isinstance(refused, Refusal) else None
            if program is None or not isinstance(refused, Refusal) or refused.kind != NOT_HYDRA:
                continue
            try:
                passes_argv = "sys.argv" in read_text(program, (base,))
            except (OSError, UnicodeDecodeError, InputLimitError):
                continue
            imported = [module_file(module, base) for module in sorted(_imported_modules(program))]
            found = next((composing[file.resolve()] for file in imported if file is not None and file.resolve() in composing), None)
            if passes_argv and found is not None:
                mapped[launch.program] = found
    return mapped


def _entry_near(folder: Path, base: Path, project: Any) -> Any:
    """`is_entry` for a script in `folder`: an entry point of the project, or one that lies below a folder between the
    script's and `base` (PRIME's `training/examples/run.sh` runs `python -m verl.trainer.main_ppo` from `training/`,
    where `verl/` is): a launch is globbed wherever it lives, and `cd` is followed when the launches are read."""
    from harness.runner.launches import NOT_HYDRA, Refusal

    folders = [folder, *(parent for parent in folder.parents if is_within(parent, base) and parent != base)]

    def is_entry(entry: str, is_module: bool) -> bool:
        # A program without @hydra.main (geoarches' `python -m geoarches.evaluation.eval_multistep`, an argparse
        # script) is no launch: check skips it as "not a Hydra program", so a glob for it would only count zeros.
        if project.is_entry(entry, is_module):
            found = project.entry(entry, is_module)
            return not (isinstance(found, Refusal) and found.kind == NOT_HYDRA)
        relative = entry.replace(".", "/") + ".py" if is_module else entry
        files = [near / relative for near in folders] + ([near / relative[:-3] / "__main__.py" for near in folders] if is_module else [])
        return any(file.is_file() and _has_hydra_main(file) for file in files)

    return is_entry


def _has_hydra_main(file: Path) -> bool:
    """True when a Python file has an `@hydra.main` (read with ast, never imported; False when it cannot be read)."""
    from harness.readers.entries import hydra_main

    try:
        return hydra_main(read_text(file), file) is not None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError, BudgetExceeded):
        return False


def groups_in_defaults(config_dir: Path, limit: int = 2000) -> set[str]:
    """Every group some defaults list in the folder selects from, as a path below the folder: `- model: ssd` in
    `task/base.yaml` names `task/model` (and `model`: Hydra looks beside the file first, then at the top), `/a/b: x`
    names `a/b`."""
    named: set[str] = set()
    for path in sorted(config_dir.rglob("*.yaml"))[:limit]:
        try:
            text = read_text(path)
            document = yaml.safe_load(text) if "defaults" in text else None
        except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
            continue
        defaults = document.get("defaults") if isinstance(document, dict) else None
        here = path.parent.relative_to(config_dir).as_posix()
        for entry in defaults if isinstance(defaults, list) else []:
            key = next(iter(entry), None) if isinstance(entry, dict) and len(entry) == 1 else None
            if not isinstance(key, str):
                continue
            key = key.removeprefix("override ").removeprefix("optional ").strip().partition("@")[0]
            if key.startswith("/"):
                named.add(key.strip("/"))
            elif key:
                named.update({key, f"{here}/{key}".lstrip("./")} if here != "." else {key})
    return named


def nested_options(session: HydraSession, group: str, below: str = "", groups: frozenset[str] = frozenset()) -> list[str]:
    """The options in the group's subfolders, as an override names them (`tasks/spec/validate` for `task`), sorted.
    A subfolder a defaults list selects from is a group of its own (`task/model/ssd.yaml` is an option of
    `task/model`, never of `task`): it and what lies below it are left out (`groups`: from `groups_in_defaults`)."""
    found = []
    folder = f"{group}/{below}".rstrip("/")
    for sub in sorted(session.loader.list_groups(folder)):
        path = f"{below}/{sub}".lstrip("/")
        if f"{group}/{path}" in groups:
            continue
        found += [f"{path}/{option}" for option in session.group_options(f"{group}/{path}")]
        found += nested_options(session, group, path, groups)
    return sorted(found)


def nested_presets(
    config_dir: Path, group: str, cache_dir: Path | None, guess: Guess
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], str] | None:
    """Presets `GROUP=OPTION` (and the reason) when the engine group has options in subfolders (dau-build's
    `task=tasks/spec/validate`), else None.

    Engines stay names without '/': a case id is `<root>/<engine>/<preset>` and a golden name joins the three with
    `__`, so an engine `tasks/spec/validate` would need an encoding that no reader of a case id could undo for
    names that hold the encoding itself (an option may be called `tasks.spec`). A preset carries the option
    verbatim in its override instead; its name is the option with '/' written '.'.
    """
    with warnings.catch_warnings(), HydraSession(config_dir, cache_dir, guess.search_path, guess.version_base) as session:
        warnings.simplefilter("ignore", UserWarning)
        nested = nested_options(session, group, groups=frozenset(groups_in_defaults(config_dir)))
        direct = session.group_options(group) if nested else []
    if not nested:
        return None
    options = sorted([*direct, *nested])
    names = [option.replace("/", ".") for option in options]
    for name in names:
        try:
            check_name(name, "preset")
        except SettingsError as error:
            raise AdoptError(f"engine group {group!r}: {_one_line(str(error))}") from None
    if len(set(names)) < len(names):
        raise AdoptError(f"engine group {group!r}: two options would name the same preset ({', '.join(sorted(names))})")
    presets = (*guess.presets, *((name, (f"{group}={option}",)) for name, option in zip(names, options, strict=True)))
    shown = ", ".join(options[:3]) + (f", ... ({len(options)} in all)" if len(options) > 3 else "")
    reason = (
        f"engine group {group!r} has options in subfolders ({shown}): written as presets {group}=OPTION, since an engine "
        "name holds no '/' (case ids and golden names are split on it)"
    )
    return presets, reason


def python_sources_of(entry: EntryGuess, base: Path) -> list[str]:
    """`python_sources` for the package that holds the entry point, when it lies below the settings file's folder
    (`verl` for verl/trainer/main_ppo.py): `_target_` paths resolve into it, read with ast, never imported."""
    if entry.entry_file is None or not is_within(entry.entry_file.resolve(), base.resolve()):
        return []
    package = _package_around(entry.entry_file.parent, base)
    if package is None:
        # No __init__.py between (F5-TTS's wheel: `f5_tts/` is a namespace package): its imports resolve from the
        # repository's root, as the program runs there (`from f5_tts.model import CFM`), so sources start at the
        # top folder that holds the entry point, or at the root for a script that lies there.
        parts = entry.entry_file.resolve().relative_to(base.resolve()).parts
        return [parts[0] if len(parts) > 1 else "."]
    # A package inside a namespace package (pyteia's `teia/core`: teia/ has no __init__.py) is imported by its
    # dotted name from the folder above the namespace (`from teia.core.config import ...`): sources start there.
    imported = _imported_modules(entry.entry_file)
    top, dotted = package, package.name
    while top.parent != base and is_within(top.parent, base) and not (top.parent / "__init__.py").is_file():
        outer = f"{top.parent.name}.{dotted}"
        if not any(name == outer or name.startswith(f"{outer}.") for name in imported):
            break
        top, dotted = top.parent, outer
    return [shown_relative(package if top == package else top.parent, base)]


def _imported_modules(file: Path) -> set[str]:
    """The absolute module names a Python file imports (read with ast, never run); empty when it cannot be read."""
    try:
        tree = python_tree(read_text(file), str(file))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, InputLimitError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@dataclass(frozen=True)
class LaunchSurvey:
    """What the launch scripts below a folder run (parsed, never run): launches per entry file, and how often their
    overrides set each key or group (`model_engine=megatron` counts for `model_engine`)."""

    entries: Counter[Path] = field(default_factory=Counter)
    keys: Counter[str] = field(default_factory=Counter)
    # folder -> where the launches that name it with `--config-path` are (`SCRIPT:LINE`): VAGEN's scripts all say
    # `--config-path="$V/vagen/configs"` beside an entry point whose own config_path names no folder.
    flagged: dict[Path, list[str]] = field(default_factory=dict)
    flagged_entries: dict[Path, set[Path]] = field(default_factory=dict)  # folder -> the entry files those launches run


def launch_counts(base: Path, config_dir: Path, limit: int = 5000) -> LaunchSurvey:
    """How many launches the shell scripts below `base` make of each of its Python entry files (parsed, never run):
    the entry point most launches use is the application's own, not a helper beside it; and which keys they set."""
    from harness.readers.bash import launches_in
    from harness.runner.launches import Project, flagged_config_folder

    project = Project(base, config_dir, {})
    counts: Counter[Path] = Counter()
    keys: Counter[str] = Counter()
    flagged: dict[Path, list[str]] = {}
    flagged_entries: dict[Path, set[Path]] = {}
    scripts = 0
    for folder, subfolders, files in os.walk(base):
        subfolders[:] = walked_into(folder, subfolders)
        for name in sorted(files):
            path = Path(folder, name)
            if not name.endswith(".sh") or path.is_symlink() or scripts >= limit:
                continue
            scripts += 1
            try:
                data = read_bytes(path, limit=1024 * 1024)
            except (OSError, InputLimitError):
                continue
            if b"-m" not in data and b"python" not in data:
                continue
            for launch in launches_in(path.relative_to(base).as_posix(), data, project.is_entry):
                entry = project.entry_file(launch.program, launch.is_module)  # `training/verl...` run from a sub-project
                if entry is not None:
                    counts[entry.resolve()] += 1
                keys.update({override.text.partition("=")[0].lstrip("+~") for override in launch.overrides})
                named = flagged_config_folder(project, launch) if entry is not None and not launch.error else None
                if entry is not None and named is not None and is_within(named, base.resolve()) and named.is_dir():
                    flagged.setdefault(named, []).append(launch.where)
                    flagged_entries.setdefault(named, set()).add(entry.resolve())
    return LaunchSurvey(counts, keys, flagged, flagged_entries)


@dataclass(frozen=True)
class Inputs:
    """What init was asked, as its flags say it (paths as given): with the tree, all its table depends on. The
    table's first line records them, so a rewrite can write the table again and compare it byte for byte."""

    config_dir: Path | None = None
    engine_group: str | None = None
    snapshot_dir: Path | None = None
    contracts_file: Path | None = None
    version_base: str | None = None
    roots_glob: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()
    search_path: tuple[Path, ...] = ()
    verbose: bool = False

    def flags(self, base: Path) -> list[str]:
        """The flags that ask for these inputs again from the settings file's folder (paths relative to it)."""
        words: list[str] = []
        for flag, path in (
            ("--config-dir", self.config_dir),
            ("--write-snapshots", self.snapshot_dir),
            ("--write-contracts", self.contracts_file),
        ):
            if path is not None:
                words += [flag, shown_relative(path.resolve(), base)]
        if self.engine_group is not None:
            words += ["--engine-group", self.engine_group]
        if self.version_base is not None:
            words += ["--version-base", self.version_base]
        for flag, values in (("--roots", self.roots_glob), ("--preset", self.presets)):
            for value in values:
                words += [flag, value]
        for folder in self.search_path:
            words += ["--search-path", shown_relative(folder.resolve(), base)]
        return [*words, "--verbose"] if self.verbose else words


RECORDED = linear.compile(r"^# Written by `config-harness init` from `config-harness init(?P<flags>[^`\n]*)`: ", linear.M)


def recorded_line(inputs: Inputs, base: Path) -> str:
    """The table's first line: the flags init was run with, which write this table again while nothing changed. A
    flag holding a backtick or a control character is not recorded (the table is then never rewritten)."""
    words = inputs.flags(base)
    if any("`" in word or any(ord(c) < 0x20 or ord(c) == 0x7F for c in word) for word in words):
        return (
            "# Written by `config-harness init` with flags it cannot record; every key is described in config-harness's docs/settings.md."
        )
    flags = "".join(f" {shlex.quote(word)}" for word in words)
    return (
        f"# Written by `config-harness init` from `config-harness init{flags}`: init rewrites it only while it is exactly "
        "what those flags write; every key is described in config-harness's docs/settings.md."
    )


def recorded_inputs(flags: str, base: Path) -> Inputs | None:
    """The inputs a recorded line names; None when its flags do not read as init's (then nothing is rewritten)."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False, allow_abbrev=False)
    for flag in ("--config-dir", "--engine-group", "--write-snapshots", "--write-contracts", "--version-base"):
        parser.add_argument(flag)
    for flag in ("--roots", "--preset", "--search-path"):
        parser.add_argument(flag, action="append", default=[])
    parser.add_argument("--verbose", action="store_true")
    try:
        args, rest = parser.parse_known_args(shlex.split(flags))
    except (ValueError, argparse.ArgumentError):
        return None
    if rest:
        return None
    # A recorded line is text a pull request may have written: its paths never lead init outside the project.
    from harness.gates.confine import project_root

    project = project_root(base)
    named = [args.config_dir, args.write_snapshots, args.write_contracts, *args.search_path]
    if any(value is not None and not is_within((base / value).resolve(), project) for value in named):
        return None

    def path(value: str | None) -> Path | None:
        return base / value if value is not None else None

    return Inputs(
        path(args.config_dir),
        args.engine_group,
        path(args.write_snapshots),
        path(args.write_contracts),
        args.version_base,
        tuple(args.roots),
        tuple(args.preset),
        tuple(base / folder for folder in args.search_path),
        args.verbose,
    )


@dataclass(frozen=True)
class Plan:
    """What init would write for a set of inputs on the tree as it is, and what it found; nothing written yet."""

    text: str  # the table's text, its recorded first line included
    table: dict[str, Any]
    discovery: Discovery
    guess: Guess
    config_dir: Path
    snapshot_dir: Path
    contracts_file: Path
    switches: Switches
    nested_reason: str | None = None
    found_by: ConfigFolder | None = None
    plugin_notes: tuple[str, ...] = ()
    trees_note: str | None = None  # the config trees the entry points name besides this one, not adopted


def plan(inputs: Inputs, settings_file: Path, cache_dir: Path | None) -> Plan:
    """The table init writes for these inputs (read-only: the tree is composed, nothing is written)."""
    from harness.gates.confine import project_root

    base = settings_file.parent
    launches = launch_counts(base, base)
    found_by = None
    config_dir = inputs.config_dir
    if config_dir is None:  # the folder the entry points name
        found_by = find_config_dir(base, project_root(base), launches.entries, launches.flagged)
        config_dir = found_by.folder
    config_dir = config_dir.resolve()
    named = config_folders(base, project_root(base), launches.entries) or composed_folders(base, project_root(base), launches.entries)
    trees_note = other_trees_note(config_dir, [item.folder for item in named], base)
    if not config_dir.is_dir():
        raise AdoptError(f"{config_dir}: config folder does not exist")
    snapshot_dir = (inputs.snapshot_dir or base / DEFAULT_SNAPSHOT_DIR).resolve()
    contracts_file = (inputs.contracts_file or base / DEFAULT_CONTRACTS).resolve()
    # Inside the config folder, goldens would ship with the package data and change the tree every run composes.
    for what, path in (("snapshot folder", snapshot_dir), ("contracts file", contracts_file)):
        if is_within(path, config_dir):
            raise AdoptError(f"{path}: the {what} must be outside the config folder {config_dir}")
    engine_group = inputs.engine_group
    if engine_group is not None and (not engine_group.strip() or any(c.isspace() for c in engine_group)):
        raise AdoptError(f"--engine-group {engine_group!r}: a Hydra group name has no whitespace")
    folders = tuple(path.resolve() for path in inputs.search_path)
    for folder in folders:
        if not folder.is_dir():
            raise AdoptError(f"--search-path {folder}: no such folder")
    # An installed SearchPathPlugin of the repository adds its folder to every run's search path: so do the cases.
    plugins = plugin_search_paths(project_root(base), folders)
    folders += tuple(dict.fromkeys(folder for folder, _ in plugins if folder is not None))
    in_pyproject = settings_file.name == "pyproject.toml"

    globs = tuple(inputs.roots_glob) or ("*.yaml",)
    guess = Guess(
        roots_glob=globs,
        search_path=folders,
        verbose=inputs.verbose,
        presets=tuple(parse_preset(text) for text in inputs.presets) or (("default", ()),),
    )
    version_base = inputs.version_base
    if version_base is not None:
        chosen = None if version_base.lower() == "none" else version_base
        if chosen is not None and chosen not in VERSION_BASES:
            raise AdoptError(f"--version-base {version_base!r}: expected one of {', '.join(VERSION_BASES)} or none")
        guess = replace(guess, version_base=chosen, version_base_reason=f"version_base {chosen!r} (--version-base)")
    entry = read_entry_points(
        config_dir,
        project_root(base),
        candidate_roots(config_dir, globs),
        launches.entries,
        launches.flagged_entries.get(config_dir, set()),
    )
    if version_base is None:
        guess = replace(guess, version_base=entry.version_base, version_base_reason=entry.reason)

    nested = nested_presets(config_dir, engine_group, cache_dir, guess) if engine_group is not None else None
    if nested is not None:
        # Presets instead of engines, as asked for this group.
        guess, engine_group = replace(guess, presets=nested[0]), None
    # With nested options as presets (what was asked), no other group is looked for.
    discovery = discover(config_dir, engine_group, cache_dir, guess, launches.keys, rank=nested is None)
    if discovery.chosen is not None:
        engine_group = discovery.chosen.group
    if discovery.dropped_presets:
        dropped = {entry.name for entry in discovery.dropped_presets}
        guess = replace(guess, presets=tuple(preset for preset in guess.presets if preset[0] not in dropped))
    discovery, guess = readable_presets(discovery, guess, bool(inputs.presets))
    table = settings_table(
        discovery,
        shown_relative(config_dir, base),
        shown_relative(snapshot_dir, base),
        shown_relative(contracts_file, base),
        engine_group,
        guess,
        [shown_relative(folder, base) for folder in folders],
    )
    sources = python_sources_of(entry, base)
    if sources:
        table["python_sources"] = sources
    variables = search_path_variables(config_dir, discovery.roots)
    if variables:  # what the roots' own search paths read (schnetpack's `file://${oc.env:PWD}`); nothing else may be
        table["search_path_env"] = variables
    switches = switch_routes(config_dir, discovery.roots, guess, cache_dir)
    taken = {route["name"] for route in table.get("routes", [])}
    if switches.routes:
        table["routes"] = [*table.get("routes", []), *(r for r in switches.routes if r["name"] not in taken)]
    script_globs = command_globs(base, config_dir)
    if script_globs:
        table["commands"] = [{"glob": pattern} for pattern in script_globs]
        programs = composing_programs(base, config_dir, script_globs)
        if programs:  # launches of a program that composes through a function it imports: checked as any launch
            table["commands"][0]["modules"] = programs
    try:
        # What init writes must be settings the harness accepts, whose cases never share a golden.
        settings = parse_settings(table, settings_file)
        build_cases(settings, discovery.engines or ("base",))
    except SettingsError as error:
        raise AdoptError(f"nothing written: {_one_line(str(error))}") from None
    comments = [guess.version_base_reason]
    if nested is not None:
        comments.append(nested[1])
    comments += [f"Left out {entry.name}: {entry.reason}" for entry in discovery.left_out]
    comments += [f"Left out engine {entry.name}: {entry.reason}" for entry in discovery.left_out_engines]
    comments += [f"Left out preset {entry.name}: {entry.reason}" for entry in discovery.dropped_presets]
    comments += [f"Left out route for {entry.name}: {entry.reason}" for entry in switches.left_out]
    text = recorded_line(inputs, base) + "\n" + toml_text(table, TABLE if in_pyproject else None, [_one_line(c) for c in comments])
    return Plan(
        text,
        table,
        discovery,
        guess,
        config_dir,
        snapshot_dir,
        contracts_file,
        switches,
        nested[1] if nested is not None else None,
        found_by,
        tuple(note for _, note in plugins),
        trees_note,
    )


def adopt(
    config_dir: Path | None,
    settings_file: Path,
    engine_group: str | None = None,
    snapshot_dir: Path | None = None,
    contracts_file: Path | None = None,
    cache_dir: Path | None = None,
    version_base: str | None = None,
    roots_glob: Sequence[str] = (),
    presets: Sequence[str] = (),
    search_path: Sequence[Path] = (),
    verbose: bool = False,
) -> Adoption:
    """Discover the matrix of `config_dir` (without it, the folder the entry points name), then write the settings,
    an empty contracts file and the snapshot folder.

    `version_base` is "1.1", "1.2", "1.3" or "none" to say it; without it, it is read from the application's
    @hydra.main or guessed from its files. Nothing is written when anything is refused.
    """
    from harness.gates.confine import project_root

    settings_file = settings_file.absolute()
    base = settings_file.parent
    inputs = Inputs(
        config_dir, engine_group, snapshot_dir, contracts_file, version_base, tuple(roots_glob), tuple(presets), tuple(search_path), verbose
    )
    in_pyproject = settings_file.name == "pyproject.toml"
    existing, previous = _existing_document(settings_file, in_pyproject)
    if previous is not None and engine_group is None:
        refuse_rewrite(settings_file, existing, in_pyproject)
    planned = plan(inputs, settings_file, cache_dir)
    replacing = rewritable(settings_file, existing, previous, in_pyproject, engine_group or "", cache_dir) if previous is not None else None
    known_file = planned.contracts_file.parent / KNOWN_NAME
    known_anew = known_file_state(known_file, replacing is not None, engine_group)
    data = _appended(existing, planned.text, settings_file, replacing)

    config_dir, snapshot_dir, contracts_file, switches = planned.config_dir, planned.snapshot_dir, planned.contracts_file, planned.switches
    notes = computed_entry_points(config_dir, project_root(base))
    notes += planned.plugin_notes
    if planned.trees_note is not None:
        notes.append(planned.trees_note)
    if switches.routes:
        notes.append(
            f"routes {', '.join(r['name'] for r in switches.routes)}: each composes a root with one option of a "
            "group it leaves off (`group: null`) that overrides values the root sets"
        )
    notes += [f"left out a route for {entry.name}: {entry.reason}" for entry in switches.left_out]
    hidden = pytest_hides_goldens(settings_file, project_root(base))
    if hidden is not None:
        notes.append(hidden)
    package = _package_around(snapshot_dir, base)
    if package is not None:
        notes.append(
            f"{shown_relative(snapshot_dir, base)} is inside the Python package {shown_relative(package, base)}: "
            "check that its package data does not ship the goldens"
        )
    contracts_created = not contracts_file.exists()
    stub = contracts_created or _is_stub(contracts_file)
    if contracts_created:
        write_atomic(contracts_file, EMPTY_CONTRACTS)
    if known_anew:  # filled by the shell once the settings exist (commands/init.py); a user's is never overwritten
        write_atomic(known_file, known_text([]))
    snapshot_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(settings_file, data)
    return Adoption(
        settings_file,
        planned.table,
        planned.discovery,
        contracts_file,
        contracts_created,
        snapshot_dir,
        tuple(notes),
        planned.guess,
        known_anew,
        planned.nested_reason,
        _previous_engines(previous) if previous is not None else None,
        stub,
        planned.found_by,
    )


def describe(adoption: Adoption, shown: Any = str) -> list[str]:
    """The lines init prints: what it wrote, what it found, what it left out, and what to run next."""
    table, found = adoption.table, adoption.discovery
    where = (
        f"[{TABLE}] to {shown(adoption.settings_file)}"
        if adoption.settings_file.name == "pyproject.toml"
        else shown(adoption.settings_file)
    )
    lines = [f"wrote {where}"]
    if adoption.rewritten is not None:
        where = (
            f"[{TABLE}] in {shown(adoption.settings_file)}"
            if adoption.settings_file.name == "pyproject.toml"
            else shown(adoption.settings_file)
        )
        engines = f"engine group {table['engine_group']}" if "engine_group" in table else "presets for its nested options"
        lines = [f"rewrote {where}: init wrote it and nobody edited it since (it had {adoption.rewritten}; now {engines})"]
    found_by = adoption.found_by.shown(adoption.settings_file.parent) if adoption.found_by else table["config_dir"]
    lines.append(f"  config_dir    {found_by}")
    lines.append(f"  hydra         {adoption.guess.version_base_reason}")
    lines.append(f"  roots         {', '.join(found.roots)}")
    if "engine_group" in table:
        lines.append(f"  engines       {', '.join(found.engines)} (options of {table['engine_group']})")
    same_as = dict(found.same_as)
    plain_routes = [name for name in found.routes if name not in same_as]
    if plain_routes:
        lines.append(f"  routes        {', '.join(plain_routes)} (they compose but do not select the engine group)")
    for name, case_id in found.same_as:
        lines.append(f"  routes        {name} (same_as {case_id}: it is that root plus an engine override)")
    presets = [f"{name} ({' '.join(overrides) or 'no overrides'})" for name, overrides in adoption.guess.presets]
    lines.append(f"  presets       {', '.join(presets)}")
    if table.get("commands"):
        lines.append(f"  commands      {', '.join(entry['glob'] for entry in table['commands'])} (launch scripts, parsed, never run)")
        for program, name in table["commands"][0].get("modules", {}).items():
            lines.append(f"  modules       {program} = {name} (no @hydra.main: it hands its command line to a compose of {name})")
    if table.get("python_sources"):
        lines.append(
            f"  python_sources {', '.join(table['python_sources'])} (the entry point's package: `_target_` classes read with ast, never imported)"
        )
    lines.append(f"  snapshot_dir  {table['snapshot_dir']}")
    contracts_state = (
        "new, empty"
        if adoption.contracts_created
        else "empty, as init wrote it"
        if adoption.contracts_stub and adoption.rewritten
        else "kept as it was"
    )
    lines.append(f"  contracts     {table['contracts'][0]} ({contracts_state})")
    for entry in found.left_out:
        lines.append(f"left out {entry.name}: {entry.reason}")
    for entry in found.left_out_engines:
        lines.append(f"left out engine {entry.name}: {entry.reason}")
    if found.chosen is not None:
        lines.append(f"engine group {found.chosen.group}, chosen by init: {found.chosen.evidence()}")
    for entry in found.dropped_presets:
        lines.append(f"left out preset {entry.name}: {entry.reason}")
    if adoption.nested_reason:
        lines.append(f"note: {adoption.nested_reason}")
    lines += [f"note: {note}" for note in adoption.notes]
    settings_flag = "" if adoption.settings_file.name == "pyproject.toml" else f"--settings {shown(adoption.settings_file)} "
    if "engine_group" not in table and found.candidates:
        # A question, not "next: generate": after generate init no longer rewrites the table, so taking a
        # candidate then would be refused.
        lines.append("question: which group's options are the engines? The evidence does not decide, so init wrote none:")
        lines += [f"  candidate     {item.shown()}" for item in found.candidates[:3]]
        lines.append(
            f"next: config-harness init --engine-group {found.candidates[0].group} (or another candidate; the same "
            "flags: it rewrites this table), or config-harness "
            f"{settings_flag}generate to keep no engine group"
        )
        return lines
    lines.append(
        f"next: config-harness {settings_flag}generate, then commit {table['snapshot_dir']}; "
        f"config-harness {settings_flag}check (or pytest) in CI"
    )
    return lines


# What init adds for any repository (issue 36): the groups a user switches on, entry points with computed paths,
# pytest settings that hide the golden tests, and readable case ids.

PLAIN_PRESET = "plain"  # the preset without overrides when an engine option is itself called `default`


@dataclass(frozen=True)
class Switches:
    """Routes for the options of groups a root leaves off (`debug: null`) that override what the root sets, and
    each option left out with why."""

    routes: tuple[dict[str, Any], ...] = ()
    left_out: tuple[LeftOut, ...] = ()


def search_path_variables(config_dir: Path, roots: Sequence[str]) -> list[str]:
    """The environment variables the roots' own `hydra.searchpath` entries read (`${oc.env:NAME}`), sorted."""
    names: set[str] = set()
    for root in roots:
        try:
            document = yaml.safe_load(read_text(config_dir / f"{root}.yaml"))
        except (OSError, UnicodeDecodeError, InputLimitError, yaml.YAMLError):
            continue
        hydra = document.get("hydra") if isinstance(document, dict) else None
        entries = hydra.get("searchpath") if isinstance(hydra, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            names.update(read.group(1) for read in ENV_READ.finditer(entry if isinstance(entry, str) else ""))
    return sorted(names)


def switched_groups(root_file: Path) -> list[str]:
    """The groups a root's defaults list leaves off (`- experiment: null`, not `optional`): what a user turns on per run."""
    return null_groups(root_file, optional=False)


def switch_routes(config_dir: Path, roots: Sequence[str], guess: Guess, cache_dir: Path | None = None) -> Switches:
    """A route `<root>_<group>_<option>` for each option of a group the root leaves off whose composition changes a
    value the root already has (an experiment, a debug mode: they override the root's keys); an option that only
    adds keys, or does not compose, is left out with why."""
    from harness.model.semantic_diff import iter_leaves

    routes: list[dict[str, Any]] = []
    left_out: list[LeftOut] = []
    with HydraSession(config_dir, cache_dir, guess.search_path, guess.version_base) as session:
        for root in roots:
            groups = switched_groups(config_dir / f"{root}.yaml")
            if not groups:
                continue
            try:
                plain = dict(iter_leaves(OmegaConf.to_container(session.compose(root, []), resolve=False)))
            except ComposeError:
                continue
            for group in groups:
                adders = []  # options that only add keys: one line for the group
                for option in session.group_options(group):
                    name = f"{root_id(root)}_{group}_{option}".replace("/", ".")
                    override = f"{group}={option}"
                    try:
                        leaves = dict(iter_leaves(OmegaConf.to_container(session.compose(root, [override]), resolve=False)))
                    except ComposeError as error:
                        left_out.append(LeftOut(f"{root} {override}", _one_line(str(error))))
                        continue
                    if not any(path in plain and plain[path] != value for path, value in leaves.items()):
                        adders.append(option)
                        continue
                    try:
                        check_name(name, "route")
                    except SettingsError as error:
                        left_out.append(LeftOut(f"{root} {override}", _one_line(str(error))))
                        continue
                    routes.append({"name": name, "config_name": root, "overrides": [override]})
                if adders:
                    shown = f"{group}={adders[0]}" if len(adders) == 1 else f"{group} ({len(adders)} options)"
                    left_out.append(LeftOut(f"{root} {shown}", "they only add keys; they override none the root sets"))
    return Switches(tuple(routes), tuple(left_out))


def readable_presets(discovery: Discovery, guess: Guess, explicit: bool) -> tuple[Discovery, Guess]:
    """With an engine option named `default`, init's preset without overrides is `plain`, so a case id reads
    `train/default/plain` rather than `train/default/default` (a preset the user named stays as named)."""
    if explicit or "default" not in discovery.engines or guess.presets != (("default", ()),):
        return discovery, guess
    same_as = tuple((route, case_id.removesuffix("/default") + f"/{PLAIN_PRESET}") for route, case_id in discovery.same_as)
    return replace(discovery, same_as=same_as), replace(guess, presets=((PLAIN_PRESET, ()),))


def computed_entry_points(config_dir: Path, repository: Path) -> list[str]:
    """What init says of each `@hydra.main` whose `config_path` is computed: the folder it evaluates to (read with
    ast from `__file__` and `os.path`/`pathlib` joins, never run) when that is this config folder, or which argument
    it cannot evaluate and why."""
    from harness.readers.entries import NotStatic, module_constants, static_value

    said = []
    names = {name.removesuffix(".yaml") for name in candidate_roots(config_dir, ("*.yaml",))}
    for path, line, arguments in hydra_mains(repository):
        config_name = arguments.get("config_name")
        if isinstance(config_name, str) and config_name.removesuffix(".yaml") not in names:
            continue  # the entry point of another folder's config (foundry's rfd3/train.py beside rf3/configs)
        try:
            text = read_text(path)
            node = next((k.value for k in _hydra_main_keywords(text, line) if k.arg == "config_path"), None)
            constants = module_constants(ast.parse(text), line)
        except (OSError, UnicodeDecodeError, InputLimitError, SyntaxError, ValueError):
            continue
        if node is None or literal(node) is not ...:
            continue  # a literal (or no) config_path: nothing computed to say
        value = static_value(node, path, constants)
        where = f"{shown_relative(path, repository)}:{line}"
        if isinstance(value, NotStatic):
            said.append(f"{where}: @hydra.main's config_path cannot be read without running it ({value.why})")
        elif isinstance(value, str) and (path.parent / value).resolve() == config_dir:
            said.append(
                f"{where}: @hydra.main with config_path computed from __file__ (read, never run): {shown_relative(config_dir, repository)}"
            )
    return said


def plugin_search_paths(repository: Path, given: Sequence[Path], limit: int = 5000) -> list[tuple[Path | None, str]]:
    """The folders the repository's SearchPathPlugins add (`hydra_plugins/*.py`: installed, each adds its folder to
    every Hydra run's search path, pyteia's `teia/conf`), read with ast, never imported, each with what init says
    of it; None with why when the folder cannot be read without running. `--search-path` folders are not repeated."""
    from harness.readers.entries import NotStatic, as_shown, dotted_name, static_value

    said: list[tuple[Path | None, str]] = []
    for path, tree in python_files(repository, "SearchPathPlugin", limit):
        for plugin in [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]:
            if not any(dotted_name(base).rsplit(".", 1)[-1] == "SearchPathPlugin" for base in plugin.bases):
                continue
            where = f"{shown_relative(path, repository)}:{plugin.lineno}: the SearchPathPlugin {plugin.name} adds"
            for argument, bound in _search_path_additions(plugin, repository):
                value = static_value(argument, path, bound)
                added = _plugin_folder(value, repository)
                if added is None:
                    why = value.why if isinstance(value, NotStatic) else f"{as_shown(value)!r} is not a folder of the repository"
                    said.append((None, f"{where} a folder it computes ({why}); give it with --search-path DIR"))
                elif added not in given and all(folder != added for folder, _ in said):  # vissl adds configs/ twice
                    shown = shown_relative(added, repository)
                    said.append((added, f"search_path {shown}: {where} it to every run's search path (read, never imported)"))
    return said


def _search_path_additions(plugin: ast.ClassDef, repository: Path) -> list[tuple[ast.expr, dict[str, ast.expr]]]:
    """The path arguments of a plugin's `search_path.append/prepend(provider, path)` calls, each with the names its
    loops bind: `for portion in map(Path, teia.__path__)` binds `portion` to the package's folder in the repository
    (a package's `__path__` lists its folders; pyteia's plugin adds `portion / "conf"`)."""
    from harness.readers.entries import dotted_name

    loops: dict[str, ast.expr] = {}
    for node in ast.walk(plugin):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            iterated = node.iter
            if isinstance(iterated, ast.Call) and dotted_name(iterated.func) == "map" and len(iterated.args) == 2:
                iterated = iterated.args[1]
            if isinstance(iterated, ast.Attribute) and iterated.attr == "__path__":
                folder = repository_package(dotted_name(iterated.value), repository)
                if isinstance(folder, Path):
                    loops[node.target.id] = ast.Call(ast.Name("Path"), [ast.Constant(folder.as_posix())], [])
    found = []
    for node in ast.walk(plugin):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "prepend"):
            path = next((k.value for k in node.keywords if k.arg == "path"), node.args[1] if len(node.args) > 1 else None)
            provider = next((k.value for k in node.keywords if k.arg == "provider"), node.args[0] if node.args else None)
            if path is not None and provider is not None:
                found.append((path, loops))
    return found


def _plugin_folder(value: Any, repository: Path) -> Path | None:
    """The repository's folder a plugin's `file://` or `pkg://` path names, None for any other."""
    if not isinstance(value, str):
        return None
    if value.startswith("pkg://"):
        folder = repository_package(value.removeprefix("pkg://"), repository)
        return folder if isinstance(folder, Path) else None
    relative = value.removeprefix("file://")
    folder = (repository / relative).resolve()
    return folder if value.startswith("file://") and is_within(folder, repository.resolve()) and folder.is_dir() else None


def _hydra_main_keywords(text: str, line: int) -> list[ast.keyword]:
    """The keywords of the `hydra.main(...)` call at `line`."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and node.lineno == line and is_hydra_main_call(node.func):
            return node.keywords
    return []


def pytest_hides_goldens(settings_file: Path, repository: Path) -> str | None:
    """A note when the repository's pytest `testpaths` keep plain `pytest` from collecting the golden tests (they
    are collected from the pyproject.toml that holds the settings), with the one-line fix; None when pytest finds
    them, or when the settings are a file of their own (pytest then needs `--harness-settings FILE` anyway)."""
    pyproject = repository / "pyproject.toml"
    if settings_file.resolve() != pyproject.resolve():
        return None
    try:
        options: Any = toml_document(read_text(pyproject), str(pyproject))
    except (OSError, UnicodeDecodeError, InputLimitError, tomllib.TOMLDecodeError):
        return None
    for key in ("tool", "pytest", "ini_options"):  # `[[tool]]` makes `tool` a list: then there are no such options
        options = options.get(key) if isinstance(options, dict) else None
    if not isinstance(options, dict):
        return None
    paths = options.get("testpaths")
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        return None
    target = settings_file.resolve()
    if any(target == (repository / p).resolve() or (repository / p).resolve() in target.parents for p in paths):
        return None
    fixed = ", ".join(f'"{p}"' for p in [*paths, shown_relative(settings_file, repository)])
    return (
        f"pyproject.toml's [tool.pytest.ini_options] testpaths = {paths!r} keeps plain `pytest` from collecting "
        f"the golden tests in {shown_relative(settings_file, repository)}; write testpaths = [{fixed}]"
    )
