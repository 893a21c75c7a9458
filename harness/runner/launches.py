"""A repository's launch commands as cases: find them in its scripts, compose each with Hydra, name what broke.

A launch is composed as Hydra would compose it: the entry point's config (from `--config-name`, the
settings' `[commands.modules]`, or its `@hydra.main` read with `ast`, never imported), the group overrides
through a full compose, then each value override applied in order with Hydra's own override code. Applying
them one at a time, and going on after a failure, names every override that no longer applies where
Hydra's own run stops at the first.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from hydra.errors import MissingConfigException

from harness.baselines import gitrepo
from harness.composition import hydra_compat, overrides, sweeps
from harness.composition.compose import ComposeError, HydraSession, describe_error, pickled
from harness.composition.provenance import Source
from harness.composition.session import current
from harness.composition.store import cache_add_variant, cache_get, cache_put, cache_variants, store_open, tree_digest
from harness.gates import linear
from harness.gates.budget import NOT_READ, BudgetExceeded
from harness.gates.confine import UnsafeInput, is_inside
from harness.gates.errors import error_chain
from harness.gates.reader import InputLimitError, git_deletion, read_bytes
from harness.model.findings import (
    DOES_NOT_COMPOSE,
    ERROR,
    KEY_REMOVED,
    WARNING,
    CaseResult,
    Finding,
    Kind,
    LaunchFix,
    LaunchTally,
    Origin,
    Status,
)
from harness.model.hints import key_hint, key_paths
from harness.model.matrix import LAUNCH_PREFIX as PREFIX
from harness.model.matrix import Case
from harness.readers.bash import PLACEHOLDER_MARK, Environment, Launch, Override, Piece, alternatives_of, launches_in, placeholder
from harness.readers.entries import (
    NotStatic,
    config_folder,
    hydra_main,
    install_roots,
    is_package_of,
    module_file,
)  # entry points as Python reads them
from harness.rules import invariants
from harness.rules.known_entries import unplaced
from harness.runner.compare import warning_findings

# Why an override no longer applies, in our words; JSON carries the key in a launch finding's `detail`.
NO_SUCH_KEY = "no such key"  # the key was never there: a typo, said with the closest key that is
HINT = "; did you mean "  # how harness.model.hints.did_you_mean starts
KEY_EXISTS = "key now exists"
OPTION_REMOVED = "group option removed"  # git had the option's file, and the tree lacks it (deleted)
NO_SUCH_OPTION = "no such option"  # the option was never a file git had: a typo, said with the closest option
GROUP_REMOVED = "group removed"
TYPE_CHANGED = "type changed"
VALUE_DIFFERS = "value differs"
BAD_OVERRIDE = "not a Hydra override"
CONFIG_REMOVED = "config removed"
REFUSED = "not read"  # the override asks for something the harness never reads (a pkg:// search path outside the project)
ENTRY_REMOVED = "entry point removed"  # a review: the base has this Hydra entry point, the pull request lost it
ENTRY_MISSING = "entry point not found"  # the program a launch runs is not in the repository
NOT_EXTRACTED = "not extracted"
# Why an argument holds `\r`: bash keeps a CRLF line end's `\r` in the line's last word (docs/launches.md).
CRLF_HINT = " (it holds \\r: the script has CRLF line ends, which bash keeps in each line's last word; save it with LF line ends)"
NEVER_RUNS = "bash stops before it"  # a run with nothing set stops first (`set -u` and an unset variable, `exit`)
MANDATORY_UNSET = "mandatory value not given"  # a `???` the launch leaves unset: the program stops when it reads it
# A launch run with `-m` (or a config's `hydra.mode: MULTIRUN`) is a sweep: one launch per point (harness/composition/sweeps.py).
SWEEP_REFUSED = "sweep refused"  # Hydra's basic sweeper refuses it (an `interval(...)`, a sweep over `hydra.*`)
SWEEP_EMPTY = "sweep runs nothing"  # a swept value list that is empty (a `glob` no option matches, `range(5,1)`)
SWEEP_IN_PART = "sweep checked in part"  # warning: more points than sweeps.MAX_POINTS; those checked take each value once
SWEEP_PLUGIN = "sweep not expanded"  # warning: a sweeper plugin (optuna, ax, nevergrad) chooses its points when it runs
SWEEP_UNRUN = "sweep without --multirun"  # a sweep in a launch Hydra runs as one run: it refuses the override
# Commands that are no launch of a Hydra application: no case and no finding (`list --verbose` names each once).
NOT_HYDRA = "not a Hydra program"  # the program exists and has no @hydra.main (a converter, a data script, a test)
UNAVAILABLE = "not available"  # the program sits in a git submodule that is not checked out (CI's default checkout)
SKIPPED = frozenset({NOT_HYDRA, UNAVAILABLE})
# A program the repository does not have, given no override and no Hydra flag: a server or a data script, never a launch.
MISSING_NOT_HYDRA = "is not in the repository and takes no Hydra arguments (no override, no --config-name)"


@dataclass(frozen=True)
class Entry:
    """A Hydra entry point: its config folder and config name, as its `@hydra.main` (or the settings) say."""

    config_dir: Path | None
    config_name: str | None
    version_base: str | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a launch's program gives no Hydra entry point: its kind (ENTRY_MISSING, NOT_HYDRA, UNAVAILABLE) and reason."""

    kind: str
    reason: str
    submodule: str = ""  # UNAVAILABLE: the submodule's path


@dataclass(frozen=True)
class CommandCase:
    """One launch as a case: `cmd/<script>#<n>`, the config it composes and its overrides."""

    id: str
    launch: Launch
    config_dir: Path | None = None
    config_name: str | None = None
    version_base: str | None = None
    search_path: tuple[Path, ...] = ()
    problem: str = ""  # why it cannot be composed at all (not extracted, entry point gone): one line
    problem_kind: str = ""
    submodule: str = ""  # UNAVAILABLE: the git submodule (not checked out) the program lies in
    candidate: str = ""  # `--config-name` as written when the script cannot know it: this case is one root it may take
    point: tuple[str, ...] = ()  # one point of a sweep: its swept overrides, in Hydra's order (the id names them)
    note: str = ""  # a warning on a launch that composes: a sweep checked in part, or whose points a plugin chooses
    note_kind: str = ""  # SWEEP_IN_PART or SWEEP_PLUGIN

    @property
    def skipped(self) -> bool:
        """True for a command that is no launch of a Hydra application (not a case, no finding)."""
        return self.problem_kind in SKIPPED

    @property
    def never_runs(self) -> str:
        """Why bash, run with nothing set, stops before this launch ("" when it reaches it). Such a launch is still
        composed and its values compared like any launch (a pull request that edits it is seen); it also fails, at
        its own line, with this cause."""
        launch = self.launch
        return f"bash stops before this launch runs, at {launch.stops}" if launch.stops and not launch.only_when else ""

    @property
    def overrides(self) -> tuple[str, ...]:
        """The override texts given to Hydra (placeholders where a value is unknown)."""
        return tuple(o.text for o in self.launch.overrides)

    @property
    def written(self) -> tuple[str, ...]:
        """The overrides as the script writes them where a value is unknown (what `list` and messages show)."""
        return tuple(o.shown for o in self.launch.overrides)

    def as_case(self) -> Case:
        """The matrix's Case for this launch (reports and `explain` read it)."""
        return Case(self.id, self.config_name or "", self.overrides)

    @property
    def signature(self) -> tuple[Any, ...]:
        """What this launch runs as its script writes it, never where it sits: the program, `--config-name` as written
        and the overrides as Hydra gets them (a launch checked as each root its unknown `--config-name` may take is one
        launch per root, `candidate`). A review pairs a launch with the base's by it."""
        launch = self.launch
        return (
            launch.program,
            launch.is_module,
            launch.config_name,
            self.overrides,
            self.config_name if self.candidate else "",
            *((launch.environment,) if launch.environment else ()),
        )

    @property
    def identity(self) -> str:
        """The launch's content identity: a digest of its command normalized (the program, `--config-name` as written,
        the overrides' keys with their `+`/`~` but not their values, the root a computed config name takes), the config
        name it composes (the entry point's own when the script names none) and, for one that cannot be extracted, why
        (lines left out). Equal for the same command wherever it sits and whatever values it passes (a failure about
        no key never depends on them); a known entry and a review's `at_base` name a launch by it."""
        program, is_module, written, overrides, root, *_ = self.signature
        keys = tuple(text.partition("=")[0] for text in overrides)
        error = unplaced(self.launch.error, self.launch.script)
        return hashlib.sha256(repr((program, is_module, written, keys, root, self.config_name, error)).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Failure:
    """One override of a launch that does not apply, or a launch that cannot be composed at all."""

    reason: str
    key: str
    override: Override | None
    message: str
    fix: str | None = None
    hint: str = ""  # `; did you mean 'x'?` for a key that is not in the config (said unless the baseline had it)


@dataclass
class Checked:
    """A command case after composing: what failed, which overrides were not checked, and the config."""

    case: CommandCase
    failures: list[Failure] = field(default_factory=list)
    unchecked: list[Override] = field(default_factory=list)  # an unknown value that the key's type refused
    config: Any = None
    selection: tuple[str, ...] = ()  # the config name and the group overrides: what the launch composes before values
    tree: Any = None  # the composed config as a plain tree, when the composer keeps trees (a review compares them)
    warnings: tuple[Any, ...] = ()  # compose.HydraWarning: what Hydra warned while composing it
    unresolved: tuple[Any, ...] = ()  # rules.invariants.Problem: interpolations the program cannot resolve
    reused: bool | None = None  # its composition came from the cache (False: composed now; None: none composed)
    # The digest of what decided it (its kept entry: the launch, every read and its answer): two checks with the same
    # digest have the same failures and the same tree (None: not kept).
    inputs: bytes | None = None


def case_id(launch: Launch) -> str:
    """`cmd/<script path>#<n>`; a reading under an environment its script tests names it after
    (`cmd/run.sh#2 (only when CUDA_VISIBLE_DEVICES is set)`)."""
    return f"{PREFIX}{launch.script}#{launch.index}" + (f" ({launch.when})" if launch.when else "")


class Project:
    """The files a set of command cases reads: scripts, entry points and config folders below one root."""

    def __init__(self, root: Path, config_dir: Path, modules: Mapping[str, str], version_base: str | None = None) -> None:
        self.root = root.resolve()
        self.config_dir = config_dir
        self.modules = dict(modules)
        self.version_base = version_base
        self._entries: dict[tuple[str, bool], Entry | Refusal] = {}
        self._install_roots: dict[str, list[Path]] = {}
        self._submodules: tuple[str, ...] | None = None
        self._all_submodules: tuple[str, ...] | None = None
        self.sourced_files: set[str] = set()  # the files its scripts `source` (relative to the root): a review reads them at the base too

    @property
    def submodules(self) -> tuple[str, ...]:
        """The `.gitmodules` paths below the root that git records as submodules (gitlinks), checked out or not."""
        if self._all_submodules is None:
            listed = submodule_paths(self.root)
            linked = gitrepo.gitlinks(self.root) if listed else set()
            self._all_submodules = tuple(path for path in listed if path in linked)
        return self._all_submodules

    @property
    def absent_submodules(self) -> tuple[str, ...]:
        """The `.gitmodules` paths below the root whose folder holds nothing (not checked out), read as text, that
        git records as submodules: a `.gitmodules` entry alone would let a pull request excuse a deleted entry."""
        if self._submodules is None:
            self._submodules = tuple(path for path in self.submodules if _empty_folder(self.root / path))
        return self._submodules

    def linked_into_absent(self, path: Path) -> tuple[str, str] | None:
        """(the submodule, the path it leads to) when `path` (a config file or folder) lies in a git submodule that is
        not checked out, reached through a link or not; None otherwise. What a config that "does not exist" is."""
        if not self.absent_submodules or not is_inside(path.parent, self.root):
            return None
        real = Path(os.path.realpath(path))  # as far as the links lead, dangling ones too
        if not is_inside(real, self.root):
            return None
        target = real.relative_to(self.root.resolve()).as_posix()
        submodule = next((s for s in self.absent_submodules if target.startswith(s + "/")), None)
        return (submodule, target) if submodule is not None else None

    def submodule_of(self, entry: str, is_module: bool) -> str:
        """The absent submodule an entry's file would lie in ("" for none)."""
        relative = module_path(entry) if is_module else entry
        return next((path for path in self.absent_submodules if relative == path or relative.startswith(path + "/")), "")

    def entry_file(self, entry: str, is_module: bool) -> Path | None:
        """The Python file of a module (or script) inside the project, a module's found as `python -m` finds it with
        the project's vendored projects installed (entries.module_file); None when there is none."""
        if is_module:
            folder, _, module = entry.rpartition("/")
            found = module_file(module, self.root / folder, self.install_roots(folder))
            return found if found is not None and is_inside(found, self.root) else None
        candidate = self.root / entry
        return candidate if candidate.is_file() and is_inside(candidate, self.root) else None

    def install_roots(self, folder: str) -> list[Path]:
        """Where Python finds modules run from `folder` (entries.install_roots), listed once per folder: the files a
        run reads do not change while it runs."""
        if folder not in self._install_roots:
            self._install_roots[folder] = install_roots(self.root / folder)
        return self._install_roots[folder]

    def sourced(self, path: str) -> bytes | str:
        """A file a script `source`s, read (never run) when it is inside the project; else why it is not."""
        self.sourced_files.add(path)
        try:
            return read_bytes(self.root / path, (self.root,))
        except FileNotFoundError:
            return f"{path} does not exist in the repository"
        except (OSError, InputLimitError) as error:  # outside the project too (UnsafeInput)
            return f"{path} is not read ({error})"

    def is_entry(self, entry: str, is_module: bool) -> bool:
        """True for an entry this project owns: mapped in the settings, or a module of one of its top-level packages."""
        folder, _, module = entry.rpartition("/")
        if entry in self.modules or module in self.modules:
            return True
        if is_module:
            # A package of the project (entries.is_package_of), or one inside a submodule not checked out (said so).
            return is_inside(self.root / folder, self.root) and (
                is_package_of(module, self.root / folder, self.install_roots(folder)) or bool(self.submodule_of(entry, True))
            )
        return entry.endswith(".py") and self.entry_file(entry, False) is not None

    def entry(self, entry: str, is_module: bool) -> Entry | Refusal:
        """The entry's config folder and name; why not when the project has no such Hydra app."""
        key = (entry, is_module)
        if key not in self._entries:
            self._entries[key] = self._read_entry(entry, is_module)
        return self._entries[key]

    def _read_entry(self, entry: str, is_module: bool) -> Entry | Refusal:
        path = self.entry_file(entry, is_module)
        main = None
        unread = ""  # why the entry module was not read, past a budget
        if path is not None:
            try:
                main = hydra_main(read_bytes(path, (self.root,)).decode("utf-8", "replace"), path, _relative(path, self.root))
            except BudgetExceeded as error:
                unread = str(error)
            except (OSError, InputLimitError):
                main = None
        config_path = (main or {}).get("config_path")
        mapped = self.modules.get(entry, self.modules.get(entry.rpartition("/")[2]) if is_module else None)
        if mapped is not None:
            folder = self.config_dir
            found = config_folder(config_path, path, (self.root,)) if path is not None else None
            if isinstance(found, Path):
                folder = found
            return Entry(folder, mapped, _version_base(main))
        if path is None:
            submodule = self.submodule_of(entry, is_module)
            if submodule:
                return Refusal(UNAVAILABLE, f"lies in the git submodule {submodule}, which is not checked out", submodule)
            return Refusal(ENTRY_MISSING, f"{'module' if is_module else 'script'} {entry} does not exist in the repository")
        if main is None:
            if unread:  # past a budget: the entry exists, and what it says is not known
                return Refusal(NOT_EXTRACTED, unread)
            # A converter, a data script or a test run from the same script: it was never a Hydra application.
            return Refusal(NOT_HYDRA, "has no @hydra.main (map it in [commands.modules] if it composes a config)")
        for argument in ("config_path", "config_name"):
            if isinstance(main.get(argument), NotStatic):
                return Refusal(
                    NOT_EXTRACTED,
                    f"@hydra.main's {argument} cannot be read without running it ({main[argument].why}); map {entry} in [commands.modules]",
                )
        config_folder_found = config_folder(config_path, path, (self.root,))
        if isinstance(config_folder_found, NotStatic):
            return Refusal(
                NOT_EXTRACTED,
                f"@hydra.main's config_path cannot be read without running it ({config_folder_found.why}); map {entry} in [commands.modules]",
            )
        name = main.get("config_name") if isinstance(main.get("config_name"), str) else None
        return Entry(config_folder_found, name, _version_base(main))


def absent_config(settings: Any, config_name: str) -> str:
    """Why a root config of the settings cannot be found, when it is a link into (or lies in) a git submodule that
    is not checked out: `config/ppo_trainer.yaml is a link to verl/.../ppo_trainer.yaml, in the git submodule verl,
    which is not checked out`; `conf/x.yaml was deleted by commit abc1234 (...)` for a file git had; "" otherwise (a
    config that is simply missing, or registered from Python)."""
    root = settings.origin.parent
    config = settings.config_dir / f"{config_name}.yaml"
    absent = Project(root, settings.config_dir, {}).linked_into_absent(config)
    if absent is not None:
        return _absent_said(config, root, absent)
    gone = "" if config.exists() else git_deletion(config)
    return f"{_relative(config, root)} {gone}" if gone else ""


def _absent_said(config: Path, root: Path, absent: tuple[str, str]) -> str:
    shown = _relative(config, root)
    via = f"is a link to {absent[1]}, in" if shown != absent[1] else "lies in"
    return f"{shown} {via} the git submodule {absent[0]}, which is not checked out"


def module_path(entry: str) -> str:
    """A module's file path without `.py`, relative to the project (`training/verl.trainer.main_ppo` ->
    `training/verl/trainer/main_ppo`: a module found below the root keeps its folder)."""
    folder, _, module = entry.rpartition("/")
    return f"{folder}/" * bool(folder) + module.replace(".", "/")


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if is_inside(path, root) else path.name


def _path_values(text: bytes) -> Iterator[bytes]:
    """The values of the `path = VALUE` lines of a git config text, line by line: the regular expression that read
    them let its leading whitespace run across every blank line from each line start (80,000 lines 6.8 s)."""
    for line in text.splitlines():
        key, equals, value = line.partition(b"=")
        if equals and key.strip() == b"path" and value.strip():
            yield value.strip()


def submodule_paths(root: Path) -> list[str]:
    """The `path = ...` entries of the root's `.gitmodules` (read as text through the one reader, never by git),
    each a relative path inside the root; anything else (absolute, `..`) is ignored."""
    try:
        text = read_bytes(root / ".gitmodules", (root,))
    except (OSError, InputLimitError):
        return []
    paths = []
    for value in _path_values(text):
        path = value.decode("utf-8", "replace").strip().strip('"').rstrip("/")
        parts = Path(path).parts
        if path and not Path(path).is_absolute() and ".." not in parts:
            paths.append(Path(path).as_posix())
    return paths


def _empty_folder(folder: Path) -> bool:
    """True for a folder with nothing in it (a submodule git has not checked out), or no folder at all."""
    try:
        return not folder.is_dir() or next(folder.iterdir(), None) is None
    except OSError:
        return True


def _version_base(main: dict[str, Any] | None) -> str | None:
    value = (main or {}).get("version_base")
    return value if isinstance(value, str) else None


def fixed_prefix(pattern: str) -> str:
    """The folders a glob names before its first wildcard (`examples/**/*.sh` -> `examples`; `*.sh` -> "")."""
    fixed = []
    for part in pattern.split("/")[:-1]:
        if any(ch in part for ch in "*?["):
            break
        fixed.append(part)
    return "/".join(fixed)


def find_scripts(root: Path, globs: Iterable[str], submodules: Iterable[str] = ()) -> list[Path]:
    """The scripts the settings' globs match below `root`, each once, sorted; none outside the project. A script in
    a git submodule (`submodules`, relative to `root`) is another repository's: only a glob whose fixed folders
    enter that submodule matches it (`**/*.sh` does not take a checked-out `verl/`'s own scripts)."""
    submodules = tuple(submodules)
    found: set[Path] = set()
    for pattern in globs:
        named = fixed_prefix(pattern) + "/"
        for path in root.glob(pattern):
            if not path.is_file() or not is_inside(path, root):
                continue
            relative = path.relative_to(root).as_posix()
            if any(relative.startswith(s + "/") and not named.startswith(s + "/") for s in submodules):
                continue
            found.add(path)
    return sorted(found)


def changed_scripts(top: Path, commit: str) -> list[str]:
    """The `.sh` files the working tree adds or edits against `commit`, untracked ones too, relative to the
    repository's top (a rename is an added file: its old name is the base's)."""
    try:
        listed = gitrepo.git(top, "diff", "--name-only", "--no-renames", "--diff-filter=d", "-z", commit, "--", "*.sh")
        listed += b"\0" + gitrepo.git(top, "ls-files", "-z", "--others", "--exclude-standard", "--", "*.sh")
    except gitrepo.GitError:
        return []
    return sorted({name for name in listed.decode("utf-8", "replace").split("\0") if name})


def outside_globs(project: Project, top: Path, changed: Iterable[str], globbed: Iterable[Path]) -> list[CommandCase]:
    """The launches of the project's Hydra programs in changed scripts that no `[[commands]]` glob matches (never a
    submodule's): what they run changes unseen, so a review names each. Only launches whose config is known count:
    a script outside the globs is nobody's promise, and a guess about it would be noise."""
    root = project.root.resolve()
    taken = {path.resolve() for path in globbed}
    scripts = []
    for name in changed:
        path = (top / name).resolve()
        if path in taken or not path.is_file() or not is_inside(path, root):
            continue
        relative = path.relative_to(root).as_posix()
        if not any(relative.startswith(submodule + "/") for submodule in project.submodules):
            scripts.append(project.root / relative)
    return [case for case in command_cases(project, scripts) if not case.problem_kind and case.config_name]


def command_cases(
    project: Project, scripts: Iterable[Path], settings_search_path: tuple[Path, ...] = (), cache_dir: Path | None = None
) -> list[CommandCase]:
    """Every launch in the scripts as a command case, in file order; a launch that cannot be read stays a case.
    `cache_dir`: each script's reading kept there (`read_launches`)."""
    with store_open(cache_dir, project.config_dir):  # refused where a Hydra session of it refuses
        return _command_cases(project, scripts, settings_search_path)


def _command_cases(project: Project, scripts: Iterable[Path], settings_search_path: tuple[Path, ...]) -> list[CommandCase]:
    cases = []
    for script in scripts:
        relative = script.relative_to(project.root).as_posix()
        try:
            source = read_bytes(script, (project.root,))
        except (OSError, InputLimitError) as error:
            cases.append(
                CommandCase(
                    f"{PREFIX}{relative}#1", Launch(relative, 1, 1, error=str(error)), problem=str(error), problem_kind=NOT_EXTRACTED
                )
            )
            continue
        for launch in read_launches(project, relative, source):
            cases += _candidates(project, _case_for(project, launch, settings_search_path))
    return cases


class _Asked:
    """The project's answers to what a reading of a script asked (which programs are the project's entry points, what
    a file it sources holds), each question once, recorded in order: a reading is a function of the script's bytes
    and these answers, so it is kept by them (`read_launches`)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.answers: dict[tuple[Any, ...], Any] = {}

    def is_entry(self, entry: str, is_module: bool) -> bool:
        question = ("entry", entry, is_module)
        if question not in self.answers:
            self.answers[question] = self.project.is_entry(entry, is_module)
        return cast(bool, self.answers[question])

    def sourced(self, path: str) -> bytes | str:
        answer = self.project.sourced(path)
        self.answers[("sourced", path)] = hashlib.blake2b(answer).digest() if isinstance(answer, bytes) else answer
        return answer

    def answer(self, question: tuple[Any, ...]) -> Any:
        """The project's answer to a recorded question now (a sourced file as its digest)."""
        if question[0] == "entry":
            return self.is_entry(question[1], question[2])
        self.sourced(question[1])
        return self.answers[question]


def read_launches(project: Project, relative: str, source: bytes) -> list[Launch]:
    """Every launch of one script and its readings under the environments it tests (`launches_in`), kept in the signed
    cache by the script's name and bytes and the answers its reading got from the project (issue 52: reading 200
    scripts with bash's grammar was half of a warm check). Reused only while the project gives each answer again."""
    key = tree_digest(b"launches read", relative, source)
    if key is not None:
        again = _Asked(project)  # asked as the reading did: a sourced file is noted as read here too
        for entry in cache_variants(key):
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], list)):
                continue
            if all(again.answer(question) == answer for question, answer in entry[0]):
                return cast(list[Launch], entry[1])
    asked = _Asked(project)
    launches = launches_in(relative, source, asked.is_entry, asked.sourced, readings=True)
    if key is not None:
        entry = (tuple(asked.answers.items()), launches)
        with contextlib.suppress(pickle.PicklingError, TypeError, AttributeError, RecursionError):
            pickle.dumps(entry)
            cache_add_variant(key, entry, lambda old: isinstance(old, tuple) and old[:1] == entry[:1])
    return launches


def readings_under(
    project: Project, script: str, environment: Environment, when: str, search_path: tuple[Path, ...] = ()
) -> list[CommandCase]:
    """Every launch of `script` (relative to the project) read under `environment` (`when`, in words), as command
    cases with the ids of that environment's readings: a review compares the base's reading under an environment
    its script tested with what the pull request's script runs there, when it no longer tests it. None when the
    script is not there."""
    try:
        source = read_bytes(project.root / script, (project.root,))
    except (OSError, InputLimitError):
        return []
    plain = launches_in(script, source, project.is_entry, project.sourced)
    read = launches_in(script, source, project.is_entry, project.sourced, environment=environment)
    return [
        case
        for launch in alternatives_of(plain, read, environment, when, every=True)
        for case in _candidates(project, _case_for(project, launch, search_path))
    ]


def known_parts(written: str) -> list[str]:
    """The parts of a `--config-name` the script knows, around its placeholders (`ppo___unset_alg__` -> `ppo_`, ``):
    a hand scanner, linear in the name (issue 53)."""
    parts, position = [], 0
    while (mark := written.find(PLACEHOLDER_MARK, position)) >= 0 and (end := written.find("__", mark + len(PLACEHOLDER_MARK))) >= 0:
        parts.append(written[position:mark])
        position = end + 2
    return [*parts, written[position:]]


def name_fits(name: str, parts: list[str]) -> bool:
    """Whether `name` is the known `parts` in order with at least one character in each gap (what each placeholder
    stands for). Leftmost first: linear in the name whatever the parts, where the regular expression `a.+a.+...b`
    backtracked through every split (six placeholders and a file named with 200 `a` ran past 120 s)."""
    if len(parts) == 1:
        return name == parts[0]
    first, *middle, last = parts
    if not name.startswith(first):
        return False
    position = len(first)
    for part in middle:
        position = name.find(part, position + 1)
        if position < 0:
            return False
        position += len(part)
    return len(name) - len(last) > position and name.endswith(last)


def root_configs(folder: Path, written: str) -> list[str]:
    """The root configs of a config folder a `--config-name` with unknown parts could name: the YAML files at its
    top (a group's options lie in folders below it; `_`-prefixed files are not roots) whose name fits the known
    parts (`ppo_${alg}` -> `ppo_*`), sorted."""
    parts = known_parts(written.removesuffix(".yaml"))
    try:
        files = [p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()]
    except OSError:
        return []
    return sorted({p.stem for p in files if not p.stem.startswith("_") and name_fits(p.stem, parts)})


def _candidates(project: Project, case: CommandCase) -> list[CommandCase]:
    """A launch whose `--config-name` is a value the script is given and cannot know (its first argument, a variable
    it never sets) as one case per root config that name could take (`cmd/<script>#<n>@<root>`), each checked as
    that root; the launch itself when its config is known, or when no root fits (it stays "not extracted")."""
    launch = case.launch
    if not (case.problem_kind == NOT_EXTRACTED and launch.name_written and case.config_dir is not None):
        return [case]
    if PLACEHOLDER_MARK not in (case.config_name or "") or not is_inside(case.config_dir, project.root):
        return [case]
    if any(mark in launch.name_written for mark in ("$(", "`", "<(")):
        return [case]  # the output of a command, never run: not a name the script is given, so not read as one
    roots = root_configs(case.config_dir, case.config_name or "")
    return [
        replace(case, id=f"{case.id}@{root}", config_name=root, problem="", problem_kind="", candidate=launch.name_written)
        for root in roots
    ] or [case]


def flagged_config_folder(project: Project, launch: Launch) -> Path | None:
    """The folder a launch's `--config-path` names (relative to its entry's file, as Hydra reads it), None when it
    names none or one the reader cannot know."""
    if launch.config_path is None:
        return None
    entry_file = project.entry_file(launch.program, launch.is_module)
    base = entry_file.parent if entry_file is not None else project.root
    written = launch.config_path
    if written.startswith(PLACEHOLDER_MARK):
        # `--config-path="$PROJECT_DIR/examples/x/config"` with PROJECT_DIR="$(pwd)": scripts run from the
        # project's root, so the part after the unknown prefix is read from there.
        base, written = project.root, written.split("__", 2)[-1].lstrip("/")
    return None if PLACEHOLDER_MARK in written else (base / written).resolve()


def _case_for(project: Project, launch: Launch, settings_search_path: tuple[Path, ...]) -> CommandCase:
    identifier = case_id(launch)
    entry = project.entry(launch.program, launch.is_module) if launch.entry else None
    if isinstance(entry, Refusal) and entry.kind in SKIPPED:
        return CommandCase(identifier, launch, problem=entry.reason, problem_kind=entry.kind, submodule=entry.submodule)
    if launch.error and not launch.hydra_like:  # `python missing.py --flag x`: not in the repository, and no Hydra app
        return CommandCase(identifier, launch, problem=MISSING_NOT_HYDRA, problem_kind=NOT_HYDRA)
    if launch.error or entry is None:  # what no Hydra program's arguments can be told from is said, not skipped
        said = launch.error if launch.error.startswith(NOT_READ) else f"could not be read: {launch.error}"
        return CommandCase(identifier, launch, problem=said, problem_kind=NOT_EXTRACTED)
    if isinstance(entry, Refusal):
        return CommandCase(identifier, launch, problem=entry.reason, problem_kind=entry.kind, submodule=entry.submodule)
    folder = entry.config_dir
    if launch.config_path is not None:
        folder = flagged_config_folder(project, launch)
    name = launch.config_name if launch.config_name is not None else entry.config_name
    if launch.name_written and (launch.entry in project.modules or launch.program in project.modules):
        name = entry.config_name  # `--config-name=${alg}.yaml`: the settings say which config the launch checks
    if name is not None:
        name = name.removesuffix(".yaml")
    problem = ""
    if launch.name_written and PLACEHOLDER_MARK in (name or ""):
        problem = (
            f"--config-name is {launch.name_written}, which the reader cannot know; map "
            f"{launch.entry} in [commands.modules] to the config to check it with"
        )
    elif folder is None or name is None:
        problem = f"the config folder or name is not known (set --config-name, or map {launch.entry} in [commands.modules])"
    elif not is_inside(folder, project.root):
        problem = "its config folder lies outside the project; it is not read"
    elif (absent := project.linked_into_absent(folder / f"{name}.yaml")) is not None:
        # A config that is a link into a submodule CI did not check out: not checked, said with the submodule and path.
        problem = f"its config {_absent_said(folder / f'{name}.yaml', project.root, absent)}"
        return CommandCase(identifier, launch, folder, name, problem=problem, problem_kind=UNAVAILABLE, submodule=absent[0])
    elif not folder.is_dir():
        problem = f"the config folder {folder.relative_to(project.root) if is_inside(folder, project.root) else folder} does not exist"
    extra = tuple((project.root / d).resolve() for d in launch.config_dirs if PLACEHOLDER_MARK not in d)
    extra = tuple(d for d in extra if d.is_dir() and is_inside(d, project.root))
    search = extra + settings_search_path
    return CommandCase(
        identifier,
        launch,
        folder,
        name,
        project.version_base or entry.version_base,
        search,
        problem,
        CONFIG_REMOVED if problem and "does not exist" in problem else NOT_EXTRACTED if problem else "",
    )


# ---- composing ----


def _classify(error: BaseException, override: Any, unknown: bool) -> tuple[str, str, str | None] | None:
    """(reason, message, fix) for an override Hydra refused; None for an unknown value a typed key refused."""
    text = override.input_line or ""
    key = override.key_or_group
    hydra_says = describe_error(error)
    if "Could not append to config" in hydra_says:
        return KEY_EXISTS, f"{key} now exists, so `+` cannot add it", text[1:]
    if "looks like a config group override" in hydra_says:
        return GROUP_REMOVED, f"the config group {key} does not exist", None
    if "Could not delete from config" in hydra_says and "does not exist" in hydra_says:
        return NO_SUCH_KEY, f"{key} does not exist, so `~` has nothing to delete", None
    if "Could not delete from config" in hydra_says:
        return VALUE_DIFFERS, f"{key} no longer has the value `~` names ({hydra_says})", f"~{key}"
    if "Could not override" in hydra_says:
        # OmegaConf's "(Key 'x' is not in struct)" says the same again, on every line.
        return NO_SUCH_KEY, f"{key} is not in the config", None
    if unknown:
        return None
    return TYPE_CHANGED, f"{key} does not take this value ({_cause(error)})", None


def _cause(error: BaseException) -> str:
    *_, inner = error_chain(error, causes_only=True)
    text = " ".join(str(inner).split("\n")[0].split())
    return text or describe_error(error)


# ---- sweeps ----


def _may_sweep(case: CommandCase) -> bool:
    """True for a launch that may run as a multirun: `-m`, or an override Hydra reads as a sweep (its config may set
    `hydra.mode: MULTIRUN`). A point is never expanded again."""
    if case.problem or case.point or case.note_kind or case.config_name is None:
        return False
    return case.launch.multirun or any(sweeps.is_sweep(o.text) for o in case.launch.overrides)


def sweep_points(session: HydraSession, case: CommandCase) -> list[CommandCase]:
    """A launch that sweeps as Hydra runs it: one case per point of Hydra's basic sweeper (`cmd/x.sh#1(a=1,b=x)`,
    each point's overrides in Hydra's order: the `hydra.*` ones first, then the point), a sweep a sweeper plugin runs
    once without its sweep overrides and named, a sweep Hydra refuses or that runs nothing an error of its own. A
    launch Hydra runs as one run (no `-m`, a config that does not set `hydra.mode: MULTIRUN`) stays itself: its sweep
    fails as Hydra's run fails.

    Over 60 lines: each early return is one Hydra behaviour, in the order Hydra decides them (run or multirun, a
    swept `hydra.*` refused, a sweeper plugin, the basic sweeper's points, their cap); all read the same parse."""
    assert case.config_name is not None
    launch = case.launch
    parsed: list[tuple[int, Any]] = []
    unparsed: list[Override] = []  # Hydra refuses the whole command: the composition names each such override
    for index, override in enumerate(launch.overrides):
        try:
            parsed.append((index, overrides.parse(override.text)))
        except Exception:  # Hydra's parser raises many types
            unparsed.append(override)
    # What Hydra composes first (its run mode, its sweeper): the config with the overrides that select groups or set
    # `hydra.*`; a value override cannot change either, and a misspelled one must not hide the sweep.
    selecting = [launch.overrides[i].text for i, p in parsed if not p.is_sweep_override() and not session.is_value_override(p)]
    try:
        hydra = session.hydra_node(case.config_name, selecting)
    except ComposeError:
        hydra = None  # what `-m` says decides; each point's composition names what fails
    if not (launch.multirun or sweeps.mode_of(hydra) == "MULTIRUN"):
        return [case]
    on_hydra = [(i, p) for i, p in parsed if p.is_hydra_override()]
    swept_hydra = next((launch.overrides[i] for i, p in on_hydra if p.is_sweep_override()), None)
    if swept_hydra is not None:
        return [replace(case, problem=f"Hydra does not sweep over its own configuration: {swept_hydra.shown}", problem_kind=SWEEP_REFUSED)]
    sweeper = sweeps.sweeper_of(hydra)
    if sweeper:
        left = [launch.overrides[i] for i, p in parsed if p.is_sweep_override()]
        kept = tuple(o for o in launch.overrides if o not in left)
        note = f"the sweeper {sweeper} chooses the points when it runs: checked once with the launch's other overrides" + (
            f"; not checked: {', '.join(o.shown for o in left)}" if left else ""
        )
        return [replace(case, launch=replace(launch, overrides=kept), note=note, note_kind=SWEEP_PLUGIN)]
    params = [Override(text, launch.line) for text in sweeps.sweep_params(hydra)]  # said at the launch's line
    written = [*launch.overrides, *params]
    try:
        task = [(len(launch.overrides) + n, overrides.parse(o.text)) for n, o in enumerate(params)]
        task += [(i, p) for i, p in parsed if not p.is_hydra_override()]
        found = sweeps.points(task, session.loader)
    except sweeps.SweepRefused as error:
        return [replace(case, problem=str(error), problem_kind=SWEEP_REFUSED)]
    except Exception as error:  # a `hydra.sweeper.params` entry Hydra cannot parse
        return [replace(case, problem=f"hydra.sweeper.params: {describe_error(error)}", problem_kind=SWEEP_REFUSED)]
    if not found.points:
        empty = ", ".join(o.shown for o in launch.overrides if sweeps.is_sweep(o.text))
        return [replace(case, problem=f"its sweep has no point, so it runs nothing: {empty}", problem_kind=SWEEP_EMPTY)]
    head = tuple(launch.overrides[i] for i, _ in on_hydra)
    made: dict[str, CommandCase] = {}
    for point in found.points:
        placed = [(text, _at_point(written[i], text)) for i, text in point.overrides]
        shown = [override.shown for text, override in placed if text in point.swept]  # the script's text of an unknown value
        identifier = f"{case.id}({','.join(shown)})" if point.swept else case.id
        at_point = (*head, *(override for _, override in placed), *unparsed)
        made.setdefault(identifier, replace(case, id=identifier, launch=replace(launch, overrides=at_point), point=point.swept))
    points = list(made.values())
    if not found.all_listed:
        total = f"{found.total}" if found.exact else f"more than {found.total}"
        values = (
            "each swept value" if found.longest <= sweeps.MAX_POINTS else f"each of the first {sweeps.MAX_POINTS} values of each swept key"
        )
        note = f"a sweep of {total} runs, more than {sweeps.MAX_POINTS}: {len(points)} checked, which take {values} once, not every combination"
        points[0] = replace(points[0], note=note, note_kind=SWEEP_IN_PART)
    return points


def _at_point(override: Override, text: str) -> Override:
    """A launch's override as one point of its sweep writes it (`lr=0.1` of `lr=0.1,0.01`): where the script writes
    it, and the script's own text of each value it cannot know."""
    if text == override.text:
        return override
    unknown = tuple(u for u in override.unknown if placeholder(Piece("", 0, u)) in text)
    return replace(override, text=text, unknown=unknown, written=text_as_written(text, script_texts([override], whole=False)))


# A check's pickled base configs by (config name, group overrides), or the ComposeError composing one raised.
Bases = dict[tuple[str, tuple[str, ...]], bytes | ComposeError]


class Composer:
    """Composes command cases in one Hydra session per config folder, sharing each (config, groups) base."""

    def __init__(
        self,
        root: Path,
        cache_dir: Path | None = None,
        read_also: tuple[Path, ...] = (),
        trees: bool = False,
        search_path_env: tuple[str, ...] = (),
    ) -> None:
        self.root = root
        self.search_path_env = search_path_env  # the settings' search_path_env: what a config's search path may read
        self.cache_dir = cache_dir
        self.read_also = read_also
        self.trees = trees  # keep each launch's composed config as a plain tree (Checked.tree)

    @contextlib.contextmanager
    def _session(self, folder: Path, search: tuple[Path, ...], version_base: str | None) -> Iterator[HydraSession]:
        # Launches run from the project's root: a config's relative `hydra.searchpath` (verl's
        # `file://verl/trainer/config`) is read from there, as the scripts' own instructions say.
        with (
            contextlib.chdir(self.root),
            HydraSession(folder, self.cache_dir, search, version_base, self.read_also, search_path_env=self.search_path_env) as session,
        ):
            yield session

    def expanded(self, cases: Iterable[CommandCase]) -> list[CommandCase]:
        """The cases with each sweep (a launch run with `-m`, or one its config runs as a multirun) as one case per
        point, in Hydra's order, after the launch's place; every other case as it is. A session is opened only for a
        config folder one of whose launches may sweep."""
        cases = list(cases)
        by_session: dict[tuple[Any, ...], list[CommandCase]] = {}
        for case in cases:
            if _may_sweep(case):
                by_session.setdefault((case.config_dir, case.search_path, case.version_base), []).append(case)
        made: dict[str, list[CommandCase]] = {}
        for (folder, search, version_base), group in by_session.items():
            with self._session(folder, search, version_base) as session:
                for case in group:
                    made[case.id] = sweep_points(session, case)
        return [point for case in cases for point in made.get(case.id, [case])]

    def check(self, cases: Iterable[CommandCase], keep_config: bool = False) -> list[Checked]:
        """Every case composed and each override checked; results in the order given."""
        cases = list(cases)
        results: dict[str, Checked] = {}
        by_session: dict[tuple[Any, ...], list[CommandCase]] = {}
        for case in cases:
            if case.problem:
                results[case.id] = Checked(case, [Failure(case.problem_kind, "", None, case.problem)])
            else:
                by_session.setdefault((case.config_dir, case.search_path, case.version_base), []).append(case)
        for (folder, search, version_base), group in by_session.items():
            with self._session(folder, search, version_base) as session:
                self._value_keys: dict[tuple[Any, ...], bool] = {}
                self._text_kinds: dict[str, bool | None] = {}
                self._reused: dict[bytes, bool] = {}
                self._lent: dict[bytes, Any] = {}
                self._plain: dict[bytes, Any] = {}  # each base's plain tree (a review keeps every launch's tree)
                self._invariants = invariants.LaunchInvariants()
                self._paths: dict[tuple[str, ...], tuple[set[str], bytes | None]] = {}
                self._hints: dict[tuple[tuple[str, ...], str], str] = {}
                bases: Bases = {}
                # Kept with its tree beside it, whether or not this run keeps trees: a review after a `check` (or a
                # warm review) composes no launch of its own side.
                keeping = not keep_config and session.state.store is not None
                self._with_trees = self.trees or keeping
                for case in group:
                    kept = self._kept(session, case) if keeping else None
                    if kept is not None:
                        results[case.id] = kept
                        continue
                    start = len(session.warned)
                    self._used: list[tuple[str, tuple[str, ...]]] = []
                    checked = results[case.id] = self._check_one(session, case, bases, keep_config)
                    checked.warnings = tuple(session.warned[start:])
                    if keeping:
                        self._keep(session, case, checked)
                        if not self.trees:
                            checked.tree = None
        for case in cases:
            if case.never_runs:  # first: what a run with nothing set meets before any override is applied
                results[case.id].failures.insert(0, Failure(NEVER_RUNS, "", None, case.never_runs))
        return [results[case.id] for case in cases]

    # A launch's check kept in the signed cache (issue 52: a warm `check` costs what changed). Its result is a function
    # of the launch as read (its script line, config and overrides: the key), the compositions it starts from (their
    # recorded reads, asked again), which of its overrides select a group (asked again: a folder added makes a value a
    # group) and the bytes of every config file its warnings cite. Not when the caller keeps each launch's config; its
    # plain tree is kept beside it (a review reads it). A launch whose composition failed is checked again each run.
    # The key names folders relative to the project's root, so a review's copy of its base takes what the working
    # tree's check kept for a launch whose every read holds there too; one with warnings, or whose failures name the
    # folder of the run that kept it, is not taken across folders.

    def _kept_key(self, case: CommandCase) -> bytes | None:
        def relative(path: Path) -> str:
            return os.path.relpath(path, self.root) if is_inside(path, self.root) else str(path)

        placed = replace(
            case,
            config_dir=None if case.config_dir is None else Path(relative(case.config_dir)),
            search_path=tuple(Path(relative(p)) for p in case.search_path),
        )
        # Not the folders it may read besides (`read_also`: a review's copy reads its kept tree): every read is asked
        # again under this run's confinement, and a composition a read was refused to fails, and is never kept.
        return tree_digest(b"launch checked", placed, self.search_path_env)

    def _kinds(self, session: HydraSession, case: CommandCase) -> tuple[bool | None, ...]:
        """Which of the launch's overrides set a value (None: Hydra cannot parse it)."""
        # By the override's text, once per session: a warm review asked it of 26,000 overrides of 400 launches.
        kinds = self._text_kinds
        for override in case.launch.overrides:
            if override.text not in kinds:
                try:
                    kinds[override.text] = self._is_value(session, overrides.parse(override.text))
                except Exception:  # Hydra's parser raises many types: the launch says so as a failure
                    kinds[override.text] = None
        return tuple(kinds[override.text] for override in case.launch.overrides)

    def _kept(self, session: HydraSession, case: CommandCase) -> Checked | None:
        key = self._kept_key(case)
        if key is None:
            return None
        for entry in cache_variants(key):
            if not (isinstance(entry, tuple) and len(entry) == 5 and isinstance(entry[3], Checked)):
                continue
            reads, kinds, files, root = entry[0], entry[1], entry[2], entry[4]
            checked: Checked = entry[3]
            if root != str(self.root) and (checked.warnings or root in repr((checked.failures, checked.unresolved))):
                continue  # a warning names its file as seen from the working folder; a text may name the other folder
            if session.holds(*reads) and kinds == self._kinds(session, case) and all(_digest(f) == d for f, d in files):
                checked = replace(checked, case=case, reused=True, inputs=_tree_key(key, entry))
                if not self.trees:
                    return checked
                tree = cache_get(_tree_key(key, entry))  # kept aside: a warm `check` never reads the trees
                return replace(checked, tree=tree.tree) if isinstance(tree, _TreeKept) else None
        return None

    def _keep(self, session: HydraSession, case: CommandCase, checked: Checked) -> None:
        key = self._kept_key(case)
        reads = [session.reads.get(used) for used in self._used]
        if key is None or not self._used or any(read is None for read in reads):
            return
        cited = sorted({warning.file for warning in checked.warnings if getattr(warning, "file", None)})
        files = tuple((name, _digest(name)) for name in cited)
        if any(digest is None for _, digest in files):
            return
        entry = (tuple(reads), self._kinds(session, case), files, replace(checked, tree=None), str(self.root))
        try:
            pickle.dumps(entry)
        except Exception:  # a value pickle cannot hold: checked again next run
            return
        cache_add_variant(key, entry, lambda old: isinstance(old, tuple) and old[:3] == entry[:3] and old[4:] == entry[4:])
        checked.inputs = _tree_key(key, entry)
        if checked.tree is not None:
            cache_put(checked.inputs, _TreeKept(checked.tree))

    def _is_value(self, session: HydraSession, parsed: Any) -> bool:
        # The session's answer, asked once per key: looking a group up in Hydra's repository is slow.
        key = (parsed.key_or_group, parsed.package, parsed.is_sweep_override(), isinstance(parsed.value(), dict))
        if key not in self._value_keys:
            self._value_keys[key] = session.is_value_override(parsed)
        return self._value_keys[key]

    def _check_one(self, session: HydraSession, case: CommandCase, bases: Bases, keep_config: bool) -> Checked:
        """One launch checked: its overrides parsed and split, its group selection composed, then each value override
        applied in order with Hydra's code, and the `???` keys it leaves unset.

        Over 60 lines: the launch borrows its base's config (`lent`) and gives it back with its overrides undone; the
        overrides applied, the unset keys and the plain tree all read it between the borrow and the give-back.
        """
        checked = Checked(case)
        assert case.config_name is not None
        groups: list[tuple[Override, Any]] = []
        values: list[tuple[Override, Any]] = []
        for override in case.launch.overrides:
            try:
                parsed = overrides.parse(override.text)
            except Exception as error:
                checked.failures.append(
                    Failure(
                        BAD_OVERRIDE,
                        override.text.partition("=")[0].lstrip("+~"),
                        override,
                        f"Hydra cannot parse it: {describe_error(error)}" + (CRLF_HINT if "\r" in override.text else ""),
                    )
                )
                continue
            if parsed.is_sweep_override():  # a launch that sweeps is expanded (`expanded`): this one runs once
                key = parsed.key_or_group
                message = (
                    f"{key} is swept, and a run without -m/--multirun (or a config's `hydra.mode: MULTIRUN`) refuses a sweep: "
                    "add -m to sweep it, or write a list as [a,b] and a string with commas quoted"
                )
                checked.failures.append(Failure(SWEEP_UNRUN, key, override, message))
                continue
            (values if self._is_value(session, parsed) else groups).append((override, parsed))
        checked.selection = (case.config_name, *(o.text for o, _ in groups))
        fresh = len(session.composed_fresh)
        base = self._base(session, case, groups, checked, bases)
        if base is None:
            return checked
        # Whether the composition this launch starts from came from the cache (a review's base says how many did):
        # composed now for this launch, or for an earlier launch of the same composition, is not.
        if len(session.composed_fresh) > fresh:
            self._reused[base] = False
        checked.reused = self._reused.setdefault(base, True)
        # Without keep_config the launch borrows the base's config: its overrides are undone afterwards, and the
        # next launch of that base starts from the same config without unpickling a copy of its own.
        lent = None if keep_config else self._lent.pop(base, None)
        if lent is None:
            lent = hydra_compat.LentConfig(pickle.loads(base))
        self._invariants.see_base(base, lent.config)
        if self._with_trees and base not in self._plain:
            from harness.composition.render import to_plain

            self._plain[base] = to_plain(lent.config)  # before any override: each launch of it converts only what it changed
        # A group whose option is not known (`engine=$BACKEND`) was left at its default: what its package holds is not
        # known either (anywhere, for a `_global_` one), so a key there the default lacks is not checked, never "no
        # such key".
        unknown = tuple(_package(p) for o, p in groups if o in checked.unchecked)
        with hydra_compat.errors_without_copies():
            for override, parsed in values:
                try:
                    lent.apply(parsed)
                except Exception as error:
                    verdict = _classify(error, parsed, bool(override.unknown))
                    if (
                        verdict is not None
                        and verdict[0] == NO_SUCH_KEY
                        and any(not p or _touches(p, parsed.key_or_group) for p in unknown)
                    ):
                        verdict = None
                    if verdict is None:
                        checked.unchecked.append(override)
                    else:
                        reason, message, fix = verdict
                        hint = self._hint(checked.selection, lent.config, parsed.key_or_group) if reason == NO_SUCH_KEY else ""
                        checked.failures.append(Failure(reason, parsed.key_or_group, override, message, fix, hint))
        # A `???` the launch leaves unset stops the run when the program reads it (a case's own `???` is the user's
        # to give: only a launch, the command that runs, is judged so). A key given with a value the harness cannot
        # check, or by an override already named as failing, is not said unset.
        given = [o.text.lstrip("+~").partition("=")[0] for o in checked.unchecked] + [f.key for f in checked.failures if f.key]
        for key in self._invariants.unset(base, lent.config, [p for _, p in values], given):
            message = f"{key} is ??? in {case.config_name} and this launch gives it no value: the program stops when it reads it"
            checked.failures.append(Failure(MANDATORY_UNSET, key, None, message, f"{key}=VALUE"))
        checked.unresolved = self._invariants.problems(base, lent.config, [p for _, p in values])
        if self._with_trees:
            checked.tree = lent.plain(self._plain[base])
        if keep_config:
            checked.config = lent.config
        elif lent.give_back():
            self._lent[base] = lent
        return checked

    def _hint(self, selection: tuple[str, ...], config: Any, key: str) -> str:
        """`; did you mean 'x'?` for a key the launch's config lacks, once per config and group overrides (`selection`)
        and key: the same broken override recurs in many launches of a repository."""
        from harness.composition.render import to_plain

        if (selection, key) not in self._hints:
            if selection not in self._paths:
                paths = set(key_paths(to_plain(config)))
                self._paths[selection] = (paths, tree_digest(b"key paths", sorted(paths)))
            paths, digest = self._paths[selection]
            # A pure function of the key and the config's paths, kept in the cache: difflib over a thousand paths is
            # most of a warm check's launches (a repository's known failing overrides ask again every run).
            kept_key = tree_digest(b"key hint", key, digest) if digest is not None else None
            kept = cache_get(kept_key) if kept_key is not None else None
            if not isinstance(kept, str):
                kept = key_hint(key, paths)
                if kept_key is not None:
                    cache_put(kept_key, kept)
            self._hints[(selection, key)] = kept
        return self._hints[(selection, key)]

    def _base(
        self, session: HydraSession, case: CommandCase, groups: list[tuple[Override, Any]], checked: Checked, bases: Bases
    ) -> bytes | None:
        """The pickled config of the launch's config name and group overrides, composed once per distinct pair.

        A group override whose value is unknown is left out (the group keeps its default). When the whole does
        not compose, each group override is tried in turn and every failing one recorded; None when the config
        itself does not compose.
        """
        assert case.config_name is not None
        kept = [(o, p) for o, p in groups if not (o.unknown and _only_value_unknown(o))]
        checked.unchecked += [o for o, p in groups if (o, p) not in kept]
        key = (case.config_name, tuple(o.text for o, _ in kept))
        self._used.append(key)
        if key not in bases:
            try:
                bases[key] = pickled(session.compose(*key))
            except ComposeError as error:
                bases[key] = error
        composed = bases[key]
        if not isinstance(composed, ComposeError):
            return composed
        root = (case.config_name, ())
        self._used.append(root)
        if root not in bases:
            try:
                bases[root] = pickled(session.compose(case.config_name, []))
            except ComposeError as error:
                bases[root] = error
        if isinstance(bases[root], ComposeError):
            text = str(bases[root])
            reason = CONFIG_REMOVED if "Cannot find primary config" in text else DOES_NOT_COMPOSE
            checked.failures.append(Failure(reason, "", None, f"{case.config_name}: {text}"))
            return None
        good: list[str] = []
        for override, parsed in kept:
            try:
                session.compose(case.config_name, good + [override.text])
                good.append(override.text)
            except ComposeError as error:
                text = str(error)
                missing = _missing_config(error)
                gone = session.deleted_file(missing) if missing else ""
                reason = (
                    (OPTION_REMOVED if gone else NO_SUCH_OPTION) if missing is not None else REFUSED if _refused(error) else TYPE_CHANGED
                )
                said = f"{parsed.key_or_group}: {text}" + (f" ({gone})" if gone else "")
                checked.failures.append(Failure(reason, parsed.key_or_group, override, said))
        good_key = (case.config_name, tuple(good))
        self._used.append(good_key)
        if good_key not in bases:
            bases[good_key] = pickled(session.compose(*good_key))
        return cast(bytes, bases[good_key])  # `good` (or the root, checked above) composed just now: never an error


@dataclass(frozen=True)
class _TreeKept:
    """A launch's plain tree as the cache keeps it beside its check (a plain `dict` read back could be anything)."""

    tree: Any


def _tree_key(key: bytes, entry: tuple[Any, ...]) -> bytes:
    """Where a kept launch check's tree is kept: by the check's key and what that entry read (its variant)."""
    return hashlib.blake2b(b"launch tree\0" + key + (tree_digest(entry[:3]) or b""), digest_size=20).digest()


def _digest(name: str) -> bytes | None:
    """A file's bytes digested (a warning's config file, as shown relative to the working folder), None if unreadable."""
    try:
        return hashlib.blake2b(read_bytes(name, current().scope or None), digest_size=20).digest()
    except (OSError, InputLimitError, UnsafeInput):
        return None


def _touches(text: str, key: str) -> bool:
    """True when an override's key is `key`, one of its parents or a key below it."""
    written = text.lstrip("+~").partition("=")[0]
    return written == key or key.startswith(written + ".") or written.startswith(key + ".")


def _missing_config(error: BaseException) -> str | None:
    """The config Hydra could not find for an override (`group/option`; "" when Hydra names none), or None for any
    other error (our message words it our way, so the exception Hydra raised decides, not the text)."""
    found = next((cause for cause in error_chain(error) if isinstance(cause, MissingConfigException)), None)
    return None if found is None else found.missing_cfg_file or ""


def _refused(error: BaseException) -> bool:
    """True when the harness's own bounds refused what the override asks (a search path it will not read)."""
    return any(isinstance(cause, UnsafeInput) for cause in error_chain(error))


def _package(group: Any) -> str:
    """Where a group override's option goes: its `@package`, else the group's path (`model/optim` -> `model.optim`)."""
    package = group.package if isinstance(group.package, str) and group.package else group.key_or_group.replace("/", ".")
    return str(package).removeprefix("_global_").lstrip(".")


def _only_value_unknown(override: Override) -> bool:
    key, _, value = override.text.partition("=")
    return PLACEHOLDER_MARK not in key and PLACEHOLDER_MARK in value


def script_texts(overrides: Iterable[Override], whole: bool = True) -> dict[str, str]:
    """What each placeholder text of a launch's overrides stands for in the script: an override's whole unknown value
    as the script writes it (`__unset_2__` -> `$save_path`, with `whole`), and each placeholder as the variable or
    command it replaces (`__unset_HOME__` -> `$HOME`), for what a value derived from it holds."""
    texts: dict[str, str] = {}
    for override in overrides:
        if whole and override.written and PLACEHOLDER_MARK in override.text.partition("=")[2]:
            texts.setdefault(override.text.partition("=")[2], override.written.partition("=")[2])
        for unknown in override.unknown:
            texts.setdefault(placeholder(Piece("", 0, unknown)), unknown)
    return texts


def as_written(value: Any, texts: Mapping[str, str]) -> Any:
    """A composed value with every placeholder in it shown as the script's own text (`script_texts`): reports name
    what the script writes, never a placeholder. Lists and mappings are walked; other values are returned as they are."""
    if isinstance(value, str):
        return texts[value] if value in texts else text_as_written(value, texts)
    if isinstance(value, list):
        return [as_written(item, texts) for item in value]
    if isinstance(value, dict):
        return {key: as_written(item, texts) for key, item in value.items()}
    return value


def text_as_written(text: str, texts: Mapping[str, str]) -> str:
    """A message with each placeholder value in it (longest first, so a whole value wins over its parts) shown as the
    script's own text."""
    for raw in sorted((raw for raw in texts if raw in text), key=len, reverse=True):
        text = text.replace(raw, texts[raw])
    return text


# ---- findings ----


def had(key: str, moves: Mapping[str, str], removed: Iterable[str]) -> bool:
    """True when the baseline had `key`: it moved, or it is one of the `removed` leaf paths (what the goldens hold and
    the tree lost, or what the base's launch composed) or a mapping above one. A key below a leaf was never there (an
    empty `override_transformer_config: {}` holds no `use_flash_attn`)."""
    return moved_override(key, moves) is not None or any(key == path or path.startswith(key + ".") for path in removed)


def as_removed(finding: Finding) -> Finding:
    """A `no such key` launch finding told `key removed` (the baseline had its key), as findings_of tells it: without
    the closest key it names; any other finding as it is."""
    launch = finding.detail_as(LaunchFix)
    if launch is None or launch.reason != NO_SUCH_KEY:
        return finding
    words = finding.message.removeprefix(f"{NO_SUCH_KEY}: ").split(HINT)[0]
    return replace(finding, message=f"{KEY_REMOVED}: {words}", detail=replace(launch, reason=KEY_REMOVED))


def leaf_paths(tree: Any) -> frozenset[str]:
    """Every leaf's dotted path of a launch's composed tree (none when it did not compose)."""
    from harness.model.semantic_diff import iter_leaves

    return frozenset(path for path, _ in iter_leaves(tree)) if tree is not None else frozenset()


def findings_of(checked: Checked, moves: Mapping[str, str] | None = None, removed: Iterable[str] = ()) -> list[Finding]:
    """The launch findings of one checked command case: an error per failing override, with its fix where known. An
    override whose key the config lacks is `key removed` where the baseline had it (`moves`, `removed`), else `no
    such key` with the closest key that exists."""
    findings = []
    removed = frozenset(removed)
    for failure in checked.failures:
        override = failure.override
        if override is None:
            severity = WARNING if failure.reason == NOT_EXTRACTED else ERROR
            source = Source(checked.case.launch.script, checked.case.launch.line)
            findings.append(
                Finding(
                    Kind.LAUNCH,
                    failure.key,  # "" but for a key the launch as a whole leaves unset (`???`)
                    None,
                    None,
                    severity,
                    f"{failure.reason}: {failure.message}",
                    source=source,
                    detail=LaunchFix(failure.reason, failure.fix, config=checked.case.config_name or "", launch=checked.case.identity),
                )
            )
            continue
        fix, reason, message = failure.fix, failure.reason, failure.message
        if reason == NO_SUCH_KEY and had(failure.key, moves or {}, removed):
            reason = KEY_REMOVED
        elif reason == NO_SUCH_KEY:
            message += failure.hint
        # The script's own text (`training.seed=${seed}`), never a placeholder, in the message and in the fix.
        moved = moved_override(override.shown, moves or {}) if reason == KEY_REMOVED else None
        if moved is not None:
            fix = moved
            message = f"{message}; it moved to {moved_key(moved)}"
        elif fix is not None and override.unknown and fix == override.text.lstrip("+"):
            fix = override.shown.lstrip("+")
        # The message names the cause, the same for every launch it breaks (reports group launches by it); the
        # override as the script writes it is `new` (its own text where a value is unknown, never a placeholder),
        # where it is written the source, what to write instead `fix`.
        findings.append(
            Finding(
                Kind.LAUNCH,
                failure.key,
                None,
                override.shown,
                ERROR,
                f"{reason}: {message}",
                source=Source(override.file or checked.case.launch.script, override.line),
                detail=LaunchFix(reason, fix, checked.case.config_name or "", checked.case.identity),
            )
        )
    case = checked.case
    if case.note:  # a sweep checked in part: said once, at its launch's line (a warning: what is checked composes)
        detail = LaunchFix(case.note_kind, None, case.config_name or "", case.identity)
        findings.append(
            Finding(
                Kind.LAUNCH,
                "",
                None,
                None,
                WARNING,
                f"{case.note_kind}: {case.note}",
                source=Source(case.launch.script, case.launch.line),
                detail=detail,
            )
        )
    return findings


def launch_reason(finding: Finding) -> str:
    """A launch finding's cause word (`key removed`); "" for any other finding."""
    launch = finding.detail_as(LaunchFix)
    return launch.reason if launch is not None else ""


def moved_key(override: str) -> str:
    """The key an override writes (without its `+`/`~` and value)."""
    return override.lstrip("+~").partition("=")[0]


def moved_override(text: str, moves: Mapping[str, str]) -> str | None:
    """The override rewritten for a key (or one of its parents) that moved; None when none did."""
    form = linear.compile(r"[+~]*").match(text).group()  # type: ignore[union-attr]
    key, equals, value = text[len(form) :].partition("=")
    parts = key.split(".")
    for cut in range(len(parts), 0, -1):
        old = ".".join(parts[:cut])
        if old in moves:
            new = ".".join([moves[old], *parts[cut:]])
            return f"{form}{new}{equals}{value}"
    return None


def case_result(checked: Checked, moves: Mapping[str, str] | None = None, removed: Iterable[str] = ()) -> CaseResult:
    """A command case as a case result beside the matrix's: `error` when a launch finding is an error."""
    findings = tuple(findings_of(checked, moves, removed)) + tuple(warning_findings(checked.warnings))
    findings += tuple(invariants.problem_findings(getattr(checked, "unresolved", ())))
    status = Status.ERROR if any(f.severity == ERROR for f in findings) else Status.OK
    return CaseResult(checked.case.as_case(), checked.case.launch.where, status, findings)


def tally(results: Iterable[Checked], skipped: Iterable[CommandCase] = ()) -> LaunchTally:
    """Count the checked command cases; `skipped` commands count only where a submodule is not checked out."""
    results = list(results)
    extracted = [r for r in results if r.case.problem_kind != NOT_EXTRACTED]
    failing = [r for r in extracted if r.failures]
    per_submodule: dict[str, int] = {}
    for case in skipped:
        if case.problem_kind == UNAVAILABLE:
            per_submodule[case.submodule] = per_submodule.get(case.submodule, 0) + 1
    environments = sum(bool(r.case.launch.environment) for r in results)
    return LaunchTally(
        len(results), len(extracted), len(extracted) - len(failing), len(failing), tuple(sorted(per_submodule.items())), environments
    )


def origins(now: Iterable[CaseResult], base: Iterable[CaseResult], paired: Mapping[str, str] | None = None) -> Iterator[CaseResult]:
    """Each launch finding with its origin: `at_base` when the same launch failed the same way at the base, else
    `introduced` (it applied there, failed for another reason, or is new). `paired`: each launch's base launch (this
    side's id -> the base's, launch_review.paired, a script moved with its text included; without it, the base's launch
    of the same case id). The same launch is the one
    paired with it, whatever its line or case id; the same way is the same key, form and reason on the same config
    name, or, for a failure about no key (a config that is not there, a program gone, a stop of bash), the same command
    (`LaunchFix.launch`: its text and config name) and reason. Another launch of its script that failed alike is not it: a launch added
    beside a known break, or after a known stop, is this change's."""

    def signature(result: CaseResult, finding: Finding, side: Mapping[str, str] | None) -> tuple[str, ...]:
        launch = result.case.id if side is None else side.get(result.case.id, "")  # the base's own: its id
        if finding.path:
            form = (finding.new or "").partition("=")[0]
            # The base is composed from a copy git does not know: an option missing there is `no such option` even
            # where this side's git knows its file was deleted, the same break.
            reason = NO_SUCH_OPTION if launch_reason(finding) == OPTION_REMOVED else launch_reason(finding)
            return launch, result.case.config_name, form, finding.path, reason
        fix = finding.detail_as(LaunchFix)
        return launch, fix.launch if fix is not None else "", launch_reason(finding)

    base = list(base)
    pairs = {r.case.id: r.case.id for r in base} if paired is None else paired
    known = {signature(r, f, None) for r in base for f in r.findings if f.kind in (Kind.LAUNCH, Kind.UNRESOLVED)}
    launched = {r.case.id for r in base}
    for result in now:
        findings = []
        for finding in result.findings:
            if finding.kind in (Kind.LAUNCH, Kind.UNRESOLVED):
                at_base = signature(result, finding, pairs) in known
                # A break the base already had is not this change's: it is named, and does not fail the review.
                finding = replace(
                    finding,
                    origin=Origin.AT_BASE if at_base else Origin.INTRODUCED,
                    severity=WARNING if at_base and finding.severity == ERROR else finding.severity,
                )
                launch = finding.detail_as(LaunchFix)
                if not at_base and launch is not None and launch.reason == ENTRY_MISSING and result.case.id in launched:
                    # The base ran this program here: the pull request lost a Hydra entry point.
                    finding = replace(
                        finding, message=ENTRY_REMOVED + finding.message[len(ENTRY_MISSING) :], detail=replace(launch, reason=ENTRY_REMOVED)
                    )
            findings.append(finding)
        status = Status.ERROR if any(f.severity == ERROR for f in findings) else Status.OK
        yield replace(result, findings=tuple(findings), status=status)


# ---- the settings' commands, checked and reviewed ----


def project_of(settings: Any, root: Path | None = None) -> Project:
    """The settings' scripts and entry points: globs are read from the settings file's folder (or `root`, a copy of it)."""
    folder = root if root is not None else settings.origin.parent
    config_dir = settings.config_dir if root is None else root / settings.config_dir.relative_to(settings.origin.parent)
    return Project(folder, config_dir, dict(settings.command_modules), settings.version_base)


def discover(settings: Any, root: Path | None = None) -> list[CommandCase]:
    """Every launch in the scripts the settings' `[[commands]]` globs match, as a command case (a sweep's points each
    a case of their own)."""
    project = project_of(settings, root)
    scripts = find_scripts(project.root, settings.command_globs, project.submodules)
    found = command_cases(project, scripts, settings.search_path, settings.cache_dir)
    return composer_of(settings, root).expanded(found)


def composer_of(settings: Any, root: Path | None = None, trees: bool = False) -> Composer:
    """The settings' launches' composer, for the project at `root` (a copy of it) when given."""
    folder = root if root is not None else settings.origin.parent
    read_also = (*settings.read_outside, folder) if root is not None else settings.read_outside
    # A copy (a review's base) uses the cache too: compositions are cached relative to their config folder, so the
    # copy takes each one whose reads are unchanged from the working tree's entries and recomposes only the others.
    return Composer(folder, settings.cache_dir, tuple(read_also), trees, settings.search_path_env)


def _checked_commands(
    settings: Any,
    root: Path | None = None,
    case_glob: str | Sequence[str] | None = None,
    trees: bool = False,
    found: Sequence[CommandCase] | None = None,
) -> tuple[list[Checked], list[CommandCase]]:
    """The launches composed and checked (of `found`, when the caller already discovered them; with their plain
    trees when `trees`), and the commands that are no launch of a Hydra application."""
    from harness.composition.cases import id_matches

    found = [c for c in (discover(settings, root) if found is None else found) if id_matches(c.id, case_glob)]
    cases = [c for c in found if not c.skipped]
    checked = composer_of(settings, root, trees).check(cases)
    return checked, [c for c in found if c.skipped]


def check_commands(
    settings: Any,
    moves: Mapping[str, str] | None = None,
    root: Path | None = None,
    case_glob: str | Sequence[str] | None = None,
    removed: Iterable[str] = (),
) -> tuple[list[CaseResult], LaunchTally]:
    """The settings' command cases composed against the tree (at `root`, a copy of the project, when given);
    `case_glob` (one glob or several) keeps the launches whose id matches; `removed`: the keys the goldens hold and
    the tree lost (an override naming one is `key removed`, not `no such key`)."""
    checked, skipped = _checked_commands(settings, root, case_glob)
    removed = frozenset(removed)
    return [case_result(c, moves, removed) for c in checked], tally(checked, skipped)


def _base_launches(settings: Any, top: Path, commit: str, reads: BaseReads, case_glob: str | Sequence[str] | None) -> list[Checked]:
    """The launches of the base commit, composed and checked in a scratch copy of the folders they read there."""
    from harness.baselines import gitrepo
    from harness.baselines.kept_trees import MARKER
    from harness.baselines.kinds import folders_at

    scratch = Path(tempfile.mkdtemp(prefix="config-harness-commands-"))
    try:
        base_root = scratch / settings.origin.parent.relative_to(top)
        (scratch / MARKER).touch()  # a project of its own: a link in the copy is read only inside it
        for folder in reads.folders:
            try:
                gitrepo.extract_folder(top, commit, folder, scratch)
            except gitrepo.GitError:
                continue  # the folder did not exist at the ref
        gitrepo.extract_matching(top, commit, list(reads.pathspecs), scratch)
        base_root.mkdir(parents=True, exist_ok=True)
        # The settings' search path as it is at the base too: the working tree's would make a pull request's edit
        # there the base's, and a launch it breaks would be broken `already at base`.
        base, _ = _checked_commands(folders_at(settings, top, commit), root=base_root, case_glob=case_glob, trees=True)
        return base
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _base_key(settings: Any, commit: str, reads: BaseReads, case_glob: Any) -> bytes:
    """What the base's launch results depend on: the commit (its files are fixed by it), which of its folders are
    read, the trusted settings that shape the launches, and the folders read outside the
    project as they are now (an installed package's config folder, by its modification time)."""
    import json

    outside = []
    for folder in settings.read_outside:
        try:
            outside.append((str(folder), Path(folder).stat().st_mtime_ns))
        except OSError:
            outside.append((str(folder), 0))
    facts = {
        "commit": commit,
        "folders": list(reads.folders),
        "pathspecs": list(reads.pathspecs),
        "globs": list(settings.command_globs),
        "modules": sorted(dict(settings.command_modules).items()),
        "version_base": settings.version_base,
        "config_dir": str(settings.config_dir.relative_to(settings.origin.parent))
        if settings.config_dir.is_relative_to(settings.origin.parent)
        else str(settings.config_dir),
        "search_path": [str(p) for p in settings.search_path],
        "cases": case_glob if case_glob is None or isinstance(case_glob, str) else list(case_glob),
        "outside": outside,
        "trees": True,  # each launch's composed tree is kept: a review compares the values (an older entry lacks them)
        "unresolved": True,  # each launch's unresolved interpolations are kept (an older entry lacks them)
        "never_runs_composed": True,  # a launch bash never reaches is composed too (an older entry has no tree for it)
        "mandatory_unset": True,  # a `???` a launch leaves unset is its failure (an older entry lacks it)
        "sweeps": True,  # a sweep is one launch per point (an older entry composed it as one run)
        "environments": True,  # each launch is read under the environments its script tests too (an older entry lacks them)
    }
    return b"base-launches\0" + json.dumps(facts, sort_keys=True, default=str).encode()


def _stored(cache_dir: Path | None, top: Path, key: bytes) -> list[Checked] | None:
    """The base's launch results a review of the same base already computed (the signed per-user cache), or None."""
    from harness.composition.store import CacheRefused, open_store

    if cache_dir is None:
        return None
    try:
        value = open_store(cache_dir, project=top).get(key)
    except CacheRefused:
        return None
    return value if isinstance(value, list) and all(isinstance(c, Checked) for c in value) else None


def _store(cache_dir: Path | None, top: Path, key: bytes, base: list[Checked]) -> None:
    from harness.composition.store import CacheRefused, open_store

    if cache_dir is None:
        return
    try:
        open_store(cache_dir, project=top).put(key, [replace(c, config=None) for c in base])
    except CacheRefused:
        return


@dataclass(frozen=True)
class BaseReads:
    """What a review copies from the base commit to compose its launches there: whole folders (the config folder,
    the entry points', the globs' fixed prefixes, the folders the launches read configs from), and git pathspecs
    for what lies at the top of the project (the scripts a root-level glob matches, the files the scripts
    `source`), never the whole repository."""

    folders: tuple[str, ...]
    pathspecs: tuple[str, ...] = ()


def _base_reads(settings: Any, top: Path, found: Sequence[CommandCase], project: Project) -> BaseReads:
    """The folders and files a review reads at the base: see BaseReads."""
    from harness.baselines import gitrepo

    base = settings.origin.parent
    at = gitrepo.inside(top, base)
    prefix = "" if at == "." else at + "/"
    folders = {gitrepo.inside(top, settings.config_dir)}
    pathspecs = {":(literal).gitmodules"}  # which folders are submodules, whose scripts are not the project's
    for pattern in settings.command_globs:
        fixed = fixed_prefix(pattern)
        if fixed:
            folders.add(gitrepo.inside(top, base / fixed))
        else:  # `*.sh`, `**/*.sh`: the scripts the glob matches, not the folder they share with everything else
            pathspecs.add(f":(glob){prefix}{pattern}")
    pathspecs |= {f":(literal){prefix}{path}" for path in project.sourced_files}

    def add(path: Path | None, as_file: bool = False) -> None:
        if path is None or not is_inside(path, top):
            return
        inside = gitrepo.inside(top, path.parent if as_file else path)
        if inside != ".":
            folders.add(inside)
        elif as_file:
            pathspecs.add(f":(literal){gitrepo.inside(top, path)}")

    for case in found:
        if case.launch.entry:
            add(project.entry_file(case.launch.program, case.launch.is_module), as_file=True)
        add(case.config_dir)
        for folder in case.search_path:
            add(folder)
    if "." in folders:  # the config folder is the repository's top: every file of it may be a config
        return BaseReads((".",))
    folders |= _through_links(top, folders)
    kept = sorted(f for f in folders if not any(f.startswith(other + "/") for other in folders))
    return BaseReads(tuple(kept), tuple(sorted(pathspecs)))


def _through_links(top: Path, folders: set[str]) -> set[str]:
    """Each folder as the working tree's links reach it (RAGEN's `conf -> vendor/conf`: an entry's `config_path` names
    the link, a search path the folder): copied as the base holds that path, its links followed as the base holds
    them (gitrepo.extract_folder), so the base's launches find their configs where they found them."""
    from harness.baselines import gitrepo

    found = set()
    for link in gitrepo.tracked_links(top):
        try:
            target = gitrepo.inside(top, top / link)
        except gitrepo.GitError:
            continue  # it leads out of the repository: never read
        found |= {link + folder[len(target) :] for folder in folders if folder == target or folder.startswith(target + "/")}
    return found


def explain_command(settings: Any, case_glob: str, key: str) -> list[str]:
    """`explain KEY --case cmd/...`: the key's value in the launch's composed config and what sets it."""

    from harness.composition.provenance import writes_of
    from harness.composition.render import to_plain
    from harness.composition.resolve import MISSING, lookup
    from harness.model.semantic_diff import show_value
    from harness.model.settings import display_path

    cases = [c for c in discover(settings) if c.id == case_glob] or [
        c for c in discover(settings) if linear.glob(case_glob).fullmatch(c.id)
    ]
    if len(cases) != 1:
        raise ValueError(f"--case {case_glob!r} matches {len(cases)} launch(es); name exactly one, see `config-harness list`")
    (case,) = cases
    composer = Composer(settings.origin.parent, settings.cache_dir, settings.read_outside, search_path_env=settings.search_path_env)
    (checked,) = composer.check([case], keep_config=True)
    if checked.config is None:
        reasons = "; ".join(f.message for f in checked.failures) or "it does not compose"
        raise ValueError(f"{case.id}: {reasons}")
    tree = to_plain(checked.config)
    value = lookup(tree, key)
    if value is MISSING:
        raise ValueError(f"{key} does not exist in case {case.id}{key_hint(key, set(key_paths(tree)))}")
    # A value the script cannot know is shown as the script writes it (`$BASE_MODEL`), never as its placeholder.
    shown = as_written(value, script_texts(case.launch.overrides))
    lines = [f"{key} = {show_value(shown)}   (case {case.id}, config {case.config_name})"]
    setting = [o for o in case.launch.overrides if o.text.lstrip("+~").partition("=")[0] == key]
    if setting:
        lines.append(f"  set by override: {setting[-1].shown}  ({setting[-1].file or case.launch.script}:{setting[-1].line})")
    assert case.config_dir is not None
    with (
        contextlib.chdir(settings.origin.parent),
        HydraSession(
            case.config_dir,
            settings.cache_dir,
            case.search_path,
            case.version_base,
            settings.read_outside,
            search_path_env=settings.search_path_env,
        ) as session,
    ):
        writes = writes_of(session, case.as_case(), key)
    for index, write in enumerate(reversed(writes)):
        role = "set by" if index == 0 and not setting else "overrode"
        where = display_path(Path(write.file or case.config_dir)) + (f":{write.line}" if write.line else "")
        lines.append(f"  {role:<8} {where}  [defaults entry {write.config_path}] = {show_value(write.value)}")
    return lines
