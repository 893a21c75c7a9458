"""`generate`: writes the golden of each case that differs and counts what it did; `--check` writes nothing and
exits 1 naming each golden that would change; `--prune` removes a golden no case owns."""

from tests.unit.commands.conftest import CASES

GOLDENS = [f"snapshots/_generated_{case.replace('/', '__')}.yaml" for case in CASES]


def test_the_first_run_writes_every_golden_and_the_second_none(tiny, cli):
    first = cli("--settings", "harness.toml", "generate")
    assert first.code == 0
    assert [line for line in first.out.splitlines() if line.startswith("wrote ")] == [f"wrote {golden}" for golden in GOLDENS]
    assert "2 golden(s) written: 2 new, 0 changed; 0 unchanged; 0 error(s)" in first.out
    assert "device:\n  count: 8\n  kind: cuda\n" in (tiny / GOLDENS[1]).read_text()
    again = cli("--settings", "harness.toml", "generate")
    assert again.code == 0 and "0 golden(s) written: 0 new, 0 changed; 2 unchanged; 0 error(s)" in again.out


def test_check_names_what_would_change_and_writes_nothing(generated, cli):
    golden = generated / GOLDENS[0]
    before = golden.read_bytes()
    (generated / "conf" / "train.yaml").write_text((generated / "conf" / "train.yaml").read_text().replace("steps: 10", "steps: 20"))
    run = cli("--settings", "harness.toml", "generate", "--check")
    assert run.code == 1
    assert run.out.splitlines()[:3] == [
        f"would change: {GOLDENS[0]} (changed)",
        f"would change: {GOLDENS[1]} (changed)",
        "2 of 2 goldens would change",
    ]
    assert golden.read_bytes() == before
    assert cli("--settings", "harness.toml", "generate", "--check", "--case", "nothing*").code == 2


def test_an_orphan_golden_is_kept_unless_pruned(generated, cli):
    orphan = generated / "snapshots" / "_generated_gone__cpu__default.yaml"
    orphan.write_text("a: 1\n")
    kept = cli("--settings", "harness.toml", "generate")
    assert kept.code == 0 and orphan.exists() and "orphan golden (no case): snapshots/_generated_gone__cpu__default.yaml" in kept.out
    # generate says what is left to do as check says it (issue 56: every surface prints the table's steps).
    assert "Next: remove orphan goldens: `config-harness --settings harness.toml generate --prune`" in kept.out.splitlines()
    assert cli("--settings", "harness.toml", "generate", "--prune").code == 0 and not orphan.exists()


def test_a_case_that_does_not_compose_is_an_error_and_its_golden_stays(generated, cli):
    golden = generated / GOLDENS[1]
    before = golden.read_bytes()
    (generated / "conf" / "backend" / "gpu.yaml").write_text("device: [unclosed\n")
    run = cli("--settings", "harness.toml", "generate")
    assert run.code == 1 and "0 golden(s) written: 0 new, 0 changed; 1 unchanged; 1 error(s)" in run.out
    assert golden.read_bytes() == before
