"""The README's timings say which machine and what load they were measured under (issue 56: "25 s" and "a minute"
were read against 101 s and 261 s of wall time on a loaded machine, with nothing saying which was which)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1].parent
TIMED = re.compile(r"\b\d+(?:\.\d+)? (?:s wall|CPU-s)\b|\ba minute\b|\b\d+ s\b")


def footnote(text: str) -> str:
    """The paragraph of the README that starts with `\\*` (the footnote its timings point at)."""
    paragraphs = re.split(r"\n\s*\n", text)
    (note,) = [p for p in paragraphs if p.startswith("\\* ")]
    return " ".join(note.split())


def test_every_timing_of_the_readme_points_at_a_note_naming_the_machine_and_the_load():
    text = (ROOT / "README.md").read_text()
    note = footnote(text)
    # Outside the note, every timing is marked `*`: what it took depends on the machine and its load.
    timed = [line for line in text.split(note[:40])[0].splitlines() if TIMED.search(line)]
    assert timed and all("*" in line for line in timed), timed
    # The note says when, at which commit, on what machine, and the load measured when each command started.
    assert re.search(r"Measured on \d{4}-\d{2}-\d{2} at commit [0-9a-f]{7}", note), note
    assert re.search(r"\d+-core .*? with \d+ GiB", note), note
    assert "load average" in note and re.search(r"was \d+(\.\d+)? when `make check-config` started", note), note
    assert re.search(r"\d+(\.\d+)? when `make test` started", note), note
    # Figures of another load say which: the quiet machine's, a heavier load's.
    assert "quiet" in note and "heavier load" in note, note
