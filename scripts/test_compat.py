"""Run the compose and review tests at both ends of the supported range (`make test-compat`).

Two fresh virtual environments, made in a temporary folder outside the checkout: the lowest Python available
here with the lowest release every declared dependency allows (the floors in pyproject.toml: hydra-core, omegaconf,
PyYAML, tree-sitter, tree-sitter-bash, and the [pytest] extra's pytest, syrupy, pytest-xdist), and the highest Python
available with the highest releases the ranges allow. Each installs this checkout (not editable, so the
environment tests what a user installs), checks that `config-harness --version` starts, and runs the tests.
Standard library only: it runs before any environment exists.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The tests that compose (fidelity with plain Hydra, Hydra's semantics, the pytest plugin) and review.
TESTS = [
    "tests/unit/composition/test_hydra_compat.py",
    "tests/unit/composition/test_compose.py",
    "tests/unit/adopt",
    "tests/integration/test_fidelity.py",
    "tests/integration/test_hydra_semantics.py",
    "tests/integration/test_review.py",
    "tests/integration/test_one_engine.py",
    "tests/integration/test_schemas.py",
    "tests/integration/test_init.py",
    "tests/unit/runner/test_launches_static.py",  # launch scripts through tree-sitter's bash grammar
    "tests/integration/test_search_path_env.py",  # Hydra's search path step, which the session takes over
    "tests/integration/test_plugin_workflow.py",  # the pytest plugin: syrupy's hooks, pytest's report
    "tests/e2e/test_plugin_sessions.py",  # two pytest-xdist workers, and verl's tree through the plugin
]
# The extras whose dependencies are pinned too: the pytest plugin's (pytest, syrupy) and pytest-xdist.
PINNED_EXTRAS: tuple[str, ...] = ("pytest", "xdist")


def requirement_ranges() -> dict[str, str]:
    """The version ranges pyproject.toml declares for every dependency of the package and of its pinned extras
    (`{'hydra-core': '>=1.3.2,<1.4', 'tree-sitter-bash': '>=0.23.1,<0.26', ...}`): every one has a floor (most a cap too)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dependencies = [*project["dependencies"], *(d for extra in PINNED_EXTRAS for d in project["optional-dependencies"][extra])]
    ranges = {}
    for dependency in dependencies:
        name, spec = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", dependency).groups()  # type: ignore[union-attr]
        if name != "config-harness":  # an extra naming another extra of this package
            ranges[name] = spec.replace(" ", "")
    return ranges


def floor(spec: str) -> str:
    """The lowest version a range allows: the bound of its `>=`."""
    match = re.search(r">=([0-9][^,]*)", spec)
    if match is None:
        sys.exit(f"test-compat: the range {spec!r} in pyproject.toml has no '>=' floor")
    return match.group(1)


def pythons() -> list[Path]:
    """Interpreters of at least the project's requires-python, lowest first (on PATH and in pyenv's folder)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    minimum = tuple(int(part) for part in floor(project["requires-python"]).split(".")[:2])
    found: dict[tuple[int, int], Path] = {}
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(f"{pyenv}/versions/3.*/bin/python3"))
    candidates += [path for minor in range(minimum[1], 20) if (path := shutil.which(f"python3.{minor}"))]
    for candidate in candidates:
        try:
            answer = subprocess.run(
                [candidate, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, check=True
            ).stdout.split()
        except (OSError, subprocess.CalledProcessError):
            continue
        version = (int(answer[0]), int(answer[1]))
        if version >= minimum:
            found.setdefault(version, Path(candidate))
    if not found:
        sys.exit(f"test-compat: no Python >= {'.'.join(map(str, minimum))} found")
    return [found[version] for version in sorted(found)]


def run(command: list[str], **kwargs: object) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def one_end(name: str, python: Path, pins: list[str], folder: Path, tests: list[str], workers: str) -> None:
    """A venv with `pins`, this checkout installed from a copy (nothing written into it), then the tests."""
    venv = folder / name
    run([str(python), "-m", "venv", str(venv)])
    bin_dir = venv / "bin"
    # Building from a copy keeps setuptools' build/ and egg-info out of the checkout.
    source = folder / f"{name}-source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".cache", ".git", "build", "*.egg-info", "__pycache__"))
    run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{source}[test]", *pins])
    run([str(bin_dir / "config-harness"), "--version"])
    # What pip resolved each range to, so the log shows the versions the tests ran on.
    names = [re.match(r"[A-Za-z0-9_.-]+", pin).group(0) for pin in pins]  # type: ignore[union-attr]
    run(
        [
            str(bin_dir / "python"),
            "-c",
            "import sys, importlib.metadata as m; print('test-compat: installed', *(f'{n}=={m.version(n)}' for n in sys.argv[1:]))",
            *names,
        ]
    )
    # The tests run from the checkout (its tests/ and the .cache/ of fetched wheels), on the venv's versions.
    run([str(bin_dir / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers.split(), *tests], cwd=ROOT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["lowest", "highest"], help="run one end of the range")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    parser.add_argument("--workers", default="-p no:xdist", help="pytest worker options (default: one process)")
    parser.add_argument("tests", nargs="*", default=TESTS)
    args = parser.parse_args()
    ranges = requirement_ranges()
    interpreters = pythons()
    ends = {
        "lowest": (interpreters[0], [f"{name}=={floor(spec)}" for name, spec in ranges.items()]),
        "highest": (interpreters[-1], [f"{name}{spec}" for name, spec in ranges.items()]),
    }
    folder = Path(tempfile.mkdtemp(prefix="config-harness-compat-"))
    try:
        for name, (python, pins) in ends.items():
            if args.only in (None, name):
                print(f"test-compat: {name}: {python} with {' '.join(pins)}", flush=True)
                one_end(name, python, pins, folder, args.tests, args.workers)
    except subprocess.CalledProcessError as error:
        print(f"test-compat: failed: {' '.join(map(str, error.cmd))} (exit {error.returncode})", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"test-compat: kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
