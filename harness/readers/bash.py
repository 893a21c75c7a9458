"""Find the Hydra launches in a shell script without running it: a small evaluator over tree-sitter-bash's syntax tree.

Nothing in a script runs: a command substitution or a `date` is never executed; what it would produce is
unknown, and an override whose value needs it keeps a placeholder (messages show the script's own text). A file
the script `source`s is read the same way, never run. The evaluator follows what real scripts do: assignments
with `${VAR:-default}`, `$((...))` arithmetic, arrays and `"${ARR[@]}"`, `+=`, line continuations, quoting,
`if` and `case` (the branch a run with nothing set takes: an unset variable is empty in a test, as in bash; a
launch on another branch says `only when ...`; with `readings`, the script is read again under each environment that
takes a branch on the environment another way, see `launches_in`), shell functions run where they are called with their arguments,
`set --`/`shift`, `set -u` and `exit` (where bash stops, the launches after it say so), `export`,
`cd`/`pushd`/`popd` (scripts start at the project's root; a subshell's folder ends with it), and launchers in
front of Python (`uv run`, `torchrun`, `accelerate launch`, `deepspeed`, `ray job submit --`). What cannot be
known without running code (a whole argument from an unset variable or a command, `eval`, a `cd` to an unknown
folder) makes the launch "not extracted", with why, instead of a guess. So does a value bash may have assigned in
a way not followed here (`eval`, `read`, `printf -v`, `declare -n`, a computed `declare`, a DEBUG `trap`, a
`source` not read): from that command on, what it may assign is unknown, never the value before it. The same for
what the reader does not run exactly: a loop it does not read pass by pass (a `for` over few known words it does,
each launch in it once per pass), arithmetic it cannot compute (`harness.readers.arithmetic` computes the rest with
bash's precedence), `declare -i`, splitting on a changed IFS, and a branch whose test reads such a value.

Three rooms, bottom up: `bash_words` (a script's variables and the words bash makes of its text), `bash_walk` (the
parse and the walk over statements, branches, loops, functions and environments) and this module, the launch
extraction: each simple command's builtins (one handler each, `_Reader.BUILTINS`), its launch of Python and Hydra's
arguments, and `launches_in`, the reader's one entry. The values a launch is made of (`Piece`, `placeholder`,
`Environment`) are words' and part of this module's interface (`__all__`).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from harness.gates import linear
from harness.gates.budget import (
    MAX_INDEX_DIGITS,
    MAX_SCRIPT_BYTES,
    MAX_SCRIPT_DEPTH,
    MAX_WORD_BYTES,
    MAX_WORD_PIECES,
    MAX_WORDS,
    BudgetExceeded,
    depth_budget,
    size_budget,
    syntax_depth,
)
from harness.readers.bash_walk import (
    ASSIGNING,
    MAX_SOURCE_DEPTH,
    Walker,
    _Environments,
    _trap_runs_before_launches,
    _unconditional,
    assigned_by,
)
from harness.readers.bash_words import OVER_BUDGET, PLACEHOLDER_MARK, Environment, Piece, Word, _text, placeholder, word_text

# The reader's interface: its entry, the values it returns, and the words' values they are made of.
__all__ = [
    "PLACEHOLDER_MARK",
    "Coverage",
    "Environment",
    "Launch",
    "Override",
    "Piece",
    "alternatives_of",
    "as_parsed",
    "iter_unknown",
    "launches_in",
    "placeholder",
    "shown_text",
]

# Hydra's own command-line flags that take a value (`--config-name X` or `--config-name=X`).
HYDRA_VALUE_FLAGS = MappingProxyType(
    {
        "--config-path": "config_path",
        "-cp": "config_path",
        "--config-name": "config_name",
        "-cn": "config_name",
        "--config-dir": "config_dir",
        "-cd": "config_dir",
        "--cfg": "",
        "-c": "",
        "--package": "",
        "-p": "",
        "--info": "",
        "-i": "",
        "--experimental-rerun": "",
        "--shell-completion": "",
        "-sc": "",
    }
)

_T = TypeVar("_T")


MULTIRUN_SWITCHES = frozenset({"--multirun", "-m"})


HYDRA_SWITCHES = frozenset({"--multirun", "-m", "--run", "-r", "--resolve", "--help", "-h", "--hydra-help", "--version"})


TORCHRUN_SWITCHES = frozenset(
    {
        "--standalone",
        "--no-python",
        "--no_python",
        "--run-path",
        "--run_path",
        "--multi_gpu",
        "--cpu",
        "--use_deepspeed",
        "--use_fsdp",
        "--use_megatron_lm",
        "--debug",
        "--autotune",
    }
)


PYTHON = linear.compile(r"python(\d+(\.\d+)*)?")


OVERRIDE_LIKE = linear.compile(r"[+~]{0,2}[A-Za-z_][\w.@/-]*=")


@dataclass(frozen=True)
class Override:
    """One Hydra override of a launch, as the script writes it after expansion."""

    text: str
    line: int  # where its key is written (an array element's own line, not the launch's)
    unknown: tuple[str, ...] = ()  # the unknown values it holds (placeholders in `text`)
    written: str = ""  # the script's own text of it (`training.seed=${seed}`); messages and fixes show this
    file: str = ""  # the sourced file that wrote its key; "" for the launch's own script

    @property
    def shown(self) -> str:
        """The override as a message shows it: the script's text where a value is unknown, never a placeholder."""
        return self.written if self.unknown and self.written else self.text


@dataclass(frozen=True)
class Launch:
    """One launch of a Python entry point with Hydra overrides, found in a script."""

    script: str  # the script's path, relative to the project
    index: int  # 1-based, in file order
    line: int
    entry: str = ""  # the module (`verl.trainer.main_ppo`) or script path it runs
    is_module: bool = True
    config_path: str | None = None  # --config-path as written (relative to the entry's file)
    config_name: str | None = None
    config_dirs: tuple[str, ...] = ()  # --config-dir
    overrides: tuple[Override, ...] = ()
    error: str = ""  # why it could not be extracted; "" when it was
    name_written: str = ""  # the script's text of --config-name when the reader does not know its value
    folder: str = ""  # a module's: the project's folder `python -m` finds it from ("" the root; after `cd`, or above the script)
    hydra_like: bool = True  # False: a program not in the project whose arguments hold no override and no Hydra flag
    # Where bash stops before running it, on a run with nothing set ("" when it runs): `set -u` and an unset
    # variable, or an `exit`, with the line (`run.sh:5: DEVICE: unbound variable`).
    stops: str = ""
    # The condition a run must meet to reach it, when a plain run takes another branch ("" when a plain run does):
    # `only when VERL_USE_UV=... (`[ "${VERL_USE_UV:-1}" != 0 ]` is false)`.
    only_when: str = ""
    multirun: bool = False  # run with `-m`/`--multirun`: a sweep, one run per point (harness/runner/launches.py)
    # The environment this reading of the launch runs under, when it differs from the plain run's reading of the same
    # launch (with the plain launch's `index`); () for the plain reading. `when` says it in words:
    # `only when CUDA_VISIBLE_DEVICES is set`, `only when VERL_USE_UV=0`, `only when DEVICE is set, not to gpu`.
    environment: Environment = ()
    when: str = ""

    @property
    def where(self) -> str:
        """`FILE:LINE` of the launch."""
        return f"{self.script}:{self.line}"

    @property
    def program(self) -> str:
        """The entry as the project finds it: a script's path, a module (`folder/module` when found below the root)."""
        return f"{self.folder}/{self.entry}" if self.folder and self.is_module else self.entry


class _Reader(Walker):
    """Walks a script's syntax tree in order, keeping variables, and collects its launches."""

    def __init__(
        self,
        script: str,
        source: bytes,
        is_entry: Any,
        read: Any = None,
        environment: Environment = (),
        environments: _Environments | None = None,
    ) -> None:
        super().__init__(script, source, environment, environments)
        self.is_entry = is_entry  # (entry, is_module) -> True when it is a launch to report
        self.read = read  # project path -> the file's bytes, or a one-line reason it is not read (`source`)
        self.launches: list[Launch] = []
        self.sourced_bytes = 0  # every sourced file read, summed: a script sourcing one file 10,000 times stays bounded

    def broken(self, node: Any) -> None:
        """Syntax tree-sitter-bash could not parse (bash may): what it assigns is not known, so nothing is after it."""
        self.unknowable(f"shell syntax the reader could not parse (line {self.at or node.start_point.row + 1})")
        text = _text(node)
        if linear.compile(r"\s-m\s+\w|torchrun|python").search(text):
            self.launches.append(
                Launch(self.script, len(self.launches) + 1, node.start_point.row + 1, error="the shell syntax here could not be parsed")
            )

    def command(self, node: Any) -> None:
        """A simple command: its prefix assignments, then a function's call, a builtin (`BUILTINS`) or a launch."""
        saved = None
        prefix, extra, words, written = self.command_words(node)
        # `VAR=x cmd`: bash expands the command's words first, then sets VAR for the command only (a function sees it,
        # and the value before it comes back when the function returns); with no command, VAR is the script's.
        name = word_text(words[0]) if words else ""
        restore: dict[str, list[Word] | None] = {}
        if words and name not in self.functions:
            saved = self.env
            self.env = saved.child()
        for position, assignment in enumerate(prefix):
            if name in self.functions:
                variable = _text(assignment.children[0]).partition("[")[0]
                restore.setdefault(variable, self.lookup(variable, node.start_point.row + 1))
            self.assign(assignment, extra=extra if position == len(prefix) - 1 else ())
        if saved is not None:
            self.env = saved
        if not words:
            return
        line = self.at or node.start_point.row + 1
        if name in self.functions and self.calling and name == self.calling[-1] and not self.env.only_when:
            if _unconditional(node, self.functions[name][0]):  # `f() { f; }`: bash never comes back from it
                self.stop(f"`{name}` calls itself without end", line)
        if name in self.functions and self.call(name, words[1:], line, restore):
            return
        for variable, value in restore.items():  # a function not followed: its prefix ends here too
            self.env.values[variable] = value
        builtin = self.BUILTINS.get(name)
        if builtin is not None and builtin(self, name, words, written, line):
            return
        launch = self.launch(words, line, written)
        if launch is not None:
            if self.env.aliased and not launch.error:
                launch = replace(launch, error=f"an alias may change what it runs ({self.env.aliased})")
            self.launches.append(replace(launch, stops=self.env.stopped, only_when=self.env.only_when))

    def command_words(self, node: Any) -> tuple[list[Any], list[Any], list[Word], list[str]]:
        """A simple command's prefix assignments, the nodes its last one continues onto, its words and their text as
        the script writes them."""
        prefix = [c for c in node.children if c.type == "variable_assignment"]
        parts = [c for c in node.children if c.type not in ("variable_assignment", "file_redirect", "herestring_redirect", "comment")]
        targets = self.joined([target for part in parts for target in (part.children if part.type == "command_name" else [part])])
        if prefix and targets and self.source[prefix[-1].end_byte : targets[0][0].start_byte] == b"\\\n":
            # `X='a'\\` then `'b'`: one assignment of `ab` (a command of its own only if more follows)
            extra, targets = targets[0], targets[1:]
        else:
            extra = []
        words: list[Word] = []
        written: list[str] = []  # each word as the script writes it: the node's text when it makes one word
        for group in targets:
            expanded = self.word_group(group)
            words += expanded
            if len(expanded) == 1:
                span = self.written_source[self.layout.original(group[0].start_byte) : self.layout.original(group[-1].end_byte)]
                written.append(span.decode("utf-8", "replace").replace("\\\n", ""))
            else:
                written += [shown_text(w) for w in expanded]
        return prefix, extra, words, written

    # The builtins the reader follows, one handler each: (the reader, the name, the command's words and their text as
    # written, the line) -> True when the command is done, False when it is read as a possible launch after all.

    def _folder(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        self.change_folder(name, words[1:], written[1:], line)
        return True

    def _set(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        self.set_builtin(words[1:])
        return True

    def _shift(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        count = word_text(words[1]) if len(words) > 1 else "1"
        if self.env.positional is not None and count.isdigit():
            self.env.positional = self.env.positional[int(count) if len(count) <= MAX_INDEX_DIGITS else len(self.env.positional) :]
        return True

    def _exit(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        self.stop("`" + " ".join(written) + "`", line)
        return True

    def _source(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        self.source_file(words[1:], written[1:], line)
        return True

    def _eval(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        text = " ".join(shown_text(w) for w in words[1:])
        if LAUNCH_LIKE.search(text):
            self.launches.append(
                Launch(self.script, len(self.launches) + 1, line, error=f"`eval` runs text the reader does not follow ({text[:80]})")
            )
        self.unknowable(f"`{' '.join(written)[:80]}` (line {line})")
        return True

    def _assigning(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        names = assigned_by(name, [word_text(w) for w in words[1:]])
        if name == "getopts":  # the script's own arguments, as `$1` is: unknown, and the launch still checked
            for assigned in names:
                self.env.values[assigned] = [(self.piece("", line, f"${assigned}"),)]
        elif names:
            self.unknowable(f"`{' '.join(written)[:80]}` (line {line})", names)
        return True

    def _trap(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        if not _trap_runs_before_launches([word_text(w) for w in words[1:]]):
            return False
        # Until `trap - DEBUG` resets it (what it changed stays unknown then), nothing is known.
        reset = word_text(words[1]) == "-"
        if self.env.trapped or not reset:
            self.unknowable(self.env.trapped or f"`{' '.join(written)[:80]}` (line {line})")
        self.env.trapped = "" if reset else f"`{' '.join(written)[:80]}` (line {line})"
        return True

    def _alias(self, name: str, words: list[Word], written: list[str], line: int) -> bool:
        if len(words) <= 1:
            return False
        self.env.aliased = f"`{' '.join(written)[:80]}` (line {line})"
        return True

    BUILTINS: ClassVar[Mapping[str, Callable[[_Reader, str, list[Word], list[str], int], bool]]] = MappingProxyType(
        {
            **dict.fromkeys(("cd", "pushd", "popd"), _folder),
            "set": _set,
            "shift": _shift,
            "exit": _exit,
            "source": _source,
            ".": _source,
            "eval": _eval,
            **dict.fromkeys(ASSIGNING, _assigning),
            "trap": _trap,
            "alias": _alias,
        }
    )

    def writes(self, redirect: Any) -> None:
        """`> FILE` / `>> FILE`: a file the script writes itself (a here-document's program) is not the project's."""
        if not redirect.children or _text(redirect.children[0]) not in (">", ">>", ">|", "&>"):
            return
        for word in self.words(redirect.children[1:2]):
            if not any(p.unknown for p in word) and self.env.cwd is not None:
                self.env.written.add(posixpath.normpath(posixpath.join(self.env.cwd, word_text(word))))

    def change_folder(self, name: str, words: list[Word], written: list[str], line: int) -> None:
        """`cd`/`pushd`/`popd`: the folder the rest of the script (or subshell) runs in, relative to the project's root."""
        env = self.env
        if name == "popd":
            if env.stack:
                (env.cwd, env.lost), env.stack = env.stack[-1], env.stack[:-1]
            else:
                env.cwd, env.lost = None, f"`popd` (line {line}) returns to a folder the reader has not seen"
            return
        if name == "pushd":
            env.stack += ((env.cwd, env.lost),)
        arguments = [(w, t) for w, t in zip(words, written, strict=False) if word_text(w) == "-" or not word_text(w).startswith("-")]
        command = " ".join([name, *written])
        if not arguments:
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes to the home folder, which is not known"
            return
        word, text = arguments[0]
        folder = word_text(word)
        if any(p.unknown for p in word):
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes to a folder the reader cannot know ({text})"
        elif folder == "-":
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes back to a folder the reader does not track"
        elif folder.startswith("/"):
            env.cwd, env.lost = None, f"`{command}` (line {line}) goes to an absolute folder; scripts are read from the project's root"
        elif env.cwd is not None:
            path = posixpath.normpath(posixpath.join(env.cwd, folder))
            if path == ".." or path.startswith("../"):
                env.cwd, env.lost = None, f"`{command}` (line {line}) leaves the project"
            else:
                env.cwd, env.lost = ("" if path == "." else path), ""

    def source_file(self, words: list[Word], written: list[str], line: int) -> None:
        """`source FILE` / `. FILE`: a file of the project is read (never run) with the script's variables, and what
        it sets is the script's; a file that cannot be read is remembered, for the launches that would need it."""
        if not words:
            return
        word, text = words[0], written[0]
        name = word_text(word)
        command = f"`source {text}` (line {line})"
        path = posixpath.normpath(posixpath.join(self.env.cwd or "", name))
        if any(p.unknown for p in word):
            reason = f"{command}: its path is not known"
        elif self.env.cwd is None and not name.startswith("/"):
            reason = f"{command}: the folder it is read from is not known after {self.env.lost}"
        elif name.startswith("/") or path == ".." or path.startswith("../"):
            reason = f"{command}: it lies outside the project"
        elif path in self.sourcing or path == self.script or len(self.sourcing) >= MAX_SOURCE_DEPTH:
            return  # a file sourcing itself (or too deep a chain) adds nothing more
        else:
            data = self.read(path) if self.read is not None else "sourced files are not read here"
            if isinstance(data, bytes) and CARRIAGE_RETURN.encode() in data:  # read back, the stand-in would be a `\r`
                data = "it holds the control byte 0x02, which is not read"
            if isinstance(data, bytes) and self.sourced_bytes + len(data) > MAX_SOURCED_BYTES:
                data = f"more than {MAX_SOURCED_BYTES // 1024} KiB of sourced text in one script; the rest is not read"
            if isinstance(data, bytes):
                self.sourced_bytes += len(data)
                self._read_sourced(path, data, line)
                return
            reason = f"{command}: {data}"
        self.unknowable(reason)
        self.env.unread = reason

    def _read_sourced(self, path: str, data: bytes, line: int) -> None:
        saved = self.source, self.written_source, self.layout, self.at, self.here
        self.here = path
        self.written_source = as_parsed(data)
        self.sources_read.append(self.written_source)
        tree, self.layout = self.environments.parsed(self.written_source)
        self.source, self.at = self.layout.data, self.at or line
        self.sourcing += (path,)
        try:
            self.run(tree.root_node)
        finally:
            self.sourcing = self.sourcing[:-1]
            self.source, self.written_source, self.layout, self.at, self.here = saved

    def file_of(self, piece: Piece) -> str:
        """The file a piece was written in ("" for the script itself)."""
        return piece.file

    def launch(self, words: list[Word], line: int, written: list[str] | None = None) -> Launch | None:
        """The launch these command words make, if they run a Python entry point this project has; a command that
        runs a Python script the reader cannot place is a launch that was not extracted, with why."""
        texts = [word_text(w) for w in words]
        written = written if written is not None else [shown_text(w) for w in words]
        index = len(self.launches) + 1
        over = next((p for w in words for p in w if p.unknown == OVER_BUDGET), None)
        if over is not None and any(PYTHON.fullmatch(t.rsplit("/", 1)[-1]) or t.endswith("torchrun") for t in texts):
            return Launch(self.script, index, line, error=str(BudgetExceeded(WORD_BUDGET, f"{self.script}:{over.line}")))
        for position, text in enumerate(texts):
            base = text.rsplit("/", 1)[-1]
            style = _launcher(texts, position, base)
            if style is None:
                continue
            entry = _entry(texts, position, style)
            if entry is None:
                continue
            entry_name, is_module, at = entry
            if not is_module:
                problem, entry_name = self._script_path(words[at], written[at], entry_name)
                if not problem and entry_name in self.env.written:
                    return None  # a program the script wrote itself (a here-document): no launch of the project
                if problem:
                    return Launch(self.script, index, line, entry_name, False, error=problem)
            folder = self._module_folder(entry_name) if is_module else ""
            if folder is None:
                continue  # a module of another package (`python -m pip`): not this project's program
            if not is_module and not self.is_entry(entry_name, False):
                hydra_like = any(OVERRIDE_LIKE.match(t) or t.partition("=")[0] in HYDRA_VALUE_FLAGS for t in texts[at + 1 :])
                error = f"{entry_name} is not a file of the project"
                return Launch(self.script, index, line, entry_name, False, error=error, hydra_like=hydra_like)
            launch = Launch(self.script, index, line, entry_name, is_module, folder=folder)
            return self._hydra_arguments(launch, words[at + 1 :], written[at + 1 :])
        program = words[0]
        overrides = sum(bool(OVERRIDE_LIKE.match(t)) for t in texts[1:])
        if program and all(p.unknown for p in program) and overrides >= 3:
            unknown = program[0].unknown
            return Launch(self.script, index, line, error=f"the program is {unknown}, which the script never sets")
        return None

    def _module_folder(self, module: str) -> str | None:
        """The project's folder `python -m MODULE` finds the module from ("" the root), None when none has it: the
        folder the script went to (`cd`), else the root, else the nearest folder above the script (a sub-project's
        script documented as run from its own folder, as PRIME's `training/examples/*.sh` from `training/`)."""
        folders = [self.env.cwd] if self.env.cwd else []
        above = posixpath.dirname(self.script)
        ancestors = []
        while above:
            ancestors.append(above)
            above = posixpath.dirname(above)
        for folder in dict.fromkeys([*folders, "", *ancestors]):
            if self.is_entry(f"{folder}/{module}" if folder else module, True):
                return folder
        return None

    def _script_path(self, word: Word, written: str, name: str) -> tuple[str, str]:
        """(why the script a launch runs cannot be placed, or "", its path relative to the project's root)."""
        if any(p.unknown for p in word):
            # `$REPO_ROOT/examples/x.py`: scripts run from the project's root, so a known rest after an unknown
            # prefix is read from there, as --config-path's is.
            rest = "".join(p.text for p in word[1:]).lstrip("/") if not any(p.unknown for p in word[1:]) else ""
            if rest and self.is_entry(posixpath.normpath(rest), False):
                return "", posixpath.normpath(rest)
            return f"the script's path {written} is not known", name
        if name.startswith("/"):
            return f"{name} is an absolute path; scripts are placed from the project's root", name
        if self.env.cwd is None:
            return f"the folder it runs in is not known: {self.env.lost}", name
        path = posixpath.normpath(posixpath.join(self.env.cwd, name))
        if path == ".." or path.startswith("../"):
            return f"{path} lies outside the project", name
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(self.script), name))
        if self.env.cwd == "" and not self.is_entry(path, False) and self.is_entry(beside, False):
            return "", beside  # `python main_ppo_split.py` beside the script: it is run from its own folder
        return "", path

    def _hydra_arguments(self, launch: Launch, words: list[Word], written: list[str]) -> Launch:
        """The launch with Hydra's flags and the overrides read from the entry point's arguments."""
        values: dict[str, Any] = {"config_path": None, "config_name": None}
        config_dirs: list[str] = []
        overrides: list[Override] = []
        name_written = ""
        multirun = False
        index = 0
        while index < len(words):
            word = words[index]
            text = word_text(word)
            flag, has_value, inline = text.partition("=")
            if flag in HYDRA_VALUE_FLAGS:
                value_word = word if has_value else (words[index + 1] if index + 1 < len(words) else ())
                value = inline if has_value else word_text(value_word)
                if HYDRA_VALUE_FLAGS[flag] == "config_name" and any(p.unknown for p in value_word):
                    name_written = written[index].partition("=")[2] if has_value else written[index + 1]
                index += 1 if has_value else 2
                target = HYDRA_VALUE_FLAGS[flag]
                if target == "config_dir":
                    config_dirs.append(value)
                elif target:
                    values[target] = value
                continue
            index += 1
            multirun = multirun or text in MULTIRUN_SWITCHES
            if text in HYDRA_SWITCHES or text == "--" or not text:
                continue
            unknown = tuple(dict.fromkeys(p.unknown for p in word if p.unknown))
            problem = _unknowable(word, text)
            unfollowed = next((p for p in word if p.why), None)
            origin = self._origin(word) if problem else ""
            if unfollowed is not None:  # a value a command the reader does not follow may have set: not a guess
                origin = f" (it may be set by {unfollowed.why})"
                if not problem:
                    problem, origin = (
                        f"reads {unfollowed.unknown}, which may be set in a way the reader does not follow: {unfollowed.why}",
                        "",
                    )
            if problem:
                return replace(launch, error=f"`{written[index - 1]}` {problem}{origin}")
            overrides.append(Override(text, word[0].line, unknown, written[index - 1], self.file_of(word[0])))
        return replace(
            launch,
            config_path=values["config_path"],
            config_name=values["config_name"],
            config_dirs=tuple(config_dirs),
            overrides=tuple(overrides),
            name_written=name_written,
            multirun=multirun,
        )

    def _origin(self, word: Word) -> str:
        """Where an unknown argument's value comes from: the command written (with its line), or a sourced file
        the reader could not read, which may set it."""
        piece = next(p for p in word if p.unknown)
        if piece.unknown.startswith(("$(", "`", "<(")):
            where = self.file_of(piece) or self.script
            return f" (`{piece.unknown}`, {where}:{piece.line})"
        return f" (it may be set by {self.env.unread})" if self.env.unread else ""


LAUNCH_LIKE = linear.compile(r"(^|[\s/])(python[\d.]*|torchrun|deepspeed|accelerate)\s|\.py(\s|$)")


# What a script sources, summed, is held to a script's own bound: sourcing is reading more of the script.
MAX_SOURCED_BYTES = MAX_SCRIPT_BYTES


LAUNCHER_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch"})


def shown_text(word: Word) -> str:
    """A word as the script writes it: known text as is, an unknown part as the expression it came from."""
    return "".join(p.unknown or p.text for p in word)


def _unknowable(word: Word, text: str) -> str:
    """Why an argument cannot be known, or "" when it can be checked: a whole argument, or an override's key, that
    the reader does not know (an unknown value after a known `key=` is checked through its placeholder)."""
    if not any(p.unknown for p in word):
        return ""
    prefix = ""  # the known text before the first unknown part
    for piece in word:
        if piece.unknown:
            break
        prefix += piece.text
    if "=" in prefix:
        return ""
    first = next(p.unknown for p in word if p.unknown)
    if not all(p.unknown for p in word):  # `${K}=1` hides its key; `"$HOME/x"` is no override, Hydra judges it
        return f"has a key that is not known ({first})" if OVERRIDE_LIKE.match(text) else ""
    if first.startswith(("$(", "`", "<(")):
        return "is the output of a command, which is never run"
    if any(p.split for p in word):
        return f"is not known: {first} stands for whole arguments"
    return f"is not known ({first}): it may be an override"


WORD_BUDGET = f"the word budget ({MAX_WORD_PIECES:,} pieces, {MAX_WORD_BYTES // 1024} KiB, {MAX_WORDS:,} words)"


def _launcher(texts: list[str], position: int, base: str) -> str | None:
    """How the program at `position` takes a Python entry point: "python", "torchrun" (its options, then a script
    or `-m`: torchrun, `deepspeed`, `accelerate launch`), or None when it runs none."""
    if PYTHON.fullmatch(base):
        return "python"
    if base in ("torchrun", "deepspeed"):
        return "torchrun"
    if base == "accelerate" and position + 1 < len(texts) and texts[position + 1] == "launch":
        return "accelerate"
    return None


def _entry(texts: list[str], position: int, style: str) -> tuple[str, bool, int] | None:
    """(entry, is_module, the entry's position) of a launcher's invocation; None for `python -c` and the like."""
    index = position + (2 if style == "accelerate" else 1)
    module = False
    while index < len(texts):
        text = texts[index]
        if style != "python":
            following = texts[index + 1] if index + 1 < len(texts) else ""
            if text in ("-m", "--module"):
                module = True
            elif text.startswith("-"):
                # An option's value is the next word, unless that is the script or another option (a switch).
                valued = text not in TORCHRUN_SWITCHES and "=" not in text
                if valued and not following.endswith(".py") and not following.startswith("-"):
                    index += 1
            else:
                return text, module, index
        else:
            if text == "-m":
                if index + 1 >= len(texts):
                    return None
                if texts[index + 1] in LAUNCHER_MODULES:  # `python -m torch.distributed.run ...` is torchrun
                    return _entry(texts, index + 1, "torchrun")
                return texts[index + 1], True, index + 1
            if text == "-c":
                return None
            if text in ("-X", "-W", "-Q"):
                index += 1
            elif not text.startswith("-"):
                # (`app.py\r` ending a CRLF line: the project's script, as bash names it, which then does not exist)
                return (text, False, index) if text.rstrip(CARRIAGE_RETURN).endswith(".py") else None
        index += 1
    return None


def launches_in(
    script: str, source: bytes, is_entry: Any, read: Any = None, environment: Environment | None = None, readings: bool = False
) -> list[Launch]:
    """Every launch in a script, in file order, as a run with nothing set reads it; `is_entry(name, is_module)` says
    which programs are Hydra entry points, `read(path)` gives a file the script sources (its bytes, or why it is not
    read). `readings`: then, for each environment that takes a branch on it another way (`if [ -n
    "$CUDA_VISIBLE_DEVICES" ]`), the launches that run otherwise there (`Launch.environment`, with the plain
    launch's index). `environment`: the reading under that one alone."""
    if environment is not None:
        return _read(script, source, is_entry, read, environment, _Environments())
    environments = _Environments()
    plain = _read(script, source, is_entry, read, (), environments)
    if not readings:
        return plain
    alternatives: list[Launch] = []
    position = 1
    while position < len(environments.found):  # a reading may find more environments (a test nested in a branch)
        under = environments.found[position]
        alternatives += alternatives_of(plain, _read(script, source, is_entry, read, under, environments), under, environments.when(under))
        position += 1
    return plain + alternatives


def _runs(launch: Launch) -> tuple[Any, ...]:
    """What a launch runs: its program and its arguments as Hydra gets them (or why they are not known)."""
    overrides = tuple(o.text for o in launch.overrides)
    return (
        launch.entry,
        launch.is_module,
        launch.folder,
        launch.config_path,
        launch.config_name,
        launch.config_dirs,
        overrides,
        launch.error,
    )


def alternatives_of(plain: list[Launch], read: list[Launch], environment: Environment, when: str, every: bool = False) -> list[Launch]:
    """The launches of a reading under `environment` (`when`: in words) that run otherwise than the plain reading's
    launch at the same place (its line, and which pass of it), each with that launch's index; one neither reading
    extracts is left to the plain one's reason, and one bash stops before is none. `every`: each launch of the
    reading, the same or not."""
    places: dict[tuple[int, int], Launch] = {}
    for launch in plain:
        places[launch.line, sum(key[0] == launch.line for key in places)] = launch
    found: list[Launch] = []
    passes: dict[int, int] = {}
    for launch in read:
        at = passes[launch.line] = passes.get(launch.line, -1) + 1
        same = places.get((launch.line, at))
        if not every and (launch.stops or (same is not None and (_runs(same) == _runs(launch) or (same.error and launch.error)))):
            continue  # (one bash never reaches there runs nothing under it: the script refuses that environment)
        index = same.index if same is not None else len(plain) + len(found) + 1
        found.append(replace(launch, index=index, environment=environment, when=when))
    return found


# What stands for a carriage return while a script is parsed: bash keeps `\r` in a word (a CRLF script's `LR=3\r\n`
# sets `3\r`; `\\\r\n` escapes the `\r` and continues nothing), where tree-sitter-bash takes it for a blank. A byte
# the grammar reads as a word's own, and never in a script's text otherwise (a control character).
CARRIAGE_RETURN = "\x02"


def as_parsed(source: bytes) -> bytes:
    """A script's bytes as the grammar is given them, each line where it was: `$(((a + b) * 2))` is arithmetic to bash
    but a subshell to the grammar (a space), and each `\r` a word's own character, as bash reads it."""
    return source.replace(b"$(((", b"$(( (").replace(b"\r", CARRIAGE_RETURN.encode())


def _with_carriage_returns(value: _T) -> _T:
    """A launch (or part of one) with each stand-in of a carriage return back as `\r`: what bash passes."""
    if isinstance(value, str):
        return value.replace(CARRIAGE_RETURN, "\r")  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_with_carriage_returns(item) for item in value)  # type: ignore[return-value]
    if isinstance(value, Launch | Override):
        return replace(value, **{f.name: _with_carriage_returns(getattr(value, f.name)) for f in fields(value)})
    return value


def _read(script: str, source: bytes, is_entry: Any, read: Any, environment: Environment, environments: _Environments) -> list[Launch]:
    """The launches of one reading of a script, under `environment` (what it finds besides goes to `environments`)."""
    # (a sourced file too may end its lines with CRLF: every reading is told the stand-in)
    reader = _Reader(script, source, functools.partial(_entry_with_carriage_return, is_entry), read, environment, environments)
    if CARRIAGE_RETURN.encode() in source:  # read back, the stand-in would be a `\r` the script does not hold
        line = source[: source.index(CARRIAGE_RETURN.encode())].count(b"\n") + 1
        return [Launch(script, 1, line, error=f"{script}:{line} holds the control byte 0x02, which is not read")]
    source = as_parsed(source)
    try:
        size_budget(source, MAX_SCRIPT_BYTES, script)
    except BudgetExceeded as error:
        return [Launch(script, 1, 1, error=str(error))]
    tree, reader.layout = environments.parsed(source)
    reader.source, reader.written_source = reader.layout.data, source
    reader.sources_read.append(source)
    deep = syntax_depth(tree.root_node)
    if deep is not None:  # every walk below is recursive: a script nested past the budget is not read
        budget = depth_budget(MAX_SCRIPT_DEPTH, "syntax levels")
        return [Launch(script, 1, deep, error=str(BudgetExceeded(budget, f"{script}:{deep}")))]
    reader.run(tree.root_node)
    reader.uncalled()
    return [_with_carriage_returns(launch) for launch in reader.launches]


def _entry_with_carriage_return(is_entry: Any, entry: str, is_module: bool) -> bool:
    """`is_entry` for a name bash ends with `\r` (a CRLF line's last word): a launch of the project's program whose
    name does not exist, so it is said (entry point not found), never left out as another program."""
    return bool(is_entry(entry.rstrip(CARRIAGE_RETURN), is_module))


@dataclass
class Coverage:
    """How many launches were found and extracted in a set of scripts."""

    scripts: int = 0
    launches: list[Launch] = field(default_factory=list)

    @property
    def extracted(self) -> int:
        """Launches whose overrides were read."""
        return sum(not launch.error for launch in self.launches)


def iter_unknown(launch: Launch) -> Iterator[str]:
    """The unknown values a launch's overrides hold."""
    for override in launch.overrides:
        yield from override.unknown
