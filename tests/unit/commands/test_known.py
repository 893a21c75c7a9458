"""`known`: the findings that hold now recorded as known entries in the settings' known file, so the next `check`
counts them instead of failing; with `--reason`, the `changes:` records written in another contracts file."""

import yaml

CONTRACT = """
contracts:
  - name: gpu-precision
    require: [trainer.precision]
"""


def adopt_contract(project, known=True):
    (project / "contracts.yaml").write_text(CONTRACT)
    files = '["contracts.yaml", "known.yaml"]' if known else '["contracts.yaml"]'
    (project / "known.yaml").write_text("")
    settings = project / "harness.toml"
    settings.write_text(f"contracts = {files}\n" + settings.read_text())


def test_what_holds_now_is_recorded_and_check_counts_it(generated, cli):
    adopt_contract(generated)
    assert cli("--settings", "harness.toml", "check").code == 1  # the cpu case has no precision
    run = cli("--settings", "harness.toml", "known")
    assert run.code == 0 and run.out == "1 finding recorded in known.yaml (review it: an entry is a loosening)\n"
    (entry,) = yaml.safe_load((generated / "known.yaml").read_text())["waivers"]
    assert (entry["finding"], entry["what"], entry["path"]) == ("contract", "gpu-precision", "trainer.precision")
    assert entry["reason"].endswith("gpu-precision: trainer.precision is required but missing")
    assert cli("--settings", "harness.toml", "check").code == 0
    again = cli("--settings", "harness.toml", "known")
    assert again.out == "0 findings recorded in known.yaml\n"


def test_a_reason_writes_the_records_in_the_other_contracts_file(generated, cli):
    adopt_contract(generated)
    run = cli("--settings", "harness.toml", "known", "--reason", "cpu runs in fp32")
    assert run.code == 0 and run.out.splitlines()[-1] == "1 `changes:` record written in contracts.yaml (its owners approve them)"
    (record,) = yaml.safe_load((generated / "contracts.yaml").read_text())["changes"]
    assert record["reason"] == "cpu runs in fp32"


def test_without_a_known_file_or_with_a_stranger_it_refuses(generated, cli):
    adopt_contract(generated, known=False)
    run = cli("--settings", "harness.toml", "known")
    assert run.code == 2 and "no contracts file is named known.yaml; name one with --file" in run.err
    (generated / "other.yaml").write_text("")
    stranger = cli("--settings", "harness.toml", "known", "--file", "other.yaml")
    assert stranger.code == 2 and "--file other.yaml: not one of the settings' contracts files, so it would excuse nothing" in stranger.err
    base = cli("--settings", "harness.toml", "known", "--file", "contracts.yaml", "--base", "main")
    assert base.code == 2 and "known --base REF: give --reason TEXT too" in base.err


def test_known_counts_what_it_records_in_check_s_words(generated, cli):
    """Issue 56: `known` said "8 findings recorded" (its entries) where check said "5 causes (13 findings)". It says
    the findings and causes check counted, and the entries when they are not one per cause; check then counts them so."""
    (generated / "contracts.yaml").write_text("contracts:\n  - name: tpu\n    require: [trainer.tpu_cores]\n")  # on both cases
    (generated / "known.yaml").write_text("")
    settings = generated / "harness.toml"
    settings.write_text('contracts = ["contracts.yaml", "known.yaml"]\n' + settings.read_text())
    failing = cli("--settings", "harness.toml", "check")
    assert "1 blocking cause (2 findings)" in failing.out.splitlines()[0]
    assert (
        cli("--settings", "harness.toml", "known").out
        == "2 findings (1 cause) recorded in known.yaml (review it: an entry is a loosening)\n"
    )
    assert "(2 known findings (1 cause), excused by the known file" in cli("--settings", "harness.toml", "check").out
