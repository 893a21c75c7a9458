"""The script reader against bash itself: scripts hypothesis writes run under real `bash` with a stub program that
prints its argv, and the launches the reader extracts must hold exactly those arguments.

Only scripts these tests write are run, with nothing in the environment and a PATH holding the stubs alone. The
quick tier draws few examples (tests/conftest.py); `make test-e2e` runs this file with the thorough profile.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.readers.bash import Launch, launches_in
from harness.readers.bash_walk import given_text
from harness.readers.bash_words import Environment, Piece, placeholder

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")

# Each stub prints its arguments NUL-separated, then a record separator: one record per launch, in run order.
STUB = "#!/bin/sh\nprintf '%s\\0' \"$@\"\nprintf '\\001\\0'\n"
NAMES = ("A", "B", "C", "D")
LITERAL = st.text(alphabet="abxyz/._=:,+%@-", min_size=1, max_size=4)
QUOTED = st.text(alphabet="abxyz /._=:,+%@-$", min_size=0, max_size=5)  # inside single quotes `$` is text
VALUE = st.text(alphabet="abxyz /._=:,+%@-", min_size=0, max_size=6)  # unquoted, bash splits it on the spaces
# Each example runs bash once: half the profile's examples (20 in the quick tier, 200 in `make test-e2e`).
BASH_EXAMPLES = settings(max_examples=max(settings.default.max_examples // 2, 1))


@pytest.fixture(scope="module")
def stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stubs")
    for name in ("python3", "torchrun"):
        (folder / name).write_text(STUB)
        (folder / name).chmod(0o755)
    return folder


def bash_runs(script: str, stubs: Path, environment: Environment = ()) -> list[list[str]]:
    """The argv of each stub program run by bash on `script`, in run order (after the program's name); `environment`:
    what the run's environment sets besides PATH (a variable "set to a value no test names" gets the very value the
    reader tests it as)."""
    path = stubs / "script.sh"
    path.write_text(script)
    env = {"PATH": str(stubs), **{name: given_text(name) if value is None else value for name, value in environment}}
    done = subprocess.run([BASH, str(path)], env=env, cwd=stubs, capture_output=True, timeout=20, check=False)  # noqa: S603 - a script this test wrote, with only the stubs on PATH
    runs: list[list[str]] = [[]]
    for field in done.stdout.decode().split("\0")[:-1]:
        if field == "\1":
            runs.append([])
        else:
            runs[-1].append(field)
    return runs[:-1]


def read(script: str, environment: Environment | None = None) -> list[Launch]:
    """The script's launches (every reading), or its reading under `environment` alone."""
    entry = lambda entry, is_module: is_module and entry.startswith("app.")  # noqa: E731
    return launches_in("run.sh", script.encode(), entry, environment=environment, readings=True)


def plain(launches: list[Launch]) -> list[Launch]:
    """The launches as a run with nothing set reads them (no reading under an environment)."""
    return [launch for launch in launches if not launch.environment]


def arguments(launch: Launch) -> list[str]:
    assert not launch.error, launch.error
    return [o.text for o in launch.overrides]


def as_launched(argv: list[str]) -> list[str]:
    """What the reader reports of bash's argv: the arguments after `-m app.main`, empty ones and `--` dropped (Hydra gets
    nothing from them)."""
    assert argv[:2] == ["-m", "app.main"]
    return [a for a in argv[2:] if a and a != "--"]


@st.composite
def words(draw: st.DrawFn) -> str:
    """One shell word: literals, `$V`, `${V}`, single- and double-quoted parts, joined with nothing between them."""
    parts: list[tuple[str, str]] = []  # (kind, text)
    # Half the words are chains (`$A/$B/$C`, `$A.$B-$C`): the shape tree-sitter-bash splits, rare among random parts.
    chain = draw(st.booleans())
    for position in range(draw(st.integers(3 if chain else 1, 7))):
        if chain:
            kind = "simple" if position % 2 == 0 else "literal"
        else:
            kind = draw(st.sampled_from(["literal", "simple", "simple", "braced", "single", "double"]))
        if kind == "literal":
            parts.append((kind, draw(LITERAL)))
        elif kind in ("simple", "braced"):
            parts.append((kind, draw(st.sampled_from(NAMES))))
        elif kind == "single":
            parts.append((kind, draw(QUOTED)))
        else:
            inner = draw(st.lists(st.one_of(LITERAL, st.sampled_from(NAMES).map(lambda n: "${" + n + "}")), max_size=3))
            parts.append((kind, "".join(inner)))
    text = ""
    for position, (kind, part) in enumerate(parts):
        following = parts[position + 1][1][:1] if position + 1 < len(parts) else ""
        if position and draw(st.integers(0, 4)) == 0:  # a line continuation inside the word: bash joins the lines
            text += "\\\n"
        if kind == "literal":
            text += part
        elif kind == "simple":
            # `$A` before a name's character would name another variable: bash and the reader would both read it so,
            # but it would be unset; braces keep the drawn name.
            text += (
                f"${{{part}}}"
                if parts[position + 1 : position + 2] and parts[position + 1][0] == "literal" and (following.isalnum() or following == "_")
                else f"${part}"
            )
        elif kind == "braced":
            text += f"${{{part}}}"
        elif kind == "single":
            text += f"'{part}'"
        else:
            text += f'"{part}"'
    return text


def assignments(values: list[str]) -> str:
    return "".join(f"{name}='{value}'\n" for name, value in zip(NAMES, values, strict=True))


@BASH_EXAMPLES
@given(st.lists(VALUE, min_size=4, max_size=4), st.lists(words(), min_size=1, max_size=4), words())
def test_words_of_any_number_of_expansions_and_literals_are_the_arguments_bash_passes(stubs, values, drawn, assigned):
    # Every argument starts `kN=` (no Hydra flag), and one variable is assigned a concatenation too (`E=$A/$B/$C`).
    script = assignments(values) + f"E={assigned}\n"
    script += "python3 -m app.main " + " ".join(f"k{i}={w}" for i, w in enumerate(drawn)) + " e=$E\n"
    (ran,) = bash_runs(script, stubs)
    (launch,) = read(script)
    assert arguments(launch) == as_launched(ran), script


def test_a_chain_of_three_expansions_is_one_argument_as_in_bash(stubs):
    """PRIME's launch: `key=$A/$B/$C` was read as two arguments (`key=a/b/$` and `B/c`), the second no override."""
    script = "A=a\nB=b\nC=c\nP=$A/$B/$C\npython3 -m app.main key=$A/$B/$C w=$A.$B.$C.$D p=$P\n"
    (ran,) = bash_runs(script, stubs)
    (launch,) = read(script)
    assert as_launched(ran) == ["key=a/b/c", "w=a.b.c.", "p=a/b/c"]
    # `$D` is unset: the reader keeps a placeholder where bash puts nothing, and messages show the script's own text.
    assert [o.text for o in launch.overrides] == ["key=a/b/c", "w=a.b.c.__unset_D__", "p=a/b/c"]
    assert launch.overrides[1].shown == "w=$A.$B.$C.$D"


# ---- whole scripts: the launches a run with nothing set makes (issue 43 item 2) ----

VARIABLES = ("V0", "V1", "V2")  # set at the top of every drawn script
UNSET = ("X0", "X1")  # never set: what a run with nothing in its environment sees
WORD = st.sampled_from(["a", "b", "gpu", "0", "1", "x/y"])


@st.composite
def conditions(draw: st.DrawFn) -> str:
    v, x, word = draw(st.sampled_from(VARIABLES)), draw(st.sampled_from(UNSET)), draw(WORD)
    return draw(
        st.sampled_from(
            [
                f'[ "${{{v}}}" = {word} ]',
                f'[ "${{{x}:-1}}" != 0 ]',
                f"[[ ${{{v}}} == {word} ]]",
                f'[ -z "${{{x}}}" ]',
                f'[ -n "${v}" ]',
                f'[ "${{{x}:-gpu}}" = gpu ] && [ "${v}" != {word} ]',
                f"! [ ${{{v}}} = {word} ]",
                f"[ ${{{x}:-0}} -eq 0 ]",
            ]
        )
    )


@st.composite
def statements(draw: st.DrawFn, depth: int = 0) -> str:
    v, x, word = draw(st.sampled_from(VARIABLES)), draw(st.sampled_from(UNSET)), draw(WORD)
    kinds = ["assign", "default", "launch", "launch", "array", "set", "shift"]
    if depth < 2:
        kinds += ["if", "case", "call"]
    kind = draw(st.sampled_from(kinds))
    body = lambda: "".join(draw(st.lists(statements(depth + 1), min_size=1, max_size=2)))  # noqa: E731
    if kind == "assign":
        return draw(st.sampled_from([f"{v}={word}\n", f"{v}=${{{x}:-{word}}}\n", f"{v}=${{{v}}}/{word}\n", f'{v}="$1"\n']))
    if kind == "default":
        return f': "${{{x}:={word}}}"\n{v}=${x}\n'
    if kind == "launch":
        return draw(
            st.sampled_from(
                [
                    f"python3 -m app.main k.v=${v} w=${{{x}:-{word}}}\n",
                    'python3 -m app.main "$@" n=$# first=${1:-none}\n',
                    f"python3 -m app.main k=$V0/$V1/$V2 {word}=1\n",
                ]
            )
        )
    if kind == "array":
        return f"L=(python3 -m app.main a=${v})\nL+=(b={word})\n" + '"${L[@]}" c=1 "$@"\n'
    if kind == "set":
        return f"set -- {word}=1 '{word} {v}' \"${v}\"\n"
    if kind == "shift":
        return 'if [ "$#" -gt 0 ]; then shift; fi\n'
    if kind == "if":
        text = f"if {draw(conditions())}; then\n{body()}"
        for _ in range(draw(st.integers(0, 1))):
            text += f"elif {draw(conditions())}; then\n{body()}"
        if draw(st.booleans()):
            text += f"else\n{body()}"
        return text + "fi\n"
    if kind == "case":
        return f'case "${v}" in\n{word})\n{body()};;\na|gpu)\n{body()};;\n*)\n{body()};;\nesac\n'
    name = f"f{depth}"
    arguments = " ".join(draw(st.lists(st.sampled_from(["p=1", f"q=${v}", '"r=2 3"', '"$@"', "$V0"]), max_size=3)))
    return f"{name}() {{\n{body()}}}\n{name} {arguments}\n"


@st.composite
def scripts(draw: st.DrawFn) -> str:
    # `set --` first: the script's own arguments are not known to the reader (whoever runs it gives them); with
    # `set --` they are none, as in a run without arguments.
    text = "set --\n" + "".join(f"{v}={draw(WORD)}\n" for v in VARIABLES)
    text += "".join(draw(st.lists(statements(), min_size=1, max_size=4)))
    # Where bash stops: `set -u` then an unset variable, or an `exit`; what follows never runs.
    ending = draw(st.sampled_from(["", "set -u\npython3 -m app.main d=$X0\n", "set -u\n: $X1\n", "exit 0\n", "set -u\n"]))
    return text + ending + 'python3 -m app.main last=1 "$@"\n'


def bash_run_launches(launches: list[Launch]) -> list[list[str]]:
    """The reader's launches a run with nothing set makes, in run order: those on the branches it takes, before
    bash stops."""
    return [arguments(launch) for launch in plain(launches) if not launch.stops and not launch.only_when]


@BASH_EXAMPLES
@given(scripts())
def test_the_launches_of_a_plain_run_are_those_bash_runs(stubs, script):
    ran = [as_launched(argv) for argv in bash_runs(script, stubs)]
    assert bash_run_launches(read(script)) == ran, script


# Each line assigns W (or every variable) in a way the reader does not follow (issue 41's attacker pass).
UNFOLLOWED = {
    "eval": "eval 'W=9'\n",
    "read": 'read -r W <<< "9"\n',
    "printf -v": "printf -v W '%s' 9\n",
    "mapfile": "mapfile -t W <<< 9\n",
    "let": "let W=9\n",
    "declare -n": "declare -n R=W\nR=9\n",
    "declare computed": 'N=W\ndeclare "$N=9"\n',
    "export computed": 'N=W=9\nexport "$N"\n',
    "trap DEBUG": "trap 'W=9' DEBUG\n",
    "trap DEBUG, assigned after": "trap 'W=9' DEBUG\nW=1\n",
}


@pytest.mark.parametrize("line", UNFOLLOWED.values(), ids=UNFOLLOWED.keys())
def test_a_value_bash_assigns_in_a_way_the_reader_does_not_follow_is_never_the_old_one(stubs, line):
    """Bash runs width 9; the reader must not say 1: the launch is not extracted, naming the command and its line."""
    script = "W=1\n" + line + "python3 -m app.main model.width=$W\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["model.width=9"]]
    (launch,) = read(script)
    # The command named is the one that assigns (`declare -n`, not `R=9`), on its own line of the script.
    assigning = next(
        n
        for n, text in enumerate(script.splitlines(), 1)
        if text.startswith(("eval", "read", "printf", "mapfile", "let", "declare", "export", "trap"))
    )
    assert launch.error.startswith("`model.width=$W` reads $W, which may be set in a way the reader does not follow: `"), launch
    assert launch.error.endswith(f"(line {assigning})"), launch


def test_what_is_assigned_after_an_unfollowed_command_is_known_again(stubs):
    script = "W=1\neval 'W=9 X=2'\nW=3\npython3 -m app.main a=$W\npython3 -m app.main b=${Y:-4}\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["a=3"], ["b=4"]]
    known, unknown = read(script)
    assert arguments(known) == ["a=3"]
    assert unknown.error == "`b=${Y:-4}` reads $Y, which may be set in a way the reader does not follow: `eval 'W=9 X=2'` (line 2)"


def test_a_function_calling_itself_without_end_never_comes_back(stubs):
    """Bash recurses until it runs out of stack and dies: the launch after the call never runs."""
    script = "f() { echo; f; }\nf\npython3 -m app.main a=1\n"
    # On a smaller stack bash dies sooner (8 MiB took 7 s on a loaded machine, past the run's timeout).
    assert bash_runs("ulimit -s 1024\n" + script, stubs) == []
    (launch,) = read(script)
    assert launch.stops == "run.sh:1: `f` calls itself without end"
    # One that may end (a branch around the call), or returns first, is read as reaching what follows.
    for script in (
        "f() { if [ $# -gt 0 ]; then f; fi; }\nf 1\npython3 -m app.main a=1\n",
        "f() { return; f; }\nf\npython3 -m app.main a=1\n",
    ):
        assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["a=1"]]
        assert [launch.stops for launch in read(script)] == [""]


def test_an_unquoted_brace_expansion_is_never_read_as_one_override(stubs):
    script = "python3 -m app.main model.{width,name}=5\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["model.width=5", "model.name=5"]]
    (launch,) = read(script)
    assert launch.error.startswith("`model.{width,name}=5` is not known"), launch


# ---- soundness: what the reader states is what bash runs, else it says unknown (issue 51 item 2) ----

SOUND_NAMES = ("X", "Y", "Z")
# No glob character (an unquoted one would match the stubs' folder); spaces and `:` for word splitting and IFS.
SOUND_VALUE = st.sampled_from(["a", "b", "1", "2", "7", "x y", "p:q", "", "0.2", "-3"])
SOUND_WORD = SOUND_VALUE.map(lambda v: f"'{v}'")
SOUND_LAUNCH = "python3 -m app.main i=@ID@ a.b=$X c=$Y d=${Z:-z} g=${DEVICE:-gpu}\n"  # @ID@: the launch's own line


@st.composite
def sound_statements(draw: st.DrawFn, depth: int = 0, loop: str = "") -> str:
    """A statement over the constructs a reader may get wrong: loops, arithmetic, `declare -i`, `let`, case
    fall-through, `&&`/`||`, tests on the environment, IFS, `read`, `eval`, pipelines, functions and `local`."""
    v, w = draw(st.sampled_from(SOUND_NAMES)), draw(st.sampled_from(SOUND_NAMES))
    value, number = draw(SOUND_WORD), draw(st.integers(-3, 9))
    kinds = ["assign", "launch", "launch", "arithmetic", "declare", "let", "ifs", "read", "eval", "and_or", "pipe", "prefix"]
    if depth < 2:
        kinds += ["for", "for_var", "while", "c_for", "case", "if", "call"]
    kind = draw(st.sampled_from(kinds))

    def body() -> str:
        return "".join(draw(st.lists(sound_statements(depth + 1, loop), min_size=1, max_size=3)))

    if kind == "assign":
        return draw(
            st.sampled_from(
                [
                    f"{v}={value}\n",
                    f"{v}=${w}\n",
                    f'{v}="${w}/${v}"\n',
                    f"{v}=${{U:-{number}}}\n",
                    f"{v}+={value}\n",
                    f"{v}=${{DEVICE:-gpu}}\n",
                ]
            )
        )
    if kind == "launch":
        return SOUND_LAUNCH
    if kind == "arithmetic":
        return draw(
            st.sampled_from(
                [
                    f"(({v}={number}))\n",
                    f"(({v}+=2))\n",
                    f": $(({v}={number}*2))\n",
                    f"{v}=$(({number}+{w}))\n",
                    f"(({v}++))\n",
                    f"(( 0 && ({v}=5) ))\n",
                ]
            )
        )
    if kind == "declare":
        return draw(
            st.sampled_from(
                [f"declare -i {v}\n{v}={number}/{number or 1}\n", f"declare -i {v}={number}+1\n", f"declare -u {v}\n{v}={value}\n"]
            )
        )
    if kind == "let":
        return draw(st.sampled_from([f"let {v}={number}\n", f"let {v}++\n"]))
    if kind == "ifs":
        return draw(st.sampled_from(["IFS=:\n", "IFS=' '\n", "unset IFS\n", "IFS=$' \\t\\n'\n"]))
    if kind == "read":
        return draw(st.sampled_from([f"read -r {v} <<< {value}\n", f"read -r {v} {w} <<< 'a b c'\n", f"IFS=: read -r {v} {w} <<< 'p:q'\n"]))
    if kind == "eval":
        return draw(st.sampled_from([f"eval '{v}={number}'\n", f'eval "{v}=\\${w}"\n']))
    if kind == "and_or":
        return draw(
            st.sampled_from(
                [
                    f'[ "${w}" = a ] && {v}={value}\n',
                    f"true || {v}={value}\n",
                    f'[ -n "$CUDA_VISIBLE_DEVICES" ] || {v}={value}\n',
                    f'[ "$DEVICE" = npu ] && {v}={value}\n',
                ]
            )
        )
    if kind == "pipe":
        return f"echo {number} | read -r {v}\n{v}={value} | :\n"
    if kind == "prefix":
        return f"{v}={value} true\n"
    if kind == "for":
        items = " ".join(draw(st.lists(SOUND_WORD, max_size=3)))
        return f"for {v} in {items}; do\n{body()}done\n"
    if kind == "for_var":
        return f"for {v} in ${w}; do\n{body()}done\n"
    if kind == "while":
        counter = f"n{depth}"
        word = draw(st.sampled_from(["while", "until"]))
        test = f"[ ${counter} -lt {number % 3} ]" if word == "while" else f"[ ${counter} -ge {number % 3} ]"
        return f"{counter}=0\n{word} {test}; do\n{body()}{counter}=$(({counter}+1))\ndone\n"
    if kind == "c_for":
        counter = f"k{depth}"
        return f"for (({counter}=0; {counter}<{number % 3}; {counter}++)); do\n{body()}done\n"
    if kind == "case":
        ends = [draw(st.sampled_from([";;", ";&", ";;&"])) for _ in range(2)]  # the last item's is `;;` (see below)
        subject = draw(st.sampled_from([f"${w}", "${DEVICE:-gpu}"]))
        return f'case "{subject}" in\na|1|npu)\n{body()}{ends[0]}\nx*|2)\n{body()}{ends[1]}\n*)\n{body()};;\nesac\n'
    if kind == "if":
        condition = draw(
            st.sampled_from(
                [
                    '[ -n "$CUDA_VISIBLE_DEVICES" ]',
                    '[ "${U:-0}" = 1 ]',
                    f'[ "${w}" = a ]',
                    f"(( {w} > 1 ))",
                    f"read -r {v} <<< b",
                    # The environment, tested as verl's scripts test it (issue 51 item 5): each way is read.
                    '[[ -z "${CUDA_VISIBLE_DEVICES:-}" ]]',
                    '[ "$DEVICE" = npu ] && [ "${U:-0}" != 0 ]',
                    '[ "${N_GPUS:-8}" -gt 4 ]',
                    f'[ "${w}" = npu ]',
                    '[ "${U:-0}" != 0 ] && { [ "$DEVICE" = npu ] || [ "$DEVICE" = cpu ]; }',
                ]
            )
        )
        return f"if {condition}; then\n{body()}else\n{body()}fi\n"
    name = f"f{depth}"
    local = draw(st.sampled_from(["", f"local {v}={value}\n", f"local {v}\n"]))
    return f"{name}() {{\n{local}{body()}}}\n{draw(st.sampled_from(['', f'{w}={value} ']))}{name} {value}\n"


# Tests on the environment as verl's scripts write them (issue 51 item 5).
ENVIRONMENT_TESTS = (
    '[ -n "$CUDA_VISIBLE_DEVICES" ]',
    '[[ -z "${CUDA_VISIBLE_DEVICES:-}" ]]',
    '[ "$DEVICE" = npu ] && [ "${U:-0}" != 0 ]',
    '[ "${N_GPUS:-8}" -gt 4 ]',
    '[ "${U:-0}" = 1 ]',
    'D=${DEVICE:-gpu}; [ "$D" != gpu ]',
    '[ "${U:-1}" != 0 ] && { [ "${DEVICE:-gpu}" = gpu ] || [ "$DEVICE" = cpu ]; }',
)


@st.composite
def sound_scripts(draw: st.DrawFn, tested: bool = False) -> str:
    """A script over `sound_statements`; `tested`: it starts with a branch on the environment that sets a value
    each way (as `if [ -n "$CUDA_VISIBLE_DEVICES" ]; then N_GPUS=8; else N_GPUS=1; fi`), and launches in it."""
    text = "".join(f"{name}={draw(SOUND_WORD)}\n" for name in SOUND_NAMES)
    if tested:
        v, test = draw(st.sampled_from(SOUND_NAMES)), draw(st.sampled_from(ENVIRONMENT_TESTS))
        text += f"if {test}; then\n{v}={draw(SOUND_WORD)}\n{SOUND_LAUNCH}else\n{v}={draw(SOUND_WORD)}\nfi\n"
    text += "".join(draw(st.lists(sound_statements(), min_size=1, max_size=5))) + SOUND_LAUNCH
    return "".join(line.replace("@ID@", str(number)) + "\n" for number, line in enumerate(text.splitlines(), 1))


def stated(launch: Launch) -> re.Pattern[str]:
    """What the reader states of a launch's arguments: its overrides NUL-joined, an unknown value matching anything."""
    pattern = ""
    for override in launch.overrides:
        text = re.escape(override.text)
        for unknown in override.unknown:
            text = text.replace(re.escape(placeholder(Piece("", 0, unknown))), ".*")
        pattern += text + "\0"
    return re.compile(pattern, re.DOTALL)


def assert_sound(script: str, launches: list[Launch], runs: list[list[str]]) -> None:
    """Each launch bash runs is one the reader states (with every stated value bash's) or says is unknown; a line
    bash runs n times that the reader reads n times is read pass by pass, in order."""
    by_line: dict[int, list[str]] = {}
    for argv in runs:
        given = as_launched(argv)
        by_line.setdefault(int(given[0].removeprefix("i=")), []).append("".join(a + "\0" for a in given))
    for line, ran in by_line.items():
        read_here = [launch for launch in launches if launch.line == line]
        assert read_here, f"bash runs the launch of line {line}; the reader has none\n{script}"
        if any(launch.error for launch in read_here):
            continue  # unknown: not extracted, saying why
        plain = [launch for launch in read_here if not launch.only_when and not launch.stops]
        if len(plain) == len(ran):
            mismatched = [(a, s.pattern) for a, s in zip(ran, map(stated, plain), strict=True) if not s.fullmatch(a)]
        else:
            mismatched = [(a, "") for a in ran if not any(stated(launch).fullmatch(a) for launch in read_here)]
        assert not mismatched, f"line {line}: bash ran {mismatched}, the reader states {[arguments(x) for x in read_here]}\n{script}"


# Found by the thorough profile in CI: a `declare -i` in a branch not known to run (a fall-through after a `read`)
# makes bash evaluate a later `X='a'` as arithmetic (0); the reader stated 'a'.
FALL_THROUGH_DECLARE = (
    "X='a'\nY='a'\nZ='a'\npython3 -m app.main i=4 a.b=$X c=$Y d=${Z:-z} g=${DEVICE:-gpu}\nread -r X <<< 'a'\n"
    'case "$X" in\na|1|npu)\npython3 -m app.main i=8 a.b=$X c=$Y d=${Z:-z} g=${DEVICE:-gpu}\n;&\nx*|2)\n'
    "declare -i X\nX=0/1\n;;\n*)\nX='a'\n;;\nesac\nX='a'\npython3 -m app.main i=19 a.b=$X c=$Y d=${Z:-z} g=${DEVICE:-gpu}\n"
)


@BASH_EXAMPLES
@given(sound_scripts())
@example(script=FALL_THROUGH_DECLARE)
def test_every_value_the_reader_states_is_the_one_bash_runs_else_it_says_unknown(stubs, script):
    assert_sound(script, plain(read(script)), bash_runs(script, stubs))


def places(launches: list[Launch]) -> dict[tuple[int, int], Launch]:
    """Launches by where they are: their line, and which of that line's launches (a loop's passes, a function's calls)."""
    found: dict[tuple[int, int], Launch] = {}
    for launch in launches:
        found[launch.line, sum(line == launch.line for line, _ in found)] = launch
    return found


def runs_as(launch: Launch) -> tuple[object, ...]:
    return launch.entry, launch.config_name, tuple(o.text for o in launch.overrides), bool(launch.error)


def assert_environments_sound(script: str, launches: list[Launch], stubs: Path) -> None:
    """Under each environment the reader names (its alternatives'), bash run with it runs what the reader states or
    says is unknown: the reading under that environment is sound, and each launch's claim there (its alternative, or
    the plain reading's launch where it has none) is that reading's."""
    first = places(plain(launches))
    for environment in dict.fromkeys(launch.environment for launch in launches if launch.environment):
        under = read(script, environment)
        assert_sound(script, under, bash_runs(script, stubs, environment))
        alternatives = {launch.index: launch for launch in launches if launch.environment == environment}
        for place, reading in places(under).items():
            claimed = first.get(place)
            if reading.stops or claimed is None:
                continue
            claimed = alternatives.get(claimed.index, claimed)
            if not (claimed.error and reading.error):
                assert runs_as(claimed) == runs_as(reading), f"{environment}: line {place[0]}\n{script}"


@BASH_EXAMPLES
@given(sound_scripts(tested=True))
def test_each_reading_under_an_environment_the_script_tests_is_what_bash_runs_under_it(stubs, script):
    assert_environments_sound(script, read(script), stubs)


# Each assigns LR in a way the reader once got wrong (the value before it, or a wrong one): bash's LR, then what the
# reader must say, the value or None for unknown (not extracted, naming why).
STALE = {
    "for: the loop variable after it": ("for LR in 1 2; do :; done\n", "2"),
    "for: assigned in its body": ("for i in 1 2; do LR=$i; done\n", "2"),
    "for over a variable": ("L='1 2'\nfor LR in $L; do :; done\n", "2"),
    "for over more words than followed": ("for LR in " + " ".join(map(str, range(20))) + "; do :; done\n", None),
    "for with a break": ("for LR in 1 2; do break; done\n", None),
    "while": ("i=0\nwhile [ $i -lt 2 ]; do LR=9; i=$((i+1)); done\n", None),
    "until": ('until [ "$LR" = 9 ]; do LR=9; done\n', None),
    "for ((...))": ("for ((i=0; i<2; i++)); do LR=$i; done\n", None),
    "((LR=999))": ("((LR=999))\n", "999"),
    ": $((LR=999))": (": $((LR=999))\n", "999"),
    "$((...)) with bash's precedence": ("LR=$((-1+1))$((3%2*5))$((2**3**2))\n", "05512"),
    "((...)) short-circuit": ("(( 0 && (LR=5) ))\n", "0.2"),
    "let LR++": ("LR=1\nlet LR++\n", None),
    "declare -i": ("declare -i LR\nLR=5/5\n", None),
    "declare -i with its value": ("declare -i LR=5/5\n", None),
    "case ;&": ("case x in\nx) : ;&\ny) LR=9 ;;\nesac\n", "9"),
    "case ;;&": ("case x in\nx) : ;;&\nx*) LR=9 ;;\n*) LR=8 ;;\nesac\n", "9"),
    "case on a value not known": ("read -r K <<< b\ncase $K in\na) LR=1 ;;\n*) LR=9 ;;\nesac\n", None),
    "if on a condition not known": ("if read -r K <<< b; then LR=9; else LR=1; fi\n", None),
    "&& on a test that fails": ('[ -n "$CUDA_VISIBLE_DEVICES" ] && LR=9\n', "0.2"),
    "&& on a status not known": ("read -r K <<< b && LR=9\n", None),
    "a pipeline's subshell": ("LR=9 | :\n", "0.2"),
    "a function's local": ("f() { local LR=9; }\nf\n", "0.2"),
    "VAR=x before a command": ("LR=9 true\n", "0.2"),
    "VAR=x before the launch": ("LR=9 \\\n", "0.2"),  # bash expands the launch's words before it sets LR
    "read": ("read -r LR <<< 9\n", None),
    "eval": ("eval LR=9\n", None),
    "syntax the grammar does not parse": ("case x in\nx) LR=9 ;;&\nesac\n", None),
}


@pytest.mark.parametrize(("lines", "expected"), STALE.values(), ids=STALE.keys())
def test_a_value_the_reader_cannot_know_is_unknown_never_the_old_one(stubs, lines, expected):
    script = "LR=0.2\n" + lines + "python3 -m app.main a=$LR\n"
    (ran,) = bash_runs(script, stubs)
    (launch,) = plain(read(script))
    if expected is None:  # not extracted, naming the command (a syntax error swallows the launch with it)
        reason = "`a=$LR` reads $LR, which may be set in a way the reader does not follow: "
        assert launch.error.startswith(reason) or launch.error == "the shell syntax here could not be parsed", launch
        assert as_launched(ran)[0].startswith("a=")
    else:
        assert as_launched(ran) == arguments(launch) == [f"a={expected}"], script


def test_a_loop_of_launches_is_every_launch_or_unknown(stubs):
    script = "for lr in 1e-3 1e-4; do\n  python3 -m app.main lr=$lr\ndone\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [[f"lr={lr}"] for lr in ("1e-3", "1e-4")]
    assert [arguments(launch) for launch in read(script)] == [["lr=1e-3"], ["lr=1e-4"]]
    (unknown,) = read("for lr in $LRS; do\n  python3 -m app.main lr=$lr\ndone\n")
    assert unknown.error == (
        "`lr=$lr` reads $lr, which may be set in a way the reader does not follow: `for lr in $LRS` (line 1), a loop not followed pass by pass"
    )


def test_a_function_a_loop_defines_and_calls_is_read_as_the_loop_is(stubs):
    """Found by the differential test under an environment: what the function assigns was left out of what the loop
    may assign before its body (it was not defined yet), so its launch stated the first pass's value alone."""
    script = "X=a\ni=0\nwhile [ $i -lt 2 ]; do\n  f() { X=$X/x; python3 -m app.main x=$X; }\n  f\n  i=$((i+1))\ndone\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["x=a/x"], ["x=a/x/x"]]
    (launch,) = plain(read(script))
    assert launch.error.startswith("`x=$X` reads $X, which may be set in a way the reader does not follow: `while [ $i -lt 2 ]`")


def test_splitting_on_a_changed_ifs_is_unknown_not_a_wrong_override(stubs):
    script = "IFS=:\nX='a=1:b=2'\npython3 -m app.main $X\n"
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["a=1", "b=2"]]
    (launch,) = read(script)
    assert launch.error.startswith("`$X` is not known"), launch
    assert "`IFS=':'` (line 1)" in launch.error
    # `"$*"` joins with IFS's first character, as bash does.
    script = 'IFS=:\nset -- a=1 b\npython3 -m app.main "$*"\n'
    assert [as_launched(argv) for argv in bash_runs(script, stubs)] == [["a=1:b"]] == [arguments(x) for x in read(script)]


def test_nested_loops_are_read_pass_by_pass_only_up_to_a_bound():
    """16 * 16 * 16 passes would be 4,096 launches: past MAX_SCRIPT_PASSES the loop is one not followed (unknown)."""
    words = " ".join(str(n) for n in range(16))
    script = f"for a in {words}; do for b in {words}; do for c in {words}; do\npython3 -m app.main x=$a$b$c\ndone; done; done\n"
    launches = read(script)
    assert len(launches) < 300
    assert [arguments(x) for x in launches[:2]] == [["x=000"], ["x=001"]]
    assert launches[-1].error.endswith("a loop not followed pass by pass"), launches[-1]


@pytest.mark.parametrize(
    "script",
    [
        "a=x; a=$((a*a+1)); python3 -m app.main k=${a[${a[${a[0]}]}]}\n",  # an index that expands to nothing (IndexError)
        "a=(x y z); python3 -m app.main k=${a[1$X]}\n",  # an index partly unknown: not a[1]
        "a=(x y z); python3 -m app.main k=${a[$X]}\n",
    ],
    ids=["empty", "partly-unknown", "unknown"],
)
def test_an_element_whose_index_is_not_known_is_not_known(stubs, script):
    """bash runs `k=1` for the first (an empty index is 0) and `k=z`/`k=x` for the others under X=2/X unset: the
    reader names the element as unknown, never a wrong one and never a crash (the first was an IndexError: tests/e2e/test_hostile_structure.py)."""
    (launch,) = read(script)
    (override,) = launch.overrides
    assert override.unknown and not launch.error, launch
