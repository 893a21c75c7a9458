"""Reports a reviewer reads in ten seconds, on verl's real matrix and on a real release upgrade."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from harness.baselines.releases import fetch_wheel_tree
from harness.model.settings import load_settings
from tests.conftest import ROOT, verl_tree

pytestmark = pytest.mark.e2e

TEMPERATURE = "actor_rollout_ref.rollout.temperature"


@pytest.fixture(scope="module")
def project_tree() -> Path:
    """The project's own pinned verl tree, fetched the way `make setup` does."""
    source = load_settings(start=ROOT).source
    return fetch_wheel_tree(source.wheel, source.unpack, source.into, python=source.python)


@pytest.fixture(scope="module")
def one_default_changed(project_tree, tmp_path_factory) -> Path:
    """A copy of verl 0.9.1's config tree with one default changed in rollout/rollout.yaml (read by every case)."""
    copy = shutil.copytree(project_tree, tmp_path_factory.mktemp("verl") / "config")
    rollout = copy / "rollout" / "rollout.yaml"
    text = rollout.read_text()
    assert "\ntemperature: 1.0\n" in text
    rollout.write_text(text.replace("\ntemperature: 1.0\n", "\ntemperature: 0.7\n"))
    return copy


def check(cli, tree, *arguments):
    return cli("--config-dir", str(tree), "check", *arguments, cwd=ROOT)


def test_one_changed_default_is_named_once_with_its_13_cases_in_text(one_default_changed, cli):
    result = check(cli, one_default_changed)
    assert result.code == 1
    lines = result.out.splitlines()
    # 16 distinct waived warnings (contract waivers), one line each; no target warnings since the program view reads
    # from verl's code who builds each node (contracts/verl.yaml's target waivers were removed with it)
    assert len(lines) < 40, result.out
    named = [line for line in lines if line.lstrip().startswith(("ERROR", "WARNING")) and f"{TEMPERATURE}:" in line]
    assert len(named) == 1 and f"{TEMPERATURE}: 1.0 -> 0.7  (all 13 cases; set by " in named[0]
    assert "rollout/rollout.yaml:" in named[0]
    # The verdict comes first, then the summary, and the change comes before the waived warnings.
    assert lines[0] == lines[-1] == "FAILED: 13 cases against goldens in snapshots: 13 changed; 13 goldens to regenerate, 78 warnings"
    assert lines[1].startswith("2 values changed on all 13 cases.")
    assert lines.index(named[0]) < next(i for i, line in enumerate(lines) if " waived warnings on 13 cases" in line)


def test_one_changed_default_is_one_row_and_one_group(one_default_changed, cli):
    markdown = check(cli, one_default_changed, "--format", "markdown").out
    rows = [line for line in markdown.splitlines() if line.startswith("| <code>actor_rollout_ref.<wbr>rollout.<wbr>temperature</code>")]
    assert len(rows) == 1 and "| `1.0` → `0.7` | all 13 cases |" in rows[0]
    report = check(cli, one_default_changed, "--format", "json").json()
    (group,) = [g for g in report["groups"] if g["path"] == TEMPERATURE]
    assert (group["kind"], group["old"], group["new"], len(group["cases"])) == ("changed", 1.0, 0.7, 13)
    assert group["source"].endswith("rollout/rollout.yaml:" + group["source"].rsplit(":", 1)[1])
    github = check(cli, one_default_changed, "--format", "github").out.splitlines()
    assert len([line for line in github if f"title=changed {TEMPERATURE}::" in line]) == 1


def test_a_clean_check_is_short_and_quiet_is_one_line(project_tree, cli):
    result = cli("check", cwd=ROOT)
    assert result.code == 0
    lines = result.out.splitlines()
    # The verdict alone: the program view's counts (this project reads verl's classes) come with --verbose.
    assert len(lines) == 1
    assert re.fullmatch(
        r"OK: 13 cases against goldens in snapshots: 13 ok; (\d+) warnings \(\1 waived, \d+ distinct; --verbose lists them\)", lines[0]
    )
    verbose = cli("check", "--verbose", cwd=ROOT).out.splitlines()
    assert any(line.startswith("Program view (classes read from python_sources; an upper bound): ") for line in verbose)
    quiet = cli("check", "--quiet", cwd=ROOT)
    assert quiet.code == 0 and len(quiet.out.splitlines()) == 1 and quiet.out.startswith("OK: 13 cases")


@pytest.fixture(scope="module")
def upgrade(project_tree):
    return verl_tree("0.8.0"), project_tree


def test_upgrade_report_opens_with_its_summary_and_fits_the_changed_defaults_on_one_screen(upgrade, cli):
    old, new = upgrade
    text = cli("diff", str(old), str(new), cwd=ROOT).out.splitlines()
    assert text[0] == text[-1] and text[0].startswith("OK: 16 cases against config tree ")  # the verdict first (and last)
    assert text[1].startswith("comparing two config trees, ") and text[1].endswith(f" cases: {old} -> {new}")  # then the mode
    assert text[2].startswith("7 values changed (") and "keys removed" in text[2] and "(folded)" in text[2]
    changed = text.index("Changed values (7 keys):")
    assert changed < 7 and text[changed + 8] == "Removed keys (27):"  # the changed defaults fit on one screen
    assert any(line.startswith("  actor_rollout_ref.rollout.max_num_seqs: 1024 -> 256  (all 13 cases; set by ") for line in text)
    # Literals that became interpolations with the same resolved value are folded away.
    assert "Refactors with unchanged values: 6 (folded; --verbose lists them)" in text
    assert not any("fsdp_config.entropy_checkpointing" in line for line in text)

    markdown = cli("diff", str(old), str(new), "--format", "markdown", "--title", "verl 0.8.0 → 0.9.1").out
    assert (
        markdown.split("\n\n", 1)[1].startswith("## verl 0.8.0 → 0.9.1\n\nComparing two config trees, ")
        and "</code>.\n\n7 values changed (" in markdown
    )
    folded = markdown[markdown.index("<summary>Refactors with unchanged values (6)</summary>") :]
    assert "<code>actor_rollout_ref.<wbr>actor.<wbr>fsdp_config.<wbr>entropy_checkpointing</code>" in folded
    assert markdown.count("<code>actor_rollout_ref.<wbr>rollout.<wbr>max_num_seqs</code>") == 1

    report = cli("diff", str(old), str(new), "--format", "json").json()
    (refactor,) = [g for g in report["groups"] if g["path"] == "actor_rollout_ref.actor.fsdp_config.entropy_checkpointing"]
    assert refactor["effective_same"] is True and refactor["old"] is False
    assert refactor["new"] == "${oc.select:actor_rollout_ref.actor.entropy_checkpointing,False}"
    findings = sum(len(case["findings"]) for case in report["cases"])
    assert report["summary"].startswith("7 values changed") and findings > 2 * len(report["groups"])


# GitHub's own rules that decide a rendered comment's width (from github-markdown-css): a table is a block of its
# content's width that scrolls inside itself beyond 100%, so a too-wide table hides columns rather than widening
# the page. The probe below therefore checks both the page and every table.
GITHUB_CSS = """
body { margin: 0; }
.markdown-body { box-sizing: border-box; max-width: 1012px; padding: 32px; font: 14px/1.5 -apple-system, "Segoe UI",
  "Noto Sans", Helvetica, Arial, sans-serif; word-wrap: break-word; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto; border-spacing: 0;
  border-collapse: collapse; }
.markdown-body td, .markdown-body th { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body code { padding: .2em .4em; font-size: 85%; white-space: break-spaces; font-family: monospace; }
.markdown-body pre { overflow: auto; padding: 16px; }
.markdown-body pre code { white-space: pre; }
"""
PROBE = """
<script>
window.addEventListener("load", () => {
  const tables = [...document.querySelectorAll("table")];
  const hidden = tables.filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.scrollWidth - t.clientWidth);
  document.body.setAttribute("data-probe", JSON.stringify({
    page: document.documentElement.scrollWidth, viewport: window.innerWidth, tables: tables.length, hidden: hidden}));
});
</script>
"""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def render_github(markdown: str) -> str:
    """The markdown as GitHub renders it (cmark-gfm with its extensions; GitHub keeps details, code and wbr)."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    body = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{GITHUB_CSS}</style></head>"
        f"<body><article class='markdown-body'>{body}</article>{PROBE}</body></html>"
    )


def chromium(tmp_path, page, *arguments):
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail("chromium is not installed: apt-get install chromium (.ci/run does)")
    import subprocess

    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    return subprocess.run(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1000,2000", *arguments, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout


def test_markdown_upgrade_report_fits_1000_px_in_a_real_browser(upgrade, cli, tmp_path):
    import json

    old, new = upgrade
    markdown = cli("diff", str(old), str(new), "--format", "markdown", "--title", "verl 0.8.0 → 0.9.1").out
    # One change column, a count of cases, no severity column; the 250 added keys are folded.
    assert "| path | change | cases | set by |" in markdown and "| severity |" not in markdown
    assert "<summary>Added keys (250)</summary>" in markdown
    assert "| <code>actor_rollout_ref.<wbr>rollout.<wbr>max_num_seqs</code> | `1024` → `256` | all 13 cases |" in markdown
    page = tmp_path / "report.html"
    page.write_text(render_github(markdown), encoding="utf-8")
    chromium(tmp_path, page, f"--screenshot={tmp_path / 'report.png'}")
    assert (tmp_path / "report.png").stat().st_size > 10_000  # something was drawn
    dom = chromium(tmp_path, page, "--dump-dom", "--virtual-time-budget=5000")
    probe = json.loads(re.search(r'data-probe="([^"]*)"', dom).group(1).replace("&quot;", '"'))
    assert probe["viewport"] == 1000 and probe["tables"] >= 3
    assert probe["page"] == probe["viewport"] and probe["hidden"] == [], probe


@pytest.fixture(scope="module")
def two_edits(project_tree, tmp_path_factory) -> Path:
    """verl 0.9.1's tree with the contributor's two edits: megatron's tensor parallel size 1 -> 2, gamma 1.0 -> 0.99."""
    copy = shutil.copytree(project_tree, tmp_path_factory.mktemp("verl") / "config")
    for name, old, new in (
        ("engine/megatron.yaml", "\ntensor_model_parallel_size: 1\n", "\ntensor_model_parallel_size: 2\n"),
        ("ppo_trainer.yaml", "\n  gamma: 1.0\n", "\n  gamma: 0.99\n"),
    ):
        text = (copy / name).read_text()
        assert text.count(old) == 1, name
        (copy / name).write_text(text.replace(old, new))
    return copy


def test_two_edits_show_errors_next_step_and_verdict_on_one_100x50_screen(two_edits, cli):
    import subprocess
    import time

    full = cli("--config-dir", str(two_edits), "check", cwd=ROOT)
    assert full.code == 1
    errors = [line.strip() for line in full.out.splitlines() if line.lstrip().startswith("ERROR ")]
    assert len(errors) == 6 and any("algorithm.gamma: 1.0 -> 0.99" in line for line in errors)
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.fail("tmux is not installed: apt-get install tmux (.ci/run does)")
    session = f"config-harness-{time.monotonic_ns()}"
    command = f"{Path(sys.executable).parent / 'config-harness'} --config-dir {two_edits} check; echo EXIT=$?; sleep 600"
    subprocess.run([tmux, "new-session", "-d", "-s", session, "-x", "100", "-y", "50", "-c", str(ROOT), command], check=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            pane = subprocess.run([tmux, "capture-pane", "-p", "-J", "-t", session], capture_output=True, text=True, check=True).stdout
            if "EXIT=" in pane or time.monotonic() > deadline:
                break
            time.sleep(1)
    finally:
        subprocess.run([tmux, "kill-session", "-t", session], check=False)
    assert "EXIT=1" in pane, pane
    screen = [line.strip() for line in pane.splitlines()]
    # Every error, the next step and the verdict are on the screen at the end, verdict last.
    assert all(error in screen for error in errors), pane
    assert any(line.startswith("Next: if these changes are intended: run `config-harness") for line in screen), pane
    assert any(line.startswith("Next: contract megatron-critical fails") and "contracts/verl.yaml:" in line for line in screen)
    shown = [line for line in screen if line]
    # The contract broken on the megatron cases blocks as causes; the changed values are goldens to regenerate.
    verdict = re.fullmatch(
        r"FAILED: 13 cases against goldens in snapshots: 13 changed; (\d+) blocking causes? .*13 goldens to regenerate.*", shown[-2]
    )
    assert verdict is not None and shown[-1] == "EXIT=1", shown[-2:]


def test_the_github_format_never_annotates_a_waived_finding(two_edits, cli):
    github = cli("--config-dir", str(two_edits), "check", "--format", "github", cwd=ROOT).out.splitlines()
    assert not any("waived" in line for line in github)
    assert not any(line.startswith("::warning") for line in github)
    assert len([line for line in github if line.startswith("::error")]) == 6


def test_text_upgrade_report_0_7_1_to_0_8_0_is_short_and_shows_every_changed_value(cli):
    old, new = verl_tree("0.7.1"), verl_tree("0.8.0")
    text = cli("diff", str(old), str(new), cwd=ROOT).out.splitlines()
    assert len(text) < 120, len(text)
    report = cli("diff", str(old), str(new), "--format", "json", cwd=ROOT).json()
    changed = [g for g in report["groups"] if g["kind"] == "changed" and not g["effective_same"]]
    assert len(changed) >= 9
    for group in changed:
        assert any(line.lstrip().startswith(f"{group['path']}: ") for line in text), group["path"]
    # The 26 keys of critic.model.fsdp_config reappear, values and all, as critic.fsdp: one moved line, not 52.
    assert any(line.startswith("  MOVED critic.model.fsdp_config -> critic.fsdp (subtree") for line in text)
    (fsdp,) = [g for g in report["groups"] if g["kind"] == "moved" and g["old"] == "critic.model.fsdp_config"]
    assert fsdp["new"] == "critic.fsdp" and len(fsdp["value"]) >= 10
    assert not any(g["path"].startswith(("critic.model.fsdp_config.", "critic.fsdp.")) for g in report["groups"] if g["kind"] != "moved")
