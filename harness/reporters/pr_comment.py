"""The pull-request comment, on the trusted side: read the artifact a pull request's job uploaded, check it, find
the pull request it is for, and render the comment's markdown.

The job that made the artifact ran the pull request's code (its workflow, its requirement pin, its configs), so
everything in the artifact is hostile input: its size is bounded before it is parsed, every field is checked for
its type and length, the verdict is recomputed from the counts, every string reaches the markdown through the
markdown sink again (code spans, in which GitHub makes no link, image, mention or HTML), and the pull request's
number is never the artifact's word alone: it is the event's, or for a fork's pull request (whose
`workflow_run.pull_requests` is empty) the one whose head commit is the run's head commit.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.gates import linear
from harness.gates.confine import UnsafeInput
from harness.gates.errors import BadInput
from harness.gates.escape import code_span, no_workflow_commands
from harness.gates.reader import InputLimitError, read_bytes
from harness.model.grouping import plural
from harness.reporters.comment_data import LINE_CHARACTERS, LISTED, SCHEMA, SCHEMA_VERSION, verdict

ARTIFACT_FILES = ("comment.json", "pull-request")  # what the pull-request job uploads, and nothing else
MAX_DOCUMENT_BYTES = 64 * 1024  # the comment document is a few KB; more is not ours
MAX_NUMBER_BYTES = 32
MAX_EVENT_BYTES = 16 * 1024 * 1024  # GitHub's own event file, bounded all the same
MAX_BODY_LINES = 30
COMMENT_LIMIT = 65536  # GitHub's limit on a comment's body, in characters
BODY_CHARACTERS = COMMENT_LIMIT - 1024  # room for the sticky-comment action's hidden header
MAX_COUNT = 10**7
MAX_BASE_CHARACTERS = 200
COUNT_WORDS = MappingProxyType(
    {  # the document's counts, in the order and the words the comment says them
        "introduced_warnings": ("introduced warning", "introduced warnings"),
        "differences": ("difference", "differences"),
        "at_base": ("error already at the base", "errors already at the base"),
        "excused": ("waived or known", "waived or known"),
        "fixed": ("fixed", "fixed"),
    }
)
COUNTS = ("introduced_errors", *COUNT_WORDS)
CONCLUSIONS = frozenset({"success", "failure", "cancelled", "timed_out", "action_required", "neutral", "skipped", "stale"})
HEAD_SHA = linear.compile(r"[0-9a-f]{40}")
RUN_URL = linear.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]+)?/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/actions/runs/[0-9]+")


class Refused(BadInput):
    """Input the commenting workflow will not post: one line saying which file and why."""


@dataclass(frozen=True)
class Comment:
    """A checked comment document: nothing in it is longer, deeper or of another type than the renderer expects."""

    ok: bool
    base: str
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    counts: tuple[tuple[str, int], ...]
    rows: tuple[int, int] = (0, 0)  # error rows and warning rows in all (alike causes share a row)

    def count(self, name: str) -> int:
        return dict(self.counts)[name]


def read_bounded(path: Path, limit: int) -> bytes:
    """A regular file's bytes through the one reader, confined to its folder, never through a link (the artifact
    is the pull request's: a link in it could name a runner file), refused past `limit` bytes unread."""
    try:
        if stat.S_ISLNK(path.lstat().st_mode):
            raise Refused(f"{path}: a link, not a file; it is not read")
        return read_bytes(path, (path.parent.resolve(),), limit)
    except FileNotFoundError:
        raise Refused(f"{path}: missing") from None
    except InputLimitError:
        raise Refused(f"{path}: more than {limit} bytes; it is not read") from None
    except UnsafeInput as error:  # a folder, a device, a FIFO
        raise Refused(str(error)) from None


def read_artifact(folder: Path) -> tuple[Comment, int | None]:
    """The artifact folder's comment document, checked, and the pull-request number it claims (None: none)."""
    try:
        names = sorted(entry.name for entry in folder.iterdir())
    except OSError as error:
        raise Refused(f"{folder}: cannot read the artifact folder ({error.strerror})") from None
    unexpected = [name for name in names if name not in ARTIFACT_FILES]
    if unexpected:
        raise Refused(f"{folder}: unexpected entry {unexpected[0]!r} (the artifact holds only {', '.join(ARTIFACT_FILES)})")
    document = read_bounded(folder / "comment.json", MAX_DOCUMENT_BYTES)
    claimed = None
    if "pull-request" in names:
        text = read_bounded(folder / "pull-request", MAX_NUMBER_BYTES).decode("ascii", "replace").strip()
        if not text.isascii() or not text.isdigit() or len(text) > 10:
            raise Refused(f"{folder / 'pull-request'}: not a pull-request number")
        claimed = int(text)
    return checked_comment(document, folder / "comment.json"), claimed


def _field(document: dict[str, Any], key: str, kind: type, where: Path) -> Any:
    value = document.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Refused(f"{where}: {key!r} is not {'a list' if kind is list else 'a ' + kind.__name__}")
    return value


def checked_comment(data: bytes, where: Path) -> Comment:
    """The comment document in `data`, every field checked; text fields shortened to what the comment shows."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused(f"{where}: not a JSON document") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA or document.get("schema_version") != SCHEMA_VERSION:
        raise Refused(f"{where}: not a {SCHEMA} document of schema version {SCHEMA_VERSION}")
    ok = _field(document, "ok", bool, where)
    base = document.get("base")
    if base is not None and not isinstance(base, str):
        raise Refused(f"{where}: 'base' is not a string")
    causes = {}
    for key in ("errors", "warnings"):
        lines = _field(document, key, list, where)
        if not all(isinstance(line, str) for line in lines):
            raise Refused(f"{where}: {key!r} holds something other than strings")
        causes[key] = [_shortened(line, LINE_CHARACTERS) for line in lines if line.strip()]
    raw_counts = _field(document, "counts", dict, where)
    counts = []
    for name in COUNTS:
        value = raw_counts.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
            raise Refused(f"{where}: counts.{name} is not a count")
        counts.append((name, value))
    # LISTED lines in all, errors first, whatever the artifact holds: the comment's length is the renderer's.
    errors = tuple(causes["errors"][:LISTED])
    warnings = tuple(causes["warnings"][: LISTED - len(errors)])
    # The rows in all (alike causes share one row); optional: an artifact without them counts one row per cause.
    raw_rows = document.get("rows")
    rows: list[int] = []
    for key, name in (("errors", "introduced_errors"), ("warnings", "introduced_warnings")):
        value = raw_rows.get(key) if isinstance(raw_rows, dict) else None
        rows.append(value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT else dict(counts)[name])
    return Comment(
        ok=ok,
        base=_shortened(base or "", MAX_BASE_CHARACTERS),
        errors=errors,
        warnings=warnings,
        counts=tuple(counts),
        rows=(rows[0], rows[1]),
    )


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_json(path: Path, limit: int, what: str) -> Any:
    """A JSON file the workflow wrote (GitHub's event, the API's pull request), bounded."""
    try:
        return json.loads(read_bounded(path, limit).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused(f"{path}: {what} is not JSON") from None


def _get(document: Any, *keys: str) -> Any:
    for key in keys:
        document = document.get(key) if isinstance(document, dict) else None
    return document


def pull_request_number(event: Any, claimed: int | None, pull: Any = None) -> int:
    """The pull request to comment on: the event's, or for a fork's (no `pull_requests` in the event) the one the
    artifact claims when GitHub's own answer for it (`pull`) has the run's head commit, in this repository."""
    run = _get(event, "workflow_run")
    if _get(run, "event") != "pull_request":
        raise Refused("the event is not a workflow_run of a pull_request run")
    head = _get(run, "head_sha")
    if not isinstance(head, str) or not HEAD_SHA.fullmatch(head):
        raise Refused("the event's workflow_run has no head commit")
    listed = [p for p in _get(run, "pull_requests") or [] if isinstance(p, dict)]
    numbers: list[int] = [p["number"] for p in listed if _get(p, "head", "sha") == head and isinstance(p.get("number"), int)]
    if numbers:
        if claimed is not None and claimed not in numbers:
            raise Refused(f"the artifact names pull request #{claimed}, but the run's head commit {head[:12]} is that of #{numbers[0]}")
        return claimed if claimed is not None else numbers[0]
    if listed:
        raise Refused(f"no pull request of the event has the run's head commit {head[:12]}")
    if claimed is None:
        raise Refused("the event names no pull request (a fork's) and the artifact claims none")
    if pull is None:
        raise Refused(f"pull request #{claimed} (a fork's) cannot be checked: give GitHub's answer for it (--pull FILE)")
    repository = _get(event, "repository", "full_name")
    if _get(pull, "number") != claimed or _get(pull, "base", "repo", "full_name") != repository:
        raise Refused(f"--pull: GitHub's answer is not pull request #{claimed} of {repository}")
    if _get(pull, "head", "sha") != head:
        raise Refused(f"the artifact names pull request #{claimed}, whose head commit is not the run's ({head[:12]})")
    if _get(pull, "state") != "open":
        raise Refused(f"pull request #{claimed} is not open")
    return claimed


def render(comment: Comment, event: Any) -> str:
    """The comment's markdown: the verdict, the introduced errors then warnings (one line per cause), the rest
    counted, the link to the job summary. Every string from the artifact is a code span; at most MAX_BODY_LINES lines, GitHub's limit."""
    run = _get(event, "workflow_run")
    errors = comment.count("introduced_errors")
    against = f" against {code_span(comment.base, False)}" if comment.base else ""
    conclusion = _get(run, "conclusion")
    job = f" The job: {conclusion}." if conclusion in CONCLUSIONS else ""
    # GitHub's word for the job, not the artifact's: an artifact that says ok beside a job that did not succeed (a
    # pull request that forged it, or edited the verdict step) is never shown as OK.
    passed = comment.ok and not errors and conclusion == "success"
    lines = [
        f"### {verdict(passed, errors)}",
        "",
        f"The review of this pull request{against}: {'OK' if passed else 'FAILED'}.{job}",
    ]
    counted = ["introduced_errors"]
    for title, shown, total in (
        ("Introduced errors", comment.errors, comment.rows[0]),
        ("Introduced warnings", comment.warnings, comment.rows[1]),
    ):
        if shown:
            counted += ["introduced_warnings"] if title == "Introduced warnings" else []
            lines += ["", f"{title}, one line per cause:", ""]
            lines += [f"- {code_span(line, False)}" for line in shown]
            if total > len(shown):
                lines.append(f"- and {plural(total - len(shown), 'more row')} (the job summary lists them all)")
    rest = [
        f"{n} {one if n == 1 else many}" for name, (one, many) in COUNT_WORDS.items() if (n := comment.count(name)) and name not in counted
    ]
    if rest:
        lines += ["", "Also: " + ", ".join(rest) + "."]
    url = _get(run, "html_url")
    repository = _get(event, "repository", "html_url")
    if isinstance(url, str) and RUN_URL.fullmatch(url) and isinstance(repository, str) and url.startswith(repository + "/"):
        lines += ["", f"[The whole review is in the job summary]({url})."]
    body = no_workflow_commands("\n".join(lines) + "\n", "markdown")
    # The checks above bound it; this says so where a change to them would break it.
    assert len(body.splitlines()) <= MAX_BODY_LINES and len(body) <= BODY_CHARACTERS, "the comment outgrew its bounds"
    return body
