"""The script reader, the fast override parser and moved-key detection, on small inputs with known answers."""

from __future__ import annotations

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from harness import overrides
from harness.moves import find_moves
from harness.shell import launches_in


def read(script: str) -> list:
    return launches_in("run.sh", script.encode(), lambda entry, is_module: entry.startswith("app."))


def test_defaults_arithmetic_arrays_conditionals_and_continuations():
    (launch,) = read(
        'N=${N:-4}\nLEN=$((N * 256 + 1))\nARGS=(\n  a.x=1\n  "a.y=two words"\n)\n'
        'if [ "${MODE:-fast}" = fast ]; then ARGS+=(a.fast=true); else ARGS+=(a.slow=true); fi\n'
        'LAUNCH=(uv run python3)\n"${LAUNCH[@]}" -X dev -m app.main --config-name=big.yaml \\\n'
        '    a.len=$LEN "${ARGS[@]}" a.home=$HOME/x "$@"\n'
    )
    assert (launch.entry, launch.config_name, launch.line) == ("app.main", "big.yaml", 9)
    texts = [o.text for o in launch.overrides]
    assert texts == ["a.len=1025", "a.x=1", "a.y=two words", "a.fast=true", "a.home=__unset_HOME__/x"]
    assert [o.line for o in launch.overrides] == [10, 4, 5, 7, 10]
    assert launch.overrides[-1].unknown == ("$HOME",)


def test_torchrun_module_and_case_and_unknown_program():
    first, second = read(
        'case "$B" in\n  gpu) E=1 ;;\n  *) E=2 ;;\nesac\n'
        'torchrun --nnodes 1 --standalone -m app.sft e=$E\n$CMD x.a=1 x.b=2 x.c=3\n'
    )
    assert first.entry == "app.sft" and [o.text for o in first.overrides] == ["e=2"]
    assert second.error == "the program is $CMD, which the script never sets"


def test_other_programs_are_not_launches():
    assert read("python3 -m pip install x\npython3 -c 'import app.main'\necho -m app.main\n") == []


# Forms of verl's scripts and the edges of Hydra's primitive grammar: the fast path must type them as Hydra does.
FORMS = [
    "a.b=1", "a.b=-1", "a.b=1_000", "a.b=007", "a.b=1e-6", "a.b=1.", "a.b=.5", "a.b=-inf", "a.b=NaN", "a.b=True",
    "a.b=false", "a.b=null", "a.b=NULL", "a.b=x:y", "a.b=/p/q", "a.b=Qwen/Qwen2.5-7B", "+a.b-c.0=3", "++a.b=x",
    "~a.b", "~a.b=1", "a.b=", "a.b=[1,2]", "a.b='q'", "a.b=${x}", "g@p=o", "a.b=+3", "a.b=-x", "a.b=1e5", "a.b=0x1F",
]


@pytest.mark.parametrize("text", FORMS)
def test_fast_override_parser_agrees_with_hydra(text):
    (expected,) = OverridesParser.create().parse_overrides([text])
    got = overrides.parse(text)
    assert (got.type, got.key_or_group, got.package, got.value_type, got.input_line) == (
        expected.type, expected.key_or_group, expected.package, expected.value_type, expected.input_line)
    assert type(got.value()) is type(expected.value()) and repr(got.value()) == repr(expected.value())


def test_a_rename_and_a_subtree_move_are_found_and_flags_are_not_guessed():
    removed = {"t.val_before_train": True, "prof.tool": "nsys", "prof.steps": [1, 2], "x.flag": False}
    added = {"t.validate_before_train": True, "p.prof.tool": "nsys", "p.prof.steps": [1, 2], "y.other": False}
    moves = {(m.old, m.new) for m in find_moves(removed, added)}
    assert moves == {("t.val_before_train", "t.validate_before_train"), ("prof", "p.prof")}
