"""`check`: every case against its golden; exit 0 when all match, 1 naming the changed value, its cases and the
command that regenerates them; `--case` narrows the run."""

import json


def test_matching_goldens_pass_in_one_line(generated, cli):
    run = cli("--settings", "harness.toml", "check")
    assert run.code == 0 and run.out.startswith("OK: 2 cases against goldens in snapshots: 2 ok") and run.out.count("\n") == 1


def test_a_changed_value_fails_naming_the_key_its_case_and_the_next_step(generated, cli):
    gpu = generated / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("bf16", "fp16"))
    run = cli("--settings", "harness.toml", "check")
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[0] == lines[-1] and lines[0].startswith("FAILED: 2 cases against goldens in snapshots: 1 ok, 1 changed")
    assert '  ERROR trainer.precision: "bf16" -> "fp16"  (train/gpu/default; set by conf/backend/gpu.yaml:4)' in lines
    assert any(line.startswith("Next: ") and "config-harness --settings harness.toml generate" in line for line in lines)
    # Only the cpu case: nothing changed there.
    assert cli("--settings", "harness.toml", "check", "--case", "train/cpu/*").code == 0


def test_the_json_report_and_a_report_file_come_from_the_same_run(generated, cli):
    run = cli("--settings", "harness.toml", "check", "--format", "json", "--report", "junit:out/check.xml")
    assert run.code == 0 and json.loads(run.out)["ok"] is True
    assert (generated / "out" / "check.xml").read_text().startswith("<?xml")


def test_a_missing_golden_is_a_new_case_that_fails(generated, cli):
    (generated / "snapshots" / "_generated_train__cpu__default.yaml").unlink()
    run = cli("--settings", "harness.toml", "check", "--quiet")
    assert run.code == 1 and "1 new" in run.out.splitlines()[0]
