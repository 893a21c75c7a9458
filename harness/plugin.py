"""The pytest plugin: one golden test and one semantic test per case, plus fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

ENGINE_KEY = pytest.StashKey["Any"]()
SESSION_KEY = pytest.StashKey["Any"]()
EXTENSION_KEY = pytest.StashKey["Any"]()


# Every option is `--config-harness` or starts with `--config-harness-` (syrupy's are all `--snapshot-*`). Until 0.3
# the spellings on the left worked; each still does for one release, with a deprecation warning naming its new one.
RENAMED = MappingProxyType(
    {
        "--harness-settings": "--config-harness-settings",
        "--strict-waivers": "--config-harness-strict-waivers",
        "--harness-no-collect": "--config-harness-no-collect",
    }
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("config-harness")
    group.addoption(
        "--config-harness",
        action="store_true",
        default=False,
        help="run only the harness's tests, from any folder of the project (its settings: the nearest pyproject.toml "
        "with [tool.config-harness] at or above this folder, or --config-harness-settings); none of the project's own tests",
    )
    group.addoption(
        "--config-harness-settings",
        dest="config_harness_settings",
        default=None,
        metavar="FILE",
        help="config-harness settings TOML to collect (default: [tool.config-harness] in the rootdir's pyproject.toml)",
    )
    group.addoption(
        "--config-harness-strict-waivers",
        dest="config_harness_strict_waivers",
        action="store_true",
        default=False,
        help="a waiver that excuses nothing fails the run (as `config-harness check --strict-waivers`)",
    )
    group.addoption(
        "--config-harness-no-collect",
        dest="config_harness_no_collect",
        action="store_true",
        default=False,
        help="do not collect golden tests from the settings file",
    )
    group.addoption(
        "--config-harness-shard",
        dest="config_harness_shard",
        default=None,
        metavar="K/N",
        help="only shard K of N of the harness's cases and launches, as `config-harness --shard K/N` (CI matrices)",
    )
    for old, new in RENAMED.items():
        action = "store" if new == "--config-harness-settings" else "store_true"
        group.addoption(old, dest=_dest(old), action=action, default=None, help=f"deprecated spelling of {new}")


def _dest(option: str) -> str:
    return "deprecated_" + option.lstrip("-").replace("-", "_")


def _renamed(namespace: Any) -> list[str]:
    """The old spellings given (on the command line, in addopts or PYTEST_ADDOPTS), each value moved to its new name."""
    given = [old for old in RENAMED if getattr(namespace, _dest(old), None) is not None]
    for old in given:
        setattr(namespace, RENAMED[old].lstrip("-").replace("-", "_"), getattr(namespace, _dest(old)))
    return given


def _settings_file(config: pytest.Config) -> Path:
    option = config.getoption("--config-harness-settings")
    if option:
        return Path(option).resolve()
    if config.getoption("--config-harness"):
        return _nearest_settings(config.invocation_params.dir)
    return config.rootpath / "pyproject.toml"


def _nearest_settings(folder: Path) -> Path:
    """The nearest pyproject.toml with [tool.config-harness] at or above `folder`, as the command line finds it."""
    from harness.model.settings import find_pyproject

    return find_pyproject(folder.absolute()).resolve()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """`--config-harness`: the settings file is the one path collected, decided before pytest imports any folder's
    conftest.py (a repository's own test suite may need what this machine lacks, torch for verl's)."""
    namespace = early_config.known_args_namespace
    _renamed(namespace)
    if getattr(namespace, "config_harness", False):
        option = getattr(namespace, "config_harness_settings", None)
        namespace.file_or_dir = [str(Path(option).resolve() if option else _nearest_settings(early_config.invocation_params.dir))]


def pytest_configure(config: pytest.Config) -> None:
    for old in _renamed(config.option):
        message = f"{old} is deprecated: use {RENAMED[old]} (the old spelling is removed in the next release)"
        config.issue_config_time_warning(pytest.PytestDeprecationWarning(message), stacklevel=2)
    if config.getoption("--config-harness"):
        config.args[:] = [str(_settings_file(config))]  # only the harness's tests: not the paths or testpaths given
    _shard(config)


def _shard(config: pytest.Config) -> Any:
    """`--config-harness-shard K/N` as a Shard (None without it); a bad one stops the run in one line."""
    text = config.getoption("--config-harness-shard")
    if text is None:
        return None
    from harness.composition.shards import Shard, ShardError

    try:
        return Shard.parse(text)
    except ShardError as error:
        raise pytest.UsageError(f"config-harness: {error}".replace("--shard", "--config-harness-shard")) from None


def _session(config: pytest.Config) -> Any:
    """The harness Session of this pytest run: entered around each use of the engine, so that between tests
    (and for every other test) Hydra and OmegaConf are exactly as they were, while its caches last the run."""
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        from harness.composition.session import Session

        session = config.stash[SESSION_KEY] = Session()
    return session


def _engine(config: pytest.Config) -> Any:
    """The run's Runner, built on first use (heavy imports stay lazy): the same engine `check` runs, so tests
    report exactly the findings `check` reports. Call it inside `with _harness(config)`, which maps bad input."""
    engine = config.stash.get(ENGINE_KEY, None)
    if engine is None:
        from harness.model.settings import load_settings
        from harness.runner.run import RuleSet, Run, Runner

        path = _settings_file(config)
        settings = load_settings(path) if path.name != "pyproject.toml" else load_settings(start=path.parent)
        _skip_unfetched(settings)
        rule_set = RuleSet.of(settings, strict_waivers=config.getoption("--config-harness-strict-waivers"))
        # The check `check` runs, keeping each golden's text: `--snapshot-update` writes it.
        engine = config.stash[ENGINE_KEY] = Runner(Run.check(settings, rule_set, keep_rendered=True), shard=_shard(config))
    return engine


@contextmanager
def _harness(config: pytest.Config) -> Iterator[Any]:
    """The run's engine, inside the run's session. Bad input it meets (unusable settings or contracts, a golden out
    of the project) goes up as it is: the file and the items say it in one line (`repr_failure`)."""
    with _session(config):
        yield _engine(config)


def _extension(config: pytest.Config) -> Any:
    """The syrupy extension of the run's goldens: its hooks find, in the config, the owner `generate` writes and
    prunes through."""
    extension = config.stash.get(EXTENSION_KEY, None)
    if extension is None:
        from harness.snapshot import GOLDENS, GoldenExtension

        config.stash[GOLDENS] = _engine(config).goldens  # where the extension's hooks look
        extension = config.stash[EXTENSION_KEY] = GoldenExtension
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
    from harness.model.settings import SettingsError, read_toml

    try:
        return "config-harness" in read_toml(path).get("tool", {})
    except SettingsError:
        return True  # let collection report the broken file as a usage error


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if config.getoption("--config-harness-no-collect") or file_path.resolve() != _settings_file(config):
        return None
    return HarnessFile.from_parent(parent, path=file_path) if _declares_harness(file_path) else None


FINDINGS_PROPERTY = "config-harness-findings"
WAIVED_PROPERTY = "config-harness-waived"
RUN_PROPERTY = "config-harness-run"


class CaseFailed(Exception):
    """A harness test failed: its message is the whole report (no traceback: the lines say where to look)."""


class HarnessItem(pytest.Function):
    """A golden, semantics or run test: reported under its own name (`golden[ppo_trainer/dp/default]`) with
    the lines it failed with, nothing else."""

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # pytest's default names the callable's module path, which is the plugin's, not the settings file's.
        return self.path, None, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]  # as pytest.Function
        from harness.gates.errors import bad_input_line

        # Bad input met inside a test (a golden that may not be read or written: a symlink out of the project) is one
        # line, the one the command line says after `error:`.
        line = bad_input_line(excinfo.value)
        if line is not None:
            return line
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


def _record(request: pytest.FixtureRequest, result: Any, findings: list[Any]) -> None:
    """Record the test's findings (as `check --format json` has them) and its waived warnings, which the run's
    summary counts: they never print per test."""
    from harness import pytest_report

    request.node.user_properties.append((FINDINGS_PROPERTY, [f.as_dict() for f in findings]))
    waived = pytest_report.waived(replace(result, findings=tuple(findings)))
    if waived:
        request.node.user_properties.append((WAIVED_PROPERTY, {"case": result.case.id, "waived": waived}))


def _fail_with_errors(request: pytest.FixtureRequest, result: Any, findings: list[Any]) -> None:
    from harness import pytest_report

    lines = pytest_report.error_lines(result, findings, everything=request.config.get_verbosity() >= 2)
    if lines:
        raise CaseFailed("\n".join(lines))


def _golden_test(case_id: str) -> Callable[..., None]:
    def golden(snapshot: Any, request: pytest.FixtureRequest) -> None:
        """The composed case equals its golden (syrupy; `--snapshot-update` rewrites it as generate would)."""
        from harness.model.findings import DIFFERENCE_KINDS, Kind
        from harness.snapshot import Kept

        with _harness(request.config) as engine:
            result = engine.result(case_id)
            kept = engine.goldens.kept(result)
        findings = [f for f in result.findings if f.kind in DIFFERENCE_KINDS or f.kind == Kind.ERROR]
        _record(request, result, findings)
        assertion = snapshot.use_extension(_extension(request.config))
        if kept is not None:
            # generate leaves this golden as it is (the case did not compose, the golden is not YAML, or may not be
            # written): syrupy is told so, and records a failed snapshot that it neither writes nor deletes.
            if not assertion == Kept(kept):
                if result.rendered is not None:
                    _fail_with_errors(request, result, findings)
                raise CaseFailed(kept)
        # Compare explicitly: plugin modules are not always assertion-rewritten (e.g. editable installs).
        if not assertion == result.rendered:
            _fail_with_errors(request, result, findings)
            raise CaseFailed("\n".join(assertion.get_assert_diff()))

    return golden


def _semantic_test(case_id: str) -> Callable[..., None]:
    def semantics(request: pytest.FixtureRequest) -> None:
        """Contracts, parity and fallbacks hold on the freshly composed case, whatever the golden says."""
        from harness.model.findings import DIFFERENCE_KINDS

        with _harness(request.config) as engine:
            result = engine.result(case_id)
        findings = [f for f in result.findings if f.kind not in DIFFERENCE_KINDS]
        _record(request, result, findings)
        _fail_with_errors(request, result, findings)

    return semantics


def _run_test(request: pytest.FixtureRequest) -> None:
    """The findings about the run as a whole, as `check` has them: contract changes and hygiene, stale waivers
    and orphan goldens. The update run prunes as `generate` does, after every golden is written: orphan goldens
    go as with `generate --prune` (kept with --snapshot-no-cleanup or --snapshot-disable-unused, as syrupy keeps
    unused snapshots, and then reported as `generate` reports them), and says so. With --snapshot-warn-unused
    an orphan golden is a warning, not a failure."""
    from harness import pytest_report
    from harness.model.settings import display_path
    from harness.reporters.layout import launches_line
    from harness.syrupy_compat import snapshot_options

    config = request.config
    options = snapshot_options(config)
    updated, details = options.update, options.details
    kept_unused = options.no_cleanup or options.disable_unused
    warn_unused = updated or options.warn_unused  # an update run reports orphans as generate does: never a failure
    with _harness(config) as engine:
        result = engine.finish()
        if updated:
            result = engine.prune(result, every_orphan=not kept_unused)
        goldens = display_path(engine.settings.snapshot_dir)
    # The verdict first, in check's words and counts (one verdict in every surface).
    summary = [pytest_report.verdict_line(result, updated)]
    summary += [f"removed orphan golden {name}" for name in result.pruned] + pytest_report.run_warnings(result)
    summary += [launches_line(result.launches)] if result.launches else []  # `N launches checked of M found: ...`, as check says
    errors = pytest_report.run_errors(result)
    orphans = pytest_report.orphan_lines(result.orphans, details)
    if warn_unused:
        summary += [f"warning: {line}" if index == 0 else line for index, line in enumerate(orphans)]
    else:
        errors += orphans
    settings_option = config.getoption("--config-harness-settings")
    steps = pytest_report.next_lines(result, goldens, updated, pytest_report.rewrite_command(settings_option), settings_option)
    request.node.user_properties.append((RUN_PROPERTY, {"lines": summary, "next": steps}))
    # The run-level findings as data, as `check --format json` has them under "findings" (the shells are compared on them).
    request.node.user_properties.append((FINDINGS_PROPERTY, [f.as_dict() for f in result.findings]))
    if errors:
        raise CaseFailed("\n".join(errors))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One section for the run, as syrupy reports unused snapshots (also from xdist workers): the run-level
    warnings, the waived warnings as one count line, and the next step."""
    from harness import pytest_report

    lines: list[str] = []
    steps: list[str] = []
    waived: dict[str, list[str]] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for name, recorded in getattr(report, "user_properties", ()):
                if name == RUN_PROPERTY:
                    lines += recorded["lines"]
                    steps += recorded["next"]
                elif name == WAIVED_PROPERTY:
                    waived.setdefault(recorded["case"], []).extend(recorded["waived"])
    count = pytest_report.waived_line(waived)
    lines += [count] if count else []
    if lines or steps:
        terminalreporter.section("config-harness")
        for line in lines + steps:
            terminalreporter.write_line(line)


class HarnessFile(pytest.File):
    """The settings file, collected as one golden test and one semantic test per case."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]  # as pytest.Function  # type: ignore[override]
        # Unusable settings or contracts are bad input: one line, no traceback, the one the command line says after
        # `error:` (harness.gates.errors). Anything else is a bug: one line too, saying how to see the traceback
        # (Collector.repr_failure takes no style argument).
        from harness.gates.errors import bad_input_line

        line = bad_input_line(excinfo.value)
        if line is not None:
            return f"config-harness: {line}"
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
            cases = engine.selected  # every case, or this shard's (`--config-harness-shard K/N`)
        # A case's two tests side by side, cases of one stem in a row: pytest-xdist hands out runs of adjacent
        # tests, so a worker composes what it checks instead of every worker composing nearly every case.
        grouped = self.config.pluginmanager.hasplugin("xdist")
        for case in cases:
            for name, test in (("golden", _golden_test), ("semantics", _semantic_test)):
                item = HarnessItem.from_parent(self, name=f"{name}[{case.id}]", callobj=test(case.id))
                if grouped:  # `--dist loadgroup` keeps a stem on one worker
                    item.add_marker(pytest.mark.xdist_group(f"{case.config_name} {' '.join(case.stem_overrides)}"))
                yield item
        run = HarnessItem.from_parent(self, name="run", callobj=_run_test)
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
