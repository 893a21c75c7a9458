"""The docs' reference pages (docs/reference/*.md) are what scripts/docs_reference.py writes from the code now."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


docs_reference = _generator()


def test_the_committed_reference_pages_are_what_the_code_gives_them():
    stale = docs_reference.stale(docs_reference.pages())
    assert not stale, f"stale reference pages {[str(p.relative_to(ROOT)) for p in stale]}: run .venv/bin/python scripts/docs_reference.py"


def test_every_flag_of_every_command_is_on_the_cli_page():
    from harness.cli import build_parser

    page = docs_reference.cli_page()
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, sub in commands.items():
        assert f"## `{name}`" in page
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help") and action.help != "==SUPPRESS==":
                    assert f"`{flag}" in page or f", {flag}" in page, (name, flag)


def test_a_kind_the_code_adds_without_a_meaning_fails_the_generator():
    from harness.model.findings import Kind

    with pytest.raises(docs_reference.StaleMeanings, match="no meaning for new_kind"):
        docs_reference._checked(docs_reference.KIND_MEANINGS, [*(k.value for k in Kind), "new_kind"], "finding kinds")
    with pytest.raises(docs_reference.StaleMeanings, match="which the code no longer has"):
        docs_reference._checked(docs_reference.KIND_MEANINGS, [k.value for k in Kind if k.value != "moved"], "finding kinds")


def test_a_page_edited_by_hand_is_stale(tmp_path):
    page = tmp_path / "cli.md"
    page.write_text(docs_reference.cli_page(), encoding="utf-8")
    assert docs_reference.stale({page: docs_reference.cli_page()}) == []
    page.write_text(docs_reference.cli_page().replace("--quiet", "--silent"), encoding="utf-8")
    assert docs_reference.stale({page: docs_reference.cli_page()}) == [page]
