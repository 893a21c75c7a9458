"""Verdict first (issue 45 item 2): a review's job summary and its sticky comment, rendered as GitHub renders them at
1000 px in headless Chromium, show the verdict in the first 200 px, and nothing is cut (no table wider than its
box, no page wider than the window)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.reporters.pr_comment import checked_comment, render
from tests.conftest import commit_small_project, write_tree
from tests.e2e.test_reports_verl import chromium, render_github
from tests.integration.test_comment import event

CONTRACTS = """
contracts:
  - name: gpu-count
    cases: "train/gpu/*"
    equal: {device.count: 8}
"""
# Where the first element that states the verdict is, and whether anything is cut.
PROBE = """
<script>
window.addEventListener("load", () => {
  const tables = [...document.querySelectorAll("table")];
  const verdict = [...document.querySelectorAll("h1,h2,h3,p,strong")].find(e => /^(\\*\\*)?(OK|FAILED)\\b|: (OK|FAILED)\\b/.test(e.textContent));
  document.body.setAttribute("data-probe", JSON.stringify({
    verdict: verdict ? verdict.getBoundingClientRect().top : null, text: verdict ? verdict.textContent : "",
    page: document.documentElement.scrollWidth, viewport: window.innerWidth, height: document.documentElement.scrollHeight,
    hidden: tables.filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.scrollWidth - t.clientWidth)}));
});
</script>
"""


def probe(tmp_path: Path, markdown: str, name: str) -> dict:
    page = tmp_path / f"{name}.html"
    page.write_text(render_github(markdown).replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = chromium(tmp_path, page, "--dump-dom", "--virtual-time-budget=5000")
    found = re.findall(r'data-probe="([^"]*)"', dom)
    return json.loads(found[-1].replace("&quot;", '"').replace("&amp;", "&"))


def test_the_job_summary_and_the_comment_show_the_verdict_in_the_first_200_px(small_project, cli, tmp_path):
    project = commit_small_project(small_project, cli, CONTRACTS)
    # A pull request that breaks a contract, changes values on every case and adds alike keys on many.
    gpu = project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    train = project / "conf" / "train.yaml"
    train.write_text(
        train.read_text()
        .replace("lr: 0.1", "lr: 0.2")
        .replace("epochs: 3", "epochs: 3\n  " + "\n  ".join(f"extra_{i}: {i}" for i in range(12)))
    )
    write_tree(project, {})
    cli("--settings", "harness.toml", "generate")  # exit 1 (the contract); the goldens the push to main checks
    summary = cli(
        "--settings", "harness.toml", "diff", "--base", "HEAD", "--format", "markdown", "--report", f"comment:{tmp_path / 'comment.json'}"
    )
    assert summary.code == 1
    # The interface's first line of a review says which settings decided it; the verdict is right under it.
    first, second = summary.out.splitlines()[:2]
    assert first.startswith("settings: HEAD") and second.startswith("**FAILED**: ")
    body = render(checked_comment((tmp_path / "comment.json").read_bytes(), tmp_path / "comment.json"), event())
    assert body.splitlines()[0].startswith("### config-harness: FAILED, 1 blocking cause")
    for name, markdown in (("summary", summary.out), ("comment", body)):
        seen = probe(tmp_path, markdown, name)
        assert seen["verdict"] is not None and seen["verdict"] < 200, (name, seen)
        assert seen["page"] == seen["viewport"] == 1000 and seen["hidden"] == [], (name, seen)
