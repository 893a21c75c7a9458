"""What runs a review and what it reads, reviewed too: a submodule a pull request re-points (its gitlink or its URL
in `.gitmodules`) changes the programs its launches run; a workflow that runs config-harness, a file the CODEOWNERS
template lists (the version CI installs), or the record of the code's config writes deleted, decides the verdict.
Each change is a settings change that names the owners who must approve it, so it is an error until a `changes:`
record gives the reason."""

from __future__ import annotations

import configparser
import hashlib
from pathlib import Path

from harness.baselines.gitrepo import git, read_file
from harness.gates.budget import InputLimitError
from harness.gates.confine import UnsafeInput
from harness.gates.reader import NotAFile, read_bytes
from harness.model.semantic_diff import value_text
from harness.model.settings import Settings
from harness.rules.review_rules import SettingsChange
from harness.runner.config_writes import RECORD_NAME

# The files templates/CODEOWNERS gives the owners of the rules that no other review names: the version of the
# harness CI installs. (The settings, contracts and known file are compared by meaning elsewhere.)
OWNED_FILES = ("config-harness/requirements.txt",)
WORKFLOWS = ".github/workflows"
MAX_WORKFLOW_BYTES = 1 << 20  # a workflow file is small; a larger one is read as far as this


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()[:12]


def _gitlinks_at(top: Path, commit: str | None) -> dict[str, str]:
    """The submodules git records at `commit` (None: the index of the work tree), path -> the commit it pins."""
    out = git(top, "ls-files", "--stage", "-z") if commit is None else git(top, "ls-tree", "-r", "-z", "--full-tree", commit)
    found = {}
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        fields = meta.split(b" ")
        if fields and fields[0] == b"160000" and len(fields) >= 2:
            pinned = fields[1] if commit is None else fields[2]
            found[path.decode("utf-8", "surrogateescape")] = pinned.decode()
    return found


def _submodule_urls(text: str | None) -> dict[str, str]:
    """`.gitmodules` read as git config: submodule path -> url (a file it cannot read names none)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text or "")
    except configparser.Error:
        return {}
    return {
        parser[name].get("path", "").strip(): parser[name].get("url", "").strip() for name in parser.sections() if parser[name].get("path")
    }


def _work_file(top: Path, path: str, limit: int = MAX_WORKFLOW_BYTES) -> bytes | None:
    """A file of the work tree as bytes (at most `limit`), None when it is absent or not a plain file (a link a pull
    request committed is never followed)."""
    target = top / path
    if target.is_symlink():
        return None
    try:
        return read_bytes(target, limit=limit, what=path)
    except (FileNotFoundError, NotAFile, UnsafeInput):
        return None
    except InputLimitError:
        return b"larger than the bound: " + str(limit).encode()


def _workflows(top: Path, commit: str) -> list[str]:
    """The workflow files at either side (`.github/workflows/*.yml|yaml`)."""
    listed = git(top, "ls-tree", "-z", "--name-only", f"{commit}:{WORKFLOWS}", check=False).split(b"\0")
    names = {f"{WORKFLOWS}/{name.decode('utf-8', 'surrogateescape')}" for name in listed if name}
    folder = top / WORKFLOWS
    if folder.is_dir() and not folder.is_symlink():
        names |= {f"{WORKFLOWS}/{entry.name}" for entry in folder.iterdir()}
    return sorted(name for name in names if name.endswith((".yml", ".yaml")))


def around_review(top: Path, commit: str, base: Settings | None) -> list[SettingsChange]:
    """Changes to what runs the review and what it reads, as settings changes naming the owners who must approve:
    a submodule re-pointed (its gitlink or its `.gitmodules` URL), an error where the base checks launches (the
    programs in it are launched by them); a workflow that runs config-harness, or a file the CODEOWNERS template
    lists, changed."""
    changes = []
    checks_launches = base is not None and bool(base.command_globs)
    old_links, new_links = _gitlinks_at(top, commit), _gitlinks_at(top, None)
    base_modules = read_file(top, commit, ".gitmodules")
    old_urls = _submodule_urls(base_modules.decode("utf-8", "replace") if base_modules is not None else None)
    head_modules = _work_file(top, ".gitmodules")
    new_urls = _submodule_urls(head_modules.decode("utf-8", "replace") if head_modules is not None else None)
    for path in sorted(set(old_links) | set(new_links)):
        old = {"commit": old_links.get(path), "url": old_urls.get(path)}
        new = {"commit": new_links.get(path), "url": new_urls.get(path)}
        if old == new:
            continue
        held = f"; the launches of programs in it{' (checked by the base)' if checks_launches else ''} run what it pins"
        description = (
            f"submodule {path} re-pointed: {value_text(old)} -> {value_text(new)}{held};"
            " the owners of .gitmodules and the settings must approve"
        )
        changes.append(SettingsChange(f"submodule.{path}", old, new, checks_launches, description))
    for path in (*_workflows(top, commit), *OWNED_FILES):
        before, after = read_file(top, commit, path), _work_file(top, path)
        if _digest(before) == _digest(after):
            continue
        runs = any(b"config-harness" in (data or b"") for data in (before, after))
        if path.startswith(WORKFLOWS) and not runs:
            continue
        what = "a workflow that runs config-harness" if path.startswith(WORKFLOWS) else "a file templates/CODEOWNERS lists"
        description = f"{path} changed ({what}): the owners of {path} must approve (CODEOWNERS)"
        changes.append(SettingsChange(path, _digest(before), _digest(after), True, description))
    record = _record_at(top, base)
    if record is not None:
        before = read_file(top, commit, record)
        if before is not None and _work_file(top, record) is None:
            description = (
                f"{record} deleted (the record of the code's config writes, which `check` compares the code with):"
                " the owners of the snapshot folder must approve (CODEOWNERS)"
            )
            changes.append(SettingsChange(record, _digest(before), None, True, description))
    return changes


def _record_at(top: Path, base: Settings | None) -> str | None:
    """The base's record of config writes, relative to the repository (None outside it): a pull request that deletes
    it while changing the code's writes leaves `check` nothing to compare the code with."""
    folder = getattr(base, "snapshot_dir", None)  # (the tests' stand-ins for the base's settings may have none)
    if folder is None:
        return None
    try:
        return (Path(folder) / RECORD_NAME).resolve().relative_to(top.resolve()).as_posix()
    except (OSError, ValueError):
        return None
