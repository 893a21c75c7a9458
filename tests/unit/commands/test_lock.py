"""`lock --from ID --against ID --case GLOB --name NAME`: what only the known-good case has becomes required and
pinned; printed, or merged into `--output` (a re-lock that loosens needs `--reason`)."""

import yaml

LOCK = ("--settings", "harness.toml", "lock", "--from", "train/gpu/default", "--against", "train/cpu/default", "--name", "gpu")


def test_the_derived_contract_requires_and_pins_what_only_the_locked_case_has(tiny, cli):
    run = cli(*LOCK, "--case", "train/gpu/*")
    assert run.code == 0 and run.out.startswith("# Derived by `config-harness lock --from train/gpu/default --against train/cpu/default`")
    (contract,) = yaml.safe_load(run.out)["contracts"]
    assert contract == {
        "name": "gpu",
        "cases": "train/gpu/*",
        "require": ["trainer.precision"],
        "equal": {"device.count": 8, "device.kind": "cuda", "trainer.precision": "bf16"},
    }


def test_output_merges_and_a_loosening_needs_a_reason(tiny, cli):
    written = cli(*LOCK, "--case", "train/gpu/*", "--output", "contracts.yaml")
    assert written.code == 0 and written.out.splitlines()[-1] == "wrote contracts.yaml: 1 required, 3 pinned"
    assert yaml.safe_load((tiny / "contracts.yaml").read_text())["contracts"][0]["name"] == "gpu"
    # The same lock against the gpu case itself drops every term: refused without a reason, recorded with one.
    same = ("--settings", "harness.toml", "lock", "--from", "train/gpu/default", "--against", "train/gpu/default", "--name", "gpu")
    refused = cli(*same, "--case", "train/gpu/*", "--output", "contracts.yaml")
    assert refused.code == 2 and refused.err.count("\n") == 1
    assert refused.err.startswith("config-harness: error: contracts.yaml: lock would drop or re-pin 4 term(s) of gpu (")
    assert refused.err.rstrip().endswith("rerun with --reason TEXT to record why")
    assert cli(*same, "--case", "train/gpu/*", "--output", "contracts.yaml", "--reason", "gpu retired").code == 0
    assert "gpu retired" in (tiny / "contracts.yaml").read_text()


def test_bad_input_is_one_line(tiny, cli):
    two = cli(*LOCK, "--case", "a", "--case", "b")
    assert two.code == 2 and "a contract covers one glob; give --case once" in two.err
    unknown = cli(
        "--settings", "harness.toml", "lock", "--from", "train/gpu/defalt", "--against", "train/cpu/default", "--name", "x", "--case", "*"
    )
    assert unknown.code == 2 and "no case 'train/gpu/defalt'" in unknown.err and "train/gpu/default" in unknown.err
