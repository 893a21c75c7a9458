"""Hostile structure for every reader of pull-request bytes, drawn by hypothesis: deep nesting and long chains in
each syntax, and big fan-out. Whatever is drawn, the reader answers within the time bound with a value or its own
one-line error (never RecursionError, MemoryError or another exception: exit 3), and past a budget it says which.

Run by `make test-e2e` (each draws up to its own number of examples, the budget's edges among them)."""

from __future__ import annotations

import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.composition.render import parse_yaml
from harness.gates.budget import NOT_READ, BudgetExceeded, toml_document
from harness.readers.bash import launches_in
from harness.readers.pysource import Missing, Outside, Signature, SourceIndex
from harness.rules.contracts import ContractError, parse_contracts
from tests.hostile_inputs import HOSTILE_SECONDS

EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Up to 5,000: far past every budget, small enough that hypothesis can build the text quickly.
SIZES = st.one_of(st.integers(1, 200), st.integers(200, 5_000), st.sampled_from([63, 64, 65, 99, 100, 101, 149, 150, 151]))


def within_time(function, *arguments):
    start = time.process_time()
    result = function(*arguments)
    assert time.process_time() - start < HOSTILE_SECONDS, "past the time bound"
    return result


def nested(opening: str, middle: str, closing: str, depth: int) -> str:
    return opening * depth + middle + closing * depth


# ---- TOML (settings) ----

TOML_FORMS = st.sampled_from(
    [
        ("x = ", "[", "1", "]"),
        ("x = ", "{a = ", "1", "}"),
        ("x = ", "[{a = ", "1", "}]"),
        ("x = ", "[", '"]]"', "]"),
        ("x = ", "[[", "", "],]"),
    ]
)


@EXAMPLES
@given(TOML_FORMS, SIZES, st.integers(1, 2_000))
def test_toml_answers_within_budget(form, depth, fan_out):
    prefix, opening, middle, closing = form
    text = prefix + nested(opening, middle, closing, depth) + "\n" + "".join(f"k{i} = [1, {{a = 2}}]\n" for i in range(fan_out))
    try:
        within_time(toml_document, text, "harness.toml")
    except BudgetExceeded as error:
        assert str(error).startswith(NOT_READ) and "harness.toml:1" in str(error)
    except ValueError:  # tomllib.TOMLDecodeError: what a broken form says
        pass


# ---- YAML (configs, goldens, contracts) ----

YAML_FORMS = st.sampled_from([("[", "1", "]"), ("{a: ", "1", "}"), ("- ", "1", ""), ("[{a: ", "1", "}]")])


@EXAMPLES
@given(YAML_FORMS, SIZES, st.integers(1, 2_000), st.booleans())
def test_yaml_answers_within_budget(form, depth, fan_out, as_contracts):
    opening, middle, closing = form
    body = (
        nested(opening, middle, closing, depth)
        if opening != "- "
        else "".join("  " * level + "- " + ("\n" if level < depth - 1 else "1\n") for level in range(min(depth, 1_000)))
    )
    text = "a: " + body + "\n" if opening != "- " else "a:\n" + body
    text += "".join(f"k{i}: &x{i} [1, 2]\nr{i}: *x{i}\n" for i in range(fan_out))
    try:
        if as_contracts:
            within_time(parse_contracts, "contracts: []\nextra: " + text.replace("\n", "\n  "), __import__("pathlib").Path("c.yaml"))
        else:
            within_time(parse_yaml, text)
    except (yaml.YAMLError, ContractError) as error:
        assert str(error)


# ---- Python (python_sources, entry modules) ----

PYTHON_CHAINS = st.sampled_from(["inherit", "alias", "import", "star", "lattice", "expression", "call", "nested-def", "fan-out"])


def python_source(form: str, size: int) -> dict[str, str]:
    head = "class C0:\n    def __init__(self, width=1):\n        pass\n"
    if form == "inherit":
        return {"m.py": head + "".join(f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, size)) + f"Model = C{size - 1}\n"}
    if form == "alias":
        return {"m.py": head + "".join(f"C{i} = C{i - 1}\n" for i in range(1, size)) + f"Model = C{size - 1}\n"}
    if form == "import":  # a chain across modules: m{i} re-exports m{i+1}'s Model
        files = {f"m{i}.py": f"from .m{i + 1} import Model\n" for i in range(min(size, 400))}
        files[f"m{min(size, 400)}.py"] = head + "Model = C0\n"
        return {**files, "m.py": "from .m0 import Model\n"}
    if form == "star":
        files = {
            f"s{i}.py": f"from .s{(i + 1) % min(size, 400)} import *\n__all__ = s{(i + 1) % min(size, 400)}.__all__\n"
            for i in range(min(size, 400))
        }
        return {**files, "m.py": "from .s0 import *\n"}
    if form == "lattice":
        levels = min(size, 400)
        text = head.replace("C0", "L0") + "".join(
            f"class A{i}(L{i - 1}):\n    pass\nclass B{i}(L{i - 1}):\n    pass\nclass L{i}(A{i}, B{i}):\n    pass\n"
            for i in range(1, levels + 1)
        )
        return {"m.py": text + f"Model = L{levels}\n"}
    if form == "expression":
        return {"m.py": "class Model:\n    def __init__(self, width=" + "+".join(["1"] * size) + "):\n        pass\n"}
    if form == "call":
        return {"m.py": "class Model:\n    def __init__(self, width=f" + "()" * size + "):\n        pass\n"}
    if form == "nested-def":
        depth = min(size, 99)  # Python's own parser refuses 100 indentation levels
        body = "".join("    " * level + f"def f{level}():\n" for level in range(depth)) + "    " * depth + "pass\n"
        return {"m.py": body + head + "Model = C0\n"}
    bases = ", ".join(f"B{i}" for i in range(size))
    return {"m.py": head + "".join(f"class B{i}(C0):\n    pass\n" for i in range(size)) + f"class Model({bases}):\n    pass\n"}


@EXAMPLES
@given(PYTHON_CHAINS, SIZES)
def test_python_sources_answer_within_budget(tmp_path_factory, form, size):
    folder = tmp_path_factory.mktemp("src") / "app"
    folder.mkdir()
    (folder / "__init__.py").write_text("from .m import Model\n")
    for name, text in python_source(form, size).items():
        (folder / name).write_text(text)
    signature = within_time(SourceIndex([folder]).signature, "app.Model")
    assert isinstance(signature, Signature | Missing | Outside)
    if isinstance(signature, Missing) and "budget" in signature.reason:
        assert NOT_READ in signature.reason and "exceeded at" in signature.reason


# ---- shell (launch scripts) ----

SHELL_FORMS = st.sampled_from(
    [
        ("if true; then\n", "", "fi\n"),
        ("${a:-", "1", "}"),
        ("$((", "1", "))"),
        ("(", "", ")\n"),
        ("{ ", "", "; }\n"),
        ("while false; do\n", "", "done\n"),
        ("case x in x)\n", "", ";; esac\n"),
        ('"$(echo ', "x", ')"'),
        ("f() {\n", "", "}\n"),
        ("true && ", "", ""),
        ("${a[", "0", "]}"),
    ]
)
GROWTH = st.sampled_from(
    ["a=$a$a\n", "a=(${a[@]} ${a[@]})\n", "a+=$a\n", "a+=(${a[@]})\n", 'a="$a $a"\n', "a=$((a*a+1))\n", "a=${a:-$a}$a\n"]
)


@EXAMPLES
@given(SHELL_FORMS, SIZES, GROWTH, st.integers(0, 100), st.integers(0, 3_000))
def test_scripts_answer_within_budget(form, depth, growth, times, fan_out):
    opening, middle, closing = form
    launch = "python -m app.main model.width=$a\n"
    if closing.endswith("\n") or opening.endswith("\n"):
        nest = nested(opening, launch, closing, depth)
    else:
        nest = "python -m app.main model.width=" + nested(opening, middle, closing, depth) + "\n"
    script = "a=x\n" + growth * times + "".join(f"v{i}=$a\nif false; then v{i}=y; fi\n" for i in range(fan_out)) + nest + launch
    launches = within_time(launches_in, "run.sh", script.encode(), lambda entry, is_module: entry.startswith("app."))
    for found in launches:
        assert not found.error or "budget" not in found.error or (NOT_READ in found.error and "exceeded at run.sh:" in found.error)
        assert all(len(override.text) <= 64 * 1024 + 100 for override in found.overrides)


# What a script sources, in each shape that once grew faster than its input (issue 41): refused sources, a long sourced
# file, assignments interleaved with sources; repeated, nested and mixed.
SOURCE_LINES = st.sampled_from(['. "$H"\n', ". ./a.sh\n", "v=x\n. ./a.sh\n", ". ./long.sh\n", ". ./refuses.sh\n", "v$RANDOM=1\n"])
SOURCED = {"a.sh": "A=1\n", "long.sh": "".join(f"v{i}={i}\n" for i in range(5_000)), "refuses.sh": '. "$H"\n' * 5_000}


@EXAMPLES
@given(st.lists(st.tuples(SOURCE_LINES, SIZES), min_size=1, max_size=4))
def test_sourcing_answers_within_budget(lines):
    script = "".join(line * times for line, times in lines) + "python -m app.main $A m=$v\n"
    encoded = {path: text.encode() for path, text in SOURCED.items()}
    (found,) = within_time(
        launches_in, "run.sh", script.encode(), lambda entry, is_module: True, lambda path: encoded.get(path, "no such file")
    )
    assert found.entry == "app.main"


@pytest.mark.parametrize("depth", [10, 140])
def test_a_script_within_the_budget_still_reads_its_launch(depth):
    (found,) = launches_in(
        "run.sh", nested("if true; then\n", "python -m app.main a=1\n", "fi\n", depth // 2).encode(), lambda entry, is_module: True
    )
    assert not found.error and found.overrides[0].text == "a=1"


# ---- the whole command: every reader's hostile file in its place, never exit 3 ----

CLI_PROJECT = {
    "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\npython_sources = ["src/app"]\n'
    '[[commands]]\nglob = "scripts/*.sh"\n',
    "conf/train.yaml": "model:\n  _target_: app.Model\n  width: 3\n",
    "src/app/__init__.py": "from .m import Model\n",
    "app/__init__.py": "",
    "app/main.py": "import hydra\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n",
    "scripts/run.sh": "python -m app.main model.width=2\n",
}


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["settings", "python", "entry", "script"]), PYTHON_CHAINS, SHELL_FORMS, SIZES)
def test_no_hostile_file_of_any_reader_is_an_internal_error(tmp_path_factory, place, python_form, shell_form, size):
    import contextlib
    import io
    import os

    from harness.cli import main
    from tests.conftest import write_tree

    project = write_tree(tmp_path_factory.mktemp("project"), CLI_PROJECT)
    files = python_source(python_form, size)
    (project / "src/app/m.py").write_text(files.pop("m.py", "from .m0 import Model\n"))
    if place == "python":
        for name, text in files.items():
            (project / "src/app" / name).write_text(text)
    elif place == "entry":
        (project / "app/main.py").write_text(python_source("expression", size)["m.py"] + CLI_PROJECT["app/main.py"])
        (project / "src/app/m.py").write_text("class Model:\n    pass\n")
    elif place == "script":
        opening, middle, closing = shell_form
        body = (
            nested(opening, "python -m app.main model.width=1\n", closing, size)
            if "\n" in opening + closing
            else ("python -m app.main model.width=" + nested(opening, middle, closing, size) + "\n")
        )
        (project / "scripts/run.sh").write_text(body)
    else:
        (project / "harness.toml").write_text(
            CLI_PROJECT["harness.toml"].replace("[[commands]]", "x = " + nested("[", "", "]", size) + "\n[[commands]]")
        )
    here = os.getcwd()
    os.chdir(project)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            for command in (["list"], ["check", "--format", "json"]):
                code = within_time(main, ["--settings", "harness.toml", *command])
                assert code in (0, 1, 2), err.getvalue()
    finally:
        os.chdir(here)
