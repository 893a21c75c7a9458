"""Reports on a small Hydra tree: grouped, triaged the same in every format, honest, and escaped."""

from __future__ import annotations

import json
import re

import pytest

from harness.reporters.json import SCHEMA_VERSION
from tests.conftest import add_contracts

CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv, device.map.gate]
    equal: {device.count: 8}
waivers:
  - contract: gpu-critical
    path: device.map.gate
    reason: "gate was never mapped; tracked upstream"
"""


@pytest.fixture
def project(small_project, cli):
    """The small project with a contract (one rule waived) and goldens written."""
    add_contracts(small_project, CONTRACTS)
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    return small_project


def edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def check(cli, *extra):
    return cli("--settings", "harness.toml", "check", *extra)


def as_spans(markdown):
    """Markdown with breakable `<code>` paths written as code spans, for tests that look for a path."""
    return markdown.replace("<wbr>", "").replace("<code>", "`").replace("</code>", "`")


def outside_fences(lines):
    """The lines of markdown outside fenced code blocks (which GitHub shows as text)."""
    kept, fence = [], None
    for line in lines:
        if fence is None and line.startswith("```"):
            fence = line
        elif fence is not None and line == fence:
            fence = None
        elif fence is None:
            kept.append(line)
    return kept


def test_one_change_on_every_case_is_named_once_in_every_format(project, cli):
    edit(project / "conf" / "train.yaml", "layers: [a, b]", "layers: [a, c]")
    text = check(cli).out
    assert text.count("trainer.layers") == 1
    assert '  ERROR trainer.layers: ["a", "b"] -> ["a", "c"]  (all 7 cases; set by conf/train.yaml:9)' in text.splitlines()
    markdown = as_spans(check(cli, "--format", "markdown").out)
    assert markdown.count("trainer.layers") == 1
    github = check(cli, "--format", "github").out
    assert [line for line in github.splitlines() if "trainer.layers" in line] == [
        '::error file=conf/train.yaml,line=9,title=changed trainer.layers::trainer.layers: ["a", "b"] -> ["a", "c"] (all 7 cases)'
    ]
    report = check(cli, "--format", "json").json()
    (group,) = [g for g in report["groups"] if g["path"] == "trainer.layers"]
    assert group["cases"] == [c["id"] for c in report["cases"]] and (group["old"], group["new"]) == (["a", "b"], ["a", "c"])
    assert group["source"] == "conf/train.yaml:9" and group["effective_same"] is False
    # The per-case findings stay as they were.
    assert all(any(f["path"] == "trainer.layers" for f in c["findings"]) for c in report["cases"])


def test_every_json_answer_carries_the_schema_version(project, cli):
    assert cli("--settings", "harness.toml", "list", "--format", "json").json()["schema_version"] == SCHEMA_VERSION
    assert check(cli, "--format", "json").json()["schema_version"] == SCHEMA_VERSION
    golden = "snapshots/_generated_route__legacy.yaml"
    assert cli("diff", golden, golden, "--format", "json").json()["schema_version"] == SCHEMA_VERSION


def paths_in_order(lines, paths):
    return [path for line in lines for path in paths if f"{path}:" in line or f"`{path}`" in line or f" {path} " in line]


def test_triage_order_is_the_same_in_every_format(project, cli):
    gpu = project / "conf" / "backend" / "gpu.yaml"
    edit(gpu, "count: 8", "count: 4")  # a contract error (count must be 8) and a changed value on gpu cases
    edit(project / "conf" / "backend" / "cpu.yaml", "count: 1", "count: 1\n  cores: 2")  # added
    edit(project / "conf" / "train.yaml", "  layers: [a, b]\n", "")  # removed
    edit(project / "conf" / "backend" / "cpu.yaml", "kind: cpu", "kind: ${backend}")  # a refactor: still "cpu"
    expected = ["device.count", "device.count", "trainer.layers", "device.cores", "device.kind"]

    report = check(cli, "--format", "json", "--verbose").json()
    assert [g["path"] for g in report["groups"] if g["severity"] == "error"] == expected
    assert [g["kind"] for g in report["groups"] if g["severity"] == "error"] == ["contract", "changed", "removed", "added", "changed"]
    (refactor,) = [g for g in report["groups"] if g["path"] == "device.kind"]
    assert refactor["effective_same"] is True and refactor["old"] == "cpu" and refactor["tier"] == "refactor"

    text = check(cli, "--verbose").out.splitlines()
    paths = ["device.count", "trainer.layers", "device.cores", "device.kind"]
    assert paths_in_order(text, paths) == expected
    markdown = as_spans(check(cli, "--format", "markdown").out).splitlines()
    assert paths_in_order(markdown, paths) == expected
    github = check(cli, "--format", "github").out.splitlines()
    assert paths_in_order(github, paths) == expected


def test_refactors_are_folded_in_text_and_markdown(project, cli):
    edit(project / "conf" / "backend" / "cpu.yaml", "kind: cpu", "kind: ${backend}")
    result = check(cli)
    assert result.code == 1  # a golden that differs is an error, refactor or not
    assert "device.kind" not in result.out and "Refactors with unchanged values: 1 (folded; --verbose lists them)" in result.out
    assert result.out.split("\n", 1)[1].startswith("1 refactor with an unchanged value only on train/cpu/* (folded).")  # under the verdict
    assert '  ERROR device.kind: "cpu" -> "${backend}"  (3 cases: train/cpu/*; set by conf/backend/cpu.yaml:4)' in (
        check(cli, "--verbose").out.splitlines()
    )
    markdown = as_spans(check(cli, "--format", "markdown").out)
    folded = markdown[markdown.index("<details>") :]
    assert "<summary>Refactors with unchanged values (1)</summary>" in folded and "`device.kind`" in folded
    assert "`device.kind`" not in markdown[: markdown.index("<details>")]


def test_a_clean_run_is_one_line_and_verbose_lists_the_waived_warnings(project, cli):
    clean = check(cli)
    assert clean.code == 0
    assert clean.out.splitlines() == [
        "OK: 7 cases against goldens in snapshots: 7 ok; 3 warnings (3 waived, 1 distinct; --verbose lists them)"
    ]
    verbose = check(cli, "--verbose").out
    assert (
        "  gpu-critical: device.map.gate is required but missing  (3 cases: train/gpu/*)  waived: gate was never mapped; tracked upstream"
        in (verbose.splitlines())
    )
    assert verbose.count("tracked upstream") == 1
    quiet = check(cli, "--quiet").out
    assert quiet.splitlines() == ["OK: 7 cases against goldens in snapshots: 7 ok; 3 warnings"]
    markdown = check(cli, "--format", "markdown").out
    assert markdown.count("tracked upstream") == 1 and "<summary>Waived warnings: 3, 1 distinct</summary>" in markdown
    # A waived warning is known and accepted: never an annotation on a line the pull request did not touch.
    github = check(cli, "--format", "github").out.splitlines()
    assert not any(line.startswith("::") for line in github) and github[-1].startswith("OK: ")


def test_a_failing_run_ends_with_its_errors_the_waived_count_the_next_step_and_the_verdict(project, cli):
    edit(project / "conf" / "train.yaml", "  epochs: 3\n", "  epochs: 4\n")
    lines = check(cli).out.splitlines()
    assert lines[-4:] == [
        "  ERROR trainer.epochs: 3 -> 4  (5 cases: train/*/default, train/*/sgd, route/legacy; set by conf/train.yaml:7)",
        "3 waived warnings on 3 cases, 1 distinct (--verbose lists them)",
        "Next: if these changes are intended: run `config-harness --settings harness.toml generate` and commit snapshots",
        "FAILED: 7 cases against goldens in snapshots: 2 ok, 5 changed; 5 goldens to regenerate, 3 warnings",
    ]
    assert not any("tracked upstream" in line for line in lines)
    assert check(cli, "--quiet").out.splitlines()[-2:] == lines[-2:]
    # The exact command keeps the run's own flags, and a commit hook is told to stage the goldens.
    only = cli("--settings", "harness.toml", "check", "--case", "train/cpu/*").out.splitlines()
    assert (
        only[-2]
        == "Next: if these changes are intended: run `config-harness --settings harness.toml generate --case 'train/cpu/*'` and commit snapshots"
    )
    report = check(cli, "--format", "json").json()
    assert report["next_steps"] == [lines[-2].removeprefix("Next: ")]


def test_a_commit_hook_is_told_to_stage_the_goldens(project, cli, monkeypatch):
    edit(project / "conf" / "train.yaml", "  epochs: 3\n", "  epochs: 4\n")
    monkeypatch.setenv("PRE_COMMIT", "1")  # what pre-commit sets for its hooks
    assert check(cli, "--quiet").out.splitlines()[-2] == (
        "Next: pre-commit checks what is staged: run `config-harness --settings harness.toml generate` if you have not, "
        "then `git add snapshots` and commit again"
    )


def test_a_contract_error_names_the_contract_file_and_line_in_text_and_json(project, cli):
    edit(project / "conf" / "backend" / "gpu.yaml", "count: 8", "count: 4")
    steps = [line for line in check(cli).out.splitlines() if line.startswith("Next: ")]
    assert steps[0] == (
        "Next: contract gpu-critical fails: fix the config, or change the contract at contracts.yaml:3 "
        "(a violation the tree already had: `config-harness known` records it, or add a waiver with a reason)"
    )
    report = check(cli, "--format", "json").json()
    (group,) = [g for g in report["groups"] if g["kind"] == "contract" and g["severity"] == "error"]
    assert group["contract_source"] == "contracts.yaml:3"
    assert {f["contract_source"] for c in report["cases"] for f in c["findings"] if f["kind"] == "contract"} == {"contracts.yaml:3"}


def test_a_case_with_an_error_finding_is_not_ok(project, cli):
    edit(project / "conf" / "backend" / "gpu.yaml", "    qkv: qkv_proj\n", "")
    assert cli("--settings", "harness.toml", "generate").code == 1  # the contract fails; goldens are written anyway
    report = check(cli, "--format", "json").json()
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert {i: s for i, s in statuses.items() if s != "ok"} == {f"train/gpu/{p}": "error" for p in ("default", "fast", "sgd")}
    assert (
        check(cli).out.splitlines()[-1]
        == "FAILED: 7 cases against goldens in snapshots: 4 ok, 3 failing; 1 blocking cause (3 findings), 3 warnings"
    )


def test_generate_counts_say_what_was_written(small_project, cli):
    first = cli("--settings", "harness.toml", "generate", cwd=small_project).out
    assert "7 golden(s) written: 7 new, 0 changed; 0 unchanged; 0 error(s)" in first.splitlines()
    edit(small_project / "conf" / "backend" / "cpu.yaml", "count: 1", "count: 2")
    second = cli("--settings", "harness.toml", "generate").out
    assert "3 golden(s) written: 0 new, 3 changed; 4 unchanged; 0 error(s)" in second.splitlines()
    assert (
        cli("--settings", "harness.toml", "generate").out.splitlines()[0]
        == "0 golden(s) written: 0 new, 0 changed; 7 unchanged; 0 error(s)"
    )


def test_null_and_an_absent_key_look_different(project, cli):
    gpu = project / "conf" / "backend" / "gpu.yaml"
    edit(gpu, "    qkv: qkv_proj\n", "")  # map: is left holding null
    edit(project / "conf" / "train.yaml", "layers: [a, b]", "layers: null")
    text = check(cli).out
    # check names the file and line that held the removed key, from the golden's provenance header (no git)
    assert (
        '  ERROR device.map.qkv: "qkv_proj" -> —  (4 cases: train/gpu/*, route/legacy; was set by conf/backend/gpu.yaml:7)'
        in text.splitlines()
    )
    assert "  ERROR device.map: — -> null  (4 cases: train/gpu/*, route/legacy; set by conf/backend/gpu.yaml:6)" in text.splitlines()
    assert '  ERROR trainer.layers: ["a", "b"] -> null  (all 7 cases; set by conf/train.yaml:9)' in text.splitlines()
    markdown = as_spans(check(cli, "--format", "markdown").out).splitlines()
    assert any(line.startswith('| `device.map.qkv` | `"qkv_proj"` → — |') for line in markdown)
    assert any(line.startswith("| `device.map` | — → `null` |") for line in markdown)


# ---- escaping: each repro from the hostile-input review ----

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")


def test_an_orphan_golden_named_with_a_newline_cannot_start_a_workflow_command(project, cli):
    (project / "snapshots" / "_generated_x\r\n::stop-commands::pwned\n.yaml").write_text("a: 1\n")
    (project / "snapshots" / "_generated_a,b:c%0A.yaml").write_text("a: 1\n")
    github = check(cli, "--format", "github").out.splitlines()
    assert not any(line.startswith("::stop-commands") or line.startswith("pwned") for line in github)
    assert (
        "::error file=snapshots/_generated_x%0D%0A%3A%3Astop-commands%3A%3Apwned%0A.yaml::"
        "orphan golden with no case; remove it with `generate --prune`" in github
    )
    # In a property `,` and `:` separate values, and `%` starts an escape: all three are escaped.
    assert any(line.startswith("::error file=snapshots/_generated_a%2Cb%3Ac%250A.yaml::") for line in github)
    assert all(line.startswith(("::error ", "::warning ", "Next: ")) for line in github[1:-1])  # the verdict opens and ends it
    markdown = check(cli, "--format", "markdown").out.splitlines()
    assert "- orphan golden: `snapshots/_generated_x ::stop-commands::pwned .yaml`" in markdown
    assert not any(line.startswith("::") for line in check(cli).out.splitlines())


HOSTILE_KEY = "x\n::stop-commands::tok"


def test_keys_and_values_from_a_config_cannot_inject_commands_cells_or_html(project, cli):
    train = project / "conf" / "train.yaml"
    hostile_value = "<img src=x onerror=alert(1)> | `tick` | ``two``"
    edit(train, "  epochs: 3\n", f"  epochs: 3\n  {json.dumps(HOSTILE_KEY)}: 1\n  note: {json.dumps(hostile_value)}\n")
    assert cli("--settings", "harness.toml", "generate").code == 0
    edit(train, "  epochs: 3\n", "  epochs: 3\n  extra_key: 1\n")
    edit(train, f"{json.dumps(HOSTILE_KEY)}: 1", f"{json.dumps(HOSTILE_KEY)}: 2")
    edit(train, f"note: {json.dumps(hostile_value)}", f"note: {json.dumps(hostile_value + '!')}")

    github = check(cli, "--format", "github").out.splitlines()
    assert all(line.startswith(("::error ", "::warning ", "Next: ")) for line in github[1:-1])  # the verdict opens and ends it
    assert not any(line.startswith("::stop-commands") for line in github)
    hostile = [line for line in github if "stop-commands" in line]
    # The title property escapes `:` too; in the data after the second `::`, only the line break needs escaping.
    assert hostile == [
        "::error file=conf/train.yaml,line=9,title=changed trainer.x%0A%3A%3Astop-commands%3A%3Atok::"
        "trainer.x%0A::stop-commands::tok: 1 -> 2 (all 7 cases)"
    ]

    markdown = check(cli, "--format", "markdown").out.splitlines()
    rows = [line for line in markdown if line.startswith("| ")]
    tables: list[list[str]] = []
    for previous, line in zip([""] + markdown, markdown):
        if line.startswith("| "):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
    # Every row has as many cells as its table's header: no pipe from the input opened a cell.
    assert len(tables) == 3 and all(len(UNESCAPED_PIPE.findall(row)) == len(UNESCAPED_PIPE.findall(t[0])) for t in tables for row in t)
    # Outside code spans (which GitHub shows as text) no tag survives.
    assert not any("<img" in CODE_SPAN.sub("", line) for line in outside_fences(markdown))
    assert any("<img" in line for line in markdown)  # inside a code span: shown, not run
    (note,) = [row for row in rows if "trainer.<wbr>note" in row]
    # A code span whose fence is longer than any backtick run inside it cannot be closed early; the value is
    # shortened in the table and whole in a fenced block whose fence no backtick run inside can close.
    assert '| `"<img src=x onerror=alert(1)> \\|…` → `"<img src=x onerror=alert(1)> \\|…` |' in note
    fence_line = markdown.index(
        'trainer.note: "<img src=x onerror=alert(1)> | `tick` | ``two``" -> "<img src=x onerror=alert(1)> | `tick` | ``two``!"'
    )
    assert markdown[fence_line - 1] == "```" and markdown[fence_line + 1] == "```"
    assert not any(line.startswith("::") for line in markdown)
    text = check(cli).out.splitlines()
    assert (
        not any(line.startswith("::") for line in text)
        and "  ERROR trainer.x\\n::stop-commands::tok: 1 -> 2  (all 7 cases; set by conf/train.yaml:9)" in text
    )


# ---- SARIF and JUnit: validated by their own model packages, not by our reading of the specs ----


def sarif_log(text):
    """A SARIF log parsed by sarif-pydantic's 2.1.0 model, with every field it does not model listed."""
    from pydantic import BaseModel
    from sarif_pydantic import Sarif

    log = Sarif.model_validate_json(text)
    unmodeled = set()

    def walk(node):
        if isinstance(node, BaseModel):
            unmodeled.update(f"{type(node).__name__}.{name}" for name in node.model_extra or {})
            for name in type(node).model_fields:
                walk(getattr(node, name))
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(log)
    return log, unmodeled


def test_sarif_is_valid_2_1_0_with_one_result_per_distinct_finding_and_waivers_suppressed(project, cli):
    edit(project / "conf" / "train.yaml", "layers: [a, b]", "layers: [a, c]")
    result = check(cli, "--format", "sarif")
    assert result.code == 1
    log, unmodeled = sarif_log(result.out)
    # The spec's `suppressions` (an array) is the one field sarif-pydantic names differently (`suppression`).
    assert log.version == "2.1.0" and unmodeled == {"Result.suppressions"}
    (run,) = log.runs
    assert run.tool.driver.name == "config-harness" and {rule.id for rule in run.tool.driver.rules} == {"changed", "contract"}
    (layers,) = [r for r in run.results if r.properties["path"] == "trainer.layers"]
    assert (layers.rule_id, str(layers.level.value)) == ("changed", "error")
    location = layers.locations[0].physical_location
    assert (location.artifact_location.uri, location.region.start_line) == ("conf/train.yaml", 9)
    assert len(layers.properties["cases"]) == 7 and layers.message.text.startswith('trainer.layers: ["a", "b"] -> ["a", "c"]')
    (waived,) = [r for r in json.loads(result.out)["runs"][0]["results"] if r["properties"]["path"] == "device.map.gate"]
    assert waived["level"] == "warning" and waived["suppressions"] == [
        {"kind": "external", "justification": "gate was never mapped; tracked upstream"}
    ]


def test_sarif_of_a_clean_run_has_no_open_result(project, cli):
    result = check(cli, "--format", "sarif")
    assert result.code == 0
    log = json.loads(result.out)
    assert all("suppressions" in r for r in log["runs"][0]["results"])


def junit_suite(text):
    from junitparser import JUnitXml

    (suite,) = list(JUnitXml.fromstring(text.encode("utf-8")))
    return suite


def test_junit_has_one_test_per_case_failing_with_its_errors(project, cli):
    edit(project / "conf" / "backend" / "gpu.yaml", "count: 8", "count: 4")  # a contract error and a change on gpu cases
    result = check(cli, "--format", "junit")
    assert result.code == 1
    suite = junit_suite(result.out)
    cases = {case.name: case for case in suite}
    assert set(cases) == {c["id"] for c in check(cli, "--format", "json").json()["cases"]}
    assert (suite.tests, suite.failures, suite.errors) == (7, 4, 0)
    (failure,) = cases["train/gpu/default"].result
    assert type(failure).__name__ == "Failure" and "device.count" in failure.message
    assert "gpu-critical: device.count must equal 8 but is 4" in failure.text and "device.count: 8 -> 4" in failure.text
    assert cases["train/cpu/default"].is_passed
    # A waived warning never fails a test; it is the test's output.
    assert "waived: gate was never mapped" in cases["train/gpu/fast"].system_out


def test_junit_a_case_that_cannot_compose_is_an_error_and_the_run_has_its_own_test(project, cli):
    edit(project / "conf" / "train.yaml", "  - backend: cpu\n", "  - backend: cpu\n  - missing_group: nope\n")
    (project / "snapshots" / "_generated_old.yaml").write_text("a: 1\n")
    suite = junit_suite(check(cli, "--format", "junit").out)
    cases = {case.name: case for case in suite}
    assert type(cases["train/cpu/default"].result[0]).__name__ == "Error"
    (orphan,) = cases["(run)"].result
    assert "snapshots/_generated_old.yaml" in orphan.text


def test_a_removed_subtree_is_one_line_verbose_lists_it_and_json_names_it(project, cli):
    edit(project / "conf" / "backend" / "gpu.yaml", "  map:\n    qkv: qkv_proj\n", "")
    edit(project / "conf" / "train.yaml", "  extra: {}\n", "  extra: {}\n  sched:\n    kind: cosine\n    warmup: 10\n")
    text = check(cli).out.splitlines()
    assert "  ERROR device.map.* (1 keys) removed" not in text  # one leaf reads as that leaf
    assert '  ERROR device.map.qkv: "qkv_proj" -> —  (4 cases: train/gpu/*, route/legacy; was set by conf/backend/gpu.yaml:7)' in text
    assert "  ERROR trainer.sched.* (2 keys) added  (all 7 cases; set by conf/train.yaml)" in text
    assert not any("trainer.sched.kind" in line for line in text)
    verbose = check(cli, "--verbose").out.splitlines()
    assert '    ERROR trainer.sched.kind: — -> "cosine"  (all 7 cases; set by conf/train.yaml:12)' in verbose
    report = check(cli, "--format", "json").json()
    (subtree,) = report["subtrees"]
    assert subtree == {
        "kind": "added",
        "path": "trainer.sched",
        "keys": 2,
        "severity": "error",
        "cases": [c["id"] for c in report["cases"]],
        "paths": ["trainer.sched.kind", "trainer.sched.warmup"],
    }
    assert {g["subtree"] for g in report["groups"] if g["path"].startswith("trainer.sched.")} == {"trainer.sched"}
    github = [line for line in check(cli, "--format", "github").out.splitlines() if "sched" in line]
    assert github == ["::error file=conf/train.yaml,line=12,title=added trainer.sched::trainer.sched.* (2 keys) added (all 7 cases)"]


# ---- our words for mistakes ----


def test_typos_get_one_line_with_the_closest_name(project, cli):
    case = check(cli, "--case", "train/gpo/*")
    assert case.code == 2 and case.err.strip().splitlines() == [
        "config-harness: error: --case 'train/gpo/*' matches no case; did you mean 'train/gpu/*'?; see `config-harness list`"
    ]
    listing = cli("--settings", "harness.toml", "list", "--case", "train/cpu/fats")
    assert listing.code == 2 and "did you mean 'train/cpu/fast'?" in listing.err and len(listing.err.strip().splitlines()) == 1
    explain = cli("--settings", "harness.toml", "explain", "trainer.epoch", "--case", "train/cpu/default")
    assert explain.code == 2 and explain.err.strip() == (
        "config-harness: error: trainer.epoch does not exist in case train/cpu/default; did you mean 'trainer.epochs'?"
    )
    settings = project / "harness.toml"
    settings.write_text(settings.read_text().replace("snapshot_dir =", "snapshot_dri ="))
    typo = check(cli)
    assert typo.code == 2 and "unknown key 'snapshot_dri'; did you mean 'snapshot_dir'?" in typo.err
    assert len(typo.err.strip().splitlines()) == 1


def test_settings_are_found_from_a_subfolder_like_git(small_project, cli):
    (small_project / "pyproject.toml").write_text(
        "[tool.config-harness]\n"
        + (small_project / "harness.toml")
        .read_text()
        .replace("[presets]", "[tool.config-harness.presets]")
        .replace("[[routes]]", "[[tool.config-harness.routes]]")
    )
    (small_project / "conf" / "sub" / "pyproject.toml").parent.mkdir(parents=True, exist_ok=True)
    (small_project / "conf" / "sub" / "pyproject.toml").write_text("[project]\nname = 'unrelated'\n")
    listed = cli("list", "--format", "json", cwd=small_project / "conf" / "sub")
    assert listed.code == 0 and len(listed.json()["cases"]) == 7


def test_report_files_hold_each_format_of_the_same_run_as_standard_output_would(project, cli, tmp_path):
    edit(project / "conf" / "train.yaml", "layers: [a, b]", "layers: [a, c]")
    reports = tmp_path / "reports"
    run = check(
        cli,
        "--format",
        "github",
        "--report",
        f"json:{reports / 'r.json'}",
        "--report",
        f"sarif:{reports / 'r.sarif'}",
        "--report",
        f"markdown:{reports / 'summary.md'}",
    )
    assert run.code == 1 and run.out == check(cli, "--format", "github").out
    for name, file in (("json", "r.json"), ("sarif", "r.sarif"), ("markdown", "summary.md")):
        assert (reports / file).read_text(encoding="utf-8") == check(cli, "--format", name).out, name
    assert "trainer.layers" in as_spans((reports / "summary.md").read_text(encoding="utf-8"))


def test_a_bad_report_target_is_one_usage_line(project, cli, tmp_path):
    unknown = check(cli, "--report", f"yml:{tmp_path / 'x'}")
    assert unknown.code == 2 and "'yml' is not a report format" in unknown.err and "Traceback" not in unknown.err
    no_file = check(cli, "--report", "sarif")
    assert no_file.code == 2 and "is not FORMAT:FILE" in no_file.err
    golden = project / "snapshots" / "_generated_train__cpu__default.yaml"
    files = cli("diff", str(golden), str(golden), "--report", f"json:{tmp_path / 'r.json'}")  # a file diff runs the engine too
    assert files.code == 0 and (tmp_path / "r.json").read_text() == cli("diff", str(golden), str(golden), "--format", "json").out


def test_a_report_file_never_lands_through_a_link_the_project_holds(project, cli, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere")
    (project / "out").symlink_to(outside)  # committed by a pull request; CI writes `--report json:out/...`
    run = check(cli, "--report", "json:out/sub/r.json")
    assert run.code == 2 and "--report json:out/sub/r.json: cannot write it" in run.err and "leads out of" in run.err
    assert list(outside.iterdir()) == []  # nothing written there, not even a folder
    inside = check(cli, "--report", "json:reports/r.json")
    assert inside.code == 0 and (project / "reports" / "r.json").is_file()
    beside = tmp_path_factory.mktemp("runner") / "summary.md"  # outside the project, as $GITHUB_STEP_SUMMARY is
    assert check(cli, "--report", f"markdown:{beside}").code == 0 and beside.is_file()
