"""The docs home shows it working (issue 45 item 1): built as `make docs` builds it, opened from disk at 1000 px in
headless Chromium, the quickstart is on the first screen, long console lines scroll inside their block rather than
being cut, and the site searches offline."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.test_reports_verl import CHROMIUM_FLAGS

WINDOW = (1000, 900)  # a laptop's browser window
PROBE = """
<script>
window.addEventListener("load", () => {
  const heading = document.getElementById("quickstart");
  const block = heading && [...document.querySelectorAll("pre")].find(p => p.compareDocumentPosition(heading) & Node.DOCUMENT_POSITION_PRECEDING);
  const cut = [...document.querySelectorAll("pre > code")].filter(c => c.scrollWidth > c.clientWidth + 1 && !["auto", "scroll"].includes(getComputedStyle(c).overflowX));
  document.body.setAttribute("data-probe", JSON.stringify({
    quickstart: block ? block.getBoundingClientRect().bottom : null, height: window.innerHeight, width: window.innerWidth,
    page: document.documentElement.scrollWidth, cut: cut.length, search: !!document.querySelector("input[name=query], .md-search__input")}));
});
</script>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)]
    subprocess.run(mkdocs, cwd=ROOT, check=True, capture_output=True, env=env, timeout=300)
    return folder


def test_the_home_shows_the_quickstart_without_scrolling_and_nothing_is_cut(site, tmp_path):
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail("chromium is not installed: apt-get install chromium (.ci/run does)")
    home = site / "index.html"
    home.write_text(home.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    window = f"--window-size={WINDOW[0]},{WINDOW[1]}"
    dom = subprocess.run(
        [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            window,
            "--dump-dom",
            "--virtual-time-budget=5000",
            home.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout
    seen = json.loads(re.findall(r'data-probe="([^"]*)"', dom)[-1].replace("&quot;", '"'))
    assert seen["quickstart"] is not None and seen["quickstart"] <= seen["height"], seen
    assert seen["page"] == seen["width"] and seen["cut"] == 0 and seen["search"], seen
    # Offline search: the index ships as a script the page loads from disk (no server, no fetch).
    bundles = (path.read_text(encoding="utf-8") for path in (site / "assets" / "javascripts").glob("*.js"))
    assert (site / "search" / "search_index.js").is_file() and any("search_index.js" in text for text in bundles)
