"""Turn settings and discovered engines into the ordered list of cases."""

from __future__ import annotations

from dataclasses import dataclass

from harness.gates import linear
from harness.model.settings import Settings, SettingsError, root_id

BASE_ENGINE = "base"
GOLDEN_PREFIX = "_generated_"
LAUNCH_PREFIX = "cmd/"  # the case id of a launch command: `cmd/<script>#<n>` (harness/runner/launches.py)
GOLDEN_SUFFIX = ".yaml"
# A launch read under an environment its script tests: `cmd/<script>#<n> (only when CUDA_VISIBLE_DEVICES is set)`.
LAUNCH_CONDITION = linear.compile(r"#\d+ \((only when [^()]*)\)")


def launch_condition(case_id: str) -> str:
    """`only when CUDA_VISIBLE_DEVICES is set` for a launch's reading under an environment; "" for any other case."""
    found = LAUNCH_CONDITION.search(case_id) if case_id.startswith(LAUNCH_PREFIX) else None
    return found.group(1) if found else ""


@dataclass(frozen=True)
class Case:
    """One composition: a config name plus overrides, and the golden it is compared with."""

    id: str
    config_name: str
    stem_overrides: tuple[str, ...]
    preset_overrides: tuple[str, ...] = ()
    golden_name: str = ""
    same_as: str | None = None
    became: str | None = None
    version_base: str | None = None  # Hydra's version_base the case is composed with (shown in its golden's header)

    @property
    def overrides(self) -> tuple[str, ...]:
        """The complete override list given to Hydra for this case."""
        return self.stem_overrides + self.preset_overrides


def golden_name(case_id: str) -> str:
    """Map a case id to its golden file name: slashes become double underscores."""
    return f"{GOLDEN_PREFIX}{case_id.replace('/', '__')}{GOLDEN_SUFFIX}"


def is_golden_name(name: str) -> bool:
    """True for a file name a golden can have (`_generated_*.yaml`)."""
    return name.startswith(GOLDEN_PREFIX) and name.endswith(GOLDEN_SUFFIX)


def group_override(group: str, option: str) -> str:
    """`group=option` written so Hydra reads back exactly the option name (quoted when a bare `1`, `true` or
    `[cpu]` would read as a number, a boolean or a list); SettingsError when no spelling does."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    quote = "'" if "'" not in option else '"'
    for text in (f"{group}={option}", f"{group}={quote}{option}{quote}"):
        try:
            (override,) = parser.parse_overrides(overrides=[text])
        except Exception:
            continue
        value = override.value()
        if isinstance(value, str) and value == option and "${" not in option:
            return text
    raise SettingsError(f"{group}: the option name {option!r} cannot be written as a Hydra override")


def build_cases(settings: Settings, engines: tuple[str, ...], strict: bool = True) -> list[Case]:
    """Every root × engine × preset case, then every route, in a stable order.

    `strict` refuses a route whose `same_as` names no case; a baseline tree (another release, a git ref) may
    lack that case, which the engine then reports as a warning. A root in a subfolder (`train_config/config`)
    shows as `train_config.config` in ids and golden names, so ids keep three segments and goldens one folder.
    """
    cases: list[Case] = []
    for root in settings.roots:
        for engine in engines:
            engine_override = (group_override(settings.engine_group, engine),) if settings.engine_group and engine != BASE_ENGINE else ()
            for preset, preset_overrides in settings.presets:
                case_id = f"{root_id(root)}/{engine}/{preset}"
                cases.append(
                    Case(case_id, root, engine_override, preset_overrides, golden_name(case_id), version_base=settings.version_base)
                )
    for route in settings.routes:
        case_id = f"route/{route.name}"
        cases.append(
            Case(
                case_id,
                route.config_name,
                route.overrides,
                (),
                golden_name(case_id),
                route.same_as,
                route.became,
                settings.version_base,
            )
        )
    by_golden: dict[str, str] = {}
    for case in cases:
        other = by_golden.setdefault(case.golden_name, case.id)
        if other != case.id:
            raise SettingsError(f"{settings.origin}: cases {other} and {case.id} would share the golden {case.golden_name}")
    known = {case.id for case in cases}
    for route in settings.routes if strict else ():
        if route.same_as is not None and route.same_as not in known:
            raise SettingsError(f"{settings.origin}: route {route.name!r} same_as {route.same_as!r} names no case")
    return cases


def select_engines(settings: Settings, discovered: list[str] | None) -> tuple[str, ...]:
    """Explicit engines win; otherwise the engine group's options; otherwise the single `base` engine."""
    if settings.engines is not None:
        return settings.engines
    if settings.engine_group:
        return tuple(discovered or ())
    return (BASE_ENGINE,)
