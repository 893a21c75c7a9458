"""Random shapes in every file a pull request controls end in exit 0, 1 or 2, never 3 (issue 41 item 4).

The settings table, a contracts file and the known file (a contracts file whose entries name findings) are
drawn as random documents over their own vocabulary, so most examples reach deep into the parsers: a list where a
table belongs, a 5,000-digit number, a date where a name belongs. The thorough hypothesis profile (make test-e2e)
runs ten times the examples.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.model.settings import SETTINGS_SHAPE
from harness.rules import BY_KEY
from harness.rules.contracts import CHANGE_KEYS, KNOWN_KEYS, WAIVER_SHAPE
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree

CONTRACT_WORDS = sorted({"contracts", "waivers", "changes", "name", *BY_KEY, *WAIVER_SHAPE.fields, *KNOWN_KEYS, *CHANGE_KEYS})
SETTINGS_WORDS = sorted({*SETTINGS_SHAPE.fields, "glob", "modules", "wheel", "unpack", "into", "config_name", "same_as", "became"})

BIG = "__big_integer__"
DIGITS = "9" * 5000
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.just(BIG),  # becomes a 5,000-digit integer in the file: more digits than Python turns into text by default
    st.floats(allow_nan=False, allow_infinity=False),
    st.dates(min_value=datetime.date(1990, 1, 1), max_value=datetime.date(2100, 1, 1)),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
    st.sampled_from(["train", "*", "a.b", "conf", "ppo_trainer/*", "2099-01-01", "require", "launch", "x/*.sh", ""]),
)


def documents(words: list[str]) -> st.SearchStrategy:
    keys = st.one_of(st.sampled_from(words), st.text(max_size=6))
    return st.recursive(
        scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)), max_leaves=24
    )


def _toml(value: object) -> str:
    """One TOML value (inline tables and arrays), for a settings table drawn at random."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value if item is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)} = {_toml(item)}" for key, item in value.items() if item is not None) + "}"
    return DIGITS if value == BIG else json.dumps(str(value), ensure_ascii=False)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    write_tree(root / "conf", SMALL_TREE)
    return root


def _run(project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    monkeypatch.chdir(project)
    capsys.readouterr()
    code = main(["--settings", "harness.toml", *args])
    captured = capsys.readouterr()
    assert code in (0, 1, 2), captured.err[-2000:]
    assert "Traceback" not in captured.err + captured.out
    if code == 2:
        assert len(captured.err.strip().splitlines()) == 1, captured.err


FUZZ = settings(
    max_examples=max(10, settings.default.max_examples // 3),  # a third of the profile's: each example is a CLI run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)


@FUZZ
@given(document=documents(CONTRACT_WORDS), known=st.booleans())
def test_contracts_and_known_files_of_any_shape(project, capsys, monkeypatch, document, known):
    if known and isinstance(document, dict):
        document = {"waivers": [{"finding": "launch", **document}]}  # a known entry's shape, in the known file's place
    text = yaml.safe_dump(document, allow_unicode=True).replace(BIG, DIGITS)
    (project / "contracts.yaml").write_text(text, encoding="utf-8")
    (project / "harness.toml").write_text('contracts = ["contracts.yaml"]\n' + SMALL_SETTINGS, encoding="utf-8")
    _run(project, capsys, monkeypatch, "check", "--no-cache", "--case", "train/cpu/default")


@FUZZ
@given(entries=st.lists(documents(CONTRACT_WORDS), max_size=3), command=st.sampled_from(["check", "known"]))
def test_a_known_file_of_any_shape_read_by_check_and_known(project, capsys, monkeypatch, entries, command):
    """The known file by its own name (`known` reads it to rewrite it, `check` through the one schema): each entry a
    random document, most of them starting as a known entry does."""
    waivers = [{"finding": "launch", "reason": "r", **entry} if isinstance(entry, dict) else entry for entry in entries]
    text = yaml.safe_dump({"waivers": waivers}, allow_unicode=True).replace(BIG, DIGITS)
    (project / "known.yaml").write_text(text, encoding="utf-8")
    (project / "harness.toml").write_text('contracts = ["known.yaml"]\n' + SMALL_SETTINGS, encoding="utf-8")
    _run(project, capsys, monkeypatch, command, "--no-cache", "--case", "train/cpu/default")


@FUZZ
@given(table=st.dictionaries(st.sampled_from(SETTINGS_WORDS), documents(SETTINGS_WORDS), max_size=6))
def test_settings_of_any_shape(project, capsys, monkeypatch, table):
    lines = [f"{json.dumps(key)} = {_toml(value)}" for key, value in table.items() if value is not None]
    (project / "harness.toml").write_text(
        'config_dir = "conf"\nroots = ["train"]\n' * ("config_dir" not in table) + "\n".join(lines) + "\n"
    )
    _run(project, capsys, monkeypatch, "list")
