"""Reports are byte for byte the same cold (an empty cache), warm (every case's result kept) and with `--no-cache`
(issue 52), on this project's verl tree and on the synthetic scale tree of benchmarks/ (10 engines x 10 presets:
the shape of the 1,000-case tree at a tenth of its cost; benchmarks/budgets.py measures the whole one)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT

pytestmark = [pytest.mark.e2e]

FORMATS = ("text", "json", "markdown", "github")


def reports(args: list[str], cache: Path, capsys: pytest.CaptureFixture[str], *more: str) -> list[tuple[int, str]]:
    out = []
    for output_format in FORMATS:
        capsys.readouterr()
        code = main([*more, "--cache-dir", str(cache), *args, "--format", output_format])
        out.append((code, capsys.readouterr().out))
    return out


def cold_warm_and_uncached(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    cold = reports(args, cache, capsys)
    warm = reports(args, cache, capsys)
    uncached = reports(args, cache, capsys, "--no-cache")
    assert cold == warm == uncached


def test_verl_reports_are_the_same_cold_warm_and_uncached(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    cold_warm_and_uncached(["check"], tmp_path, capsys)


def test_the_scale_tree_reports_are_the_same_cold_warm_and_uncached(tmp_path, capsys, monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_matrix import synthetic_project

    settings = synthetic_project(tmp_path / "scale", 10, 10)
    monkeypatch.chdir(settings.parent)
    assert main(["--settings", str(settings), "--cache-dir", str(tmp_path / "gen"), "generate", "--quiet"]) == 0
    edited = settings.parent / "conf" / "engine" / "e3.yaml"
    cold_warm_and_uncached(["--settings", str(settings), "check"], tmp_path, capsys)
    edited.write_text(edited.read_text().replace("engine_key_0: 300", "engine_key_0: 301"))
    cold_warm_and_uncached(["--settings", str(settings), "check"], tmp_path / "after", capsys)
