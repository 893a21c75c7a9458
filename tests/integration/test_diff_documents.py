"""`diff OLD NEW` of YAML documents (two files, two snapshot folders, two folders with `--files`) runs on the engine:
check's comparison, every report format behind its sink guard, the mode stated in one line, no meaningless flag."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from harness.reporters import FORMATS
from tests.integration.test_reports import as_spans, junit_suite, sarif_log

GOLDEN = "_generated_route__legacy.yaml"


def edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


@pytest.fixture
def releases(small_project, cli):
    """old/: the small project's goldens; snapshots/: the goldens after gpu's device kind changed (4 of 7 differ).
    The working folder is the project, so both are relative paths."""
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    shutil.copytree(small_project / "snapshots", small_project / "old")
    edit(small_project / "conf" / "backend" / "gpu.yaml", "kind: cuda", "kind: rocm")
    assert cli("--settings", "harness.toml", "generate").code == 0
    return small_project


def test_each_mode_says_what_it_compares_in_one_line_in_text_and_json(releases, cli):
    shutil.copytree(releases / "conf", releases / "old_conf")
    edit(releases / "conf" / "backend" / "gpu.yaml", "count: 8", "count: 4")
    expected = {
        ("old/" + GOLDEN, "snapshots/" + GOLDEN): ("files", f"comparing two YAML files: old/{GOLDEN} -> snapshots/{GOLDEN}"),
        ("old", "snapshots"): ("goldens", "comparing two snapshot folders, 7 goldens: old -> snapshots"),
        ("old", "snapshots", "--files"): ("files", "comparing two folders file by file, 7 files: old -> snapshots"),
        ("old_conf", "conf"): ("trees", "comparing two config trees, 7 cases: old_conf -> conf"),
    }
    for args, (mode, line) in expected.items():
        text = cli("--settings", "harness.toml", "diff", *args, "--jobs", "1")
        assert text.code == 1 if mode != "trees" else text.code == 0, (args, text.err)
        assert text.out.splitlines()[1] == line  # under the verdict
        report = cli("--settings", "harness.toml", "diff", *args, "--jobs", "1", "--format", "json").json()
        assert (report["mode"], report["comparing"]) == (mode, line)
        assert ("changes" in report) == (mode != "trees")  # the interface's `changes` is a diff of files


def test_every_format_reports_a_file_diff_from_the_engine(releases, cli):
    old, new = "old/" + GOLDEN, "snapshots/" + GOLDEN
    line = next(n for n, text in enumerate((releases / new).read_text().splitlines(), 1) if text.strip() == "kind: rocm")
    out = {name: cli("diff", old, new, "--format", name) for name in FORMATS}
    assert {name: run.code for name, run in out.items()} == dict.fromkeys(FORMATS, 1)

    assert f'  ERROR device.kind: "cuda" -> "rocm"  ({new})' in out["text"].out.splitlines()
    report = out["json"].json()
    assert report["changes"] == [{"kind": "changed", "path": "device.kind", "old": "cuda", "new": "rocm"}]
    (case,) = report["cases"]
    assert (case["id"], case["status"], report["ok"], report["baseline"]) == (new, "changed", False, old)
    assert [(f["kind"], f["path"], f["severity"]) for f in case["findings"] if f["severity"] != "info"] == [
        ("changed", "device.kind", "error")
    ]
    assert f"Comparing two YAML files: `{old}` → `{new}`." in as_spans(out["markdown"].out).replace("\\_", "_")
    assert any("device.<wbr>kind" in row and '`"cuda"` → `"rocm"`' in row for row in out["markdown"].out.splitlines())
    assert (
        f'::error file={new},line={line},title=changed device.kind::device.kind: "cuda" -> "rocm" ({new})' in out["github"].out.splitlines()
    )
    log, _ = sarif_log(out["sarif"].out)
    (result,) = log.runs[0].results
    location = result.locations[0].physical_location
    assert (result.rule_id, location.artifact_location.uri, location.region.start_line) == ("changed", new, line)
    assert log.runs[0].invocations[0].properties["mode"] == "files"
    suite = junit_suite(out["junit"].out)
    assert (suite.tests, suite.failures) == (1, 1) and "device.kind" in next(iter(suite)).result[0].text
    assert {p.name: p.value for p in suite.properties()} == {"mode": "files", "comparing": f"comparing two YAML files: {old} -> {new}"}

    same = {name: cli("diff", new, new, "--format", name).code for name in FORMATS}
    assert same == dict.fromkeys(FORMATS, 0)


def test_a_diff_of_two_goldens_finds_what_check_finds_for_their_case(releases, cli):
    """The same comparison: check against old/ as goldens, and a diff of old/ with the new goldens, agree finding for
    finding (check also names the file that sets a value; the goldens diff has only the two files)."""
    edit(releases / "conf" / "backend" / "gpu.yaml", "count: 8", "count: 4")
    checked = cli("--settings", "harness.toml", "--snapshot-dir", "old", "check", "--format", "json").json()
    assert cli("--settings", "harness.toml", "generate").code == 0
    diffed = cli("diff", "old", "snapshots", "--format", "json").json()

    def findings(report, name_of):
        return {
            name_of(c): sorted(json.dumps({**f, "source": None, "message": None}, sort_keys=True) for f in c["findings"])
            for c in report["cases"]
        }

    expected = findings(checked, lambda c: c["golden"].rsplit("/", 1)[-1])
    assert findings(diffed, lambda c: c["id"]) == expected
    assert sum(bool(f) for f in expected.values()) == 7  # every case has the known `oc.select` fallback (info)


def test_a_flag_that_means_nothing_in_a_mode_is_one_line_exit_2(releases, cli):
    shutil.copytree(releases / "conf", releases / "old_conf")
    golden = "snapshots/" + GOLDEN
    refused = {
        (golden, golden, "--case", "route/*"): "--case selects cases, and a diff of two YAML files compares",
        (golden, golden, "--strict-waivers"): "--strict-waivers is about contract waivers, and a diff of two YAML files",
        ("old", "snapshots", "--case", "route/*"): "a diff of two snapshot folders compares YAML files as they are",
        ("old", "snapshots", "--strict-waivers"): "a diff of two snapshot folders checks no contracts",
        ("old_conf", "conf", "--files", "--case", "x"): "a diff of two folders file by file compares",
        ("--base", "main", "--files"): "--files compares two folders file by file; a review (--base REF) compares cases",
        ("old", "conf"): "old holds only goldens and conf does not",
        (golden, "conf"): "diff needs two files or two folders: conf is a folder and snapshots/",
        (golden, "nothing.yaml"): "nothing.yaml: no such file or folder",
    }
    for args, words in refused.items():
        run = cli("--settings", "harness.toml", "diff", *args)
        assert (run.code, run.out, len(run.err.splitlines())) == (2, "", 1), (args, run.err)
        assert words in run.err, (args, run.err)
    # Global flags before the command's name are for wrappers: one a mode does not use is named, never silent.
    wrapped = cli("--settings", "harness.toml", "--jobs", "1", "diff", golden, golden)
    assert wrapped.code == 0
    assert wrapped.err == "config-harness: warning: a diff of two YAML files does not use --settings, --jobs: ignored\n"


def test_verbose_lists_what_a_file_diff_folds_and_quiet_keeps_the_errors_and_the_verdict(tmp_path, cli):
    (tmp_path / "old.yaml").write_text("base_flag: false\nflag: false\nlr: 0.1\n")
    (tmp_path / "new.yaml").write_text("base_flag: false\nflag: ${base_flag}\nlr: 0.2\n")
    plain = cli("diff", "old.yaml", "new.yaml", cwd=tmp_path).out.splitlines()
    assert "Refactors with unchanged values: 1 (folded; --verbose lists them)" in plain
    verbose = cli("diff", "old.yaml", "new.yaml", "--verbose").out.splitlines()
    assert '  ERROR flag: false -> "${base_flag}"  (new.yaml)' in verbose
    quiet = cli("diff", "old.yaml", "new.yaml", "--quiet").out.splitlines()
    verdict = "FAILED: 1 file against old.yaml: 1 changed; 1 file that differs"
    assert quiet[:2] == [verdict, "Changed values (1 key):"] and quiet[-1] == verdict
    assert not any(line.startswith("comparing ") for line in quiet)


def test_a_document_that_is_not_a_config_is_one_line_exit_2(tmp_path, cli):
    documents = {
        "list.yaml": ("- a\n- b\n", "list.yaml: a list at the top, not a mapping: diff compares configs"),
        "null_key.yaml": ("null: 1\n", "null_key.yaml: not a config OmegaConf can hold (Incompatible key type 'NoneType')"),
        "broken.yaml": ("a: [1\n", "broken.yaml:2: invalid YAML"),
    }
    (tmp_path / "ok.yaml").write_text("a: 1\n")
    (tmp_path / "latin1.yaml").write_bytes(b"a: caf\xe9\n")
    for name, (text, _) in documents.items():
        (tmp_path / name).write_text(text)
    expected = {**{name: words for name, (_, words) in documents.items()}, "latin1.yaml": "latin1.yaml: not UTF-8 (offset 6)"}
    for name, words in expected.items():
        run = cli("diff", "ok.yaml", name, cwd=tmp_path)
        assert (run.code, run.out) == (2, ""), (name, run.out)
        assert run.err.startswith(f"config-harness: error: {words}") and len(run.err.splitlines()) == 1, run.err


def test_no_format_lets_a_document_start_a_workflow_command(tmp_path, cli):
    name = "x\n::error title=pwned::All OK.yaml"  # a file name is input too
    for side, value in (("old", "a"), ("new", "##[add-mask]FAILED")):
        (tmp_path / side).mkdir()
        (tmp_path / side / name).write_text(f'"::warning title=pwned::All OK": {json.dumps(value)}\nk: 1\n')
    own = re.compile(r"^::(error|warning|notice)( [^:]*)?::")
    for output_format in FORMATS:
        run = cli("diff", "old", "new", "--files", "--format", output_format, cwd=tmp_path)
        assert run.code == 1 and "##[" not in run.out, output_format
        for line in run.out.splitlines():
            if output_format == "github" and own.match(line):
                continue
            assert not line.lstrip().startswith("::"), (output_format, line)
    document = cli("diff", "old", "new", "--files", "--format", "json").json()
    assert document["changes"][0]["new"] == "##[add-mask]FAILED" and document["changes"][0]["file"] == name
