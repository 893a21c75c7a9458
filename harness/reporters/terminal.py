"""What a person at a terminal gets: colors and a progress bar, never in CI logs or pipes."""

from __future__ import annotations

import os
from typing import TextIO

# Shorter matrices finish before a bar would be worth reading.
PROGRESS_MIN_CASES = 8
WIDTH = 24


def is_interactive(stream: TextIO) -> bool:
    """A terminal that can redraw a line (not TERM=dumb), outside CI."""
    return stream.isatty() and os.environ.get("CI", "").lower() not in ("true", "1") and os.environ.get("TERM") != "dumb"


def wants_color(stream: TextIO) -> bool:
    """Color for a terminal, unless NO_COLOR is set (https://no-color.org) or the terminal says it has none (TERM=dumb)."""
    return is_interactive(stream) and not os.environ.get("NO_COLOR")


class Progress:
    """A one-line bar on `stream`, redrawn as cases finish and erased at the end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.total, self.done, self.enabled = stream, 0, 0, False

    def start(self, total: int) -> None:
        """The matrix is known: draw from now on if it is long enough and someone is watching."""
        self.total = total
        self.enabled = total >= PROGRESS_MIN_CASES and is_interactive(self.stream)

    def advance(self, label: str) -> None:
        """One more case finished."""
        self.done += 1
        if self.enabled:
            filled = WIDTH * self.done // max(self.total, 1)
            self.stream.write(f"\r\033[K[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} {label}")
            self.stream.flush()

    def close(self) -> None:
        """Erase the bar so the report starts on a clean line."""
        if self.enabled and self.done:
            self.stream.write("\r\033[K")
            self.stream.flush()
