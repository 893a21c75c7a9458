"""The CLI on a small, non-verl Hydra tree, driven exactly as the interface says."""

from __future__ import annotations

import shutil

from harness.reporters.json import SCHEMA_VERSION
from tests.integration.test_reports import as_spans


def test_list_generate_check_and_edit(small_project, cli):
    listing = cli("--settings", "harness.toml", "list", "--format", "json", cwd=small_project).json()
    ids = [c["id"] for c in listing["cases"]]
    assert ids == [f"train/{e}/{p}" for e in ("cpu", "gpu") for p in ("default", "fast", "sgd")] + ["route/legacy"]
    fast = listing["cases"][4]
    assert fast["overrides"] == ["backend=gpu", "trainer.epochs=1", "trainer.lr=0.5"]
    assert fast["golden"] == "snapshots/_generated_train__gpu__fast.yaml"

    missing = cli("--settings", "harness.toml", "check", "--format", "json")
    assert missing.code == 1 and {c["status"] for c in missing.json()["cases"]} == {"new"}

    assert cli("--settings", "harness.toml", "generate").code == 0
    assert cli("--settings", "harness.toml", "check").code == 0

    gpu = small_project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4").replace("    qkv: qkv_proj\n", ""))
    result = cli("--settings", "harness.toml", "check", "--format", "json")
    assert result.code == 1
    changed = {c["id"]: c for c in result.json()["cases"] if c["status"] == "changed"}
    assert set(changed) == {"train/gpu/default", "train/gpu/fast", "train/gpu/sgd", "route/legacy"}
    findings = {(f["kind"], f["path"], f["old"], f["new"]) for f in changed["train/gpu/default"]["findings"] if f["severity"] == "error"}
    # `map:` is left holding null: its lost leaf is removed and the null value is new.
    assert findings == {
        ("changed", "device.count", 8, 4),
        ("removed", "device.map.qkv", "qkv_proj", None),
        ("added", "device.map", None, None),
    }


def test_route_parity(small_project, cli):
    legacy = small_project / "conf" / "legacy.yaml"
    legacy.write_text(legacy.read_text() + "trainer:\n  epochs: 9\n")
    result = cli("--settings", "harness.toml", "generate", cwd=small_project)
    assert result.code == 1
    report = cli("--settings", "harness.toml", "check", "--format", "json").json()
    (route,) = [c for c in report["cases"] if c["id"] == "route/legacy"]
    assert [(f["kind"], f["path"], f["old"], f["new"]) for f in route["findings"] if f["kind"] == "parity"] == [
        ("parity", "trainer.epochs", 3, 9)
    ]


def test_diff_files_and_folders(small_project, cli, tmp_path):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    old = tmp_path / "old"
    shutil.copytree(small_project / "snapshots", old)
    same = cli("diff", str(old / "_generated_route__legacy.yaml"), str(small_project / "snapshots" / "_generated_route__legacy.yaml"))
    assert same.code == 0
    gpu = small_project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("kind: cuda", "kind: rocm"))
    cli("--settings", "harness.toml", "generate")
    changed = cli("diff", str(old / "_generated_route__legacy.yaml"), "snapshots/_generated_route__legacy.yaml", "--format", "json")
    assert changed.code == 1
    report = changed.json()  # the interface's `changes`, beside check's shape (the engine compared them)
    assert (report["schema_version"], report["mode"]) == (SCHEMA_VERSION, "files")
    assert report["changes"] == [{"kind": "changed", "path": "device.kind", "old": "cuda", "new": "rocm"}]
    assert report["ok"] is False and [c["status"] for c in report["cases"]] == ["changed"]
    folders = cli("diff", str(old), "snapshots", "--format", "json")
    assert folders.code == 1 and len(folders.json()["changes"]) == 4 and folders.json()["mode"] == "goldens"


def test_generate_check_mode_names_files_without_writing(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    golden = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    before = golden.read_bytes()
    cpu = small_project / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    result = cli("--settings", "harness.toml", "generate", "--check")
    assert result.code == 1 and "would change: snapshots/_generated_train__cpu__default.yaml" in result.out
    assert golden.read_bytes() == before


def test_orphans_reported_then_pruned(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    orphan = small_project / "snapshots" / "_generated_old_case.yaml"
    orphan.write_text("a: 1\n")
    report = cli("--settings", "harness.toml", "check", "--format", "json")
    assert report.code == 1 and report.json()["orphans"] == ["snapshots/_generated_old_case.yaml"]
    assert report.json()["ok"] is False
    assert orphan.exists()
    pruned = cli("--settings", "harness.toml", "generate", "--prune")
    assert "pruned orphan golden: snapshots/_generated_old_case.yaml" in pruned.out and not orphan.exists()


def test_bad_inputs_exit_2_with_one_line(small_project, cli):
    (small_project / "bad.toml").write_text('config_dir = "conf"\nroots = ["train"]\ncolour = 1\n')
    result = cli("--settings", "bad.toml", "check", cwd=small_project)
    assert result.code == 2 and "unknown key 'colour'" in result.err and len(result.err.strip().splitlines()) == 1
    assert cli("--settings", "harness.toml", "--config-dir", "nowhere", "check").code == 2
    (small_project / "c.yaml").write_text("contracts:\n  - name: x\n    bogus: 1\n")
    bad_contract = cli("--settings", "harness.toml", "--contracts", "c.yaml", "check")
    assert bad_contract.code == 2 and "c.yaml:3: unknown key 'bogus'" in bad_contract.err
    assert cli("--settings", "harness.toml", "frobnicate").code == 2


def test_broken_case_is_an_error_finding_and_the_rest_still_checked(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    golden = small_project / "snapshots" / "_generated_train__gpu__default.yaml"
    before = golden.read_bytes()
    (small_project / "conf" / "backend" / "gpu.yaml").write_text("backend: gpu\ndevice: [\n")
    result = cli("--settings", "harness.toml", "check", "--format", "json")
    assert result.code == 1
    statuses = {c["id"]: c["status"] for c in result.json()["cases"]}
    assert statuses["train/gpu/default"] == "error" and statuses["train/cpu/default"] == "ok"
    (error,) = [c for c in result.json()["cases"] if c["id"] == "train/gpu/default"][0]["findings"]
    assert "backend/gpu.yaml:3" in error["message"] and "invalid YAML" in error["message"]
    assert cli("--settings", "harness.toml", "generate").code == 1
    assert golden.read_bytes() == before  # a broken case never blanks its golden


def test_explain_names_the_file_that_set_the_value(small_project, cli):
    result = cli("--settings", "harness.toml", "explain", "device.count", "--case", "route/legacy", cwd=small_project)
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0].startswith("device.count = 8")
    assert "set by" in lines[1] and "backend/gpu.yaml" in lines[1]
    preset = cli("--settings", "harness.toml", "explain", "trainer.epochs", "--case", "train/cpu/fast")
    assert "set by override: trainer.epochs=1" in preset.out and "overrode" in preset.out and "train.yaml" in preset.out
    assert cli("--settings", "harness.toml", "explain", "no.such.key", "--case", "route/legacy").code == 2


def test_markdown_and_github_reports(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    cpu = small_project / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    markdown = cli("--settings", "harness.toml", "check", "--format", "markdown")
    assert markdown.code == 1
    # One row for the change, naming its three cases.
    row = (
        "| <code>device.<wbr>count</code> | `1` → `2` | <details><summary>3 cases</summary>train/cpu/\\*</details> "
        "| <code>conf/<wbr>backend/<wbr>cpu.<wbr>yaml:5</code> |"
    )
    assert row in markdown.out.splitlines() and markdown.out.count("device.<wbr>count") == 1
    assert markdown.out.index("### Errors") < markdown.out.index(row)
    github = cli("--settings", "harness.toml", "check", "--format", "github")
    # One annotation for the three cases, at the config line that now sets the value, not at the golden. (under the verdict)
    assert github.out.splitlines()[1:-2] == [
        "::error file=conf/backend/cpu.yaml,line=5,title=changed device.count::device.count: 1 -> 2 (3 cases: train/cpu/*)"
    ]
    assert github.out.splitlines()[-2].startswith("Next: if these changes are intended: run `config-harness")
    text = cli("--settings", "harness.toml", "check")
    assert "  ERROR device.count: 1 -> 2  (3 cases: train/cpu/*; set by conf/backend/cpu.yaml:5)" in text.out.splitlines()


def test_github_annotation_of_a_removed_key_is_where_it_was_set_else_at_the_golden_line(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    gpu = small_project / "conf" / "backend" / "gpu.yaml"
    held = gpu.read_text().splitlines().index("    qkv: qkv_proj") + 1
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))
    github = cli("--settings", "harness.toml", "check", "--format", "github").out.splitlines()
    # The golden's header records the file and line that set each value: the annotation is where the key was.
    assert (
        f"::error file=conf/backend/gpu.yaml,line={held},title=removed device.map.qkv::"
        'device.map.qkv: "qkv_proj" -> — (4 cases: train/gpu/*, route/legacy)'
    ) in github
    # A golden written before headers recorded it: the golden's own line.
    for path in (small_project / "snapshots").glob("*.yaml"):
        path.write_text("".join(line for line in path.read_text().splitlines(True) if not line.startswith(("# set: ", "# selected: "))))
    github = cli("--settings", "harness.toml", "check", "--format", "github").out.splitlines()
    golden = (small_project / "snapshots" / "_generated_train__gpu__default.yaml").read_text().splitlines()
    line = golden.index("    qkv: qkv_proj") + 1
    assert (
        f"::error file=snapshots/_generated_train__gpu__default.yaml,line={line},title=removed device.map.qkv::"
        'device.map.qkv: "qkv_proj" -> — (4 cases: train/gpu/*, route/legacy)'
    ) in github


def test_a_preset_value_is_sourced_to_its_override(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text().replace('"trainer.lr=0.5"', '"trainer.lr=0.25"'))
    report = cli("--settings", "harness.toml", "check", "--format", "json").json()
    (fast,) = [c for c in report["cases"] if c["id"] == "train/cpu/fast"]
    assert [(f["path"], f["source"]) for f in fast["findings"] if f["kind"] == "changed"] == [("trainer.lr", "override trainer.lr=0.25")]


def test_explain_names_what_an_interpolation_depends_on(small_project, cli):
    result = cli("--settings", "harness.toml", "explain", "trainer.effective_lr", "--case", "train/cpu/fast", cwd=small_project)
    assert result.code == 0
    assert "depends on trainer.lr = 0.5  (set by override trainer.lr=0.5)" in result.out
    assert "resolves to: 0.5" in result.out


def test_diff_markdown_of_two_folders_names_each_change_once_with_its_goldens(small_project, cli, tmp_path):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    old = tmp_path / "old"
    shutil.copytree(small_project / "snapshots", old)
    cpu = small_project / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    cli("--settings", "harness.toml", "generate")
    result = cli("diff", str(old), "snapshots", "--format", "markdown")
    assert result.code == 1
    assert f"Comparing two snapshot folders, 7 goldens: `{old}` → `snapshots`." in as_spans(result.out).splitlines()
    (row,) = [line for line in result.out.splitlines() if "device.<wbr>count" in line]
    assert "`1` → `2`" in row and "3 cases" in row
    goldens = row.split("<details><summary>3 cases</summary>")[1].split("</details>")[0].replace("\\_", "_")
    assert goldens == ", ".join(f"_generated_train__cpu__{preset}.yaml" for preset in ("default", "fast", "sgd"))


def test_a_golden_with_bad_bytes_is_reported_not_a_crash(small_project, cli):
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    golden = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    golden.write_bytes(golden.read_bytes().replace(b"kind: cpu", b"kind: c\xffu"))
    result = cli("--settings", "harness.toml", "check", "--format", "json")
    assert result.code == 1
    (case,) = [c for c in result.json()["cases"] if c["id"] == "train/cpu/default"]
    assert case["status"] == "changed" and [f["path"] for f in case["findings"] if f["kind"] == "changed"] == ["device.kind"]


def test_prune_with_a_case_glob_keeps_the_goldens_of_the_cases_left_out(small_project, cli):
    """`--case` narrows what is written; the other cases still own their goldens, so pruning never deletes them."""
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    goldens = sorted(path.name for path in (small_project / "snapshots").iterdir())
    orphan = small_project / "snapshots" / "_generated_old_case.yaml"
    orphan.write_text("a: 1\n")
    pruned = cli("--settings", "harness.toml", "generate", "--prune", "--case", "train/cpu/*")
    assert pruned.code == 0 and not orphan.exists()
    assert sorted(path.name for path in (small_project / "snapshots").iterdir()) == goldens
