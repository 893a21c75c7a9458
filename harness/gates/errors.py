"""What a run ends with: the exit codes, and the one base of every error that bad input causes.

Both shells (the command line and the pytest plugin) ask `bad_input_line` whether an error is bad input and for
its one line: the CLI prints it and exits 2, the plugin fails collection (or the test) with it; anything else is
a bug in config-harness (exit 3). It imports nothing of the harness, so every module may raise from it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from enum import IntEnum

import yaml

__all__ = ["STRICT", "BadInput", "ExitCode", "bad_input_line", "courtesy_failed", "describe_yaml_error", "error_chain"]


class ExitCode(IntEnum):
    """Every exit code of `config-harness` (INTERFACE.md fixes 0 to 3; 130 and 141 are what a shell reports)."""

    OK = 0
    FINDINGS = 1
    USAGE = 2
    INTERNAL = 3
    INTERRUPTED = 130  # stopped by Ctrl-C (SIGINT)
    BROKEN_PIPE = 141  # stopped by SIGPIPE, as `yes | head -1` is


def error_chain(error: BaseException, causes_only: bool = False) -> Iterator[BaseException]:
    """The error, then what caused it (or, unless `causes_only`, was being handled), outermost first; each once.

    Every walk over `__cause__`/`__context__` goes through here: under a tracer (coverage, a debugger) or with
    OC_CAUSE=1, OmegaConf sets a ConfigKeyError's `__cause__` to itself, and an unguarded loop never ends.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ if causes_only else current.__cause__ or current.__context__


class BadInput(Exception):
    """Input the harness cannot use (settings, contracts, YAML, a flag, a git ref, a wheel, an artifact): the run
    ends with exit 2 and one line naming the file (and line) or key, never a traceback. Every error of the harness
    that input causes derives from it; an error that means a bug does not."""


def describe_yaml_error(error: yaml.YAMLError, where: str) -> str:
    """One line for a YAML error: `file:line: invalid YAML: problem`."""
    if isinstance(error, BadInput):  # one of ours (a file past a budget): its message already says what and where
        return f"{where}: {error}"
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    location = f"{where}:{mark.line + 1}" if mark else where
    problem = getattr(error, "problem", None) or getattr(error, "context", None) or str(error)
    return f"{location}: invalid YAML: {problem}"


def bad_input_line(error: BaseException) -> str | None:
    """The one line that says what is wrong with the input, or None when `error` is a bug, not bad input.

    Besides the harness's own errors, three kinds from outside are bad input: a path the user gave (or the disk)
    refused (OSError), YAML that does not parse, and Hydra's own errors outside a case's composition (one that
    fails inside a run is a case finding; Hydra's errors elsewhere name config content)."""
    from hydra.errors import HydraException  # Hydra costs its import only to a shell that met an error

    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    if isinstance(error, yaml.YAMLError):
        return describe_yaml_error(error, "YAML input")
    if isinstance(error, BadInput | OSError | HydraException):
        # Hydra lists its whole search path after a config it cannot find: folders of this machine (a review's copy of
        # its base in the cache), which no one acts on and no report names.
        return " ".join(str(error).split()).split(" Config search path:", 1)[0] or type(error).__name__
    return None


# The one switch of strict runs: the test suite sets it (tests/conftest.py), so a bug in a courtesy fails a test.
STRICT = "CONFIG_HARNESS_STRICT"


def courtesy_failed(error: Exception) -> None:
    """Called by the `except Exception` of a courtesy (provenance, a hint: the report stands without it), which must
    stay broad because a user's tree can make Hydra and OmegaConf raise anything. It returns, and the report goes on
    without the courtesy; under CONFIG_HARNESS_STRICT=1 an error that is not one a config tree causes (Hydra's,
    OmegaConf's, bad input, the disk's, YAML's) is raised again: a bug of the harness fails loudly, never quietly."""
    if os.environ.get(STRICT) != "1":
        return
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    if not isinstance(error, BadInput | OSError | yaml.YAMLError | HydraException | OmegaConfBaseException | RecursionError):
        raise error
