"""Open a config tree's matrix: a Hydra session over the tree, with the cases the settings describe there."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from harness.composition.compose import HydraSession
from harness.gates import linear
from harness.model.matrix import Case, build_cases, select_engines
from harness.model.settings import Settings, SettingsError, check_name


@contextmanager
def open_matrix(settings: Settings, strict: bool = True, hydra_subtree: bool = False) -> Iterator[tuple[HydraSession, list[Case]]]:
    """A Hydra session over the settings' config dir (keeping each `hydra:` subtree when asked), with the cases of
    its matrix.

    `strict` is for the tree under test. A baseline tree (another release, a git ref) is opened leniently: an
    engine group it does not have yet gives no engine cases, and a route's `same_as` may name a missing case.
    """
    if not settings.config_dir.is_dir():
        raise SettingsError(f"{settings.origin}: config_dir {settings.config_dir} does not exist")
    for folder in settings.search_path:
        if not folder.is_dir():
            raise SettingsError(f"{settings.origin}: search_path folder {folder} does not exist")
    with HydraSession.for_settings(settings, hydra_subtree) as session:
        discovered = None
        if settings.engine_group and settings.engines is None:
            discovered = session.group_options(settings.engine_group)
            if not discovered and strict:
                raise SettingsError(f"{settings.origin}: engine_group {settings.engine_group!r} has no options in {settings.config_dir}")
            for engine in discovered:
                check_name(engine, f"{settings.config_dir}/{settings.engine_group}")
        yield session, build_cases(settings, select_engines(settings, discovered), strict=strict)


def case_globs(pattern: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """`--case` as a tuple of globs (it is repeatable); None selects every case."""
    if pattern is None:
        return None
    return (pattern,) if isinstance(pattern, str) else tuple(pattern)


def id_matches(case_id: str, pattern: str | Sequence[str] | None) -> bool:
    """True when the id matches any of the globs (or there is none)."""
    globs = case_globs(pattern)
    return globs is None or any(linear.glob(glob).fullmatch(case_id) for glob in globs)


def select_cases(cases: list[Case], pattern: str | Sequence[str] | None) -> list[Case]:
    """The cases whose id matches the glob, or any of the globs: their union (all of them without one)."""
    return [case for case in cases if id_matches(case.id, pattern)]


def unmatched_glob(cases: list[Case], pattern: str | Sequence[str] | None) -> str | None:
    """The first glob that matches no case: a typo in one of several globs is not silently dropped."""
    return next((glob for glob in case_globs(pattern) or () if not any(linear.glob(glob).fullmatch(case.id) for case in cases)), None)
