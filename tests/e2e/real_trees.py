"""Helpers for end-to-end runs on other projects' real Hydra trees (from PyPI wheels, never imported).

Each tree is composed by plain Hydra once per session (`hydra.compose` in a fresh `initialize_config_dir`),
and the harness's goldens and findings are compared with that reference.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pickle
import shutil
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.cli import main
from harness.composition.render import parse_yaml

# The shared test data (verl's history as git bundles): beside the project, or where CONFIG_HARNESS_TEST_DATA says
# (a worktree elsewhere).
SHARED_DATA = Path(os.environ.get("CONFIG_HARNESS_TEST_DATA") or Path(__file__).resolve().parents[2].parent / "shared" / "data")


@dataclass(frozen=True)
class PlainFailure:
    """A case plain Hydra could not compose, and why."""

    message: str


@dataclass(frozen=True)
class Project:
    """A harness project over a real tree: its settings, its generated goldens and plain Hydra's compositions."""

    folder: Path
    tree: Path
    settings: str  # the settings TOML without config_dir / snapshot_dir
    version_base: str | None
    cases: list[dict[str, Any]]
    plain: dict[str, Any]  # case id -> plain tree, or PlainFailure
    report: dict[str, Any]  # `check --format json` right after `generate`

    @property
    def snapshots(self) -> Path:
        return self.folder / "snapshots"


def run_cli(*args: str) -> tuple[int, str]:
    """The CLI in process: exit code and stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()


def plain_compose(tree: Path, cases: list[dict[str, Any]], version_base: str | None, warned: set[str] | None = None) -> dict[str, Any]:
    """Every case composed by plain Hydra in one fresh initialize_config_dir: unresolved tree or PlainFailure.

    `warned` collects the warnings Hydra raises while composing (not the version_base notice of initializing)."""
    plain: dict[str, Any] = {}
    with initialize_config_dir(config_dir=str(tree), version_base=version_base):
        for case in cases:
            try:
                with warnings.catch_warnings(record=True) as raised:
                    warnings.simplefilter("always")
                    config = compose(case["config_name"], overrides=case["overrides"])
                if warned is not None:
                    warned.update(" ".join(str(w.message).split()) for w in raised)
            except Exception as error:  # any Hydra failure: the harness must fail that case too
                plain[case["id"]] = PlainFailure(" ".join(str(error).split()))
            else:
                plain[case["id"]] = OmegaConf.to_container(config, resolve=False)
    return plain


def write_settings(folder: Path, config_dir: Path, snapshot_dir: Path, settings: str) -> Path:
    """A standalone settings file for a tree (fetched outside the project: read_outside names it) and a snapshot folder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "harness.toml"
    path.write_text(
        f'config_dir = "{config_dir}"\nread_outside = ["{config_dir}"]\nsnapshot_dir = "{snapshot_dir}"\n{settings}',
        encoding="utf-8",
    )
    return path


def make_project(folder: Path, tree: Path, settings: str, version_base: str | None = None) -> Project:
    """Generate every golden of a real tree, check it, and compose every case with plain Hydra."""
    path = write_settings(folder, tree, folder / "snapshots", settings)
    code, out = run_cli("--settings", str(path), "--jobs", "1", "list", "--format", "json")
    assert code == 0, out
    cases = json.loads(out)["cases"]
    run_cli("--settings", str(path), "--jobs", "1", "generate")
    code, out = run_cli("--settings", str(path), "--jobs", "1", "check", "--format", "json")
    return Project(folder, tree, settings, version_base, cases, plain_compose(tree, cases, version_base), json.loads(out))


def shared_project(
    tmp_path_factory: pytest.TempPathFactory, name: str, fetch: Callable[[], Path], settings: str, version_base: str | None = None
) -> Project:
    """make_project once per test session, even when xdist spreads the tree's tests over several workers.

    xdist workers share their session's temporary root: the first worker fetches the tree and builds the project
    under a file lock and pickles it, the others load it.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, stored = shared / f"real-tree-{name}", shared / f"real-tree-{name}.pickle"
    with open(shared / f"real-tree-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stored.exists():
            return pickle.loads(stored.read_bytes())
        project = make_project(folder, fetch(), settings, version_base)
        stored.write_bytes(pickle.dumps(project))
        return project


def golden_tree(project: Project, case: dict[str, Any]) -> Any:
    """A case's golden, loaded as YAML."""
    return parse_yaml((project.snapshots / Path(case["golden"]).name).read_text(encoding="utf-8"))


def assert_goldens_equal_plain_hydra(project: Project) -> None:
    """Every case plain Hydra composes is ok in the harness with a golden equal to it; the rest fail in both."""
    statuses = {case["id"]: case for case in project.report["cases"]}
    composed = [case for case in project.cases if not isinstance(project.plain[case["id"]], PlainFailure)]
    assert composed, "plain Hydra composed no case: the test would prove nothing"
    for case in project.cases:
        plain = project.plain[case["id"]]
        result = statuses[case["id"]]
        if isinstance(plain, PlainFailure):
            assert result["status"] == "error", (case["id"], plain.message)
            continue
        assert result["status"] == "ok", (case["id"], result["findings"][:3])
        assert golden_tree(project, case) == plain, case["id"]


def check_edit(project: Project, tmp_path: Path, file: str, old: str, new: str, narrower: str = "") -> tuple[dict[str, Any], set[str]]:
    """Edit one file of a copy of the tree (`old` -> `new`, exactly once) and check the copy against the project's goldens.

    Asserts the edit changed some case's plain-Hydra composition and that the check fails exactly those
    cases; returns the check report and the changed ids. `narrower` is extra settings (e.g. an explicit
    `engines` list) that keeps the matrix small.
    """
    copy = Path(shutil.copytree(project.tree, tmp_path / "config"))
    replace_once(copy / file, old, new)
    # Goldens are written and read only inside the project, so the check runs on a copy of the project's.
    snapshots = Path(shutil.copytree(project.snapshots, tmp_path / "snapshots"))
    settings = write_settings(tmp_path, copy, snapshots, narrower + project.settings)
    code, out = run_cli("--settings", str(settings), "--jobs", "1", "check", "--format", "json")
    assert code in (0, 1), out
    report = json.loads(out)
    ids = {case["id"] for case in report["cases"]}
    cases = [case for case in project.cases if case["id"] in ids]
    assert len(cases) == len(ids), "the narrowed matrix must be a part of the project's"
    edited = plain_compose(copy, cases, project.version_base)
    changed = {case_id for case_id in ids if edited[case_id] != project.plain[case_id]}
    assert changed, f"editing {file} changed no case's plain-Hydra composition: the test would prove nothing"
    assert failed_ids(report) == changed
    return report, changed


def failed_ids(report: dict[str, Any]) -> set[str]:
    """Ids of the cases the check did not find ok."""
    return {case["id"] for case in report["cases"] if case["status"] != "ok"}


def replace_once(path: Path, old: str, new: str) -> None:
    """Edit a config file, insisting the edit applies exactly once (so a tree upgrade cannot void the test)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: {old!r} occurs {text.count(old)} times"
    path.write_text(text.replace(old, new), encoding="utf-8")
