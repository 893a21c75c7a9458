"""Issue 53 item 1, linear by construction: no call of Python's backtracking engine (`re`, `fnmatch`) in harness/ but the
allow-list's, and every pattern on RE2 (harness/gates/linear.py) means what it meant under `re`."""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib
import re
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.gates import linear, unicode_classes
from tests.conftest import ROOT
from tests.sources import parsed

# Module -> its functions that run Python's backtracking engine (`fnmatch` translates to `re`).
PYTHON_ENGINE = {
    "re": frozenset({"compile", "match", "search", "fullmatch", "sub", "subn", "findall", "finditer", "split"}),
    "fnmatch": frozenset({"fnmatch", "fnmatchcase", "filter", "translate"}),
}
# (file, the module-level name around the call) -> why it only ever sees the harness's own text. Empty: every call
# site reads text a pull request can reach (keys, values, file names, scripts, Hydra's messages quoting them).
ALLOWED: dict[tuple[str, str], str] = {
    ("harness/gates/linear.py", "glob"): "`fnmatch.translate` builds a pattern (text to RE2), it matches nothing",
}


def python_engine_sites(root: Path) -> dict[tuple[str, str], str]:
    """Every call of Python's engine in `root`/harness: (file, owner) -> `module.function` called."""
    found = {}
    for path in sorted((root / "harness").rglob("*.py")):
        tree = parsed(path)
        imported = {
            alias.asname or alias.name: f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module in PYTHON_ENGINE
            for alias in node.names
            if alias.name in PYTHON_ENGINE[node.module]
        }
        for statement in tree.body:
            targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            owner = getattr(statement, "name", None) or (names[0] if names else type(statement).__name__)
            for node in ast.walk(statement):
                if not isinstance(node, ast.Call):
                    continue
                function = node.func
                if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
                    called = f"{function.value.id}.{function.attr}"
                    if function.attr not in PYTHON_ENGINE.get(function.value.id, ()):
                        continue
                elif isinstance(function, ast.Name) and function.id in imported:
                    called = imported[function.id]
                else:
                    continue
                found[(path.relative_to(root).as_posix(), owner)] = called
    return found


def test_no_call_site_runs_pythons_backtracking_engine_on_pull_request_bytes():
    sites = python_engine_sites(ROOT)
    assert {site: called for site, called in sites.items() if site not in ALLOWED} == {}, (
        "run it through harness.gates.linear (RE2), or say in ALLOWED why it only sees our own text"
    )
    assert set(ALLOWED) <= set(sites), "ALLOWED names a call site that is gone"


def test_only_the_engine_module_imports_pythons_engine():
    """Past the walk: a module that cannot import `re` or `fnmatch` cannot call them by another name either."""
    importers = set()
    for path in sorted((ROOT / "harness").rglob("*.py")):
        for node in ast.walk(parsed(path)):
            names = (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(node, ast.ImportFrom) else []
            )
            if any(name in PYTHON_ENGINE for name in names):
                importers.add(path.relative_to(ROOT).as_posix())
    assert importers == {"harness/gates/linear.py"}


def test_the_walk_sees_every_form_of_call(tmp_path):
    """The walk's own test: each way of calling the engine is found (it found 108 before issue 53's change)."""
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "m.py").write_text(
        "import re\nfrom fnmatch import fnmatchcase as f\nA = re.compile('x')\ndef g(t):\n    return re.sub('a', 'b', t) or f(t, '*')\n"
    )
    assert python_engine_sites(tmp_path) == {("harness/m.py", "A"): "re.compile", ("harness/m.py", "g"): "fnmatch.fnmatchcase"}


@functools.cache
def all_patterns() -> dict[str, linear.Pattern]:  # type: ignore[type-arg]
    """Every module-level RE2 pattern of harness/, by `module.NAME`."""
    found = {}
    for path in sorted((ROOT / "harness").rglob("*.py")):
        if path.name == "__main__.py":
            continue
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
        for name, value in vars(module).items():
            if isinstance(value, linear.Pattern):
                found[f"{module.__name__}.{name}"] = value
    return found


@functools.cache
def call_site_patterns() -> dict[str, linear.Pattern]:  # type: ignore[type-arg]
    """Every `linear.compile("literal", FLAGS)` written inside a function of harness/, by `file:line`."""
    found = {}
    for path in sorted((ROOT / "harness").rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "compile"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "linear"
                and isinstance(node.args[0], ast.Constant)
            ):
                flags = [getattr(linear, flag.attr) for flag in node.args[1:] if isinstance(flag, ast.Attribute)]
                found[f"{path.relative_to(ROOT)}:{node.lineno}"] = linear.compile(node.args[0].value, sum(flags))
    return found


def test_the_patterns_are_many():
    assert len(all_patterns()) > 60 and len(call_site_patterns()) > 80


# Text that tells the engines apart: ASCII, Unicode letters, digits and spaces RE2 does not know as `\w`, `\d`, `\s`,
# a final newline (`$`), lone surrogates, and the punctuation the patterns name.
_ALPHABET = st.sampled_from(list("aZ_09 \t\n.:/-=$'\"{}[]()`*#@,;+~\\") + ["é", "٣", "\u3000", "\x1c", "\u2028", "\udc80", "\x85"])


@given(text=st.lists(_ALPHABET, max_size=30).map("".join))
def test_each_pattern_finds_what_re_found(text):
    """Each pattern that `re` can compile as it is written gives the same matches on RE2 (`finditer` spans and groups),
    with a final newline's `$` left out: `$` is the end of the text on RE2, which each pattern using it says is safe."""
    for name, pattern in {**all_patterns(), **call_site_patterns()}.items():
        subject = text if isinstance(pattern.pattern, str) else text.encode("utf-8", "surrogateescape")
        if isinstance(subject, str) and "$" in pattern.pattern and subject.endswith("\n"):
            subject = subject[:-1]
        expected = [(m.span(), m.groups()) for m in re.compile(pattern.pattern, pattern.flags).finditer(subject)]
        assert [(m.span(), m.groups()) for m in pattern.finditer(subject)] == expected, name


def test_the_unicode_classes_are_pythons():
    if unicodedata.unidata_version != unicode_classes.UNICODE_VERSION:
        pytest.skip(f"generated under Unicode {unicode_classes.UNICODE_VERSION}, this Python has {unicodedata.unidata_version}")
    every = "".join(map(chr, range(0x110000)))
    for spec, shorthand in ((unicode_classes.WORD, r"\w+"), (unicode_classes.SPACE, r"\s+"), (unicode_classes.DIGIT, r"\d+")):
        ranges = [f"{m.start():x}" if m.end() - m.start() == 1 else f"{m.start():x}-{m.end() - 1:x}" for m in re.finditer(shorthand, every)]
        assert spec.split() == ranges


def test_lone_surrogates_are_matched_as_re_matched_them():
    name = "a\udc80b"
    assert linear.compile(r"[\ud800-\udfff]").search(name).span() == (1, 2)
    assert linear.compile(r"(\w)(.)(\w)").fullmatch(name).groups() == ("a", "\udc80", "b")


def test_what_re2_cannot_run_is_refused_when_compiled():
    for pattern in (r"(?<=a)b", r"(a)\1", r"a(?!b)", r"\bword"):
        with pytest.raises(ValueError):
            linear.compile(pattern)


@given(
    glob=st.lists(st.sampled_from(list("ab*?[]!-\\")), max_size=8).map("".join),
    name=st.lists(st.sampled_from(list("ab-]\\")), max_size=8).map("".join),
)
def test_a_shell_pattern_matches_as_fnmatch_matched(glob, name):
    assert (linear.glob(glob).fullmatch(name) is not None) == fnmatch.fnmatchcase(name, glob)


def test_the_exponential_patterns_are_linear_on_re2():
    """The two shapes of issue 53 on the engine itself: `a.+a.+...b` against 200 `a`, and `(x|x)*y`-like splits."""
    started = time.process_time()
    assert linear.compile("a" + ".+a" * 6 + ".+b").search("a" * 200) is None
    assert linear.compile(r"instantiate\((?:_partial_=|_partial_=\s*)*,1\)x").search("instantiate(" + "_partial_=" * 5000 + ",1)") is None
    assert time.process_time() - started < 1.0  # Python's engine: past 120 s for the first alone


# ---- the call sites read by hand or rewritten for RE2, each against the expression it replaced (run on `re` here) ----

_TEXT = st.lists(st.sampled_from(list("ab_1 .:/-é٣\t")), max_size=24).map("".join)


@given(text=_TEXT)
def test_the_rewritten_sites_agree_with_the_lookaround_they_replaced(text):
    from harness.gates.escape import _markdown_word
    from harness.model.hints import first_sentence
    from harness.readers.bash_words import arithmetic_assigned
    from harness.reporters.layout import ALIKE_WORD
    from harness.reporters.markdown import _break_inside
    from harness.rules.known_entries import unplaced

    lines = re.sub(r"\bline \d+", "line", re.sub(r"(?<=[\w.])(?::\d+)+(?=\b|$)", "", " ".join(text.split())))
    assert unplaced(text) == lines
    assert unplaced(text, "a.b") == re.sub(
        r"\bline \d+",
        "line",
        re.sub(r"(?<=[\w.])(?::\d+)+(?=\b|$)", "", " ".join(re.sub(r"(?<![\w./-])a\.b(?![\w./-])", "the script", text).split())),
    )
    alike = r"[^\s(\[{\"'`]*[./:#=_\d][^\s,;\"'`]*(?<![:,;.)\]}])"
    assert ALIKE_WORD.findall(text) == re.findall(alike, text)
    assert _break_inside(text) == re.sub(r"(?<=\S)([./])(?=\S)", r"\1<wbr>", text)
    escaped = re.sub(r"[\\`*|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])", lambda m: "\\" + m.group(), text)
    assert _markdown_word(text) == re.sub(r"\](?=[(\[:])", r"\\]", escaped)
    joined = " ".join(text.split())
    sentence = re.search(r"(?<=\.)\s", joined)
    assert first_sentence(text, 1000) == (joined[: sentence.start()] if sentence else joined)
    arithmetic = text.replace("_", "=").replace("1", "[")
    old = r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:\*\*|<<|>>|[-+*/%&|^])?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)"
    assert arithmetic_assigned(arithmetic) == {next(g for g in m.groups() if g) for m in re.finditer(old, arithmetic)}


def _old_tokens(text: str) -> list[str] | str:
    token = re.compile(
        r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|<<=|>>=|\*\*|\+\+|--|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|<<|>>|[-+*/%<>=!~&^|?:(),])"
    )
    tokens, position = [], 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = token.match(text, position)
        if match is None:
            return text[position:]
        tokens.append(match.group(1))
        position = match.end()
    return tokens


@given(text=st.lists(st.sampled_from([*'a1x_ \t\n:=+-*<>!"\\[]{}$.(o', "oc.select", "0x1f", "##["]), max_size=16).map("".join))
def test_the_scanners_agree_with_the_expressions_they_replaced(text):
    from harness.composition.resolve import RESOLVER_NAME
    from harness.gates.escape import no_workflow_commands
    from harness.model.semantic_diff import _typed_key_end
    from harness.readers.arithmetic import _tokens

    try:
        assert _tokens(text) == _old_tokens(text)
    except ValueError as error:
        assert error.args[0] == _old_tokens(text)
    path = '["' + text
    old = re.compile(r'\["(?:[^"\\]|\\.)*"\]').match(path)
    assert _typed_key_end(path, 0) == (old.end() if old else 0)
    other = re.compile(r"\$\{\s*(?!oc\.select:)[A-Za-z_][\w.]*:")
    assert any(m[1] != "oc.select" for m in RESOLVER_NAME.finditer(text)) == bool(other.search(text))
    assert no_workflow_commands(text, "text") == re.sub(r"^(\s*):(?=:)", r"\1\\:", text.replace("##[", "##\\["), flags=re.M)
    given_key = re.search(
        r"Could not override '(?P<key>[^']+)'\. To append to your config use \+(?P=key)=(?P<value>.*)$",
        "Could not override 'a" + text + "'. To append to your config use +a" + text,
    )
    from harness.model.hints import _MISSING_KEY

    mine = _MISSING_KEY.search("Could not override 'a" + text + "'. To append to your config use +a" + text)
    assert (mine is not None and mine["given"].startswith(mine["key"] + "=")) == (given_key is not None) or "\n" in text


@given(text=st.lists(st.sampled_from(["a", "x", "é", " ", "\n", "\udc80"]), max_size=12).map("".join))
def test_sub_split_and_findall_are_res_empty_matches_too(text):
    for pattern in (r"x*", r"(x)|(a)", r"(\s+)", r"\w+", r"(?:x|)"):
        ours, theirs = linear.compile(pattern), re.compile(pattern)
        assert ours.sub(lambda m: "<" + m.group() + ">", text) == theirs.sub(lambda m: "<" + m.group() + ">", text)
        assert ours.sub("-", text, count=2) == theirs.sub("-", text, count=2)
        assert ours.split(text) == theirs.split(text)
        assert ours.findall(text) == theirs.findall(text)
