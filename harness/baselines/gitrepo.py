"""Read a git repository: verified refs, files and folders at a commit, and the commits that touched a path."""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

from harness.gates import copies
from harness.gates.errors import BadInput
from harness.gates.reader import MAX_ARCHIVE_BYTES, MAX_FILE_BYTES, InputLimitError, git_output


class GitError(BadInput):
    """The repository or a ref cannot be read; the message is one line."""


def git(repository: Path, *arguments: str, check: bool = True, limit: int = MAX_ARCHIVE_BYTES) -> bytes:
    """Run git in `repository` and return its stdout, read through the one reader's bound (`limit` bytes);
    a failure is a one-line GitError."""
    try:
        code, out, err = git_output(["git", "-C", str(repository), *arguments], limit)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except InputLimitError as error:
        raise GitError(f"git {arguments[0]}: output {error}") from None
    if code != 0 and check:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {arguments[0]}: {message[-1] if message else 'failed'}")
    return out


def toplevel(path: Path) -> Path:
    """The top folder of the git work tree holding `path`."""
    probe = path if path.is_dir() else path.parent
    while not probe.exists():
        probe = probe.parent
    try:
        return Path(git(probe, "rev-parse", "--show-toplevel").decode().strip()).resolve()
    except GitError:
        raise GitError(f"{path} is not inside a git repository") from None


def verify_ref(top: Path, ref: str) -> str:
    """The commit id `ref` names; refs are verified before use and never read as options."""
    if not ref or ref.startswith("-") or any(ch in ref for ch in "\0\n\r"):
        raise GitError(f"{ref!r} is not a git ref")
    out = git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False).strip()
    if out:
        return out.decode()
    if git(top, "rev-parse", "--is-shallow-repository", check=False).strip() == b"true":
        raise GitError(f"unknown git ref {ref!r} in a shallow clone; fetch the history it needs (actions/checkout: fetch-depth: 0)")
    raise GitError(f"unknown git ref {ref!r}")


def inside(top: Path, path: Path) -> str:
    """`path` relative to the repository top, in git's spelling; an error when it lies outside."""
    try:
        return path.resolve().relative_to(top).as_posix()
    except ValueError:
        raise GitError(f"{path} is outside the git repository {top}") from None


def list_files(top: Path, commit: str, folder: str) -> list[str]:
    """Paths of the files below `folder` at `commit` (empty when the folder did not exist)."""
    listing = git(top, "ls-tree", "-r", "-z", "--name-only", commit, "--", f"{folder}/" if folder else ".")
    return [entry for entry in listing.decode("utf-8", "surrogateescape").split("\0") if entry]


def resolve_at(top: Path, commit: str, path: str) -> str | None:
    """`path` (relative to the top, as written) with the symlinks the commit holds followed, as the checkout of that
    commit would resolve it: the working tree's links are the pull request's. None when it leads out of the top,
    through an absolute link, or through more than 40 links."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    done: list[str] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        candidate = "/".join([*done, part])
        entry = git(top, "ls-tree", "-z", commit, "--", candidate)
        if entry.startswith(b"120000 "):
            hops += 1
            target = read_file(top, commit, candidate)
            if hops > 40 or target is None or target.startswith(b"/"):
                return None
            parts = [p for p in target.decode("utf-8", "surrogateescape").split("/") if p not in ("", ".")] + parts
        else:
            done.append(part)
    return "/".join(done)


def read_file(top: Path, commit: str, path: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """A file's bytes at `commit`, or None when it did not exist there; GitError past `limit` (a blob that packs
    to 2 MB can be 300 MB unpacked, so git's output is read through the one reader's bound, never whole)."""
    try:
        code, out, _ = git_output(["git", "-C", str(top), "cat-file", "blob", f"{commit}:{path}"], limit)
    except InputLimitError as error:
        raise GitError(f"{path} at {commit[:12]}: {error}") from None
    return out if code == 0 else None


def read_files(top: Path, commit: str, paths: list[str], limit: int = MAX_FILE_BYTES) -> dict[str, bytes | None]:
    """Several files' bytes at `commit` from one git process (None for one that is not a file there); GitError for
    a file past `limit`, or when all of them together pass the archive bound."""
    batched = [path for path in paths if "\n" not in path and "\r" not in path]  # one name per line
    found: dict[str, bytes | None] = {path: read_file(top, commit, path, limit) for path in paths if path not in batched}
    if not batched:
        return found
    names = "".join(f"{commit}:{path}\n" for path in batched).encode("utf-8", "surrogateescape")
    try:
        code, out, err = git_output(["git", "-C", str(top), "cat-file", "--batch"], MAX_ARCHIVE_BYTES, stdin=names)
    except InputLimitError as error:
        raise GitError(f"{len(batched)} files at {commit[:12]}: {error}") from None
    if code != 0:
        raise GitError(f"git cat-file --batch failed: {err.decode('utf-8', 'replace').strip()}")
    position = 0
    for path in batched:
        end = out.index(b"\n", position)
        header = out[position:end].split()
        position = end + 1
        if len(header) != 3:  # `<name> missing` (or ambiguous): not there
            found[path] = None
            continue
        size = int(header[2])
        if size > limit:
            raise GitError(f"{path} at {commit[:12]}: {size} bytes, more than {limit}")
        found[path] = out[position : position + size] if header[1] == b"blob" else None
        position += size + 1
    return found


def extract_folder(top: Path, commit: str, folder: str, destination: Path, submodule: bool = False) -> Path:
    """Write `folder` as it was at `commit` below `destination` and return the copy of `folder`. `destination` is
    marked a copy of the repository's top (harness.gates.copies: reports name its files as the repository does),
    unless it is a `submodule`'s place inside such a copy.

    The archive is unpacked with tarfile's `data` filter: no absolute paths, no links leading out, no devices.
    A submodule below `folder` (which git archive leaves out, an empty folder) holds the files of the commit
    `commit` pins it at, read from the submodule's repository (a commit id names its files whatever repository
    holds it); a GitError when that repository lacks the commit, never a folder left empty.
    """
    archive = git(top, "archive", "--format=tar", commit, *(("--", folder) if folder else ()))
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        try:
            tar.extractall(destination, filter="data")
        except tarfile.FilterError as error:  # a link leading out of the tree, an absolute path, a device
            raise GitError(f"{folder} at {commit[:12]}: {error}; refused") from None
    if not submodule:
        copies.mark(destination)
    for path, pinned in _submodules(top, commit, folder):
        extract_folder(_submodule_repository(top, path, pinned, commit), pinned, "", destination / path, submodule=True)
    return destination / folder


def extract_matching(top: Path, commit: str, pathspecs: list[str], destination: Path) -> None:
    """Write the files `pathspecs` match at `commit` below `destination` (git pathspecs, magic included:
    `:(glob)*.sh` is the `.sh` files at the top); a pathspec that matches nothing there writes nothing. Unpacked as
    extract_folder does; a submodule's files are never written (git archive leaves them out)."""
    if not pathspecs:
        return
    try:
        archives = [git(top, "archive", "--format=tar", commit, "--", *pathspecs)]
    except GitError:  # one of them matches nothing at the commit (git refuses the whole call): one at a time
        archives = [archive for spec in pathspecs if (archive := git(top, "archive", "--format=tar", commit, "--", spec, check=False))]
    copies.mark(destination)
    for archive in archives:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            try:
                tar.extractall(destination, filter="data")
            except tarfile.FilterError as error:
                raise GitError(f"{' '.join(pathspecs)} at {commit[:12]}: {error}; refused") from None


def _submodules(top: Path, commit: str, folder: str) -> list[tuple[str, str]]:
    """The submodules at or below `folder` at `commit`: (path, the commit id it pins)."""
    out = git(top, "ls-tree", "-r", "-z", "--full-tree", commit, "--", folder or ".")
    found = []
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if meta.startswith(b"160000 commit "):
            found.append((path.decode("utf-8", "surrogateescape"), meta.split(b" ")[2].decode()))
    return found


def gitlinks(top: Path) -> set[str]:
    """The paths git's index records as submodules (gitlinks, mode 160000) in the work tree at `top`; none outside
    a git work tree. A `.gitmodules` entry alone is text anyone can write: only a gitlink makes a submodule."""
    try:
        out = git(top, "ls-files", "--stage", "-z", check=False)
    except GitError:
        return set()
    found = set()
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if meta.startswith(b"160000 "):
            found.add(path.decode("utf-8", "surrogateescape"))
    return found


def _submodule_repository(top: Path, path: str, pinned: str, commit: str) -> Path:
    """The checked-out submodule at `path`, when it holds the commit `pinned` (a real folder of the work tree, no
    link on the way: git is never run in a folder a link chose)."""
    folder = top / path
    if folder.is_dir() and folder.resolve() == folder.absolute() and (folder / ".git").exists():
        code, out, _ = git_output(["git", "-C", str(folder), "rev-parse", "--show-toplevel"])
        exists, _, _ = git_output(["git", "-C", str(folder), "cat-file", "-e", f"{pinned}^{{commit}}"])
        if code == 0 and Path(out.decode().strip()).resolve() == folder.resolve() and exists == 0:
            return folder
    raise GitError(
        f"{path} at {commit[:12]} is a submodule at {pinned[:12]}, which its checkout does not hold "
        "(git submodule update --init; actions/checkout: submodules: true, fetch-depth: 0)"
    )


@dataclass(frozen=True)
class Commit:
    """One commit of a path's history."""

    id: str
    date: str  # ISO 8601, committer date
    subject: str


def history(top: Path, folder: str, since: str | None = None) -> list[Commit]:
    """The commits that touched `folder`, oldest first (after `since`, when given)."""
    span = [f"{verify_ref(top, since)}..HEAD"] if since else ["HEAD"]
    out = git(top, "log", "--reverse", "--format=%H%x00%cI%x00%s%x1e", *span, "--", folder or ".")
    commits = []
    for record in out.decode("utf-8", "replace").split("\x1e"):
        record = record.strip("\n")
        if record:
            commit, date, subject = record.split("\0", 2)
            commits.append(Commit(commit, date, subject))
    return commits


def changed_files(top: Path, old: str, new: str, folder: str) -> list[str]:
    """Files below `folder` that differ between two commits (added, removed or edited)."""
    out = git(top, "diff", "--name-only", "-z", "--no-renames", old, new, "--", folder or ".")
    return [entry for entry in out.decode("utf-8", "surrogateescape").split("\0") if entry]


def is_ancestor(top: Path, commit: str, descendant: str) -> bool:
    """Whether `commit` is `descendant` or one of its ancestors (both verified commit ids or HEAD)."""
    code, _, err = git_output(["git", "-C", str(top), "merge-base", "--is-ancestor", commit, descendant])
    if code not in (0, 1):
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git merge-base: {message[-1] if message else 'failed'}")
    return code == 0


def merge_base(top: Path, one: str, other: str) -> str | None:
    """The best common ancestor of two commits, or None when their histories are unrelated."""
    out = git(top, "merge-base", one, other, check=False).strip()
    return out.decode() if out else None


def ref_names(top: Path) -> list[str]:
    """The short names of every branch and tag (for suggesting one when a ref is misspelled)."""
    out = git(top, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", check=False)
    return [name for name in out.decode("utf-8", "replace").splitlines() if name]
