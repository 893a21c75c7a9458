"""The script reader, the fast override parser and moved-key detection, on small inputs with known answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from harness.baselines.moves import find_moves, fold_moves
from harness.composition import overrides
from harness.model.findings import Difference, Finding, Kind
from harness.readers.bash import launches_in
from harness.runner.launches import NotStatic, hydra_main


def read(script: str) -> list:
    return launches_in("run.sh", script.encode(), lambda entry, is_module: entry.startswith("app."), readings=True)


def test_defaults_arithmetic_arrays_conditionals_and_continuations():
    launch, slow = read(
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
    # MODE set to anything else takes the other branch: the same launch, read under that condition.
    assert (slow.index, slow.when) == (1, "only when MODE is set, not to fast")
    assert [o.text for o in slow.overrides] == [*texts[:3], "a.slow=true", texts[-1]]


def test_torchrun_module_and_case_and_unknown_program():
    first, second, on_gpu = read(
        'case "$B" in\n  gpu) E=1 ;;\n  *) E=2 ;;\nesac\ntorchrun --nnodes 1 --standalone -m app.sft e=$E\n$CMD x.a=1 x.b=2 x.c=3\n'
    )
    assert first.entry == "app.sft" and [o.text for o in first.overrides] == ["e=2"]
    assert second.error == "the program is $CMD, which the script never sets"
    # B=gpu takes the other item; the launch not extracted stays one (its reason is the plain reading's).
    assert (on_gpu.index, on_gpu.when, [o.text for o in on_gpu.overrides]) == (1, "only when B=gpu", ["e=1"])


def test_other_programs_are_not_launches():
    assert read("python3 -m pip install x\npython3 -c 'import app.main'\necho -m app.main\n") == []


# Forms of verl's scripts and the edges of Hydra's primitive grammar: the fast path must type them as Hydra does.
FORMS = [
    "a.b=1",
    "a.b=-1",
    "a.b=1_000",
    "a.b=007",
    "a.b=1e-6",
    "a.b=1.",
    "a.b=.5",
    "a.b=-inf",
    "a.b=NaN",
    "a.b=True",
    "a.b=false",
    "a.b=null",
    "a.b=NULL",
    "a.b=x:y",
    "a.b=/p/q",
    "a.b=Qwen/Qwen2.5-7B",
    "+a.b-c.0=3",
    "++a.b=x",
    "~a.b",
    "~a.b=1",
    "a.b=",
    "a.b=[1,2]",
    "a.b='q'",
    "a.b=${x}",
    "g@p=o",
    "a.b=+3",
    "a.b=-x",
    "a.b=1e5",
    "a.b=0x1F",
]


@pytest.mark.parametrize("text", FORMS)
def test_fast_override_parser_agrees_with_hydra(text):
    (expected,) = OverridesParser.create().parse_overrides([text])
    got = overrides.parse(text)
    assert (got.type, got.key_or_group, got.package, got.value_type, got.input_line) == (
        expected.type,
        expected.key_or_group,
        expected.package,
        expected.value_type,
        expected.input_line,
    )
    assert type(got.value()) is type(expected.value()) and repr(got.value()) == repr(expected.value())


def test_a_rename_and_a_subtree_move_are_found_and_flags_are_not_guessed():
    removed = {"t.val_before_train": True, "prof.tool": "nsys", "prof.steps": [1, 2], "x.flag": False}
    added = {"t.validate_before_train": True, "p.prof.tool": "nsys", "p.prof.steps": [1, 2], "y.other": False}
    moves = {(m.old, m.new) for m in find_moves(removed, added)}
    assert moves == {("t.val_before_train", "t.validate_before_train"), ("prof", "p.prof")}


def read_any(script: str, files: dict[str, str] | None = None) -> list:
    """Launches of `run.sh`, any `.py` under `sub/` or `app.` module an entry point, `files` what `source` reads."""
    files = files or {}

    def sourced(path: str) -> bytes | str:
        return files[path].encode() if path in files else f"{path} does not exist in the repository"

    return launches_in("run.sh", script.encode(), lambda entry, is_module: entry.startswith(("app.", "sub/")), sourced)


def test_cd_moves_the_rest_of_the_script_and_a_subshell_or_function_keeps_its_own():
    first, second, third, fourth = read_any(
        "cd sub\npython train.py a=1\n(cd inner && python t.py b=2)\npython t.py c=3\n"
        "f() { cd elsewhere; }\npushd deep >/dev/null\npython x.py d=4\npopd\n"
    )
    assert [(x.entry, x.error) for x in (first, second, third)] == [("sub/train.py", ""), ("sub/inner/t.py", ""), ("sub/t.py", "")]
    assert (fourth.entry, [o.text for o in fourth.overrides]) == ("sub/deep/x.py", ["d=4"])


def test_an_unknown_cd_makes_the_following_script_launches_warnings_with_the_reason():
    gone, module = read_any('cd "$WORKDIR"\npython train.py a=1\npython -m app.main b=2\n')
    (outside,) = read_any("cd ..\npython t.py\n")
    (absolute,) = read_any("cd /abs\npython t.py\n")
    (missing,) = read_any("python3 -u nothere.py a=1\n")
    assert read_any("cat > get_model.py << EOF\nprint(1)\nEOF\npython get_model.py\n") == []  # the script wrote it
    assert gone.error == 'the folder it runs in is not known: `cd "$WORKDIR"` (line 1) goes to a folder the reader cannot know ("$WORKDIR")'
    assert module.error == "" and module.entry == "app.main"  # a module is the project's wherever the script stands
    assert outside.error == "the folder it runs in is not known: `cd ..` (line 1) leaves the project"
    assert absolute.error.startswith("the folder it runs in is not known: `cd /abs` (line 1) goes to an absolute folder")
    assert missing.error == "nothere.py is not a file of the project"


def test_a_sourced_file_is_read_never_run_and_what_it_sets_names_its_own_file_and_line():
    (launch,) = read_any(
        "source ./common.sh\npython -m app.main $EXTRA b=${B}\n",
        {"common.sh": "B=2\nEXTRA=+a.merge=True\n"},
    )
    assert [(o.text, o.file, o.line) for o in launch.overrides] == [("+a.merge=True", "common.sh", 2), ("b=2", "", 2)]
    (unread,) = read_any('source "$HOME/env.sh"\npython -m app.main $EXTRA\n')
    assert unread.error == (
        "`$EXTRA` is not known: $EXTRA stands for whole arguments (it may be set by "
        '`source "$HOME/env.sh"` (line 1): its path is not known)'
    )
    # A file that sources itself is read once; one outside the project is never read; the total read is bounded.
    (loop,) = read_any(". ./a.sh\npython -m app.main x=$X\n", {"a.sh": "X=1\n. ./a.sh\n"})
    assert [o.text for o in loop.overrides] == ["x=1"]
    (outside,) = read_any("source ../up.sh\npython -m app.main $EXTRA\n", {"../up.sh": "EXTRA=a=1\n"})
    assert outside.error.endswith("(it may be set by `source ../up.sh` (line 1): it lies outside the project)")
    # Sourced text is held to a script's own bound (256 KiB in all), not 8 MiB: the third 100 KiB file is refused.
    big = "Y=" + "y" * (100 * 1024) + "\n"
    (bounded,) = read_any(". ./big.sh\n" * 3 + "python -m app.main $EXTRA\n", {"big.sh": big})
    assert bounded.error.endswith(
        "(it may be set by `source ./big.sh` (line 3): more than 256 KiB of sourced text in one script; the rest is not read)"
    )


def test_arguments_the_reader_cannot_know_make_the_launch_not_extracted():
    substituted, keyed, evaluated, value_only = read_any(
        "EXTRA=$(echo +a.b=1)\npython -m app.main $EXTRA\npython -m app.main ${K}=1\neval python -m app.main a=1\n"
        'python -m app.main a.seed=${1} "a.when=$(date)"\n'
    )
    assert substituted.error == "`$EXTRA` is the output of a command, which is never run (`$(echo +a.b=1)`, run.sh:1)"
    assert keyed.error == "`${K}=1` has a key that is not known ($K)"
    assert evaluated.error.startswith("`eval` runs text the reader does not follow")
    # Only a value unknown: the key and the form are still checked, and messages show the script's text.
    assert value_only.error == "" and [o.shown for o in value_only.overrides] == ["a.seed=${1}", '"a.when=$(date)"']
    assert read_any('eval "$(conda shell.bash hook)"\n') == []


def test_launchers_in_front_of_python_are_followed():
    launches = read_any(
        "accelerate launch --multi_gpu --num_processes 8 sub/t.py a=1\ndeepspeed --num_gpus 2 sub/t.py b=2\n"
        "python -m torch.distributed.run --nproc_per_node 2 -m app.main c=3\n"
    )
    assert [(x.entry, [o.text for o in x.overrides]) for x in launches] == [
        ("sub/t.py", ["a=1"]),
        ("sub/t.py", ["b=2"]),
        ("app.main", ["c=3"]),
    ]


def test_an_unknown_config_name_keeps_the_script_text():
    (launch,) = read_any("python sub/train.py --config-name=${alg}.yaml a=1\n")
    assert launch.name_written == "${alg}.yaml" and launch.config_name.startswith("__unset_")


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("str(pathlib.Path(__file__).parent.joinpath('diffusion_policy_3d', 'config'))", "/repo/app/diffusion_policy_3d/config"),
        ("os.path.join(os.path.dirname(os.path.abspath(__file__)), 'conf')", "/repo/app/conf"),
        ("str(Path(__file__).resolve().parents[1] / 'configs')", "/repo/configs"),
        ("'../configs'", "../configs"),
        ("None", None),
    ],
)
def test_a_config_path_computed_from_the_file_is_evaluated_without_running_it(written, expected):
    main = hydra_main(
        f"import hydra\n@hydra.main(config_path={written}, config_name='c')\ndef main(cfg): ...\n", Path("/repo/app/train.py")
    )
    assert main == {"config_path": expected, "config_name": "c"}


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("os.environ['CONF']", "`os.environ['CONF']` is neither a literal nor a path built from __file__"),
        ("str(Path(__file__).parents[9])", "`Path(__file__).parents[9]` is not a parent the path has"),
        ("os.path.join(ROOT, 'conf')", "`ROOT` is not a module-level constant"),
        ("os.path.abspath('conf')", "`os.path.abspath('conf')` depends on the folder the program runs in"),
    ],
)
def test_a_config_path_the_reader_cannot_evaluate_says_which_part_and_why(written, why):
    main = hydra_main(f"import hydra\n@hydra.main(config_path={written})\ndef main(cfg): ...\n", Path("/repo/app/train.py"))
    assert main == {"config_path": NotStatic(why)}


def test_an_interpolation_that_follows_a_renamed_key_makes_it_one_move():
    findings = [
        Finding(Kind.REMOVED, "training.seed", 42, None),
        Finding(Kind.ADDED, "training.rng_seed", None, 42),
        Finding(Kind.CHANGED, "logging.name", "run-${training.seed}", "run-${training.rng_seed}", detail=Difference(effective_same=True)),
        Finding(Kind.CHANGED, "logging.tag", "${training.seed}", "${other}", detail=Difference(effective_same=False)),
    ]
    folded = fold_moves(findings)
    assert [(f.kind, f.path, f.new) for f in folded] == [
        (Kind.CHANGED, "logging.tag", "${other}"),
        (Kind.MOVED, "training.seed", "training.rng_seed"),
    ]
    # Without the interpolation, `seed` -> `rng_seed` is too unlike a rename to be guessed from the names alone.
    assert [f.kind for f in fold_moves(findings[:2])] == [Kind.REMOVED, Kind.ADDED]


def test_a_source_not_read_an_alias_and_named_reads_leave_unknown_what_they_may_set():
    """Issue 41: a file the reader cannot read may set any variable; `read`/`mapfile`/`printf -v` set the names they
    are given (REPLY, MAPFILE by default); an alias may rename any command after it."""
    (unread,) = read_any('W=1\nsource "$HOME/env.sh"\npython -m app.main w=$W\n')
    assert unread.error == (
        '`w=$W` reads $W, which may be set in a way the reader does not follow: `source "$HOME/env.sh"` (line 2): its path is not known'
    )
    (again,) = read_any('source "$HOME/env.sh"\nW=2\npython -m app.main w=$W\n')  # assigned after it: known
    assert [o.text for o in again.overrides] == ["w=2"]
    (named,) = read_any("A=1\nB=2\nREPLY=3\nread -p 'go?' -r A\nmapfile -t\npython -m app.main a=$B b=$REPLY\n")
    assert [o.text for o in named.overrides] == ["a=2", "b=3"]  # `read A` sets A only; `mapfile` sets MAPFILE
    # `getopts` hands out the script's own arguments: unknown as `$1` is, and the launch still checked.
    (options,) = read_any('OPTARG=1\ngetopts "a:" o\nX=$OPTARG\npython -m app.main x=$X\n')
    assert (options.error, options.overrides[0].written) == ("", "x=$X")
    assert options.overrides[0].unknown == ("$OPTARG",)
    (aliased,) = read_any("alias python=echo\npython -m app.main a=1\n")
    assert aliased.error == "an alias may change what it runs (`alias python=echo` (line 1))"
    # A test on a value an unfollowed command may set is not decided as if it were empty.
    (either,) = read_any('eval "$SETUP"\nif [ -z "$W" ]; then exit 0; fi\npython -m app.main a=1\n')
    assert (either.stops, either.only_when) == ("", "")
