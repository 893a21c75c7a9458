"""The review accounts for the whole diff: every file the pull request changes is compared (a config file a case or
launch read, a launch script the reader models, a Python source whose writes and defaults the readers follow), not
relevant (by a stated rule: docs, tests, files nothing of the run reads), or not verified, with the reason and the
line: a config file no case reads, a write to the config the reader cannot resolve, a channel the readers do not
follow (a Hydra plugin, a `PATH` shim, `xargs`, a script that calls a launch script with an environment prefix, an
entry point). A change the review cannot see is named, never silent; the base's `unverified` setting decides
whether it blocks.

Pull-request bytes are read through the one reader's bounds (`MAX_FILE_BYTES` per file, `MAX_CHANGED_FILES` files,
the Python budget of `python_tree`); line scans use plain string tests and regexes without nested repetition."""

from __future__ import annotations

import ast
import configparser
import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.baselines.gitrepo import GitError, git, read_file
from harness.composition.provenance import Source
from harness.gates import linear
from harness.gates.budget import InputLimitError, python_tree, toml_document
from harness.gates.confine import UnsafeInput
from harness.gates.errors import BadInput
from harness.gates.reader import NotAFile, read_bytes
from harness.model.findings import ERROR, WARNING, Finding, Kind, Origin
from harness.model.settings import Settings, display_path
from harness.readers.writes import returns_given

# Files of one diff classified: a pull request that changes more is classified this far and the rest named as one
# not-verified line (a review never reads an unbounded list of files).
MAX_CHANGED_FILES = 5_000
# One changed file read for its lines: a larger file is named as not verified, not read.
MAX_SCANNED_BYTES = 1 << 20
# Bytes of `git diff -U0` read for the changed lines of every file at once.
MAX_DIFF_BYTES = 64 << 20

COMPARED, NOT_RELEVANT, NOT_VERIFIED = "compared", "not relevant", "not verified"
UNTRACKED = "?"  # git's status of a file the working tree adds that git does not track (classified as added)

# Executables a launch runs: one of these names added to the repository (`bin/python3`) and put first on `PATH`
# replaces what every launch runs.
SHIM_NAMES = frozenset({"python", "python3", "uv", "torchrun", "accelerate", "deepspeed", "ray", "bash", "sh", "env", "pip", "srun"})
SHIM_NAME = linear.compile(r"python3(?:\.\d+)?")
# Names the code gives the composed config (or a node of it): a write through one of them is a write to the config.
CONFIG_NAMES = frozenset({"config", "cfg", "conf", "configs", "hydra_cfg", "hydra_config", "omega_conf", "dictconfig"})
DOC_SUFFIXES = (".md", ".rst", ".txt", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ipynb", ".pdf", ".html", ".css")
SHELL_SUFFIXES = (".sh", ".bash")
YAML_SUFFIXES = (".yaml", ".yml")
# A `PATH=...` or `export PATH=...` assignment, `xargs` as a command word, an environment prefix before a script run.
PATH_CHANGE = linear.compile(r"(?:^|[\s;&|(])(?:export\s+|declare\s+-x\s+)?PATH\+?=")
XARGS = linear.compile(r"(?:^|[\s;&|(])xargs(?:\s|$)")
ENV_PREFIX = linear.compile(r"^\s*(?:env\s+)?[A-Za-z_][A-Za-z0-9_]*=\S*\s")
ASSIGNMENT = linear.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
SOURCE_DIRECTIVE = linear.compile(r"^\s*(?:source|\.)\s")
MAX_LINES_NAMED = 5  # lines of one file's unresolved writes a reason names before it counts the rest
HUNK = linear.compile(rb"^@@ -[0-9]+(?:,[0-9]+)? \+([0-9]+)(?:,([0-9]+))? @@")


@dataclass(frozen=True)
class Accounted:
    """One changed file of the pull request: compared, not relevant or not verified, why, and (not verified) the
    line the reason is about."""

    file: str  # relative to the repository's top
    verdict: str
    reason: str
    line: int | None = None


@dataclass(frozen=True)
class DiffAccounting:
    """What a review needs to classify the pull request's files: the repository, the base's commit, the settings
    the review checks with (the base's), whether the base blocks on a change not verified, and the Python sources'
    view of this side (the writes the reader resolved)."""

    top: Path
    commit: str
    settings: Settings
    block: bool = False
    view: Any = None

    def classify(self, cases: Sequence[Any]) -> list[Accounted]:
        """Every file the working tree changes against the base, classified (`cases`: the run's results, whose root
        configs and launches tell which config files the run reads)."""
        try:
            changed, lines = changed_files(self.top, self.commit)
        except GitError as error:
            return [Accounted("", NOT_VERIFIED, f"the pull request's files could not be listed ({error})")]
        seen = Seen(config_reads(self.settings, cases), launch_scripts(self.settings, self.top))
        accounted = []
        for path, status in changed[:MAX_CHANGED_FILES]:
            rows = _classified(self, seen, path, status, lines.get(path))
            # An untracked file nothing of the run reads is no part of a pull request (a CI checkout has none): a
            # report or shard result the harness wrote beside the tree is not listed.
            accounted += [row for row in rows if status != UNTRACKED or row.verdict != NOT_RELEVANT]
        if len(changed) > MAX_CHANGED_FILES:
            more = len(changed) - MAX_CHANGED_FILES
            accounted.append(Accounted(changed[MAX_CHANGED_FILES][0], NOT_VERIFIED, f"{more} more changed files not classified", 1))
        return accounted

    def findings(self, accounted: Iterable[Accounted]) -> list[Finding]:
        """One `unverified` finding per line not verified: a warning, or an error where the base's settings say
        `unverified = "block"`."""
        severity = ERROR if self.block else WARNING
        # Files not verified for the same reason (five generated references no case reads) are one line, at the first
        # file, naming the others: the section stays readable.
        alike: dict[str, list[Accounted]] = {}
        for item in accounted:
            if item.verdict == NOT_VERIFIED:
                alike.setdefault(item.reason, []).append(item)
        found = []
        for reason, items in alike.items():
            item = items[0]
            shown = display_path(self.top / item.file) if item.file else ""
            message = f"not verified: {reason}"
            if len(items) > 1:
                others = [other.file for other in items[1:]]
                named = ", ".join(others[:MAX_LINES_NAMED]) + (
                    f" and {len(others) - MAX_LINES_NAMED} more" if len(others) > MAX_LINES_NAMED else ""
                )
                message += f" ({len(items)} files: {item.file}, {named})"
            found.append(
                Finding(
                    Kind.UNVERIFIED,
                    item.file,
                    severity=severity,
                    message=message,
                    source=Source(shown, item.line),
                    origin=Origin.INTRODUCED,
                )
            )
        return found


@dataclass(frozen=True)
class Seen:
    """What the run reads, for the rules: its config files (absolute) and the launch scripts the base's globs match
    (relative to the repository's top)."""

    reads: frozenset[Path]
    launches: frozenset[str]


def launch_scripts(settings: Settings, top: Path) -> frozenset[str]:
    """The scripts the base's `[[commands]]` globs match in the working tree, relative to the repository's top."""
    from harness.runner.launches import find_scripts

    found = set()
    for script in find_scripts(settings.project, settings.command_globs):
        try:
            found.add(script.resolve().relative_to(top.resolve()).as_posix())
        except ValueError:
            continue
    return frozenset(found)


# ---------------------------------------------------------------------------------------------------------- the diff


def changed_files(top: Path, commit: str) -> tuple[list[tuple[str, str]], dict[str, frozenset[int]]]:
    """The files the working tree changes against `commit` (git's status letter each; untracked files as `A`), and
    for each the lines of the working tree's file that are new (absent: every line, a file git holds no diff of)."""
    listed = git(top, "diff", "--name-status", "--no-renames", "-z", commit, "--")
    fields = [f.decode("utf-8", "surrogateescape") for f in listed.split(b"\0") if f]
    changed = [(fields[i + 1], fields[i]) for i in range(0, len(fields) - 1, 2)]
    untracked = git(top, "ls-files", "-z", "--others", "--exclude-standard")
    changed += [(name.decode("utf-8", "surrogateescape"), UNTRACKED) for name in untracked.split(b"\0") if name]
    lines: dict[str, set[int]] = {}
    current: str | None = None
    diff = git(
        top, "-c", "core.quotePath=false", "diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", commit, "--", limit=MAX_DIFF_BYTES
    )
    for row in diff.split(b"\n"):
        if row.startswith(b"+++ "):
            name = row[4:].decode("utf-8", "surrogateescape")
            current = name[2:] if name.startswith("b/") else None
            if current is not None:
                lines.setdefault(current, set())
        elif current is not None and (hunk := HUNK.match(row)):
            start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
            lines[current].update(range(start, start + count))
    return sorted(changed), {name: frozenset(found) for name, found in lines.items()}


def _head_text(top: Path, path: str) -> str | None:
    """The working tree's file as text (None: absent, a link, not a file, too large or not UTF-8)."""
    target = top / path
    if target.is_symlink():
        return None
    try:
        return read_bytes(target, limit=MAX_SCANNED_BYTES, what=path).decode("utf-8")
    except (OSError, NotAFile, UnsafeInput, InputLimitError, UnicodeDecodeError):
        return None


def _base_text(top: Path, commit: str, path: str) -> str | None:
    try:
        data = read_file(top, commit, path, limit=MAX_SCANNED_BYTES)
        return None if data is None else data.decode("utf-8")
    except (GitError, UnicodeDecodeError):
        return None


# --------------------------------------------------------------------------------------------------- what is read


def config_reads(settings: Settings, cases: Sequence[Any]) -> frozenset[Path]:
    """The config files the run reads, as absolute paths: each case's root config, every file its golden's header
    records as selected or setting a value (the goldens of this side's snapshot folder), each launch's config and
    the group options its overrides select."""
    found: set[Path] = set()
    # Named as text and each resolved once: hundreds of launches name the same few files.
    named: set[str] = set()
    folders = [str(folder) for folder in (settings.config_dir, *settings.search_path)]
    for result in cases:
        if getattr(result, "root_file", ""):
            found.add(_absolute(result.root_file))
        case = getattr(result, "case", None)
        config_name = getattr(case, "config_name", "") or ""
        for folder in folders:
            if config_name:
                named.add(os.path.join(folder, f"{config_name}.yaml"))
            for override in getattr(case, "overrides", ()) or ():
                key, equals, value = str(override).lstrip("+~").partition("=")
                if equals and value and "," not in value:
                    group = key.partition("@")[0].replace(".", "/")
                    named.add(os.path.join(folder, group, f"{value}.yaml"))
    folders_real: dict[str, str] = {}
    for name in named:
        # realpath(a/b) is realpath(a) joined with b unless b is itself a link: a folder is resolved once.
        folder, base = os.path.split(name)
        if folder not in folders_real:
            folders_real[folder] = os.path.realpath(folder)
        found.add(Path(os.path.realpath(name) if os.path.islink(name) else os.path.join(folders_real[folder], base)))
    for golden in sorted(settings.snapshot_dir.glob("*.yaml")) if settings.snapshot_dir.is_dir() else ():
        found |= _golden_reads(golden)
    return frozenset(found)


def _absolute(shown: str) -> Path:
    path = Path(shown)
    return (path if path.is_absolute() else Path.cwd() / path).resolve()


def _golden_reads(golden: Path) -> set[Path]:
    """The files a golden's header says its case read (`# selected: {..."file": ...}` and `# set: {"file": ...}`)."""
    found: set[Path] = set()
    try:
        text = read_bytes(golden, limit=MAX_SCANNED_BYTES, what=str(golden)).decode("utf-8", "replace")
    except (OSError, NotAFile, UnsafeInput, InputLimitError):
        return found
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        start = line.find('"file":"')
        if line.startswith(("# selected: ", "# set: ")) and start != -1:
            end = line.find('"', start + 8)
            if end != -1:
                found.add(_absolute(line[start + 8 : end]))
    return found


# ---------------------------------------------------------------------------------------------------- the rules


def _classified(account: DiffAccounting, seen: Seen, path: str, status: str, lines: frozenset[int] | None) -> list[Accounted]:
    """`classify_file`, where a file the rules cannot read is named as not verified, never a failed review."""
    try:
        return classify_file(account, seen, path, status, lines)
    except (BadInput, OSError, ValueError, RecursionError, GitError) as error:
        return [Accounted(path, NOT_VERIFIED, f"the review could not read it ({type(error).__name__}: {str(error)[:200]})", 1)]


def classify_file(account: DiffAccounting, seen: Seen, path: str, status: str, lines: frozenset[int] | None) -> list[Accounted]:
    """One changed file, classified by the first rule that holds (a file may give several not-verified lines)."""
    settings, top = account.settings, account.top
    absolute = (top / path).resolve()
    name = path.rsplit("/", 1)[-1]
    parts = path.split("/")
    deleted = status == "D"
    if "hydra_plugins" in parts[:-1] and path.endswith(".py"):
        return [_plugin(account, path, deleted)]
    if not path.endswith(".py") and (name in SHIM_NAMES or SHIM_NAME.fullmatch(name)) and not deleted:
        reason = f"an executable named {name}: put first on PATH it replaces what launches run (the readers assume the real {name})"
        return [Accounted(path, NOT_VERIFIED, reason, 1)]
    if name in ("pyproject.toml", "setup.py", "setup.cfg") and parts[:-1] == [] or name in ("setup.py", "setup.cfg"):
        entry = _entry_points(account, path)
        if entry is not None:
            return [entry]
    if _inside(absolute, (settings.snapshot_dir,)):
        return [Accounted(path, COMPARED, "the pull request's goldens, checked as `check` on its head checks them")]
    if absolute == settings.origin.resolve() or any(absolute == c.resolve() for c in settings.contracts):
        return [Accounted(path, COMPARED, "settings or contracts: compared key by key with the base's")]
    folders = (settings.config_dir, *settings.search_path)
    if _inside(absolute, folders) and name.endswith(YAML_SUFFIXES):
        if deleted:
            return [Accounted(path, COMPARED, "a config file removed: every case and launch that read it at the base composes without it")]
        if absolute in seen.reads:
            return [Accounted(path, COMPARED, "a config file a case or launch reads")]
        return [
            Accounted(path, NOT_VERIFIED, "a config file under the config folder that no case or launch of the review reads", _first(lines))
        ]
    if _inside(absolute, settings.python_sources) and path.endswith(".py"):
        if deleted:
            return [Accounted(path, COMPARED, "a Python source removed: the writes and defaults it held are compared")]
        return _python(account, path, lines)
    launch = path in seen.launches
    if name.endswith(SHELL_SUFFIXES) or launch:
        if deleted:
            return [Accounted(path, COMPARED if launch else NOT_RELEVANT, "a script removed")]
        return _script(account, seen, path, lines, launch)
    if path.startswith(".github/workflows/"):
        return [Accounted(path, COMPARED, "a workflow: one that runs config-harness is a settings change")]
    if name.endswith(DOC_SUFFIXES) or parts[0] in ("docs", "doc") or name in ("LICENSE", "NOTICE", "CODEOWNERS"):
        return [Accounted(path, NOT_RELEVANT, "documentation: nothing of the run reads it")]
    if parts[0] in ("tests", "test") or name.startswith("test_") or name.endswith("_test.py"):
        return [Accounted(path, NOT_RELEVANT, "tests outside the command globs: no launch runs them")]
    if path.endswith(".py"):
        return [Accounted(path, NOT_RELEVANT, "Python outside python_sources: no entry point or class the review reads")]
    if name.endswith(YAML_SUFFIXES):
        return [Accounted(path, NOT_RELEVANT, "YAML outside the config folder and the search path: Hydra does not compose it")]
    return [Accounted(path, NOT_RELEVANT, "nothing of the run reads it (not a config, a Python source or a launch script)")]


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    for folder in folders:
        try:
            path.relative_to(folder.resolve())
            return True
        except ValueError:
            continue
    return False


def _first(lines: frozenset[int] | None) -> int | None:
    return min(lines) if lines else 1


# -------------------------------------------------------------------------------------------------------- channels


def _plugin(account: DiffAccounting, path: str, deleted: bool) -> Accounted:
    """A file under `hydra_plugins/`: a SearchPathPlugin there adds a folder to every Hydra run's search path, so it
    changes what every case composes; read statically, as `init` reads it."""
    if deleted:
        return Accounted(path, NOT_VERIFIED, "a Hydra plugin removed (hydra_plugins/): what every run's search path holds changes", 1)
    text = _head_text(account.top, path)
    line, said = 1, "a Hydra plugin (hydra_plugins/): installed, it runs in every Hydra application; the review does not run it"
    if text is not None and "SearchPathPlugin" in text:
        from harness.adopt import plugin_search_paths

        said = "a SearchPathPlugin (hydra_plugins/) changes the search path every case composes with; the review composes without it"
        try:
            tree = python_tree(text, path)
            line = next((n.lineno for n in ast.walk(tree) if isinstance(n, ast.ClassDef)), 1)
        except (SyntaxError, ValueError, BadInput):
            pass
        try:
            added = [words for folder, words in plugin_search_paths(account.top, account.settings.search_path) if path in words]
        except (OSError, BadInput):
            added = []
        folders = [words.split(": ", 1)[0] for words in added if words.startswith("search_path ")]
        if folders:
            said += f"; it adds the readable folder {', '.join(f.removeprefix('search_path ') for f in folders)}: add it to `search_path`"
        elif added:
            said += "; it adds a folder it computes at run time"
    return Accounted(path, NOT_VERIFIED, said, line)


def _entry_points(account: DiffAccounting, path: str) -> Accounted | None:
    """An entry point the pull request adds or changes in pyproject.toml, setup.cfg or setup.py: a new program a launch
    may run (None: the entry points are as they were)."""
    before, after = _base_text(account.top, account.commit, path), _head_text(account.top, path)
    old, new = _entries(path, before), _entries(path, after)
    if old == new:
        return None
    anchor = "entry_points" if not path.endswith("pyproject.toml") else "scripts"
    line = next((i for i, text in enumerate((after or "").splitlines(), 1) if anchor in text), 1)
    return Accounted(
        path,
        NOT_VERIFIED,
        f"an entry point added or changed in {path.rsplit('/', 1)[-1]}: a program the launches' reader does not know",
        line,
    )


def _entries(path: str, text: str | None) -> Any:
    text = text or ""  # an absent file declares no entry point
    try:
        if path.endswith(".toml"):
            document = toml_document(text, path)
            project = document.get("project", {}) if isinstance(document.get("project"), dict) else {}
            poetry = document.get("tool", {}).get("poetry", {}) if isinstance(document.get("tool"), dict) else {}
            return repr((project.get("scripts"), project.get("gui-scripts"), project.get("entry-points"), poetry.get("scripts")))
        if path.endswith(".cfg"):
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.read_string(text)
            return repr(dict(parser["options.entry_points"])) if parser.has_section("options.entry_points") else None
        tree = python_tree(text, path)
        return repr(
            [
                ast.dump(k.value)
                for n in ast.walk(tree)
                if isinstance(n, ast.Call)
                for k in n.keywords
                if k.arg in ("entry_points", "scripts")
            ]
        )
    except (tomllib.TOMLDecodeError, configparser.Error, SyntaxError, ValueError, BadInput, AttributeError):
        return "unreadable"


def _script(account: DiffAccounting, seen: Seen, path: str, lines: frozenset[int] | None, launch: bool) -> list[Accounted]:
    """A shell script: a launch script the reader models is compared; what it does not model on a changed line
    (`xargs`, a `PATH` change, a launch script called with an environment prefix) is not verified."""
    text = _head_text(account.top, path)
    if text is None:
        return [Accounted(path, NOT_VERIFIED, "a script the review cannot read (too large, a link or not UTF-8)", 1)]
    found = []
    launches = seen.launches
    # PATH and xargs matter where launches run: a launch script, or a script that names one (a wrapper).
    runs = launch or any(name in text for name in launches)
    for number, row in enumerate(text.splitlines(), 1):
        if lines is not None and number not in lines:
            continue
        stripped = row.lstrip()
        if stripped.startswith("#"):
            continue
        if runs and XARGS.search(row):
            reason = "`xargs` builds a command from its input: the overrides it passes are not read"
        elif runs and PATH_CHANGE.search(row):
            reason = "a PATH change: the programs the launches run may not be the ones the reader assumes"
        elif (called := _calls_launch(row, launches, path)) is not None:
            reason = f"calls the launch script {called} with an environment prefix or arguments: the reader reads that script with its own values"
        else:
            continue
        found.append(Accounted(path, NOT_VERIFIED, reason, number))
    if found:
        return found
    if launch:
        return [Accounted(path, COMPARED, "a launch script: its launches are read and compared")]
    return [Accounted(path, NOT_RELEVANT, "a shell script that calls no launch script and matches no command glob")]


def _calls_launch(row: str, launches: frozenset[str], own: str) -> str | None:
    """The launch script a line runs with an environment prefix (`ROLLOUT_N=1 bash examples/x/run.sh`) or with
    arguments, or sources (its variables then come from the caller), None for any other line."""
    words = row.split()
    for index, word in enumerate(words):
        name = word.strip("'\"").removeprefix("./")
        if name in (own, own.rsplit("/", 1)[-1]) or not name.endswith(SHELL_SUFFIXES):
            continue
        if not any(name == launch or launch.endswith("/" + name) for launch in launches):
            continue
        # In command position: after environment assignments (and `env`), as the command or a shell's script.
        before = [w for w in words[:index] if not (ASSIGNMENT.match(w) or w == "env")]
        if before not in ([], ["bash"], ["sh"], ["source"], ["."], ["exec"], ["exec", "bash"]):
            continue
        prefix = row[: row.find(word)]
        arguments = [w for w in words[index + 1 :] if not w.startswith(("#", ">", "2>", "&", "|", ";"))]
        if ENV_PREFIX.match(prefix) or SOURCE_DIRECTIVE.match(prefix) or arguments:
            return name
    return None


# ---------------------------------------------------------------------------------------------------------- Python


def _python(account: DiffAccounting, path: str, lines: frozenset[int] | None) -> list[Accounted]:
    """A Python source: compared, but for each write to the config on a changed line the reader does not resolve
    (`setattr`, `object.__setattr__`, a write in a function reached through an object, through an alias, or in a
    helper of `__post_init__`): "write not resolved at FILE:LINE"."""
    text = _head_text(account.top, path)
    if text is None:
        return [Accounted(path, NOT_VERIFIED, "a Python source the review cannot read (too large, a link or not UTF-8)", 1)]
    try:
        tree = python_tree(text, path)
    except (SyntaxError, ValueError, BadInput):
        return [Accounted(path, NOT_VERIFIED, "a Python source that does not parse: its writes and defaults are not read", 1)]
    found = not_resolved(account.view, path, tree, lines)
    if found:  # one line per file: the first write, then where the others are
        (line, shape), others = found[0], found[1:]
        more = f"; also at line{'s' * (len(others) > 1)} {', '.join(str(n) for n, _ in others[:MAX_LINES_NAMED])}" if others else ""
        more += f" and {len(others) - MAX_LINES_NAMED} more" if len(others) > MAX_LINES_NAMED else ""
        return [Accounted(path, NOT_VERIFIED, f"write not resolved at {path}:{line} ({shape}){more}", line)]
    return [Accounted(path, COMPARED, "a Python source: its entry points' writes and its classes' defaults are read")]


def not_resolved(view: Any, path: str, tree: ast.Module, lines: frozenset[int] | None = None) -> list[tuple[int, str]]:
    """The writes to the config in `path` (on `lines`, None: every line) that the writes reader does not resolve, each
    with its line and shape, in line order: what a review names "write not resolved at FILE:LINE"."""
    resolved, unresolved = _read_lines(view, path)
    found = dict(sorted(unresolved))  # one shape a line, the reader's own first
    for line, shape in sorted(candidate_writes(tree)):
        if line not in resolved:
            found.setdefault(line, shape)
    return [(line, shape) for line, shape in sorted(found.items()) if lines is None or line in lines]


def _read_lines(view: Any, path: str) -> tuple[frozenset[int], frozenset[tuple[int, str]]]:
    """The lines of `path` holding a write the reader resolved (an entry point's, or a class's `__post_init__`), and
    the writes it met there and could not resolve (a name bound to different nodes), each with its shape."""
    if view is None:
        return frozenset(), frozenset()
    from harness.readers.writes import class_reach
    from harness.runner.config_writes import program_unresolved, program_writes

    def same(file: str) -> bool:
        return file == path or path.endswith("/" + file)

    found = {owned.write.line for owned in program_writes(view) if same(owned.write.file)}
    unresolved = {(u.line, u.shape) for u in program_unresolved(view) if same(u.file)}
    for qualname in _class_names(view, path):
        reach = class_reach(view.index, qualname)
        found |= {write.line for write in reach.writes if same(write.file)}
        unresolved |= {(u.line, u.shape) for u in reach.unresolved if same(u.file)}
    return frozenset(found), frozenset(unresolved)


def _class_names(view: Any, path: str) -> list[str]:
    """The dotted names of the classes `path` defines, as the view's index names them."""
    text = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    parts = text.split(".")
    names: list[str] = []
    for start in range(len(parts)):
        module = ".".join(parts[start:])
        tree = getattr(view.index.locate(module), "tree", None) if module else None
        if isinstance(tree, ast.Module):
            names += [f"{module}.{item.name}" for item in tree.body if isinstance(item, ast.ClassDef)]
            break
    return names


def candidate_writes(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every statement that may write the config, with its shape: `setattr(...)`, `object.__setattr__(...)`, an
    assignment, `del` or in-place method (`.pop`, `.merge_with`, `.append`, ...) through a name the code gives the
    config (or an alias of one, or a parameter some call of the file gives one), `OmegaConf.update(...)`, and
    `self.X = ...` in a helper method a class's `__post_init__` calls."""
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    # Functions of the file that give back a node they were given (`def pick(node): return node.a`): a name bound to
    # what one returns is an alias.
    returning = frozenset(f.name for f in functions if returns_given(f))
    given = _given_config(tree, functions, returning)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield from _post_init_helpers(node)
    for function in functions:
        yield from _function_writes(function, given.get(id(function), frozenset()), returning)


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _root(node: ast.expr) -> str:
    """The name an attribute, subscript or method-call chain starts at (`self.config` for `self.config.a[0].b`,
    `cfg` for `cfg.get("a").b`), "" for any other."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Attribute):
                return ""
            node = node.func.value
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return f"self.{node.attr}"
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _configish(name: str, aliases: Mapping[str, bool]) -> bool:
    return name.removeprefix("self.").lower() in CONFIG_NAMES or aliases.get(name, False)


def _handles_config(function: ast.FunctionDef | ast.AsyncFunctionDef, given: frozenset[str] = frozenset()) -> bool:
    """A function that names the config (a parameter, a name or `self.config`), is given it by a call of the file,
    or a `__post_init__` (a config node's own fields)."""
    if function.name == "__post_init__" or given:
        return True
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id.lower() in CONFIG_NAMES or isinstance(node, ast.arg) and node.arg.lower() in CONFIG_NAMES:
            return True
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and node.attr.lower() in CONFIG_NAMES
        ):
            return True
    return False


# Calls found by name through an object: `runner.run.remote(config)` is `run` (Ray's `.remote` calls the method).
REMOTE_SUFFIXES = ("remote",)
MAX_GIVEN_ROUNDS = 8  # rounds of parameters given the config through calls of one file (a chain of helpers)


def _given_config(
    tree: ast.Module, functions: Sequence[ast.FunctionDef | ast.AsyncFunctionDef], returning: frozenset[str]
) -> dict[int, frozenset[str]]:
    """For each function of the file (by id), the parameters some call in the file gives the config to: a call by
    name or through an object (`helper(cfg.a)`, `runner.run(config)`, `Runner(config)`) with a config name (or an
    alias, or a parameter so given) at the parameter's place. A helper a method reached through an object calls is
    given it too (to a fixed point, bounded)."""
    by_name: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    methods: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    methods.add(id(item))
                    if item.name == "__init__":
                        by_name.setdefault(node.name, []).append(item)
    for function in functions:
        by_name.setdefault(function.name, []).append(function)
    given: dict[int, set[str]] = {}
    for _ in range(MAX_GIVEN_ROUNDS):
        grew = False
        for function in functions:
            aliases = _aliases(function, frozenset(given.get(id(function), ())), returning)
            for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                name = _called_name(call.func)
                if not name or name not in by_name:
                    continue
                passed = [i for i, a in enumerate(call.args) if _configish(_root(a) or _dotted(a), aliases)]
                named = {k.arg for k in call.keywords if k.arg and _configish(_root(k.value) or _dotted(k.value), aliases)}
                if not passed and not named:
                    continue
                for target in by_name[name]:
                    parameters = [*target.args.posonlyargs, *target.args.args][1 if id(target) in methods else 0 :]
                    found = {parameters[i].arg for i in passed if i < len(parameters)}
                    found |= {p.arg for p in [*parameters, *target.args.kwonlyargs] if p.arg in named}
                    if not found <= given.get(id(target), set()):
                        given.setdefault(id(target), set()).update(found)
                        grew = True
        if not grew:
            break
    return {key: frozenset(value) for key, value in given.items()}


def _called_name(func: ast.expr) -> str:
    """The function or method a call names: `helper`, `run` for `runner.run(...)` and `runner.run.remote(...)`."""
    if isinstance(func, ast.Attribute) and func.attr in REMOTE_SUFFIXES and isinstance(func.value, ast.Attribute):
        func = func.value
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _dynamic_writes(
    function: ast.FunctionDef | ast.AsyncFunctionDef, aliases: Mapping[str, bool], given: frozenset[str]
) -> Iterator[tuple[int, str]]:
    """`setattr(...)`, `delattr(...)` and `object.__setattr__(...)` in a function that handles the config: the writes
    reader does not follow them (or not on another node than the one it walks)."""
    handles = _handles_config(function, given)
    for node in _own_statements(function):
        for call in (n for n in _own_nodes(node) if isinstance(n, ast.Call)):
            func = _dotted(call.func)
            if func not in ("setattr", "delattr", "object.__setattr__") or not call.args:
                continue
            if handles or _configish(_root(call.args[0]) or _dotted(call.args[0]), aliases):
                yield call.lineno, func


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """A statement's expressions, never those of a nested block (each block's statements are walked on their own)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.stmt, ast.excepthandler)):
                stack.append(child)


# Methods that change a node (or a list) in place, called on a config name.
IN_PLACE = frozenset({"pop", "update", "merge_with", "setdefault", "clear", "append", "extend", "insert", "remove", "sort", "reverse"})
IN_PLACE_DUNDER = frozenset({"__setattr__", "__setitem__", "__delattr__", "__delitem__"})


def _aliases(
    function: ast.FunctionDef | ast.AsyncFunctionDef, given: frozenset[str], returning: frozenset[str] = frozenset()
) -> dict[str, bool]:
    """The names of a function bound to the config or a node of it: its config parameters (by name, or given by a
    call of the file) and every name assigned, looped over or bound by `with ... as` from an expression through one
    (in order; an alias of an alias too)."""
    aliases: dict[str, bool] = dict.fromkeys(given, True)
    for node in _own_statements(function):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            pairs = [(item.optional_vars, item.context_expr) for item in node.items if item.optional_vars is not None]
        for target, value in pairs:
            if _holds_node(value, aliases, returning):
                for name in (n for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)):
                    aliases[name.id] = True
    return aliases


def _holds_node(value: ast.expr, aliases: Mapping[str, bool], returning: frozenset[str] = frozenset()) -> bool:
    """An expression that may be (or hold, for a loop) a node of the config: a chain from a config name
    (`cfg.a`, `cfg["a"]`, `cfg.get("a")`, `cfg.items()`), either side of `x if c else y` or `x or y`, an item of a
    tuple or list of them, what a function of the file that gives back its argument returns (`returning`), `with
    open_dict(cfg) as c`. Not a call
    of another function, arithmetic or a text built from a value."""
    if isinstance(value, (ast.IfExp)):
        return _holds_node(value.body, aliases, returning) or _holds_node(value.orelse, aliases, returning)
    if isinstance(value, ast.BoolOp):
        return any(_holds_node(v, aliases, returning) for v in value.values)
    if isinstance(value, (ast.Tuple, ast.List)):
        return any(_holds_node(v.value if isinstance(v, ast.Starred) else v, aliases, returning) for v in value.elts)
    if isinstance(value, ast.Call) and (_called_name(value.func) in returning or _called_name(value.func) in ("open_dict", "read_write")):
        return any(_holds_node(a, aliases, returning) for a in [*value.args, *(k.value for k in value.keywords)])
    if isinstance(value, (ast.Attribute, ast.Subscript, ast.Name, ast.Call)):
        return _configish(_root(value) or _dotted(value), aliases)
    return False


def _targets(node: ast.stmt) -> list[ast.expr]:
    """The places a statement stores into or deletes, tuples unpacked."""
    found: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        found = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        found = [node.target]
    elif isinstance(node, ast.Delete):
        found = list(node.targets)
    flat: list[ast.expr] = []
    while found:
        target = found.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            found += target.elts
        elif isinstance(target, ast.Starred):
            found.append(target.value)
        else:
            flat.append(target)
    return flat


def _function_writes(
    function: ast.FunctionDef | ast.AsyncFunctionDef, given: frozenset[str] = frozenset(), returning: frozenset[str] = frozenset()
) -> Iterator[tuple[int, str]]:
    """The writes of one function's own statements through the config's names and their aliases."""
    aliases = _aliases(function, given, returning)
    yield from _dynamic_writes(function, aliases, given)
    for node in _own_statements(function):
        for target in _targets(node):
            if _binds_self(target):
                continue  # `self.config = config` keeps the config; it does not write it
            if isinstance(target, (ast.Attribute, ast.Subscript)) and _configish(_root(target), aliases):
                root = _root(target)
                yield node.lineno, f"a write through an alias of the config ({root})" if aliases.get(root) else "a write to the config"
        for call in (n for n in _own_nodes(node) if isinstance(n, ast.Call)):
            func = _dotted(call.func)
            if func in ("OmegaConf.update", "OmegaConf.set_struct") and call.args:
                if _configish(_root(call.args[0]) or _dotted(call.args[0]), aliases):
                    yield call.lineno, func
            elif isinstance(call.func, ast.Attribute) and call.func.attr in IN_PLACE | IN_PLACE_DUNDER:
                receiver = call.func.value
                if _configish(_root(receiver) or _dotted(receiver), aliases):
                    yield call.lineno, f"`.{call.func.attr}(...)` on the config"


def _binds_self(target: ast.expr) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def _own_statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    """A function's statements, nested blocks included, never those of a function or class defined inside it."""
    stack = list(reversed(function.body))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                stack.extend(reversed([s for s in block if isinstance(s, (ast.stmt, ast.excepthandler))]))  # type: ignore[misc]
        if isinstance(statement, ast.Match):
            for case in statement.cases:
                stack.extend(reversed(case.body))


def _post_init_helpers(klass: ast.ClassDef) -> Iterator[tuple[int, str]]:
    """`self.X = ...` in a method a class's `__post_init__` calls as `self.method(...)`: the reader follows
    `__post_init__` itself, not its helpers."""
    methods = {m.name: m for m in klass.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    post_init = methods.get("__post_init__")
    if post_init is None:
        return
    called = {
        node.func.attr
        for node in ast.walk(post_init)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    }
    for name in sorted(called & set(methods) - {"__post_init__"}):
        for node in _own_statements(methods[name]):
            targets = (
                node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            )
            if any(isinstance(t, (ast.Attribute, ast.Subscript)) and _root(t).startswith("self.") for t in targets):
                yield node.lineno, f"a field set in {name}, which __post_init__ calls"
