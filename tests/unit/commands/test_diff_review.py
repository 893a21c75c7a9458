"""`diff --base REF`: the working tree reviewed against a git ref's goldens; a changed value is news (exit 0, once the
pull request's own goldens are regenerated) named with its case, a contract the change breaks fails it (exit 1), a ref git does not know is one line (exit 2)."""

from tests.synthetic_history import commit


def test_a_changed_value_is_news_and_a_broken_contract_fails(committed, cli):
    gpu = committed / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    # Not regenerated: `check` on the merged head would fail on the stale golden, so the review fails on it now.
    stale = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert stale.code == 1 and stale.json()["counts"]["goldens"] == 1, stale.out
    assert cli("--settings", "harness.toml", "check").code == 1
    assert cli("--settings", "harness.toml", "generate").code == 0
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert review.code == 0, review.err
    document = review.json()
    assert document["base"] == "main" and document["ok"] is True
    (changed,) = [g for g in document["groups"] if g["kind"] == "changed"]
    assert (changed["path"], changed["old"], changed["new"], changed["cases"]) == ("device.count", 8, 4, ["train/gpu/default"])
    # A contract at the base that the change breaks: an error this change introduces.
    (committed / "contracts.yaml").write_text("contracts:\n  - name: eight\n    cases: train/gpu/*\n    equal: {device.count: 8}\n")
    settings = committed / "harness.toml"
    settings.write_text('contracts = ["contracts.yaml"]\n' + settings.read_text())
    gpu.write_text(gpu.read_text().replace("count: 4", "count: 8"))
    assert cli("--settings", "harness.toml", "generate").code == 0
    commit(committed, "pin eight gpus")
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    broken = cli("--settings", "harness.toml", "diff", "--base", "main")
    assert broken.code == 1 and "eight: device.count must equal 8 but is 4" in broken.out


def test_a_ref_git_does_not_know_is_one_line(committed, cli):
    run = cli("--settings", "harness.toml", "diff", "--base", "no-such-branch")
    assert run.code == 2 and run.out == "" and run.err.count("\n") == 1 and "no-such-branch" in run.err
