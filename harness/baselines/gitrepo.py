"""Read a git repository: verified refs, files and folders at a commit, and the commits that touched a path."""

from __future__ import annotations

import io
import os
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
    """Paths of the files below `folder` at `commit` (empty when the folder did not exist); a folder inside a submodule
    lists the submodule's files at the commit `commit` pins it at (see _holder)."""
    return [path for _, _, _, path in tree_entries(top, commit, folder)]


def tree_entries(top: Path, commit: str, folder: str) -> list[tuple[str, str, str, str]]:
    """(mode, kind, object id, path from the top) of each entry below `folder` at `commit`, read as list_files reads."""
    held = _holder(top, commit, folder)
    if held is None:
        return []
    repository, at, inner, mount = held
    listing = git(repository, "ls-tree", "-r", "-z", "--full-tree", at, "--", f"{inner}/" if inner else ".")
    prefix = f"{mount}/" if mount else ""
    entries = []
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = record.partition("\t")
        if path:
            mode, kind, identifier = meta.split(" ")
            entries.append((mode, kind, identifier, prefix + path))
    return entries


def resolve_at(top: Path, commit: str, path: str) -> str | None:
    """`path` (relative to the top, as written) with the symlinks the commit holds followed, as the checkout of that
    commit would resolve it: the working tree's links are the pull request's. None when it leads out of the top,
    through an absolute link, or through more than 40 links. Links inside a submodule are its own, at the commit
    `commit` pins it at (when its checkout holds it; else its path is taken as written)."""
    found = _resolve(top, commit, path)
    return found[0] if found is not None else None


def _resolve(top: Path, commit: str, path: str) -> tuple[str, tuple[str, ...]] | None:
    """resolve_at, and the links followed on the way (each as the path it lies at, from the top)."""
    entry = git(top, "ls-tree", "-z", commit, "--", path) if path not in ("", ".") else b""
    if entry and not entry.startswith(b"120000 "):
        return path, ()  # what the top holds at that path, no link on the way: one git call
    parts = [part for part in path.split("/") if part not in ("", ".")]
    done: list[str] = []
    links: list[str] = []
    mounts: list[tuple[str, Path, str]] = []  # the submodules entered on the way: (path from the top, repository, commit)
    while parts:
        part = parts.pop(0)
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        candidate = "/".join([*done, part])
        mount = next((m for m in reversed(mounts) if candidate.startswith(m[0] + "/")), None)
        repository, at, inner = (mount[1], mount[2], candidate[len(mount[0]) + 1 :]) if mount else (top, commit, candidate)
        entry = git(repository, "ls-tree", "-z", at, "--", inner)
        if entry.startswith(b"120000 "):
            target = read_file(repository, at, inner)
            if len(links) >= 40 or target is None or target.startswith(b"/"):
                return None
            links.append(candidate)
            parts = [p for p in target.decode("utf-8", "surrogateescape").split("/") if p not in ("", ".")] + parts
            continue
        if entry.startswith(b"160000 "):
            pinned = entry.split(b" ")[2].split(b"\t")[0].decode()
            try:
                mounts.append((candidate, _submodule_repository(repository, inner, pinned, at), pinned))
            except GitError:
                pass  # its files are not at hand: what lies below it is taken as written (extracting it says why)
        done.append(part)
    return "/".join(done), tuple(links)


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


# Links a copy follows to what it lacks (each at most once): a bound on the git calls a base's links can cost.
MAX_LINKS_FOLLOWED = 1000


def extract_folder(top: Path, commit: str, folder: str, destination: Path) -> Path:
    """Write `folder` (or a file) as it was at `commit` below `destination` and return the copy of `folder`.

    The copy is the repository as the commit held it, read from git objects only:
    - a link on the way to `folder` (RAGEN's `conf -> vendor/conf`) is written as the commit holds it, and `folder`
      where it leads;
    - a submodule at or below `folder` (which git archive leaves out, an empty folder) holds the files of the commit
      `commit` pins it at, read from the submodule's checkout (a commit id names its files whatever repository holds
      it), and a path inside a submodule is read there; a GitError naming the submodule and the commit when its
      checkout lacks that commit, never a folder left empty;
    - a link the copy holds that leads to what the copy lacks (a config file linked into a submodule, another
      folder) is followed as the commit holds it, and what it leads to is written too;
    - a link leading out of the repository is written last, as it is, never followed: the confinement gate refuses
      to read through it there as it does in the working tree (harness.gates.confine).
    The archives are unpacked with tarfile's `data` filter (no absolute paths, no devices, no member written
    through a link); a GitError when `folder` is not there at `commit`.
    """
    outward: list[tuple[Path, str]] = []
    found = _resolve(top, commit, folder) if folder else ("", ())
    if found is None:
        raise GitError(f"{folder} at {commit[:12]} is a link leading out of the repository; refused")
    target, through = found
    for link in through:
        _extract(top, commit, link, destination, outward)
    if not _extract(top, commit, target, destination, outward):
        raise GitError(f"{folder} does not exist at {commit[:12]}")
    _complete(top, commit, destination, [destination / target], outward)
    copies.mark(destination)  # reports name the copy's files as the repository does (harness.gates.copies)
    return destination / folder


def extract_matching(top: Path, commit: str, pathspecs: list[str], destination: Path) -> None:
    """Write the files `pathspecs` match at `commit` below `destination` (git pathspecs, magic included:
    `:(glob)*.sh` is the `.sh` files at the top); a pathspec that matches nothing there writes nothing. Unpacked and
    completed as extract_folder does (links followed); a submodule's files are never written (git archive leaves
    them out)."""
    if not pathspecs:
        return
    try:
        archives = [git(top, "archive", "--format=tar", commit, "--", *pathspecs)]
    except GitError:  # one of them matches nothing at the commit (git refuses the whole call): one at a time
        archives = [archive for spec in pathspecs if (archive := git(top, "archive", "--format=tar", commit, "--", spec, check=False))]
    outward: list[tuple[Path, str]] = []
    written: list[Path] = []
    for archive in archives:
        written += _unpack(archive, destination, outward, f"{' '.join(pathspecs)} at {commit[:12]}")
    _complete(top, commit, destination, [path for path in written if path.is_symlink()], outward)
    copies.mark(destination)  # last: the copy's marker is the harness's, whatever the commit holds


def _extract(top: Path, commit: str, path: str, destination: Path, outward: list[tuple[Path, str]]) -> bool:
    """Write `path` (no link followed) as it is at `commit` below `destination`, its submodules' files included;
    False when it is not there. Links leading out of `destination` are added to `outward`, not written."""
    held = _holder(top, commit, path)
    if held is None:
        return False
    repository, at, inner, mount = held
    if mount:
        return _extract(repository, at, inner, destination / mount, outward)
    archive = git(top, "archive", "--format=tar", commit, *(("--", path) if path else ()))
    _unpack(archive, destination, outward, f"{path or '.'} at {commit[:12]}")
    for below, pinned in _submodules(top, commit, path):
        _extract(_submodule_repository(top, below, pinned, commit), pinned, "", destination / below, outward)
    return True


def _unpack(archive: bytes, destination: Path, outward: list[tuple[Path, str]], what: str) -> list[Path]:
    """Unpack a git archive below `destination` with tarfile's `data` filter; a symlink leading out of it is added
    to `outward` (written later, see _complete), never written now: a member after it could be written through it.
    The paths written; a GitError ("refused") for anything else the filter refuses."""

    def kept(member: tarfile.TarInfo, into: str) -> tarfile.TarInfo | None:
        try:
            return tarfile.data_filter(member, into)
        except (tarfile.AbsoluteLinkError, tarfile.LinkOutsideDestinationError):
            if not member.issym():
                raise
            outward.append((Path(into) / member.name, member.linkname))
            return None

    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        members = tar.getmembers()
        try:
            tar.extractall(destination, members=members, filter=kept)
        except tarfile.FilterError as error:  # an absolute path, a member outside the tree, a device, a hard link out
            raise GitError(f"{what}: {error}; refused") from None
    return [destination / member.name for member in members]


def _complete(top: Path, commit: str, destination: Path, starts: list[Path], outward: list[tuple[Path, str]]) -> None:
    """Follow the links at or below `starts` that lead to what the copy at `destination` lacks, as the commit holds
    them, and write what they lead to (with the links on the way); then write the links `outward` holds, as they are.
    What is written whole is known (`starts`, then each target): a folder that exists only because a file below it
    was written is not, so a link leading to it is followed too."""
    pending = list(starts)
    whole = [Path(os.path.realpath(start)) for start in starts if not start.is_symlink()]
    seen: set[Path] = set()
    while pending:
        for link in _links(pending.pop()):
            real = Path(os.path.realpath(link))
            if link in seen or (real.exists() and any(real.is_relative_to(folder) for folder in whole)):
                continue
            seen.add(link)
            found = _resolve(top, commit, link.relative_to(destination).as_posix())
            if found is None:
                continue  # it leads out of the repository: written as it is, the confinement gate refuses it there
            if len(seen) > MAX_LINKS_FOLLOWED:
                raise GitError(f"{link.relative_to(destination)} at {commit[:12]}: more than {MAX_LINKS_FOLLOWED} links to follow; refused")
            target, through = found
            for path in through:
                if not (destination / path).is_symlink():
                    _extract(top, commit, path, destination, outward)
            if _extract(top, commit, target, destination, outward):
                whole.append(Path(os.path.realpath(destination / target)))
                pending.append(destination / target)
    for at, text in outward:
        if not at.is_symlink() and not at.exists() and at.parent.resolve().is_relative_to(destination.resolve()):
            at.parent.mkdir(parents=True, exist_ok=True)
            at.symlink_to(text)


def _links(start: Path) -> list[Path]:
    """The symlinks at or below `start`, none followed."""
    if start.is_symlink():
        return [start]
    found = []
    for current, folders, files in os.walk(start):
        found += [Path(current) / name for name in (*folders, *files) if (Path(current) / name).is_symlink()]
    return found


def unreadable_at(top: Path, commit: str, path: str) -> str | None:
    """Why `path` (from the top, the commit's links followed) cannot be read at `commit`: it lies in a submodule whose
    checkout lacks the commit `commit` pins it at (the one-line reason names both); None when it can, or is not there."""
    found = _resolve(top, commit, path)
    try:
        _holder(top, commit, found[0] if found is not None else path)
    except GitError as error:
        return str(error)
    return None


def _holder(top: Path, commit: str, path: str) -> tuple[Path, str, str, str] | None:
    """Where `path` (from the top, no link followed) lies at `commit`: (the repository that holds it, the commit
    there, its path there, the submodule it lies in from the top, "" for the top's own); None when it is not there.
    Below a submodule's path it is the submodule's own, read from its checkout at the commit `commit` pins it at
    (nested submodules too): a GitError naming the submodule and that commit when the checkout lacks it."""
    if path in ("", ".") or git(top, "ls-tree", "-z", commit, "--", path):
        return top, commit, path if path != "." else "", ""
    for mount, pinned in _submodules(top, commit, ""):
        if path.startswith(mount + "/"):
            held = _holder(_submodule_repository(top, mount, pinned, commit), pinned, path[len(mount) + 1 :])
            return None if held is None else (*held[:3], f"{mount}/{held[3]}" if held[3] else mount)
    return None


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
    return _staged(top, b"160000 ")


def tracked_links(top: Path) -> set[str]:
    """The paths git's index records as symlinks (mode 120000) in the work tree at `top`."""
    return _staged(top, b"120000 ")


def _staged(top: Path, mode: bytes) -> set[str]:
    try:
        out = git(top, "ls-files", "--stage", "-z", check=False)
    except GitError:
        return set()
    found = set()
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if meta.startswith(mode):
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
