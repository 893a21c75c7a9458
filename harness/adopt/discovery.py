"""What init reads in the config tree: the roots that compose, the engine group and its evidence, presets, nested
options and the routes a user switches on; every guess says why it was made."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from harness.composition.compose import ComposeError, HydraSession
from harness.gates import linear
from harness.gates.confine import ENV_READ
from harness.gates.reader import InputLimitError, read_text
from harness.model.hints import first_sentence
from harness.model.matrix import GOLDEN_PREFIX, group_override
from harness.model.settings import SettingsError, check_name, check_root, root_id
from harness.runner.hydra_starts import (
    NO_START,
    AdoptError,
    shown_relative,
)
from harness.runner.root_kinds import fragments, required_group


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


def one_line(text: str) -> str:
    return " ".join(text.split())


def _reason(error: BaseException, verbose: bool) -> str:
    return one_line(str(error)) if verbose else first_sentence(str(error))


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
    that composes only once a mandatory group (`experiment: ???`) is chosen offers that group as an engine group.
    Over 60 lines: composing, ranking the groups and leaving out what fails are one pass over the same Hydra session."""
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
    `required`: configs that compose only with the group chosen (a mandatory group): roots. Over 60 lines: each root
    and engine is composed once, in one session, and every outcome (root, route, same_as, left out) is decided there."""
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
            raise AdoptError(f"engine group {group!r}: {one_line(str(error))}") from None
    if len(set(names)) < len(names):
        raise AdoptError(f"engine group {group!r}: two options would name the same preset ({', '.join(sorted(names))})")
    presets = (*guess.presets, *((name, (f"{group}={option}",)) for name, option in zip(names, options, strict=True)))
    shown = ", ".join(options[:3]) + (f", ... ({len(options)} in all)" if len(options) > 3 else "")
    reason = (
        f"engine group {group!r} has options in subfolders ({shown}): written as presets {group}=OPTION, since an engine "
        "name holds no '/' (case ids and golden names are split on it)"
    )
    return presets, reason


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
                        left_out.append(LeftOut(f"{root} {override}", one_line(str(error))))
                        continue
                    if not any(path in plain and plain[path] != value for path, value in leaves.items()):
                        adders.append(option)
                        continue
                    try:
                        check_name(name, "route")
                    except SettingsError as error:
                        left_out.append(LeftOut(f"{root} {override}", one_line(str(error))))
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
