"""Keep the last `make bench` run in benchmarks/README.md (issue 52): what the run printed, with the machine it ran on
and its load before and after, between two marker lines that only this script writes. Reads the run's output on
stdin and passes it through to stdout as it comes, so the terminal shows the run live.

    make bench          # runs the benchmarks through this script
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from pathlib import Path

README = Path(__file__).resolve().parent / "README.md"
BEGIN = "<!-- the last `make bench` run: written by benchmarks/record.py, do not edit -->"
END = "<!-- end of the last `make bench` run -->"


def machine() -> str:
    model = (
        next(
            (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
            platform.processor() or "unknown CPU",
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor() or "unknown CPU"
    )
    memory = ""
    if Path("/proc/meminfo").exists():
        total_kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {total_kib / 1024 / 1024:.0f} GiB"
    return f"{os.cpu_count()} cores ({model}){memory}, Python {platform.python_version()}, {platform.system()}"


def section(lines: list[str], load_before: float, load_after: float, started: datetime.datetime) -> str:
    # The load before says what else ran; the load after includes the bench's own last step (two workers on two
    # cores), so it says little of other processes.
    quiet = "a quiet machine" if load_before < 1.0 else "a loaded machine: wall seconds are inflated, CPU-s less"
    return "\n".join(
        [
            BEGIN,
            f"## The last `make bench` run ({started:%Y-%m-%d %H:%M} UTC, {quiet})",
            "",
            f"Machine: {machine()}. Load average (1 min) {load_before:.2f} before, {load_after:.2f} after (the bench's own workers included).",
            "",
            "```text",
            *(line.rstrip("\n") for line in lines),
            "```",
            END,
        ]
    )


def main() -> int:
    started = datetime.datetime.now(datetime.UTC)
    load_before = os.getloadavg()[0]
    lines = []
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line)
    text = README.read_text(encoding="utf-8")
    new = section(lines, load_before, os.getloadavg()[0], started)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + new + rest.split(END, 1)[1]
    else:
        title, _, body = text.partition("\n\n")
        text = f"{title}\n\n{new}\n\n{body}"
    README.write_text(text, encoding="utf-8")
    print(f"benchmarks/README.md: the run recorded ({len(lines)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
