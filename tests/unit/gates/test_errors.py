"""harness.gates.errors: every error that input causes derives from BadInput, and both shells read its one line from
bad_input_line; exit codes are the IntEnum INTERFACE.md fixes."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from hydra.errors import HydraException

from harness.gates.errors import BadInput, ExitCode, bad_input_line, describe_yaml_error

HARNESS = Path(__file__).resolve().parents[3] / "harness"

# Exceptions that are not about input: a harness test's failure, and control flow that never leaves its module (or
# syrupy's assertion, which turns a golden the owner keeps into a failed snapshot).
NOT_INPUT = {
    "harness.plugin.CaseFailed",
    "harness.readers.entries._Dynamic",
    "harness.snapshot.GoldenKept",
    "harness.composition.render._Unsafe",
    "harness.composition.render._Folded",
}


def harness_modules() -> list[ModuleType]:
    """Every module of the harness, imported."""
    names = [".".join(path.relative_to(HARNESS.parent).with_suffix("").parts) for path in sorted(HARNESS.rglob("*.py"))]
    return [importlib.import_module(name.removesuffix(".__init__")) for name in names if not name.endswith("__main__")]


def exceptions_outside_bad_input(modules: list[ModuleType]) -> list[str]:
    """The exception classes the modules define that neither derive from BadInput nor are named as not input."""
    defined = {
        f"{kind.__module__}.{kind.__qualname__}": kind
        for module in modules
        for kind in vars(module).values()
        if isinstance(kind, type) and issubclass(kind, BaseException) and kind.__module__ == module.__name__
    }
    return sorted(name for name, kind in defined.items() if not issubclass(kind, BadInput) and name not in NOT_INPUT)


def test_every_exception_of_the_harness_is_bad_input_or_named_as_not_input():
    modules = harness_modules()
    every = {
        kind
        for module in modules
        for kind in vars(module).values()
        if isinstance(kind, type) and issubclass(kind, BadInput) and kind.__module__ == module.__name__
    }
    assert len(every) >= 17  # the issue counted 17 exception classes that shared no base
    assert exceptions_outside_bad_input(modules) == []


def test_an_exception_that_forgets_the_base_is_found():
    module = ModuleType("harness.new")
    exec("class NewError(Exception):\n    pass\n", module.__dict__)
    assert exceptions_outside_bad_input([module]) == ["harness.new.NewError"]


def test_bad_input_has_one_line_and_a_bug_has_none():
    from harness.baselines.gitrepo import GitError
    from harness.gates.budget import BudgetExceeded
    from harness.model.settings import SettingsError

    assert bad_input_line(SettingsError("harness.toml: unknown key 'x'\n  (allowed: a)")) == "harness.toml: unknown key 'x' (allowed: a)"
    assert bad_input_line(GitError("nope: not a git ref")) == "nope: not a git ref"
    assert bad_input_line(FileNotFoundError(2, "No such file or directory", "conf/x.yaml")) == "conf/x.yaml: No such file or directory"
    assert bad_input_line(HydraException("Could not find 'x'")) == "Could not find 'x'"
    try:
        yaml.safe_load("a: [1,\n")
    except yaml.YAMLError as error:
        assert bad_input_line(error) == f"YAML input:{error.problem_mark.line + 1}: invalid YAML: {error.problem}"
    budget = BudgetExceeded("64 levels", "s.toml:3")
    assert isinstance(budget, yaml.YAMLError) and bad_input_line(budget) == "YAML input: not read: 64 levels exceeded at s.toml:3"
    assert describe_yaml_error(budget, "s.toml") == "s.toml: not read: 64 levels exceeded at s.toml:3"
    assert bad_input_line(KeyError("x")) is None and bad_input_line(AssertionError()) is None


def test_exit_codes_are_the_interfaces():
    assert [int(code) for code in ExitCode] == [0, 1, 2, 3, 130, 141]
    assert (ExitCode.OK, ExitCode.FINDINGS, ExitCode.USAGE, ExitCode.INTERNAL) == (0, 1, 2, 3)
    assert str(ExitCode.USAGE) == "2"  # an IntEnum prints as its number, as an exit status does


@pytest.mark.parametrize("kind", ["UnsafeInput", "PathError"])
def test_errors_that_keep_a_builtin_base_are_bad_input_too(kind):
    from harness.gates import confine
    from harness.model import semantic_diff

    error = getattr(confine, kind, None) or getattr(semantic_diff, kind)
    assert issubclass(error, BadInput) and issubclass(error, OSError | ValueError)


def test_a_courtesy_that_fails_goes_on_quietly_unless_the_run_is_strict_and_the_error_is_a_bug(monkeypatch):
    from omegaconf.errors import ConfigKeyError

    from harness.gates.errors import STRICT, courtesy_failed

    from_the_tree = [HydraException("no such group"), ConfigKeyError("k"), BadInput("x.yaml:1: bad"), OSError("gone")]
    bug = AttributeError("'NoneType' object has no attribute 'path'")
    monkeypatch.setenv(STRICT, "1")  # the suite sets it (tests/conftest.py): said here so the test stands alone
    for error in from_the_tree:
        courtesy_failed(error)  # what a user's tree raises: the report goes on without the courtesy
    with pytest.raises(AttributeError):
        courtesy_failed(bug)
    monkeypatch.delenv(STRICT)
    courtesy_failed(bug)  # a user's run: the report stands without the courtesy
