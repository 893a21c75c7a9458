"""The pytest plugin: one golden test and one semantic test per case, plus fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ENGINE_KEY = pytest.StashKey["Any"]()
SESSION_KEY = pytest.StashKey["Any"]()
EXTENSION_KEY = pytest.StashKey["Any"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("config-harness")
    group.addoption(
        "--harness-settings",
        default=None,
        help="config-harness settings TOML to collect (default: [tool.config-harness] in the rootdir's pyproject.toml)",
    )
    group.addoption(
        "--strict-waivers",
        action="store_true",
        default=False,
        help="a waiver that excuses nothing fails the run (as `config-harness check --strict-waivers`)",
    )
    group.addoption(
        "--harness-no-collect",
        action="store_true",
        default=False,
        help="do not collect golden tests from the settings file",
    )


def _settings_file(config: pytest.Config) -> Path:
    option = config.getoption("--harness-settings")
    return Path(option).resolve() if option else config.rootpath / "pyproject.toml"


def _session(config: pytest.Config) -> Any:
    """The harness Session of this pytest run: entered around each use of the engine, so that between tests
    (and for every other test) Hydra and OmegaConf are exactly as they were, while its caches last the run."""
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        from harness.session import Session

        session = config.stash[SESSION_KEY] = Session()
    return session


def _engine(config: pytest.Config) -> Any:
    """The run's Engine, built on first use (heavy imports stay lazy): the same engine `check` runs, so tests
    report exactly the findings `check` reports. Call it inside `with _session(config):`."""
    engine = config.stash.get(ENGINE_KEY, None)
    if engine is None:
        from harness.baselines import GoldenFolder
        from harness.contracts import ContractError, load_contracts
        from harness.engine import Engine, Run
        from harness.settings import SettingsError, load_settings

        path = _settings_file(config)
        try:
            settings = load_settings(path) if path.name != "pyproject.toml" else load_settings(start=path.parent)
            _skip_unfetched(settings)
            from harness.targets import case_rules

            contracts = load_contracts(settings.contracts, settings.read_scope)
            rules = case_rules(settings, contracts)
            run = Run(
                settings, GoldenFolder(settings.snapshot_dir), rules.checks, keep_rendered=True,
                contracts=contracts, strict_waivers=config.getoption("--strict-waivers"), refiners=rules.refiners,
            )
            engine = Engine(run)
        except (SettingsError, ContractError) as error:
            raise pytest.UsageError(f"config-harness: {error}") from None
        except OSError as error:  # a settings path (contracts, config_dir) the system refused
            raise pytest.UsageError(f"config-harness: {error.filename or ''}: {error.strerror or error}") from None
        config.stash[ENGINE_KEY] = engine
    return engine


@contextmanager
def _harness(config: pytest.Config) -> Iterator[Any]:
    """The run's engine, inside the run's session."""
    with _session(config):
        yield _engine(config)


def _extension(config: pytest.Config) -> Any:
    """The syrupy extension bound to the run's snapshot folder."""
    extension = config.stash.get(EXTENSION_KEY, None)
    if extension is None:
        from harness.snapshot import GoldenExtension

        extension = config.stash[EXTENSION_KEY] = GoldenExtension.bound_to(_engine(config).settings.snapshot_dir)
    return extension


def _skip_unfetched(settings: Any) -> None:
    """A tree that comes from a wheel and is not fetched yet (a fresh clone): skip, saying how to fetch it."""
    if settings.source is not None and not settings.config_dir.is_dir():
        pytest.skip(
            f"config-harness: config_dir {settings.config_dir} is not there yet; "
            f"`config-harness fetch` unpacks it from {settings.source.wheel}"
        )


def _declares_harness(path: Path) -> bool:
    if path.name != "pyproject.toml":
        return True
    from harness.settings import SettingsError, read_toml

    try:
        return "config-harness" in read_toml(path).get("tool", {})
    except SettingsError:
        return True  # let collection report the broken file as a usage error


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if config.getoption("--harness-no-collect") or file_path.resolve() != _settings_file(config):
        return None
    return HarnessFile.from_parent(parent, path=file_path) if _declares_harness(file_path) else None


FINDINGS_PROPERTY = "config-harness-findings"


def _report(request: pytest.FixtureRequest, findings: list[Any]) -> list[str]:
    """Record the item's findings (as `check --format json` has them) and return the lines of its errors."""
    request.node.user_properties.append((FINDINGS_PROPERTY, [f.as_dict() for f in findings]))
    for finding in findings:
        if finding.severity != "error":
            request.node.add_report_section("call", "config-harness", f"{finding.severity}: {finding.message}")
    return [
        f"{f.kind}: {f.message}" + (f"  [set by {f.source}]" if f.source is not None else "")
        for f in findings if f.severity == "error"
    ]


def _golden_test(case_id: str) -> Callable[..., None]:
    def golden(snapshot: Any, request: pytest.FixtureRequest) -> None:
        """The composed case equals its golden (syrupy; `--snapshot-update` rewrites it)."""
        __tracebackhide__ = True
        from harness.findings import DIFFERENCE_KINDS, Kind

        with _harness(request.config) as engine:
            result = engine.result(case_id)
        if result.rendered is None:
            pytest.fail(f"{case_id}: {result.findings[0].message if result.findings else 'compose failed'}", pytrace=False)
        errors = _report(request, [f for f in result.findings if f.kind in DIFFERENCE_KINDS or f.kind == Kind.ERROR])
        assertion = snapshot.use_extension(_extension(request.config))
        # Compare explicitly: plugin modules are not always assertion-rewritten (e.g. editable installs).
        if not assertion == result.rendered:
            pytest.fail("\n".join(errors or assertion.get_assert_diff()), pytrace=False)

    return golden


def _semantic_test(case_id: str) -> Callable[..., None]:
    def semantics(request: pytest.FixtureRequest) -> None:
        """Contracts, parity and fallbacks hold on the freshly composed case, whatever the golden says."""
        __tracebackhide__ = True
        from harness.findings import DIFFERENCE_KINDS

        with _harness(request.config) as engine:
            result = engine.result(case_id)
        errors = _report(request, [f for f in result.findings if f.kind not in DIFFERENCE_KINDS])
        if errors:
            pytest.fail("\n".join(errors), pytrace=False)

    return semantics


RUN_PROPERTY = "config-harness-run"


def _run_test(request: pytest.FixtureRequest) -> None:
    """The findings about the run as a whole, as `check` has them: contract changes and hygiene, stale waivers
    and orphan goldens. The update run removes orphan goldens and says so."""
    __tracebackhide__ = True
    from harness.findings import ERROR
    from harness.goldens import prune_orphans
    from harness.settings import display_path

    lines = []
    with _harness(request.config) as engine:
        if request.config.getoption("update_snapshots", False):
            removed = prune_orphans(engine.settings.snapshot_dir, engine.cases, every_orphan=True)
            lines += [f"removed orphan golden {display_path(path)}" for path in removed]
        result = engine.finish()
    lines += [f"{f.severity}: {f.message}" for f in result.findings]
    lines += [f"error: orphan golden (no case): {name}" for name in result.orphans]
    request.node.user_properties.append((RUN_PROPERTY, lines))
    errors = [f"{f.kind}: {f.message}" for f in result.findings if f.severity == ERROR]
    if result.orphans:
        errors.append(
            "golden(s) with no case (remove with --snapshot-update or `config-harness generate --prune`):\n"
            + "\n".join(result.orphans)
        )
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The run-level findings in their own section (also from xdist workers), as syrupy reports unused snapshots."""
    lines = [
        line
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for name, recorded in getattr(report, "user_properties", ())
        if name == RUN_PROPERTY
        for line in recorded
    ]
    if lines:
        terminalreporter.section("config-harness")
        for line in lines:
            terminalreporter.write_line(line)


class HarnessFile(pytest.File):
    """The settings file, collected as one golden test and one semantic test per case."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        # Unusable settings or contracts are bad input: one line, no traceback. Anything else is a bug:
        # one line too, saying how to see the traceback (Collector.repr_failure takes no style argument).
        if isinstance(excinfo.value, pytest.UsageError):
            return str(excinfo.value)
        if os.environ.get("CONFIG_HARNESS_DEBUG"):
            return super().repr_failure(excinfo)
        summary = " ".join(f"{type(excinfo.value).__name__}: {excinfo.value}".split())
        return f"config-harness: internal error while collecting {self.path.name}: {summary} (CONFIG_HARNESS_DEBUG=1 shows the traceback)"

    def collect(self) -> Any:
        try:
            import syrupy  # noqa: F401  (the golden tests use its `snapshot` fixture)
        except ImportError:
            pytest.skip("config-harness: the golden tests need the pytest extra: pip install 'config-harness[pytest]'")
        with _harness(self.config) as engine:
            cases = engine.cases
        # A case's two tests side by side, cases of one base in a row: pytest-xdist hands out runs of adjacent
        # tests, so a worker composes what it checks instead of every worker composing nearly every case.
        grouped = self.config.pluginmanager.hasplugin("xdist")
        for case in cases:
            for name, test in (("golden", _golden_test), ("semantics", _semantic_test)):
                item = pytest.Function.from_parent(self, name=f"{name}[{case.id}]", callobj=test(case.id))
                if grouped:  # `--dist loadgroup` keeps a base on one worker
                    item.add_marker(pytest.mark.xdist_group(f"{case.config_name} {' '.join(case.stem_overrides)}"))
                yield item
        run = pytest.Function.from_parent(self, name="run", callobj=_run_test)
        if grouped:
            run.add_marker(pytest.mark.xdist_group("config-harness run"))
        yield run


@pytest.fixture(scope="session")
def harness_cases(request: pytest.FixtureRequest) -> list[Any]:
    """Every case of the matrix, in order."""
    with _harness(request.config) as engine:
        return list(engine.cases)


@pytest.fixture(scope="session")
def composed_config(request: pytest.FixtureRequest) -> Callable[[str], Any]:
    """A function from case id to the freshly composed config (read-only by convention)."""
    def lookup(case_id: str) -> Any:
        __tracebackhide__ = True
        with _harness(request.config) as engine:
            composed = engine.composed(case_id)
        if composed.config is None:
            pytest.fail(f"{case_id}: {composed.error}", pytrace=False)
        return composed.config

    return lookup
