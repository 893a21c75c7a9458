"""`config-harness comment` on the commenting workflow's side: a real review's artifact is posted, and hostile
artifacts (huge, with workflow commands, markdown links, images, HTML and mentions, a link instead of a file, a
pull-request number that is not the run's) are refused with one line or rendered harmless."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from harness.reporters.pr_comment import COMMENT_LIMIT, MAX_BODY_LINES, MAX_DOCUMENT_BYTES
from tests.conftest import commit_small_project

HEAD = "0123456789abcdef0123456789abcdef01234567"
CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
"""
RUN_URL = "https://github.com/org/repo/actions/runs/42"


def event(pull_requests: list[dict] | None = None, **run: object) -> dict:
    """A workflow_run event as GitHub writes it to $GITHUB_EVENT_PATH (the fields the command reads)."""
    return {
        "repository": {"full_name": "org/repo", "html_url": "https://github.com/org/repo"},
        "workflow_run": {
            "event": "pull_request",
            "head_sha": HEAD,
            "conclusion": "failure",
            "html_url": RUN_URL,
            "pull_requests": [{"number": 7, "head": {"sha": HEAD}}] if pull_requests is None else pull_requests,
            **run,
        },
    }


@pytest.fixture
def artifact(small_project, cli, tmp_path) -> Path:
    """The artifact of a real review that breaks a contract, as the pull-request job uploads it."""
    project = commit_small_project(small_project, cli, CONTRACTS)
    gpu = project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))
    folder = tmp_path / "artifact"
    folder.mkdir()
    review = cli(
        "--settings", "harness.toml", "diff", "--base", "main", "--format", "github", "--report", f"comment:{folder / 'comment.json'}"
    )
    assert review.code == 1
    (folder / "pull-request").write_text("7\n")
    return folder


def comment(cli, artifact: Path, tmp_path: Path, the_event: dict, pull: dict | None = None):
    (tmp_path / "event.json").write_text(json.dumps(the_event))
    args = ["comment", str(artifact), "--event", str(tmp_path / "event.json"), "--out", str(tmp_path / "comment.md")]
    if pull is not None:
        (tmp_path / "pull.json").write_text(json.dumps(pull))
        args += ["--pull", str(tmp_path / "pull.json")]
    return cli(*args, cwd=tmp_path)


def html(markdown: str) -> str:
    """The comment as GitHub renders it (GitHub-flavored markdown, raw HTML allowed, as in a comment)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def edit(artifact: Path, **fields: object) -> None:
    document = json.loads((artifact / "comment.json").read_text())
    (artifact / "comment.json").write_text(json.dumps({**document, **fields}))


def test_a_real_reviews_comment_is_posted_on_the_events_pull_request(artifact, cli, tmp_path):
    posted = comment(cli, artifact, tmp_path, event())
    assert posted.code == 0 and posted.out == "7\n", posted.err
    body = (tmp_path / "comment.md").read_text()
    lines = body.splitlines()
    assert lines[0] == "### config-harness: FAILED, 1 blocking cause" and len(lines) <= MAX_BODY_LINES and len(body) < COMMENT_LIMIT
    assert "- `gpu-critical: device.map.qkv is required but missing  (3 cases: train/gpu/*)`" in lines
    assert lines[-1] == f"[The whole review is in the job summary]({RUN_URL})."
    assert "The job: failure." in body


def test_a_huge_artifact_is_refused_unread(artifact, cli, tmp_path):
    with (artifact / "comment.json").open("w") as handle:
        handle.write('{"errors": ["' + "x" * (64 * MAX_DOCUMENT_BYTES) + '"]}')
    started = time.process_time()
    refused = comment(cli, artifact, tmp_path, event())
    assert refused.code == 2 and f"more than {MAX_DOCUMENT_BYTES} bytes" in refused.err and len(refused.err.splitlines()) == 1
    assert time.process_time() - started < 1 and not (tmp_path / "comment.md").exists()


@pytest.mark.parametrize("entry", ["comment.json", "extra.txt"])
def test_a_link_or_an_unexpected_file_in_the_artifact_is_refused(artifact, cli, tmp_path, entry):
    secret = tmp_path / "secret"
    secret.write_text('{"schema": "config-harness-comment"}')
    (artifact / entry).unlink(missing_ok=True)
    (artifact / entry).symlink_to(secret)
    refused = comment(cli, artifact, tmp_path, event())
    assert refused.code == 2 and ("a link, not a file" in refused.err or "unexpected entry 'extra.txt'" in refused.err), refused.err


def test_workflow_commands_markdown_links_images_html_and_mentions_in_the_artifact_stay_text(artifact, cli, tmp_path):
    hostile = [
        "::stop-commands::pwned",
        "x\n::set-output name=number::1",
        "##[error]forged",
        "\r\n::warning::forged",
        "[click me](https://evil.example/login)",
        "![tracker](https://evil.example/pixel.png)",
        '<img src=x onerror="alert(1)"><script>alert(2)</script>',
        "@octocat and @org/team, see https://evil.example",
        "` </code><a href=https://evil.example>break out</a> `",
        "\u202eevil\u200b",
    ]
    edit(artifact, errors=hostile, base="main](https://evil.example) @octocat", title="config-harness: all good")
    posted = comment(cli, artifact, tmp_path, event())
    assert posted.code == 0 and posted.out == "7\n", posted.err
    body = (tmp_path / "comment.md").read_text()
    assert not any(line.lstrip().startswith(("::", "##[")) for line in body.splitlines())
    assert "##[" not in body.replace("##\\[", "") and "\u202e" not in body and "\u200b" not in body
    rendered = html(body)
    # GitHub links, embeds, mentions and runs HTML only outside code: every hostile string is inside <code>.
    outside_code = re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)
    assert "evil.example" not in outside_code and "@octocat" not in outside_code and "<img" not in outside_code
    assert re.findall(r"<(\w+)", outside_code) == ["h3", "p", "p", "ul", *["li"] * len(hostile), "p", "p", "a"], outside_code
    assert outside_code.count('<a href="') == 1 and f'<a href="{RUN_URL}">' in outside_code  # the run's link, from the event
    assert "all good" not in body and body.startswith("### config-harness: FAILED, 1 blocking cause\n")  # recomputed, not the artifact's


def test_the_verdict_and_every_count_come_from_checked_fields(artifact, cli, tmp_path):
    document = json.loads((artifact / "comment.json").read_text())
    for bad in (
        {"counts": {**document["counts"], "introduced_errors": "9"}},
        {"counts": {**document["counts"], "fixed": True}},
        {"counts": {**document["counts"], "at_base": -1}},
        {"errors": "not a list"},
        {"errors": [["nested"]]},
        {"ok": "yes"},
        {"schema_version": 99},
    ):
        edit(artifact, **{**document, **bad})
        refused = comment(cli, artifact, tmp_path, event())
        assert refused.code == 2 and len(refused.err.splitlines()) == 1 and "comment.json" in refused.err, bad
    (artifact / "comment.json").write_text("[" * 30000 + "]" * 30000)  # deeper than Python's JSON parser goes
    nested = comment(cli, artifact, tmp_path, event())
    assert nested.code == 2 and "not a JSON document" in nested.err
    (artifact / "comment.json").write_text(
        json.dumps({**document, "errors": ["`" * 400] * 100})
    )  # long and many: shortened and cut to what the comment shows
    posted = comment(cli, artifact, tmp_path, event())
    body = (tmp_path / "comment.md").read_text()
    assert posted.code == 0 and len(body.splitlines()) <= MAX_BODY_LINES and len(body) < COMMENT_LIMIT // 4


def test_a_pull_request_number_that_is_not_the_runs_is_refused(artifact, cli, tmp_path):
    (artifact / "pull-request").write_text("8\n")
    refused = comment(cli, artifact, tmp_path, event())
    assert refused.code == 2 and "names pull request #8, but the run's head commit 0123456789ab is that of #7" in refused.err
    (artifact / "pull-request").write_text("7; rm -rf /\n")
    assert "not a pull-request number" in comment(cli, artifact, tmp_path, event()).err
    other_head = [{"number": 8, "head": {"sha": "f" * 40}}]
    (artifact / "pull-request").write_text("8\n")
    assert "no pull request of the event has the run's head commit" in comment(cli, artifact, tmp_path, event(other_head)).err
    not_a_pr = comment(cli, artifact, tmp_path, event(event="push"))
    assert not_a_pr.code == 2 and "not a workflow_run of a pull_request run" in not_a_pr.err


def test_a_forks_pull_request_is_checked_against_the_runs_head_commit(artifact, cli, tmp_path):
    """A fork's pull request is not in `workflow_run.pull_requests`: the number the artifact claims is posted on
    only when GitHub's answer for that pull request has the run's head commit, in this repository."""
    (artifact / "pull-request").write_text("8\n")
    fork = event([])
    answer = {
        "number": 8,
        "state": "open",
        "head": {"sha": HEAD, "repo": {"full_name": "someone/repo"}},
        "base": {"repo": {"full_name": "org/repo"}},
    }
    assert comment(cli, artifact, tmp_path, fork, answer).out == "8\n"
    unchecked = comment(cli, artifact, tmp_path, fork)
    assert unchecked.code == 2 and "cannot be checked" in unchecked.err
    for lie in ({"head": {"sha": "f" * 40}}, {"number": 9}, {"base": {"repo": {"full_name": "evil/repo"}}}, {"state": "closed"}):
        refused = comment(cli, artifact, tmp_path, fork, {**answer, **lie})
        assert refused.code == 2 and len(refused.err.splitlines()) == 1, lie
    assert "whose head commit is not the run's" in comment(cli, artifact, tmp_path, fork, {**answer, "head": {"sha": "f" * 40}}).err


def test_a_run_link_that_is_not_this_repositorys_run_is_left_out(artifact, cli, tmp_path):
    for url in ("javascript:alert(1)", "https://evil.example/org/repo/actions/runs/1", f"{RUN_URL})[x](https://evil.example"):
        assert comment(cli, artifact, tmp_path, event(html_url=url)).code == 0
        body = (tmp_path / "comment.md").read_text()
        assert "job summary" not in body and "evil" not in body and "javascript" not in body
