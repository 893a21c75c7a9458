"""`diff --base REF`: the pull-request review report, on a small project inside a real git repository."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import ROOT, add_contracts, commit_small_project, write_tree
from tests.synthetic_history import git

CONTRACTS = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
"""


@pytest.fixture
def repository(small_project, cli):
    return commit_small_project(small_project, cli, CONTRACTS)


def test_review_groups_changes_by_case_and_passes_without_contract_violations(repository, cli):
    cpu = repository / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    assert cli("--settings", "harness.toml", "generate").code == 0  # the pull request's goldens, as check on main reads them
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    assert result.code == 0, result.out
    report = result.json()
    assert report["base"] == "main" and report["ok"] is True
    changed = {c["id"]: c["findings"] for c in report["cases"] if c["status"] == "changed"}
    assert set(changed) == {"train/cpu/default", "train/cpu/fast", "train/cpu/sgd"}
    assert [(f["kind"], f["path"], f["old"], f["new"], f["severity"]) for f in changed["train/cpu/default"]] == [
        ("changed", "device.count", 1, 2, "info")
    ]
    assert changed["train/cpu/default"][0]["source"] == "conf/backend/cpu.yaml:5"
    markdown = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "markdown").out
    assert "review against `main`" in markdown
    assert (
        "| <code>device.<wbr>count</code> | `1` → `2` | <details><summary>3 cases</summary>train/cpu/\\*</details> "
        "| <code>conf/<wbr>backend/<wbr>cpu.<wbr>yaml:5</code> |"
    ) in markdown.splitlines()
    assert markdown.count("device.<wbr>count") == 1 and "### Differences" in markdown


def test_review_fails_on_an_unwaived_contract_even_after_regeneration(repository, cli):
    gpu = repository / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", "    other: x\n"))
    assert cli("--settings", "harness.toml", "generate").code == 1  # contracts fail generate too
    result = cli("--settings", "harness.toml", "diff", "--base", "main")
    assert result.code == 1
    lines = result.out.splitlines()
    # Triage: the unwaived contract error comes first, then the removed key.
    blocking = lines.index("  ERROR gpu-critical: device.map.qkv is required but missing  (3 cases: train/gpu/*)")
    # A removed key names the file that set it at the base.
    removed = lines.index(
        '  device.map.qkv: "qkv_proj" -> —  (4 cases: train/gpu/*, route/legacy; was set by conf/backend/gpu.yaml:7 at main)'
    )
    assert lines[0] == "settings: main's harness.toml (the base decides what is checked; this change's settings are reviewed)"
    assert lines[1] == "FAILED: 7 cases against goldens at main: 3 ok, 4 changed; 1 blocking cause (3 findings)"  # the verdict
    assert lines[2].startswith("1 unwaived contract error only on train/gpu/*.") and blocking < removed


def test_a_preset_the_change_drops_is_still_reviewed_and_its_new_one_too(repository, cli):
    """The base's settings decide the cases; the pull request's are reviewed, and what they add is reviewed too."""
    settings = repository / "harness.toml"
    settings.write_text(settings.read_text().replace('sgd = ["optimizer@trainer.optim=sgd"]', 'slow = ["trainer.epochs=9"]'))
    cli("--settings", "harness.toml", "generate", "--prune")  # the pull request's goldens: the slow preset's, no sgd orphans
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    report = result.json()
    assert report["baseline"] == "goldens at main; cases without one: config tree main:conf (composed)"
    status = {c["id"]: c["status"] for c in report["cases"]}
    assert status["train/cpu/sgd"] == status["train/gpu/sgd"] == "ok"  # the base's preset, composed on this tree
    assert status["train/cpu/slow"] == status["train/gpu/slow"] == "new"  # the preset only this change has
    changes = [(f["path"], f["severity"]) for f in report["findings"] if f["kind"] == "settings_change"]
    assert changes == [("presets.sgd", "error"), ("presets.slow", "info")]
    assert result.code == 1 and report["findings"][0]["kind"] == "settings_change"

    # The reason, recorded in the contracts file, turns the error into a warning that shows it.
    contracts = repository / "contracts.yaml"
    record = "changes:\n  - {setting: presets.sgd, old: ['optimizer@trainer.optim=sgd'], new: null, reason: sgd is retired}\n"
    contracts.write_text(contracts.read_text() + record)
    recorded = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    (sgd,) = [f for f in recorded.json()["findings"] if f["path"] == "presets.sgd"]
    assert recorded.code == 0 and sgd["severity"] == "warning" and "sgd is retired" in sgd["message"]


def test_a_case_the_tree_loses_is_gone_and_fails_the_review(repository, cli):
    (repository / "conf" / "backend" / "gpu.yaml").unlink()
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    gone = [(c["id"], c["golden"], c["findings"][0]["severity"]) for c in result.json()["cases"] if c["status"] == "gone"]
    assert ("train/gpu/default", "main:snapshots/_generated_train__gpu__default.yaml", "error") in gone
    assert len(gone) == 3 and result.code == 1


def test_review_bad_ref_and_bad_arguments_exit_2(repository, cli):
    bad = cli("--settings", "harness.toml", "diff", "--base", "no-such-branch")
    assert bad.code == 2 and bad.err.strip() == "config-harness: error: unknown git ref 'no-such-branch'"
    both = cli("--settings", "harness.toml", "diff", "a.yaml", "b.yaml", "--base", "main")
    assert both.code == 2 and len(both.err.strip().splitlines()) == 1
    assert cli("diff", "only-one.yaml").code == 2


def test_review_without_goldens_at_the_base_composes_the_base_tree(repository, cli):
    git(repository, "rm", "-q", "-r", "snapshots")
    git(repository, "commit", "-q", "-m", "no goldens")
    cpu = repository / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    assert cli("--settings", "harness.toml", "generate").code == 0  # the first goldens, in the pull request that adds them
    report = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--format", "json").json()
    assert report["baseline"] == "config tree HEAD:conf (composed) (no goldens at HEAD)"
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses == {
        **{i: "ok" for i in statuses if not i.startswith("train/cpu/")},
        **{i: "changed" for i in statuses if i.startswith("train/cpu/")},
    }
    (default,) = [c for c in report["cases"] if c["id"] == "train/cpu/default"]
    assert [(f["kind"], f["path"], f["old"], f["new"]) for f in default["findings"]] == [("changed", "device.count", 1, 2)]
    # Removing the key instead: the finding says which file set it at the base.
    cpu.write_text(cpu.read_text().replace("  count: 2\n", ""))
    assert cli("--settings", "harness.toml", "generate").code == 0
    report = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--format", "json").json()
    (default,) = [c for c in report["cases"] if c["id"] == "train/cpu/default"]
    assert [(f["kind"], f["path"], f["source"]) for f in default["findings"]] == [
        ("removed", "device.count", "conf/backend/cpu.yaml:5 at HEAD")
    ]


def test_compose_base_ignores_the_goldens_and_every_format_names_the_baseline(repository, cli):
    golden = repository / "snapshots" / "_generated_train__cpu__default.yaml"
    golden.write_text(golden.read_text().replace("count: 1", "count: 7"))
    git(repository, "commit", "-q", "-am", "a stale golden")
    against_goldens = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--format", "json").json()
    assert against_goldens["baseline"].startswith("goldens at HEAD")
    assert {c["id"] for c in against_goldens["cases"] if c["status"] == "changed"} == {"train/cpu/default"}
    composed = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--compose-base", "--format", "json").json()
    assert composed["baseline"] == "config tree HEAD:conf (composed) (--compose-base)"
    # Against the base's tree every case is unchanged, yet the golden committed is stale: `check` fails on it, so
    # does the review, on that golden alone.
    assert all(c["status"] == "ok" for c in composed["cases"] if c["id"] != "train/cpu/default")
    (stale,) = [c for c in composed["cases"] if c["id"] == "train/cpu/default"]
    assert [(f["kind"], f["source"]) for f in stale["findings"]] == [("stale_golden", "snapshots/_generated_train__cpu__default.yaml")]
    for output_format in ("text", "markdown", "github"):
        out = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--compose-base", "--format", output_format).out
        assert "config tree HEAD:conf (composed) (--compose-base)" in out, output_format


def test_a_shallow_clone_says_why_the_base_is_missing(repository, cli, tmp_path):
    git(repository, "commit", "-q", "--allow-empty", "-m", "second")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repository}", str(clone)], check=True)
    result = cli("--settings", "harness.toml", "diff", "--base", "HEAD~1", cwd=clone)
    assert result.code == 2
    assert "shallow clone" in result.err and "fetch-depth: 0" in result.err and len(result.err.strip().splitlines()) == 1


def test_case_glob_limits_every_command(repository, cli):
    listed = cli("--settings", "harness.toml", "list", "--case", "train/gpu/*", "--format", "json").json()
    assert [c["id"] for c in listed["cases"]] == ["train/gpu/default", "train/gpu/fast", "train/gpu/sgd"]
    checked = cli("--settings", "harness.toml", "check", "--case", "route/*", "--format", "json").json()
    assert [c["id"] for c in checked["cases"]] == ["route/legacy"] and checked["ok"]
    gpu = repository / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    assert cli("--settings", "harness.toml", "check", "--case", "train/cpu/*").code == 0  # the edit is not there
    assert cli("--settings", "harness.toml", "check", "--case", "train/gpu/fast").code == 1
    generated = cli("--settings", "harness.toml", "generate", "--case", "train/gpu/fast")
    assert generated.out.count("wrote ") == 1 and "_generated_train__gpu__fast.yaml" in generated.out
    assert cli("--settings", "harness.toml", "check", "--case", "train/gpu/default").code == 1  # not regenerated
    review = cli("--settings", "harness.toml", "diff", "--base", "HEAD", "--case", "*/gpu/default", "--format", "json").json()
    assert [c["id"] for c in review["cases"] if c["status"] != "gone"] == ["train/gpu/default"]
    explained = cli("--settings", "harness.toml", "explain", "device.count", "--case", "train/gpu/def*")
    assert explained.code == 0 and "device.count = 4" in explained.out
    for command in (["check"], ["list"], ["explain", "device.count"]):
        nothing = cli("--settings", "harness.toml", *command, "--case", "nope/*")
        assert nothing.code == 2 and len(nothing.err.strip().splitlines()) == 1, command


def test_review_annotates_each_changed_value_on_its_line_as_a_notice(repository, cli):
    cpu = repository / "conf" / "backend" / "cpu.yaml"
    cpu.write_text(cpu.read_text().replace("count: 1", "count: 2"))
    out = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "github").out
    notices = [line for line in out.splitlines() if line.startswith("::notice")]
    assert len(notices) == 1 and "file=conf/backend/cpu.yaml,line=5" in notices[0] and "device.count: 1 -> 2" in notices[0]
    # In check, where the same edit is an error, the annotation is an error.
    checked = cli("--settings", "harness.toml", "check", "--format", "github").out
    assert any(line.startswith("::error file=conf/backend/cpu.yaml,line=5") for line in checked.splitlines())


# Attacker pass: a renamed root made every base composition fail as "info", hiding the change (exit 0). The base's
# settings decide the cases: its root no longer composes here, the new root's cases are new, and the review fails.
def test_a_renamed_root_fails_the_review_naming_the_settings_change_first(repository, cli):
    git(repository, "mv", "conf/train.yaml", "conf/main.yaml")
    legacy = repository / "conf" / "legacy.yaml"
    legacy.write_text(legacy.read_text().replace("  - train\n", "  - main\n"))
    settings = repository / "harness.toml"
    settings.write_text(
        settings.read_text().replace('roots = ["train"]', 'roots = ["main"]').replace('"train/gpu/default"', '"main/gpu/default"')
    )
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--compose-base", "--format", "json")
    report = result.json()
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert {i for i, s in statuses.items() if s == "error"} == {
        f"train/{e}/{p}" for e in ("cpu", "gpu") for p in ("default", "fast", "sgd")
    }
    assert {i for i, s in statuses.items() if s == "new"} == {f"main/{e}/{p}" for e in ("cpu", "gpu") for p in ("default", "fast", "sgd")}
    first = report["findings"][0]
    assert (first["kind"], first["path"], first["severity"]) == ("settings_change", "roots", "error") and result.code == 1
    assert "config-harness-base-" not in json.dumps(report)  # the base was composed in a scratch folder never shown


# Attacker pass: an absolute symlink committed in the base tree crashed the review (exit 3).
def test_a_link_out_of_the_base_tree_is_a_usage_error(repository, cli):
    cpu = repository / "conf" / "backend" / "cpu.yaml"
    cpu.unlink()
    cpu.symlink_to("/etc/hostname")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "a link out")
    git(repository, "revert", "--no-edit", "HEAD")
    result = cli("--settings", "harness.toml", "diff", "--base", "HEAD~1", "--compose-base")
    assert result.code == 2 and "absolute" in result.err and len(result.err.strip().splitlines()) == 1, result.err


BROKEN_AT_BASE = """
contracts:
  - name: gpu-critical
    cases: "train/gpu/*"
    require: [device.map.qkv]
  - name: epochs
    cases: "train/*/default"
    equal: {trainer.epochs: 5}
"""


def test_errors_already_at_the_base_do_not_fail_a_review_and_a_new_one_does(small_project, cli):
    add_contracts(small_project, BROKEN_AT_BASE)
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 1  # the contract errors
    repository = small_project
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base with contract errors"]):
        git(repository, *command)
    unchanged = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    errors = [f for c in unchanged.json()["cases"] for f in c["findings"] if f["severity"] == "error"]
    assert unchanged.code == 0 and len(errors) == 2 and {f["origin"] for f in errors} == {"at_base"}

    gpu = repository / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("    qkv: qkv_proj\n", ""))
    assert cli("--settings", "harness.toml", "generate").code == 1  # written, and the contract errors it introduced fail it
    broken = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    introduced = [(c["id"], f["path"]) for c in broken.json()["cases"] for f in c["findings"] if f.get("origin") == "introduced"]
    assert broken.code == 1 and sorted(introduced) == [(f"train/gpu/{p}", "device.map.qkv") for p in ("default", "fast", "sgd")]

    # Fixing an error the base had is said too, and fails nothing.
    train = repository / "conf" / "train.yaml"
    git(repository, "checkout", "-q", "conf/backend/gpu.yaml")
    train.write_text(train.read_text().replace("epochs: 3", "epochs: 5"))
    cli("--settings", "harness.toml", "generate")  # exit 1: the base's contract errors still hold on other cases
    fixed = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    origins = [(c["id"], f["origin"]) for c in fixed.json()["cases"] for f in c["findings"] if f.get("origin")]
    assert fixed.code == 0 and sorted(origins) == [("train/cpu/default", "fixed"), ("train/gpu/default", "fixed")]


def test_the_hydra_subtree_is_reviewed_and_what_runs_at_start_is_an_error(repository, cli):
    """Callbacks and environment settings run when the application starts: a review shows them, never resolved."""
    train = repository / "conf" / "train.yaml"
    train.write_text(
        train.read_text()
        + """
hydra:
  callbacks:
    upload:
      _target_: evil.Upload
  job:
    env_set:
      TOKEN: ${oc.env:GITHUB_TOKEN}
  verbose: true
"""
    )
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    findings = {(f["path"], f["severity"]) for c in result.json()["cases"] for f in c["findings"] if f["kind"] == "hydra_change"}
    assert findings == {
        ("hydra.callbacks.upload._target_", "error"),
        ("hydra.job.env_set.TOKEN", "error"),
        ("hydra.verbose", "info"),
    }
    assert result.code == 1 and "${oc.env:GITHUB_TOKEN}" in result.out  # as written, never resolved
    contracts = repository / "contracts.yaml"
    contracts.write_text(
        contracts.read_text() + "changes:\n"
        "  - {hydra: hydra.callbacks.upload._target_, old: null, new: evil.Upload, reason: audited}\n"
        "  - {hydra: hydra.job.env_set.TOKEN, old: null, new: '${oc.env:GITHUB_TOKEN}', reason: audited}\n"
    )
    assert cli("--settings", "harness.toml", "diff", "--base", "main").code == 0


def test_a_hydra_run_dir_refactor_that_resolves_to_the_same_folder_does_not_block(small_project, cli):
    """`hydra.run.dir: runs` -> `${trainer.run_root}` with `run_root: runs` moves nothing: the application writes to
    `runs` on both sides. Compared resolved (against each side's whole config, as Hydra resolves it), it is a refactor
    (`effective_same`, noted); a run_root that resolves elsewhere still blocks (issue 56)."""
    train = small_project / "conf" / "train.yaml"
    train.write_text(train.read_text() + "hydra:\n  run:\n    dir: runs\n")
    commit_small_project(small_project, cli, CONTRACTS)
    text = train.read_text().replace("    dir: runs\n", "    dir: ${trainer.run_root}\n")
    train.write_text(text.replace("trainer:\n", "trainer:\n  run_root: runs\n", 1))
    assert cli("--settings", "harness.toml", "generate").code == 0  # the pull request's goldens: run_root is a new key

    def hydra_groups() -> tuple[int, list[tuple[str, str, bool, str]]]:
        result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
        groups = result.json()["groups"]
        return result.code, [(g["path"], g["severity"], g["effective_same"], g["tier"]) for g in groups if g["kind"] == "hydra_change"]

    assert hydra_groups() == (0, [("hydra.run.dir", "info", True, "noted")])
    train.write_text(train.read_text().replace("run_root: runs", "run_root: elsewhere"))
    assert cli("--settings", "harness.toml", "generate").code == 0
    assert hydra_groups() == (1, [("hydra.run.dir", "error", False, "blocking")])


def test_a_review_says_how_many_reasons_were_recorded_and_whose_owners_approve_them(repository, cli):
    settings = repository / "harness.toml"
    settings.write_text(settings.read_text().replace('sgd = ["optimizer@trainer.optim=sgd"]\n', ""))
    contracts = repository / "contracts.yaml"
    contracts.write_text(
        contracts.read_text() + "changes:\n  - {setting: presets.sgd, old: ['optimizer@trainer.optim=sgd'], new: null, reason: retired}\n"
    )
    assert cli("--settings", "harness.toml", "generate", "--prune").code == 0  # the sgd goldens go with their preset
    lines = cli("--settings", "harness.toml", "diff", "--base", "main").out.splitlines()
    assert lines[0].startswith("settings: main's harness.toml")
    assert lines[1] == "OK: 7 cases against goldens at main: 7 ok; 1 warning"  # the verdict, under the settings line
    assert lines[2] == (
        "1 contract, settings or hydra change carries a recorded reason: the owners of harness.toml, "
        "contracts.yaml must approve them (see templates/CODEOWNERS)"
    )
    assert (ROOT / "templates" / "CODEOWNERS").read_text().count("contracts.yaml") == 1


# Attacker pass (round three): 0.0 -> -0.0 compared equal, so a regenerated golden hid a changed value.
def test_the_sign_of_zero_is_a_changed_value(repository, cli):
    train = repository / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.0"))
    cli("--settings", "harness.toml", "generate")
    git(repository, "commit", "-qam", "lr 0.0")
    train.write_text(train.read_text().replace("lr: 0.0", "lr: -0.0"))
    assert cli("--settings", "harness.toml", "check").code == 1
    cli("--settings", "harness.toml", "generate")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json").json()
    changed = {(g["path"], g["old"], g["new"]) for g in review["groups"] if g["kind"] == "changed"}
    assert ("trainer.lr", 0.0, -0.0) in changed


def test_a_new_fallback_is_settled_by_generate_and_still_named_by_the_review(small_project, cli):
    repository = commit_small_project(small_project, cli, "contracts: []\n")
    train = repository / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("  effective_lr:", "  other_flag: ${oc.select:trainer.absent_flag,1}\n  effective_lr:"))
    before = cli("--settings", "harness.toml", "check")
    assert (
        before.code == 1
        and "other_flag silently uses its default 1" in before.out
        and "(new: the golden did not fall back here)" in before.out
    )
    generated = cli("--settings", "harness.toml", "generate")
    assert generated.code == 0 and "ERROR" not in generated.out, generated.out  # written on purpose: what check now says
    assert cli("--settings", "harness.toml", "check").code == 0
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    new = [f for c in review.json()["cases"] for f in c["findings"] if f["kind"] == "fallback" and f["path"] == "trainer.other_flag"]
    # The regenerated golden hides nothing from the review: the new fallback is named there (as every difference
    # in a review, news for the reviewer, not a failure).
    assert new and all("(new: the golden did not fall back here)" in f["message"] for f in new)


LAUNCH_FILES = {
    "app/__init__.py": "",
    "app/main.py": (
        "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n"
    ),
    "scripts/run.sh": (
        "python -m app.main trainer.name=run trainer.epochs=5\npython -m app.main trainer.name=run trainer.lr=0.5\npython -m app.main trainer.name=run trainer.effective_lr=0.7\n"
    ),
}


def with_launches(project, files):
    """The small project with an entry point and launch scripts (`files`), its settings listing the scripts."""
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    settings = project / "harness.toml"
    settings.write_text(settings.read_text() + '\n[[commands]]\nglob = "scripts/*.sh"\n', encoding="utf-8")


def test_a_launchs_effective_value_that_moved_under_an_unchanged_script_is_one_of_its_changed_values(small_project, cli):
    with_launches(small_project, LAUNCH_FILES)
    commit_small_project(small_project, cli, "contracts:\n  - name: lr\n    require: [trainer.effective_lr]\n")
    train = small_project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("lr: 0.1", "lr: 0.2"))  # the default under every launch moves
    script = small_project / "scripts" / "run.sh"
    script.write_text(script.read_text().replace("effective_lr=0.7", "effective_lr=0.8"))  # this one the script moves

    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*", "--format", "json")
    assert result.code == 0, result.out  # differences fail nothing in a review
    # Each launch's composed values are compared with the base's, as any case's are (issue 30), in place of the old
    # `default moved` warning: the default under #1 and #3 (#2 sets lr itself), the value #3's script now sets, and
    # the interpolation under #1 that resolves to the new default.
    found = {(c["id"], f["kind"], f["path"], f["old"], f["new"]) for c in result.json()["cases"] for f in c["findings"]}
    assert found == {
        ("cmd/scripts/run.sh#1", "changed", "trainer.lr", 0.1, 0.2),
        ("cmd/scripts/run.sh#3", "changed", "trainer.lr", 0.1, 0.2),
        ("cmd/scripts/run.sh#3", "changed", "trainer.effective_lr", 0.7, 0.8),
        ("cmd/scripts/run.sh#1", "effective", "trainer.effective_lr", 0.1, 0.2),
    }
    text = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*").out.splitlines()
    # One line per cause, naming its launches.
    (lr,) = [line for line in text if line.startswith("  trainer.lr: 0.1 -> 0.2")]
    assert "2 launches in 1 script: scripts/run.sh#1, scripts/run.sh#3" in lr, text
    assert not any("default moved" in line for line in text)


def _package_project(root, config_dir: str, extra_settings: str = ""):
    from tests.conftest import write_tree

    write_tree(
        root,
        {
            f"{config_dir}/train.yaml": "defaults:\n  - extra: x\n  - _self_\nhydra:\n  searchpath: [pkg://mypkg.conf]\n",
            "mypkg/__init__.py": "raise SystemExit('imported')\n",
            "mypkg/conf/extra/x.yaml": "k: 2\n",
            "harness.toml": f'jobs = 1\nconfig_dir = "{config_dir}"\nsnapshot_dir = "snapshots"\nroots = ["train"]\n{extra_settings}',
        },
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    (root / "mypkg" / "conf" / "extra" / "x.yaml").write_text("k: 3\n")  # the change under review


@pytest.mark.parametrize("config_dir, extra_settings", [("mypkg/conf", ""), ("conf", 'read_outside = ["mypkg"]\n')])
def test_a_base_composition_reads_pkg_search_paths_of_the_base_never_of_the_working_tree(tmp_path, cli, config_dir, extra_settings):
    """`pkg://mypkg.conf` (the project's own package, read from the working folder) is the base's folder when the
    base is composed: it read the pull request's folder, so a change there was `1 ok` (or the base did not compose
    although its own config folder is the package's)."""
    project = tmp_path / "project"
    _package_project(project, config_dir, extra_settings)
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--compose-base", "--format", "json", cwd=project)
    changes = [(f["kind"], f["path"], f["old"], f["new"]) for c in result.json()["cases"] for f in c["findings"]]
    if config_dir == "mypkg/conf":  # the base's own folder: composed as it was
        assert ("changed", "extra.k", 2, 3) in changes, changes
    else:  # a folder the base tree does not hold: never the working tree's, so never "nothing changed"
        assert ("changed", "extra.k", 2, 3) in changes or any(k == "error" for k, *_ in changes), changes


def test_a_launch_that_selects_an_option_the_tree_never_had_is_no_option_and_one_deleted_is_a_removed_one(small_project, cli):
    """A typo in a launch (`backend=tpu`, `gpuu`) is not "group option removed": nothing was removed. An option whose
    file git had and the tree lost is, naming the deletion (issue 56)."""
    script = "python -m app.main trainer.name=run backend=tpu\npython -m app.main trainer.name=run optimizer@trainer.optim=sgd\n"
    with_launches(small_project, {**LAUNCH_FILES, "scripts/run.sh": script})
    git(small_project, "init", "-q", "-b", "main")
    git(small_project, "add", "-A")
    git(small_project, "commit", "-q", "-m", "base")
    git(small_project, "rm", "-q", "conf/optimizer/sgd.yaml")
    result = cli("--settings", "harness.toml", "check", "--case", "cmd/*", "--format", "json", cwd=small_project)
    typo, removed = [f for c in result.json()["cases"] for f in c["findings"] if f["kind"] == "launch"]
    assert result.code == 1 and (typo["severity"], typo["path"], removed["path"]) == ("error", "backend", "optimizer")
    assert typo["message"].startswith("no such option: backend: ") and typo["detail"] == ["no such option"], typo
    assert "'tpu' is not an option of backend; did you mean 'gpu'?" in typo["message"], typo
    assert removed["message"].startswith("group option removed: optimizer: ") and removed["message"].endswith(
        "(conf/optimizer/sgd.yaml was deleted (the last commit has it))"
    ), removed


def test_explain_on_a_launch_shows_paths_as_check_does_and_a_glob_of_two_cases_lists_both(small_project, cli):
    with_launches(small_project, LAUNCH_FILES)
    explained = cli("--settings", "harness.toml", "explain", "trainer.lr", "--case", "cmd/scripts/run.sh#2", cwd=small_project)
    assert explained.code == 0 and "conf/train.yaml:" in explained.out and str(small_project) not in explained.out, explained.out
    two = cli("--settings", "harness.toml", "explain", "trainer.lr", "--case", "train/gpu/[ds]*")
    assert two.code == 2 and "2 cases (train/gpu/default, train/gpu/sgd)" in two.err, two.err


def test_explain_on_a_launch_shows_a_value_the_script_cannot_know_in_the_scripts_own_text(small_project, cli):
    """TinyZero's `actor_rollout_ref.model.path=$BASE_MODEL` was explained as `"__unset_BASE_MODEL__"`."""
    with_launches(small_project, {**LAUNCH_FILES, "scripts/run.sh": "python -m app.main trainer.lr=$LR trainer.name=$HOME/x\n"})
    for key, shown in (("trainer.lr", '"$LR"'), ("trainer.name", '"$HOME/x"')):
        explained = cli("--settings", "harness.toml", "explain", key, "--case", "cmd/scripts/run.sh#1", cwd=small_project)
        assert explained.code == 0 and explained.out.startswith(f"{key} = {shown}   (case cmd/scripts/run.sh#1"), explained.out
        assert "__unset_" not in explained.out, explained.out


def test_a_base_composition_reads_the_settings_search_path_as_it_is_at_the_base(tmp_path, cli):
    project = tmp_path / "project"
    write_tree(
        project,
        {
            "conf/train.yaml": "defaults:\n  - extra: x\n  - _self_\ntrainer:\n  lr: 0.1\n",
            "shared/extra/x.yaml": "k: 2\n",
        },
    )
    (project / "harness.toml").write_text(
        'jobs = 1\nconfig_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\nsearch_path = ["shared"]\n',
        encoding="utf-8",
    )
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    (project / "shared" / "extra" / "x.yaml").write_text("k: 3\n", encoding="utf-8")  # the pull request's edit
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--compose-base", "--format", "json", cwd=project)
    changed = [(f["path"], f["old"], f["new"]) for c in review.json()["cases"] for f in c["findings"] if f["kind"] == "changed"]
    assert changed == [("extra.k", 2, 3)], review.out  # the base read shared/ as committed, not the working tree's


def test_a_launchs_base_reads_the_settings_search_path_as_it_is_at_the_base(tmp_path, cli):
    """A launch composed at the base found the settings' search path in the working tree: a pull request that broke
    a file there broke the launch at the base too, so its error was `already at base` and the review passed."""
    project = tmp_path / "project"
    write_tree(
        project,
        {
            "conf/train.yaml": "trainer:\n  lr: 0.1\n",
            "conf/other.yaml": "defaults:\n  - extra: x\n  - _self_\n",
            "shared/extra/x.yaml": "k: 2\n",
            "app/__init__.py": "",
            "app/main.py": LAUNCH_FILES["app/main.py"],
            "scripts/run.sh": "python -m app.main --config-name other\n",
        },
    )
    (project / "harness.toml").write_text(
        'jobs = 1\nconfig_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\nsearch_path = ["shared"]\n'
        '\n[[commands]]\nglob = "scripts/*.sh"\n',
        encoding="utf-8",
    )
    assert cli("--settings", "harness.toml", "generate", cwd=project).code == 0
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    (project / "shared" / "extra" / "x.yaml").unlink()  # the pull request's change breaks the launch
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json", cwd=project)
    launch = [f for c in review.json()["cases"] for f in c["findings"] if f["kind"] == "launch" and f["severity"] == "error"]
    assert launch and all(f["origin"] == "introduced" for f in launch), review.out
    assert review.code == 1, review.out


@pytest.mark.parametrize("committed", [True, False])
def test_a_search_path_link_the_pull_request_re_points_is_followed_as_the_base_holds_it(tmp_path, cli, committed):
    """`search_path = ["sp"]` with `sp -> shared` at the base: the base's folder was where the working tree's link
    led, so a pull request re-pointing `sp` chose it: a folder the base lacks (the base never composed: 'OK' with
    no changed value) or one git does not track (read as it is: '1 ok')."""
    project = tmp_path / "project"
    write_tree(
        project,
        {
            "conf/train.yaml": "defaults:\n  - extra: x\n  - _self_\n",
            "shared/extra/x.yaml": "k: 2\n",
            ".gitignore": "fetched/\n",
        },
    )
    (project / "sp").symlink_to("shared")
    (project / "harness.toml").write_text(
        'jobs = 1\nconfig_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train"]\nsearch_path = ["sp"]\n',
        encoding="utf-8",
    )
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    target = "shared2" if committed else "fetched"
    write_tree(project, {f"{target}/extra/x.yaml": "k: 3\n"})
    (project / "sp").unlink()
    (project / "sp").symlink_to(target)  # the pull request re-points the link
    if committed:
        git(project, "checkout", "-q", "-b", "pr")
        git(project, "add", "-A")
        git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "pr")
    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--compose-base", "--format", "json", cwd=project)
    changed = [(f["path"], f["old"], f["new"]) for c in review.json()["cases"] for f in c["findings"] if f["kind"] == "changed"]
    assert changed == [("extra.k", 2, 3)], review.out


def _review(cli):
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*", "--format", "json")
    assert result.code in (0, 1), result.err
    return result, result.json()


def test_a_re_pointed_hydra_main_is_an_entry_change_error_and_its_launches_values_are_reported(small_project, cli):
    files = {**LAUNCH_FILES, "conf/train2.yaml": "defaults:\n  - train\n  - _self_\ntrainer:\n  epochs: 9\n"}
    with_launches(small_project, files)
    commit_small_project(small_project, cli, "")
    main = small_project / "app" / "main.py"
    main.write_text(main.read_text().replace("config_name='train'", "config_name='train2'"))
    result, report = _review(cli)
    assert result.code == 1, result.out
    (entry,) = [f for f in report["findings"] if f["kind"] == "entry_change"]
    assert (entry["path"], entry["old"], entry["new"], entry["severity"], entry["origin"]) == (
        "app.main",
        {"config_name": "train"},
        {"config_name": "train2"},
        "error",
        "introduced",
    )
    assert "3 launches run it (cmd/scripts/run.sh#1, cmd/scripts/run.sh#2, cmd/scripts/run.sh#3)" in entry["message"]
    assert entry["source"] == "app/main.py:4"  # the decorator's line, where an annotation points
    # The launch that sets epochs itself keeps its value; the two that leave it to the root now run with 9.
    epochs = {(c["id"], f["old"], f["new"]) for c in report["cases"] for f in c["findings"] if f["path"] == "trainer.epochs"}
    assert epochs == {("cmd/scripts/run.sh#2", 3, 9), ("cmd/scripts/run.sh#3", 3, 9)}
    assert {c["id"]: c["status"] for c in report["cases"]} == {
        "cmd/scripts/run.sh#1": "ok",
        "cmd/scripts/run.sh#2": "changed",
        "cmd/scripts/run.sh#3": "changed",
    }
    # The record the message names excuses it: a warning with its reason, and the review passes.
    (small_project / "contracts.yaml").write_text(
        "changes:\n  - {entry: app.main, old: {config_name: train}, new: {config_name: train2}, reason: v2 root}\n"
    )
    result, report = _review(cli)
    (entry,) = [f for f in report["findings"] if f["kind"] == "entry_change"]
    assert result.code == 0 and entry["severity"] == "warning" and "[recorded reason: v2 root]" in entry["message"], result.out


def test_a_module_mapped_to_another_config_is_an_entry_change(small_project, cli):
    with_launches(small_project, LAUNCH_FILES)
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text() + '[commands.modules]\n"app.main" = "train"\n', encoding="utf-8")
    commit_small_project(small_project, cli, "")
    settings.write_text(settings.read_text().replace('"app.main" = "train"', '"app.main" = "other"'), encoding="utf-8")
    result, report = _review(cli)
    (entry,) = [f for f in report["findings"] if f["kind"] == "entry_change"]
    assert result.code == 1 and (entry["old"], entry["new"]) == ({"commands.modules": "train"}, {"commands.modules": "other"})


def test_a_launch_the_pull_request_loses_is_launch_gone_unless_recorded(small_project, cli):
    with_launches(small_project, {**LAUNCH_FILES, "scripts/other.sh": "python -m app.main trainer.name=run trainer.epochs=1\n"})
    commit_small_project(small_project, cli, "")
    script = small_project / "scripts" / "run.sh"
    script.write_text(script.read_text().replace("python -m app.main trainer.name=run trainer.lr=0.5\n", ""))  # the second command removed
    (small_project / "scripts" / "other.sh").rename(small_project / "scripts" / "other.bash")  # out of the base's globs
    result, report = _review(cli)
    gone = {c["id"]: f for c in report["cases"] for f in c["findings"] if f["kind"] == "launch_gone"}
    assert result.code == 1 and sorted(gone) == ["cmd/scripts/other.sh#1", "cmd/scripts/run.sh#2"], result.out
    assert all(f["severity"] == "error" and f["origin"] == "introduced" for f in gone.values())
    assert (gone["cmd/scripts/run.sh#2"]["path"], gone["cmd/scripts/run.sh#2"]["source"]) == ("cmd/scripts/run.sh#2", "scripts/run.sh:2")
    # The third command is now the second: it is compared with the base's third (aligned as a diff aligns lines), so
    # nothing about it changed.
    assert not [f for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#2" for f in c["findings"] if f["kind"] != "launch_gone"]
    text = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*").out
    assert "launch cmd/scripts/other.sh#1 composed at the base (scripts/other.sh:1) and is gone from this change" in text
    (small_project / "contracts.yaml").write_text(
        "changes:\n"
        "  - {launch: cmd/scripts/run.sh#2, old: 'scripts/run.sh:2', new: null, reason: dropped}\n"
        "  - {launch: cmd/scripts/other.sh#1, old: 'scripts/other.sh:1', new: null, reason: renamed}\n"
    )
    result, report = _review(cli)
    assert result.code == 0, result.out
    assert {f["severity"] for c in report["cases"] for f in c["findings"] if f["kind"] == "launch_gone"} == {"warning"}


def test_a_launch_extracted_at_the_base_and_not_now_is_an_error(small_project, cli):
    with_launches(small_project, LAUNCH_FILES)
    commit_small_project(small_project, cli, "")
    script = small_project / "scripts" / "run.sh"
    script.write_text(
        script.read_text().replace(
            "python -m app.main trainer.name=run trainer.lr=0.5",
            'python -m app.main trainer.name=run --config-name="$(pick)" trainer.lr=0.5',
        )
    )
    result, report = _review(cli)
    (dark,) = [f for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#2" for f in c["findings"] if f["kind"] == "launch"]
    assert result.code == 1 and dark["severity"] == "error" and dark["message"].startswith("not extracted: "), result.out
    assert dark["source"] == "scripts/run.sh:2"
    assert "the base extracted it (scripts/run.sh:2)" in dark["message"]


def test_a_root_level_scripts_value_change_is_named_with_its_script_and_line(small_project, cli):
    """A `*.sh` glob reads the scripts at the project's root at both sides (issue 40 item 2): the base side once
    dropped the root from what it read, and a value a root script passes changed unseen ("OK ... ok")."""
    files = {**LAUNCH_FILES, "train.sh": "python -m app.main trainer.name=run \\\n    trainer.epochs=5 \\\n    trainer.lr=0.5\n"}
    with_launches(small_project, files)
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text() + '\n[[commands]]\nglob = "*.sh"\n', encoding="utf-8")
    commit_small_project(small_project, cli, "")
    script = small_project / "train.sh"
    script.write_text(script.read_text().replace("trainer.epochs=5", "trainer.epochs=7"))
    result, report = _review(cli)
    found = [(c["id"], f["kind"], f["path"], f["old"], f["new"], f["source"]) for c in report["cases"] for f in c["findings"]]
    assert found == [("cmd/train.sh#1", "changed", "trainer.epochs", 5, 7, "train.sh:2")], result.out
    assert result.code == 0
    text = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*").out
    (line,) = [line for line in text.splitlines() if line.startswith("  trainer.epochs: 5 -> 7")]
    assert "train.sh:2" in line, text


def test_a_new_launch_script_is_named_once_with_its_script_line_and_config(small_project, cli):
    with_launches(small_project, LAUNCH_FILES)
    commit_small_project(small_project, cli, "")
    (small_project / "scripts" / "new.sh").write_text(
        "echo start\npython -m app.main trainer.name=run trainer.epochs=2\n", encoding="utf-8"
    )
    result, report = _review(cli)
    assert result.code == 0, result.out
    new = [(c["id"], c["status"], f["severity"], f["source"]) for c in report["cases"] for f in c["findings"] if f["kind"] == "new_launch"]
    assert new == [("cmd/scripts/new.sh#1", "new", "info", "scripts/new.sh:2")], result.out
    (message,) = [f["message"] for c in report["cases"] for f in c["findings"] if f["kind"] == "new_launch"]
    assert "config train" in message, message
    # Its values are the news, not a value-by-value diff against nothing: the launch is its one finding.
    assert [f["kind"] for c in report["cases"] if c["id"] == "cmd/scripts/new.sh#1" for f in c["findings"]] == ["new_launch"]
    text = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*").out
    assert "nothing changed" not in text.lower(), text
    assert [line for line in text.splitlines() if "scripts/new.sh:2" in line and "config train" in line], text


def test_a_script_moved_with_the_same_text_is_moved_not_launch_gone(small_project, cli):
    with_launches(small_project, LAUNCH_FILES)
    commit_small_project(small_project, cli, "")
    git(small_project, "mv", "scripts/run.sh", "scripts/train.sh")  # a pure `git mv`
    result, report = _review(cli)
    assert result.code == 0, result.out
    assert not [f for c in report["cases"] for f in c["findings"] if f["kind"] == "launch_gone"], result.out
    moved = [(c["id"], f["old"], f["new"], f["severity"]) for c in report["cases"] for f in c["findings"] if f["kind"] == "moved"]
    assert moved == [(f"cmd/scripts/train.sh#{n}", f"cmd/scripts/run.sh#{n}", f"cmd/scripts/train.sh#{n}", "info") for n in (1, 2, 3)]
    assert {c["id"]: c["status"] for c in report["cases"]} == {f"cmd/scripts/train.sh#{n}": "ok" for n in (1, 2, 3)}
    text = cli("--settings", "harness.toml", "diff", "--base", "main", "--case", "cmd/*").out
    assert "launch gone" not in text and "scripts/run.sh" in text and "is gone" not in text, text


def test_a_launch_the_change_adds_or_edits_outside_the_globs_is_named_as_not_checked(small_project, cli):
    """TinyZero 5bab84a adds its own launch script `scripts/train_tiny_zero.sh` where the base's globs (examples/,
    tests/) reach nothing: the review said nothing of it. A script outside the globs the change leaves alone, or one
    that runs no Hydra program, stays unsaid."""
    files = {**LAUNCH_FILES, "tools/old.sh": "python -m app.main trainer.name=run trainer.epochs=1\n"}
    with_launches(small_project, files)
    commit_small_project(small_project, cli, "")
    (small_project / "tools" / "train.sh").write_text(
        "echo go\npython -m app.main trainer.name=run trainer.epochs=2 trainer.lr=0.3\n", encoding="utf-8"
    )
    (small_project / "tools" / "data.sh").write_text("echo data\npython3 -m pip --version\n", encoding="utf-8")
    result, report = _review(cli)
    assert result.code == 0, result.out
    notes = [
        (c["id"], c["status"], f["kind"], f["severity"], f["source"])
        for c in report["cases"]
        for f in c["findings"]
        if c["id"].startswith("cmd/tools/")
    ]
    assert notes == [("cmd/tools/train.sh#1", "new", "new_launch", "info", "tools/train.sh:2")], result.out
    text = cli("--settings", "harness.toml", "diff", "--base", "main").out
    (line,) = [line for line in text.splitlines() if "tools/train.sh:2" in line]
    assert "outside the settings' commands globs, not checked" in line and "`tools/**/*.sh`" in line, text
    assert "3 launches checked of 3 found" in text, text  # counted nowhere: the globs decide what is checked


def test_an_override_naming_a_key_that_never_existed_is_no_such_key_with_the_closest_in_check_review_and_explain(small_project, cli):
    """Issue 42 item 9: `trainer.lrr` (a typo in a new override) is `no such key` with the closest key in check, the
    review and explain alike, never `key removed`; `trainer.layers`, which the base (and its goldens) had and the
    pull request removed, stays `key removed`."""
    files = {
        **LAUNCH_FILES,
        "scripts/run.sh": "python -m app.main trainer.name=run trainer.layers=x\npython -m app.main trainer.name=run trainer.epochs=5\n",
    }
    with_launches(small_project, files)
    commit_small_project(small_project, cli, "")
    train = small_project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("  layers: [a, b]\n", ""))
    (small_project / "scripts" / "run.sh").write_text(
        "python -m app.main trainer.name=run trainer.layers=x\npython -m app.main trainer.name=run trainer.epochs=5 trainer.lrr=0.5\n"
    )
    closest = "no such key: trainer.lrr is not in the config; did you mean 'trainer.lr'?"
    for command in (["check"], ["diff", "--base", "main"]):
        result = cli("--settings", "harness.toml", *command, "--format", "json")
        said = {f["path"]: f["message"] for c in result.json()["cases"] for f in c["findings"] if f["kind"] == "launch"}
        assert said == {"trainer.layers": "key removed: trainer.layers is not in the config", "trainer.lrr": closest}, (command, said)
    explained = cli("--settings", "harness.toml", "explain", "trainer.lrr", "--case", "cmd/scripts/run.sh#2")
    assert explained.code == 2 and "did you mean 'trainer.lr'?" in explained.err, explained.err
