"""Branches on the environment (issue 51 item 5): a value a script sets only under a condition on a variable it does
not set is read under that condition too, named with it, never dropped; each reading checked against bash run with
that environment (the stubs of tests/unit/readers/test_bash_semantics.py print what each launch is given)."""

from __future__ import annotations

import pytest

from harness.readers.bash import Launch, launches_in
from harness.readers.bash_walk import MAX_ENVIRONMENTS
from tests.unit.readers.test_bash_semantics import as_launched, bash_runs, stubs  # noqa: F401 - `stubs` is a fixture


def read(script: str) -> list[Launch]:
    return launches_in("run.sh", script.encode(), lambda entry, is_module: is_module and entry.startswith("app."), readings=True)


def texts(launch: Launch) -> list[str]:
    assert not launch.error, launch.error
    return [o.text for o in launch.overrides]


GPU = (
    'if [ -n "$CUDA_VISIBLE_DEVICES" ]; then N_GPUS=8; else N_GPUS=1; fi\n'
    "python3 -m app.main trainer.n_gpus_per_node=$N_GPUS trainer.devices=${CUDA_VISIBLE_DEVICES:-none}\n"
)


def test_the_value_every_gpu_run_uses_is_read_as_the_launch_only_when_cuda_visible_devices_is_set(stubs):  # noqa: F811
    plain, gpu = read(GPU)
    assert (plain.environment, texts(plain)) == ((), ["trainer.n_gpus_per_node=1", "trainer.devices=none"])
    assert (gpu.index, gpu.environment, gpu.when) == (1, (("CUDA_VISIBLE_DEVICES", None),), "only when CUDA_VISIBLE_DEVICES is set")
    # The devices a run sets are not known: their placeholder, never a guess; the branch's value is.
    assert texts(gpu) == ["trainer.n_gpus_per_node=8", "trainer.devices=__unset_CUDA_VISIBLE_DEVICES__"]
    assert [as_launched(a) for a in bash_runs(GPU, stubs)] == [texts(plain)]
    (ran,) = bash_runs(GPU, stubs, (("CUDA_VISIBLE_DEVICES", "0,1"),))
    assert as_launched(ran)[0] == "trainer.n_gpus_per_node=8"


KNOBS = (
    "MCORE_MODEL_PATH=${MCORE_MODEL_PATH:-}\n"
    "ROUTING_REPLAY_MODE=${ROUTING_REPLAY_MODE:-disabled}\n"
    "EXTRA=()\n"
    'if [ -n "$MCORE_MODEL_PATH" ]; then EXTRA+=(model.use_dist_checkpointing=True); fi\n'
    'if [ "$ROUTING_REPLAY_MODE" = "R3" ]; then REPLAY=True; else REPLAY=False; fi\n'
    'python3 -m app.main model.replay=$REPLAY "${EXTRA[@]}"\n'
)


def test_a_knob_the_script_copies_from_the_environment_is_tested_like_the_environment(stubs):  # noqa: F811
    """verl's shape: `X=${X:-default}` at the top, then a branch on `$X`. Each test adds one reading, never their product."""
    plain, mcore, r3 = read(KNOBS)
    assert texts(plain) == ["model.replay=False"]
    assert (mcore.when, texts(mcore)) == ("only when MCORE_MODEL_PATH is set", ["model.replay=False", "model.use_dist_checkpointing=True"])
    assert (r3.when, texts(r3)) == ("only when ROUTING_REPLAY_MODE=R3", ["model.replay=True"])
    for launch, environment in ((mcore, (("MCORE_MODEL_PATH", "/ckpt"),)), (r3, r3.environment)):
        (ran,) = bash_runs(KNOBS, stubs, environment)
        assert as_launched(ran) == texts(launch)


def test_a_test_nested_in_a_branch_on_the_environment_is_read_under_both(stubs):  # noqa: F811
    script = (
        'if [ "${DEVICE:-gpu}" = npu ]; then\n'
        '  if [ -n "$HCCL_TIMEOUT" ]; then T=$HCCL_TIMEOUT; else T=1500; fi\n'
        "fi\n"
        "python3 -m app.main t=${T:-0}\n"
    )
    plain, npu, npu_hccl = read(script)
    assert [(x.when, texts(x)) for x in (plain, npu, npu_hccl)] == [
        ("", ["t=0"]),
        ("only when DEVICE=npu", ["t=1500"]),
        ("only when DEVICE=npu and HCCL_TIMEOUT is set", ["t=__unset_HCCL_TIMEOUT__"]),
    ]
    (ran,) = bash_runs(script, stubs, npu.environment)
    assert as_launched(ran) == ["t=1500"]


def test_a_test_a_reading_cannot_decide_under_its_environment_leaves_what_it_sets_unknown():
    """`[[ $X -eq 0 ]]` with X set to some devices: bash's answer depends on the text, so the value is unknown there."""
    plain, gpu = read('if [ -n "$X" ]; then A=1; fi\nif [[ $X -eq 0 ]]; then B=2; else B=3; fi\npython3 -m app.main a=${A:-0} b=$B\n')
    assert texts(plain) == ["a=0", "b=2"]  # unset X is 0 to bash's arithmetic: the reader guesses the first, as before
    assert gpu.when == "only when X is set"
    assert gpu.error.startswith("`b=$B` reads $B, which may be set in a way the reader does not follow: `if [[ $X -eq 0 ]]` (line 2)")


def test_an_environment_the_script_refuses_gives_no_launch():
    """`*) exit 1`: with any other device the script stops before its launch, so there is nothing to compare there."""
    script = 'case "${DEVICE:-gpu}" in\n  gpu) N=8 ;;\n  npu) N=16 ;;\n  *) exit 1 ;;\nesac\npython3 -m app.main n=$N\n'
    assert [(x.when, texts(x)) for x in read(script)] == [("", ["n=8"]), ("only when DEVICE=npu", ["n=16"])]


def test_past_the_bound_of_environments_what_the_tests_set_is_unknown_naming_why():
    tests = "".join(f'if [ -n "$K{i}" ]; then A{i}=1; fi\n' for i in range(MAX_ENVIRONMENTS + 2))
    script = tests + "python3 -m app.main " + " ".join(f"a{i}=${{A{i}:-0}}" for i in range(MAX_ENVIRONMENTS + 2)) + "\n"
    launches = read(script)
    plain = launches[0]
    # One reading per test up to the bound; the tests past it make what they set unknown in every reading.
    assert len(launches) == 1 + MAX_ENVIRONMENTS
    assert plain.error == (
        f"`a{MAX_ENVIRONMENTS}=${{A{MAX_ENVIRONMENTS}:-0}}` reads $A{MAX_ENVIRONMENTS}, which may be set in a way the reader does "
        f'not follow: `if [ -n "$K{MAX_ENVIRONMENTS}" ]` (line {MAX_ENVIRONMENTS + 1}), a test on K{MAX_ENVIRONMENTS}: more than '
        f"{MAX_ENVIRONMENTS} environments to read"
    )


# Two shapes the differential tests found read wrong before any environment (`stale` before issue 51's item 5).
@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # A `declare` in a branch bash does not take made X the function's own: its value was put back on return.
        ('X=a\nf() {\nX="$X/$X"\ncase "$X" in\nx*) declare -i X ;;\n*) X=b ;;\nesac\n}\nf\n', "b"),
        # A condition's statements before its test run: `D=gpu`, so the test fails.
        ('if D=${DEVICE:-gpu}; [ "$D" != gpu ]; then X=a; else X=b; fi\n', "b"),
        # A function defined in a branch bash does not take does not exist after it.
        ("X=a\nif false; then f() { X=c; }; fi\nf 2>/dev/null\n", "a"),
        # A group of tests in braces is decided (verl's `&& { [ "$B" = vllm ] || [ "$B" = sglang ]; }`), not guessed.
        ('if [ -z "$U" ] && { false || [ -n "$U" ]; }; then X=a; else X=b; fi\n', "b"),
    ],
    ids=["declare aside", "condition of two statements", "function defined aside", "tests in braces"],
)
def test_what_a_branch_not_taken_declares_and_what_a_condition_runs_are_as_bash_has_them(stubs, lines, expected):  # noqa: F811
    script = lines + "python3 -m app.main x=$X\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [[f"x={expected}"]]
    assert [texts(x) for x in read(script) if not x.environment] == [[f"x={expected}"]]
