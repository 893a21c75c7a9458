"""The gates of issue 20 at the unit level: nothing in the package reads tree data but the one reader, writes
go only where the writer allows, the resolver policy keeps host lookups opaque, every algorithm a hostile tree
drives is bounded, and no two keys share a path."""

from __future__ import annotations

import ast
import os
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from omegaconf import OmegaConf

import harness
from harness.composition import resolve
from harness.composition.policy import resolution_policy
from harness.composition.render import MAX_DEPTH, parse_yaml
from harness.gates.confine import UnsafeInput, outside_problem
from harness.gates.reader import InputLimitError, NotAFile, read_bytes
from harness.gates.writer import write_atomic
from harness.model import semantic_diff
from tests.sources import parsed

PACKAGE = Path(harness.__file__).parent

# Reads that are not of tree data, each with its reason. Anything else that opens, reads or runs `git show` or
# `git cat-file` in the package fails the test below: tree data goes through harness/gates/reader.py.
NOT_TREE_DATA = {
    ("composition/store.py", "os.open"): "the cache's own signed store and its key, in a private folder the cache checks",
    ("composition/store.py", "read_bytes"): "the harness's own modules, hashed into the cache's format",
    ("cli.py", "os.open"): "/dev/null, to silence stdout after a broken pipe",
    ("baselines/goldens.py", "open"): "locks a leftover temporary file of write_atomic (regular, no link) without reading it",
    ("gates/writer.py", "os.open"): "creates a new file for writing (O_EXCL, O_NOFOLLOW)",
    ("baselines/releases.py", "archive.open"): "a member of a wheel already read through the reader, bounded as it is unpacked",
}
READ_CALLS = {"open", "read_text", "read_bytes", "fdopen", "ZipFile", "Popen", "run", "check_output"}


def _call_name(node: ast.Call) -> str:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        owner = function.value.id if isinstance(function.value, ast.Name) else ""
        return f"{owner}.{function.attr}" if owner in ("os", "io", "archive", "subprocess", "zipfile", "tarfile") else function.attr
    return ""


def test_nothing_but_the_reader_reads_tree_data():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "reader.py":
            continue
        relative = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            short = name.rsplit(".", 1)[-1]
            texts = [arg.value for arg in ast.walk(node) if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
            runs_git_read = short in ("run", "Popen", "check_output") and any(t in ("show", "cat-file") for t in texts)
            if short in {"open", "read_text", "read_bytes", "ZipFile"} or runs_git_read:
                if (relative, name) in NOT_TREE_DATA:
                    continue
                if name in ("read_bytes", "read_text") and isinstance(node.func, ast.Name):
                    continue  # the reader's own functions, imported by name
                if name == "tarfile.open" or (short == "ZipFile" and _over_bytes(node)):
                    continue  # an archive held in memory, read through the reader first
                found.append(f"{relative}:{node.lineno} {name}")
    assert found == []


def _over_bytes(node: ast.Call) -> bool:
    return any(isinstance(arg, ast.Call) and _call_name(arg).endswith("BytesIO") for arg in node.args)


def test_every_allowed_read_still_exists():
    sources = {path.relative_to(PACKAGE).as_posix(): path.read_text() for path in PACKAGE.rglob("*.py")}
    for file, name in NOT_TREE_DATA:
        assert name.rsplit(".", 1)[-1] + "(" in sources[file], (file, name)


def test_the_reader_refuses_links_out_devices_fifos_and_big_files(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "zero.yaml").symlink_to("/dev/zero")
    with pytest.raises(UnsafeInput, match="outside the project"):
        read_bytes(project / "zero.yaml", (project,))
    with pytest.raises(NotAFile, match="device, FIFO or socket"):
        read_bytes("/dev/zero")  # named by the trusted side: no confinement, still never read endlessly
    os.mkfifo(project / "fifo.yaml")
    started = time.monotonic()
    with pytest.raises(NotAFile):
        read_bytes(project / "fifo.yaml", (project,))
    assert time.monotonic() - started < 5  # never waits for a writer
    (project / "big.yaml").write_bytes(b"x" * 1025)
    with pytest.raises(InputLimitError, match="1,024 bytes"):
        read_bytes(project / "big.yaml", (project,), limit=1024)


def test_the_writer_never_writes_into_git_or_through_a_link(tmp_path):
    (tmp_path / ".git" / "refs").mkdir(parents=True)
    with pytest.raises(UnsafeInput, match="git folder"):
        write_atomic(tmp_path / ".git" / "refs" / "x", "y")
    snapshots, elsewhere = tmp_path / "snapshots", tmp_path / "elsewhere"
    snapshots.mkdir()
    elsewhere.mkdir()
    (snapshots / "_generated_a.yaml").symlink_to(elsewhere / "target.yaml")
    with pytest.raises(UnsafeInput, match="symlink"):
        write_atomic(snapshots / "_generated_a.yaml", "a: 1\n", folder=snapshots)
    assert not (elsewhere / "target.yaml").exists()
    assert list((tmp_path / ".git" / "refs").iterdir()) == []


@pytest.mark.parametrize(
    "text", ["${oc.env:CH_GATE_SECRET}", "${oc.decode:${oc.env:CH_GATE_SECRET}}", "${gate_custom:}", "${hydra:runtime.cwd}"]
)
def test_the_policy_keeps_host_and_custom_resolvers_opaque(monkeypatch, text):
    monkeypatch.setenv("CH_GATE_SECRET", "s3cr3t")
    OmegaConf.register_new_resolver("gate_custom", lambda: os.environ["CH_GATE_SECRET"])
    try:
        config = OmegaConf.create({"a": text, "b": "${oc.select:a,x}"})
        with resolution_policy():
            resolved = OmegaConf.to_container(config, resolve=True)
        assert "s3cr3t" not in str(resolved) and resolved["a"].startswith("${")
        assert resolved["b"] == resolved["a"]  # oc.select, a pure resolver, still runs
    finally:
        OmegaConf.clear_resolver("gate_custom")


# Budgets: each of these took tens of seconds (or never ended) before issue 20.


def test_interpolations_that_each_read_a_big_mapping_end_in_a_finding_not_a_hang():
    from harness.runner.compare import effective_findings

    n = 3000
    old = {"k": {f"v{i}": 0 for i in range(n)}, "r": {f"r{i}": "${k}" for i in range(n)}}
    new = {"k": {f"v{i}": 1 for i in range(n)}, "r": old["r"]}
    changes = semantic_diff.diff_trees(old, new)
    started = time.monotonic()
    findings = effective_findings(OmegaConf.create(new), new, old, changes)
    assert time.monotonic() - started < 20
    assert any("not compared" in f.message and f"{resolve.RESOLUTION_BUDGET:,}" in f.message for f in findings)


def test_the_reference_index_is_linear_when_many_read_one_mapping():
    n = 20_000
    interpolations = {f"r.r{i}": "${k}" for i in range(n)}
    started = time.monotonic()
    affected = resolve.affected_interpolations(interpolations, {f"k.v{i}" for i in range(n)})
    chains = resolve.long_chains({f"c.c{i}": f"${{c.c{i + 1}}}" for i in range(n)} | {"w": "".join(f"${{c.c{i}}}" for i in range(n))})
    assert time.monotonic() - started < 10
    assert len(affected) == n and "c.c0" in chains


def test_list_alignment_is_bounded():
    n = 16_000
    old, new = ["same"] * n, ["same"] * n
    old[n // 3], new[2 * n // 3] = "was", "now"
    started = time.monotonic()
    (change,) = semantic_diff.diff_trees({"l": old}, {"l": new})
    assert time.monotonic() - started < 5
    assert "position by position" in change.detail[0]


def test_deep_nesting_and_circular_aliases_are_refused():
    with pytest.raises(yaml.YAMLError, match="levels deep"):
        parse_yaml("deep: " + "[" * 990 + "]" * 990)
    parse_yaml("ok: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))
    for text in ("a: &x [*x]", "a: &x {b: *x}"):
        with pytest.raises(yaml.YAMLError, match="alias"):
            parse_yaml(text)


def test_a_path_that_is_not_a_dotted_path_is_a_path_error():
    for bad in ('model."x', 'a."b"c', '"'):
        with pytest.raises(semantic_diff.PathError, match="not a dotted path"):
            semantic_diff.split_path(bad)


# Gate 6: no two distinct keys share a path, for any key type YAML can produce.
KEYS = st.one_of(
    st.text(max_size=6),
    st.integers(-5, 5),
    st.floats(allow_nan=False, width=16),
    st.booleans(),
    st.none(),
    st.binary(max_size=3),
    st.sampled_from(["1", "1.0", "True", "None", "null", "b''", '["1.5"]', "a.b", "~", ".inf", "0x1"]),
)


@given(st.lists(KEYS, min_size=2, max_size=6))
def test_distinct_keys_never_share_a_path(keys):
    mapping = {}
    for key in keys:
        mapping.setdefault(key, len(mapping))  # a dict merges keys Python calls equal (1, 1.0, True), as YAML does
    paths = [semantic_diff.join_path("root", key) for key in mapping]
    assert len(set(paths)) == len(paths), paths
    assert len(semantic_diff.flatten({"root": {key: 0 for key in mapping}})) == len(mapping)
    for path in paths:
        assert semantic_diff.split_path(path)[0] == "root"


def test_keys_of_every_yaml_type_have_their_own_paths():
    tree = parse_yaml("x:\n  2: int\n  '2': str\n  1.5: float\n  '1.5': str\n  null: none\n  'None': str\n  true: bool\n  'True': str\n")
    assert sorted(semantic_diff.flatten(tree)) == sorted(
        ['x."2"', "x.2", 'x."1.5"', 'x.["1.5"]', 'x.["None"]', "x.None", "x.True", 'x."True"']
    )


def test_a_search_path_entry_reads_only_the_environment_and_never_shows_the_value(tmp_path):
    from harness.gates.confine import resolved_search_path

    scope = (tmp_path,)
    env = {"HOME_DIR": str(tmp_path), "FAR": "/etc"}
    read = env.get
    (tmp_path / "x").mkdir()
    written = ["file://${oc.env:HOME_DIR}/x", "pkg://hydra.conf", "file://${oc.env:HOME_DIR}/absent"]
    # A folder the environment names that does not exist is left out, as Hydra skips an unavailable source.
    assert resolved_search_path(written, scope, read) == [(f"file://{tmp_path}/x", written[0]), ("pkg://hydra.conf", written[1])]
    assert resolved_search_path(["${oc.env:UNSET,x}"], (Path.cwd(),), read) == []  # the default, relative: no such folder here
    with pytest.raises(UnsafeInput, match=r"reads the environment variable UNSET, which is not set"):
        resolved_search_path(["file://${oc.env:UNSET}"], scope, read)
    with pytest.raises(UnsafeInput) as refused:
        resolved_search_path(["file://${oc.env:FAR}"], scope, read)
    assert "/etc" not in str(refused.value) and "with the value of FAR (not shown)" in str(refused.value)
    with pytest.raises(UnsafeInput, match="other than"):
        resolved_search_path(["file://${now:%H}"], scope, read)
    with pytest.raises(UnsafeInput, match="not a string"):
        resolved_search_path([3], scope, read)


def test_a_path_outside_the_project_is_said_relative_to_it_never_as_a_host_path(tmp_path):
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (project / "conf" / "out").symlink_to(tmp_path / "elsewhere")
    scope = (project,)
    assert outside_problem(project / "conf", scope, "entry:") is None
    dotted = outside_problem(project / "conf" / ".." / ".." / "elsewhere", scope, "entry:")
    linked = outside_problem(project / "conf" / "out", scope, "entry:")
    assert dotted == "entry: ../elsewhere lies outside the project through '..'; it is not read"
    assert linked == "entry: conf/out lies outside the project through a symlink; it is not read"
    assert str(tmp_path) not in dotted + linked
