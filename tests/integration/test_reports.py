"""Reports on a small Hydra tree: grouped, triaged the same in every format, honest, and escaped."""

from __future__ import annotations

import json
import re

import pytest

from harness.report import SCHEMA_VERSION
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


def test_one_change_on_every_case_is_named_once_in_every_format(project, cli):
    edit(project / "conf" / "train.yaml", "layers: [a, b]", "layers: [a, c]")
    text = check(cli).out
    assert text.count("trainer.layers") == 1
    assert '  ERROR trainer.layers: ["a", "b"] -> ["a", "c"]  (all 7 cases; set by conf/train.yaml:9)' in text.splitlines()
    markdown = check(cli, "--format", "markdown").out
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
    markdown = check(cli, "--format", "markdown").out.splitlines()
    assert paths_in_order(markdown, paths) == expected
    github = check(cli, "--format", "github").out.splitlines()
    assert paths_in_order(github, paths) == expected


def test_refactors_are_folded_in_text_and_markdown(project, cli):
    edit(project / "conf" / "backend" / "cpu.yaml", "kind: cpu", "kind: ${backend}")
    result = check(cli)
    assert result.code == 1  # a golden that differs is an error, refactor or not
    assert "device.kind" not in result.out and "Refactors with unchanged values: 1 (folded; --verbose lists them)" in result.out
    assert result.out.startswith("1 refactor with an unchanged value only on train/cpu/* (folded).")
    assert '  ERROR device.kind: "cpu" -> "${backend}"  (3 cases: train/cpu/*; set by conf/backend/cpu.yaml:4)' in (
        check(cli, "--verbose").out.splitlines()
    )
    markdown = check(cli, "--format", "markdown").out
    folded = markdown[markdown.index("<details>"):]
    assert "<summary>Refactors with unchanged values (1)</summary>" in folded and "`device.kind`" in folded
    assert "`device.kind`" not in markdown[: markdown.index("<details>")]


def test_waived_warnings_are_summarized_verbose_names_cases_and_quiet_is_quiet(project, cli):
    clean = check(cli)
    assert clean.code == 0
    lines = clean.out.splitlines()
    waived = [line for line in lines if "device.map.gate" in line]
    # Three gpu cases share one warning: one line, its case count, the reason once.
    assert waived == ["  gpu-critical: device.map.gate is required but missing  (3 cases)  waived: gate was never mapped; tracked upstream"]
    assert clean.out.count("tracked upstream") == 1
    verbose = check(cli, "--verbose").out
    assert "gpu-critical: device.map.gate is required but missing  (3 cases: train/gpu/*)" in verbose
    quiet = check(cli, "--quiet").out
    assert quiet.splitlines() == ["OK: 7 cases against goldens in snapshots: 7 ok, 0 changed, 0 new, 0 error; 0 errors, 3 warnings"]
    markdown = check(cli, "--format", "markdown").out
    assert markdown.count("tracked upstream") == 1 and "<summary>Waived warnings: 3, 1 distinct</summary>" in markdown
    github = check(cli, "--format", "github").out
    assert len([line for line in github.splitlines() if line.startswith("::warning")]) == 1


def test_a_case_with_an_error_finding_is_not_ok(project, cli):
    edit(project / "conf" / "backend" / "gpu.yaml", "    qkv: qkv_proj\n", "")
    assert cli("--settings", "harness.toml", "generate").code == 1  # the contract fails; goldens are written anyway
    report = check(cli, "--format", "json").json()
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert {i: s for i, s in statuses.items() if s != "ok"} == {f"train/gpu/{p}": "error" for p in ("default", "fast", "sgd")}
    assert "FAILED: 7 cases against goldens in snapshots: 4 ok, 0 changed, 0 new, 3 error; 3 errors" in check(cli).out


def test_generate_counts_say_what_was_written(small_project, cli):
    first = cli("--settings", "harness.toml", "generate", cwd=small_project).out
    assert "7 golden(s) written: 7 new, 0 changed; 0 unchanged; 0 error(s)" in first.splitlines()
    edit(small_project / "conf" / "backend" / "cpu.yaml", "count: 1", "count: 2")
    second = cli("--settings", "harness.toml", "generate").out
    assert "3 golden(s) written: 0 new, 3 changed; 4 unchanged; 0 error(s)" in second.splitlines()
    assert cli("--settings", "harness.toml", "generate").out.splitlines()[0] == "0 golden(s) written: 0 new, 0 changed; 7 unchanged; 0 error(s)"


def test_null_and_an_absent_key_look_different(project, cli):
    gpu = project / "conf" / "backend" / "gpu.yaml"
    edit(gpu, "    qkv: qkv_proj\n", "")  # map: is left holding null
    edit(project / "conf" / "train.yaml", "layers: [a, b]", "layers: null")
    text = check(cli).out
    assert '  ERROR device.map.qkv: "qkv_proj" -> —  (4 cases: train/gpu/*, route/legacy)' in text.splitlines()
    assert "  ERROR device.map: — -> null  (4 cases: train/gpu/*, route/legacy; set by conf/backend/gpu.yaml:6)" in text.splitlines()
    assert '  ERROR trainer.layers: ["a", "b"] -> null  (all 7 cases; set by conf/train.yaml:9)' in text.splitlines()
    markdown = check(cli, "--format", "markdown").out.splitlines()
    assert any(line.startswith("| error | `device.map.qkv` | `\"qkv_proj\"` | — |") for line in markdown)
    assert any(line.startswith("| error | `device.map` | — | `null` |") for line in markdown)


# ---- escaping: each repro from the hostile-input review ----

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")


def test_an_orphan_golden_named_with_a_newline_cannot_start_a_workflow_command(project, cli):
    (project / "snapshots" / "_generated_x\r\n::stop-commands::pwned\n.yaml").write_text("a: 1\n")
    (project / "snapshots" / "_generated_a,b:c%0A.yaml").write_text("a: 1\n")
    github = check(cli, "--format", "github").out.splitlines()
    assert not any(line.startswith("::stop-commands") or line.startswith("pwned") for line in github)
    assert "::error file=snapshots/_generated_x%0D%0A%3A%3Astop-commands%3A%3Apwned%0A.yaml::" \
           "orphan golden with no case; remove it with `generate --prune`" in github
    # In a property `,` and `:` separate values, and `%` starts an escape: all three are escaped.
    assert any(line.startswith("::error file=snapshots/_generated_a%2Cb%3Ac%250A.yaml::") for line in github)
    assert all(line.startswith(("::error ", "::warning ")) for line in github[:-1])
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
    assert all(line.startswith(("::error ", "::warning ")) for line in github[:-1])
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
    assert not any("<img" in CODE_SPAN.sub("", line) for line in markdown)
    assert any("<img" in line for line in markdown)  # inside a code span: shown, not run
    (note,) = [row for row in rows if "trainer.note" in row]
    # A code span whose fence is longer than any backtick run inside it cannot be closed early.
    assert '| ```"<img src=x onerror=alert(1)> \\| `tick` \\| ``two``!"``` |' in note
    assert not any(line.startswith("::") for line in markdown)
    text = check(cli).out.splitlines()
    assert not any(line.startswith("::") for line in text) and "  ERROR trainer.x\\n::stop-commands::tok: 1 -> 2  (all 7 cases; set by conf/train.yaml:9)" in text
