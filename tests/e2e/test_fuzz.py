"""A bounded fuzz pass: mutated YAML from verl's real tree never makes the harness crash with a traceback.

The default run is short; `make fuzz` sets CONFIG_HARNESS_FUZZ_ITERATIONS for a longer one.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from harness.model.settings import load_settings
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

ITERATIONS = int(os.environ.get("CONFIG_HARNESS_FUZZ_ITERATIONS", "6"))
SEED = int(os.environ.get("CONFIG_HARNESS_FUZZ_SEED", "20261130"))
FRAGMENTS = [
    ":",
    ": [",
    "{",
    "}",
    "${",
    "${oc.select:",
    "???",
    "- ",
    "\t",
    "'",
    '"',
    "&a",
    "*a",
    "!!binary x",
    "!!python/object/apply:os.system ['touch FUZZ_RAN_CODE']",
    "defaults:\n  - nowhere: x\n",
    "\x00",
    "\xff",
]


def mutate(text: str, rng: random.Random) -> str | bytes:
    """One random damage: a flipped byte, a lost or doubled line, an inserted fragment, a truncation, bad indent."""
    lines = text.splitlines(keepends=True) or [""]
    choice = rng.randrange(6)
    if choice == 0:
        data = bytearray(text.encode())
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data)
    if choice == 1:
        del lines[rng.randrange(len(lines))]
    elif choice == 2:
        index = rng.randrange(len(lines))
        lines.insert(index, lines[index])
    elif choice == 3:
        index = rng.randrange(len(lines))
        cut = rng.randrange(len(lines[index]) + 1)
        lines[index] = lines[index][:cut] + rng.choice(FRAGMENTS) + lines[index][cut:]
    elif choice == 4:
        return text[: rng.randrange(len(text) + 1)]
    else:
        index = rng.randrange(len(lines))
        lines[index] = " " * rng.randrange(1, 5) + lines[index]
    return "".join(lines)


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("fuzz") / "config"
    shutil.copytree(load_settings(start=ROOT).config_dir, copy)
    return copy


def test_mutated_verl_yaml_never_crashes(tree_copy, cli, tmp_path):
    rng = random.Random(SEED)
    files = sorted(p for p in tree_copy.rglob("*.yaml") if not p.name.startswith("_generated"))
    goldens_before = {p.name: p.read_bytes() for p in (ROOT / "snapshots").iterdir()}
    outcomes = set()
    for iteration in range(ITERATIONS):
        victim = rng.choice(files)
        original = victim.read_bytes()
        damaged = mutate(original.decode(), rng)
        victim.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode("utf-8", "surrogateescape"))
        try:
            # The cli fixture fails the test on any traceback in stdout or stderr.
            result = cli("--config-dir", str(tree_copy), "check", "--format", "json", cwd=ROOT)
        finally:
            victim.write_bytes(original)
        detail = f"iteration {iteration}, seed {SEED}, {victim.relative_to(tree_copy)}"
        assert result.code in (0, 1, 2), f"{detail}: {result.err}"
        if result.code == 2:
            (line,) = result.err.strip().splitlines()  # unusable input: exactly one line
            assert line.startswith("config-harness: error:"), detail
        else:
            report = result.json()
            assert len(report["cases"]) == 13, detail  # every case still reported
            for case in report["cases"]:
                for finding in case["findings"]:
                    assert "\n" not in finding["message"], detail
        outcomes.add(result.code)
    assert {p.name: p.read_bytes() for p in (ROOT / "snapshots").iterdir()} == goldens_before  # check never writes
    assert not (ROOT / "FUZZ_RAN_CODE").exists() and not (tree_copy / "FUZZ_RAN_CODE").exists()
    assert outcomes  # the loop ran
