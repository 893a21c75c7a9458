"""Contracts in check and in the review, on a small project inside a real git repository: stale waivers,
contract changes with and without a recorded reason, hygiene warnings."""

from __future__ import annotations

import pytest

from tests.conftest import commit_small_project

CONTRACTS = """\
# Hand-written contracts for the small project.
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
    equal: {device.count: 8}
waivers:
  - contract: gpu-critical
    path: device.count
    cases: "train/gpu/fast"
    reason: the fast preset was meant to use fewer devices
"""


@pytest.fixture
def repository(small_project, cli):
    return commit_small_project(small_project, cli, CONTRACTS)


def run_findings(result):
    return [(f["kind"], f["severity"], f["message"]) for f in result.json()["findings"]]


def test_a_waiver_whose_violation_is_gone_is_reported_in_check_and_in_the_review(repository, cli):
    check = cli("--settings", "harness.toml", "check", "--format", "json")
    assert check.code == 0
    (stale,) = run_findings(check)
    assert stale[:2] == ("contract", "warning")
    assert stale[2].startswith("gpu-critical: waiver no longer needed: no case in cases 'train/gpu/fast' violates device.count")
    assert cli("--settings", "harness.toml", "check", "--strict-waivers").code == 1
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert review.code == 0 and run_findings(review) == [stale]
    assert cli("--settings", "harness.toml", "diff", "--base", "main", "--strict-waivers").code == 1
    # Once the waiver is needed again, it is no longer reported.
    (repository / "harness.toml").write_text(
        (repository / "harness.toml").read_text().replace('fast = ["trainer.epochs=1"', 'fast = ["device.count=2", "trainer.epochs=1"')
    )
    check = cli("--settings", "harness.toml", "check", "--format", "json")
    assert run_findings(check) == []


def test_a_loosened_contract_fails_the_review_until_a_record_gives_the_reason(repository, cli):
    contracts = repository / "contracts.yaml"
    contracts.write_text(CONTRACTS.replace("    require: [device.map.qkv]\n", ""))
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert result.code == 1
    (change,) = [f for f in result.json()["findings"] if f["kind"] == "contract_change"]
    assert (change["path"], change["old"], change["new"], change["severity"]) == ("device.map.qkv", "require", None, "error")
    assert "{contract: gpu-critical, path: device.map.qkv, old: require, new: null, reason: WHY}" in change["message"]
    # check has no baseline to compare contracts with: the loosening is the review's business.
    assert cli("--settings", "harness.toml", "check").code == 0

    record = "changes:\n  - {contract: gpu-critical, path: device.map.qkv, old: require, new: null, reason: qkv moved to the model}\n"
    contracts.write_text(contracts.read_text() + record)
    text = cli("--settings", "harness.toml", "diff", "--base", "main")
    assert text.code == 0
    lines = text.out.splitlines()
    # Which settings decided the review, then the summary; the contract change is the first finding listed.
    assert lines[0].startswith("settings: main's harness.toml")
    assert lines[1] == "OK: 7 cases against goldens at main: 7 ok; 2 warnings"  # the verdict, under the settings
    assert lines.count(lines[1]) == 1  # a passing verdict is said once
    assert lines[2].startswith("1 contract, settings or hydra change carries a recorded reason: the owners of harness.toml")
    assert lines[3].startswith("1 contract change.") and lines[5].startswith("Errors and contract changes")
    assert lines[6].startswith("  WARNING contract change: gpu-critical:") and "[recorded reason: qkv moved to the model]" in lines[6]
    markdown = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "markdown").out
    row = next(line for line in markdown.splitlines() if line.startswith("| contract change: gpu-critical:"))
    assert "require device.map.qkv removed" in row and "qkv moved to the model" in row, row  # short words stay whole
    assert markdown.index("### Warnings") < markdown.index(row)


def test_a_deleted_contracts_file_removes_every_term(repository, cli):
    (repository / "contracts.yaml").write_text("")
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert result.code == 1
    terms = {(f["path"], str(f["old"])) for f in result.json()["findings"] if f["kind"] == "contract_change"}
    assert terms == {("device.map.qkv", "require"), ("device.count", "{'equal': 8}")}


def test_hygiene_warnings_name_the_contract(repository, cli):
    (repository / "contracts.yaml").write_text(CONTRACTS.replace('"train/gpu/*"', '"train/tpu/*"'))
    messages = [m for _, _, m in run_findings(cli("--settings", "harness.toml", "check", "--format", "json"))]
    assert "gpu-critical: cases 'train/tpu/*' matches no case; the contract checks nothing" in messages


ALIASES = """\
contracts:
  - name: workers
    agree: [[device.count, device.workers]]
"""


def test_a_widened_group_and_a_waiver_for_its_new_key_fail_the_review_until_recorded(small_project, cli):
    gpu = small_project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("  count: 8\n", "  count: 8\n  workers: 8\n"))
    repository = commit_small_project(small_project, cli, ALIASES)
    gpu.write_text(gpu.read_text().replace("workers: 8", "workers: 4"))
    (repository / "contracts.yaml").write_text(
        ALIASES.replace("[[device.count, device.workers]]", "[[device.count, device.workers, device.hosts]]")
        + "waivers:\n  - {contract: workers, path: device.hosts, reason: hosts are counted apart}\n"
    )
    cli("--settings", "harness.toml", "generate")  # the pull request's goldens, as check on main reads them
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert result.code == 1
    report = result.json()
    assert [f for f in report["findings"] if f["kind"] == "contract_change"] == []  # no edit of a term the base names
    excused = {(c["id"], f["path"], f["severity"]) for c in report["cases"] for f in c["findings"] if f["kind"] == "contract_change"}
    assert excused == {
        (case, "device.workers", "error") for case in ("train/gpu/default", "train/gpu/fast", "train/gpu/sgd", "route/legacy")
    }
    text = cli("--settings", "harness.toml", "diff", "--base", "main").out
    assert (
        "ERROR contract change: workers: the base's contract is broken here (must agree but differ: device.count=8, "
        "device.workers=4) and this change's contracts no longer report it"
    ) in text

    record = "changes:\n  - {contract: workers, path: device.workers, old: enforced, new: excused, reason: hosts split the workers}\n"
    (repository / "contracts.yaml").write_text((repository / "contracts.yaml").read_text() + record)
    recorded = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert recorded.code == 0
    severities = {f["severity"] for c in recorded.json()["cases"] for f in c["findings"] if f["kind"] == "contract_change"}
    assert severities == {"warning"}


def test_turning_program_view_on_fails_the_review(repository, cli):
    (repository / "contracts.yaml").write_text(
        CONTRACTS.replace("    equal: {device.count: 8}\n", "    equal: {device.count: 8}\n    program_view: true\n")
    )
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert result.code == 1
    (change,) = [f for f in result.json()["findings"] if f["kind"] == "contract_change"]
    assert (change["path"], change["old"], change["new"], change["severity"]) == (
        "",
        {"program_view": False},
        {"program_view": True},
        "error",
    )
