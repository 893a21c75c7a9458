"""Issue 50 item 2: a known entry names a launch's cause by what it means (the launch's own text, its config, the key
or override), never by where it sits; and a launch failure is `already at base` only when that same launch failed the
same way there. A green review is a promise the merge keeps: each test checks the review and `check` on the head."""

from __future__ import annotations

import pytest

from tests.synthetic_history import commit, git

APP = {
    "app/__init__.py": "",
    "app/main.py": (
        "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n"
    ),
}
# One launch that composes, one whose override names a key the config never had, one whose config is not there.
# Each gives trainer.name, which the small tree leaves `???` (a launch that does not is an error of its own).
RUN = (
    "echo start\npython -m app.main trainer.epochs=5 trainer.name=run\npython -m app.main trainer.nokey=1 trainer.name=run\n"
    "python -m app.main --config-name trainx\n"
)


def _adopted(project, cli, script: str = RUN):
    """The small project with `scripts/run.sh`, its known file written by `known` and committed as `main`."""
    for name, text in {**APP, "scripts/run.sh": script}.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    settings = project / "harness.toml"
    settings.write_text(settings.read_text() + '\n[[commands]]\nglob = "scripts/*.sh"\n', encoding="utf-8")
    settings.write_text('contracts = ["known.yaml"]\n' + settings.read_text(), encoding="utf-8")
    (project / "known.yaml").write_text("waivers: []\n", encoding="utf-8")
    cli.chdir(project)
    assert cli("--settings", "harness.toml", "known", "--quiet").code == 0
    assert cli("--settings", "harness.toml", "generate", "--quiet").code == 0  # adopted: what the repository had is known
    git(project, "init", "-q", "-b", "main")
    commit(project, "adopt")
    return project


def _review(cli):
    # The whole run: a known entry that excuses nothing is judged only there.
    result = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "json")
    return result, result.json()


def _said(report, word: str) -> list[str]:
    return [f["message"] for f in report["findings"] if word in f["message"]]


def _blocking(report) -> list[tuple[str, str]]:
    return [(c["id"], f["message"]) for c in report["cases"] for f in c["findings"] if f["severity"] == "error"]


def _comment_line_above(project):
    script = project / "scripts" / "run.sh"
    script.write_text("set -x\n" + script.read_text(), encoding="utf-8")


def _moved(project):
    git(project, "mv", "scripts/run.sh", "scripts/train.sh")


def _launch_added_above(project):
    """Every launch below it is renamed (`cmd/scripts/run.sh#2` becomes `#3`) and moves a line down."""
    script = project / "scripts" / "run.sh"
    script.write_text("python -m app.main trainer.epochs=7 trainer.name=run\n" + script.read_text(), encoding="utf-8")


@pytest.mark.parametrize(
    "edit", [_comment_line_above, _moved, _launch_added_above], ids=["comment-line-above", "script-moved", "cases-renamed"]
)
def test_a_known_failing_launch_keeps_its_entry_in_the_review_and_in_check_when_its_line_or_script_changes(small_project, cli, edit):
    """code-r1: `set -x` added at a script's top moved every known launch failure one line down; rllm 9061cb2: renames
    turned failures the base already excused into blocking causes. The review said "known finding fixed ... remove its
    entry" with exit 0, and `check` on the merged branch exited 1."""
    project = _adopted(small_project, cli)
    edit(project)
    result, report = _review(cli)
    assert result.code == 0 and not _blocking(report), result.out
    assert not _said(report, "known finding fixed"), result.out
    assert not [f for f in report["findings"] if f["kind"] == "contract_change"], result.out
    checked = cli("--settings", "harness.toml", "check")
    assert checked.code == 0, checked.out
    assert "known finding fixed" not in checked.out and "2 known findings" in checked.out, checked.out


def test_a_new_config_name_typo_beside_a_known_one_of_the_same_kind_fails_the_review_as_check_does(small_project, cli):
    """A `--config-name` typo in a script where another launch already failed the same way at the base: the review
    exited 0 (failures without a key were matched by kind alone) while `check` on the head exited 1."""
    project = _adopted(small_project, cli)
    script = project / "scripts" / "run.sh"
    script.write_text(script.read_text() + "python -m app.main --config-name trainy trainer.epochs=2\n", encoding="utf-8")
    result, report = _review(cli)
    assert result.code == 1, result.out
    blocking = _blocking(report)
    assert [case for case, _ in blocking] == ["cmd/scripts/run.sh#4"] and "trainy" in blocking[0][1], result.out
    (new,) = [f for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#4" for f in c["findings"] if f["kind"] == "launch"]
    assert new["origin"] == "introduced" and new["source"] == "scripts/run.sh:5", new
    # The base's own typo is still known (excused), and nothing says it was fixed.
    assert not _said(report, "known finding fixed"), result.out
    assert cli("--settings", "harness.toml", "check").code == 1


def test_the_same_typo_copied_into_a_new_launch_is_this_changes_error(small_project, cli):
    """A launch a pull request adds that fails exactly as another launch of its script did at the base is a new
    launch that does not run: never `already at base`, in the review as in `check`."""
    project = _adopted(small_project, cli)
    script = project / "scripts" / "run.sh"
    script.write_text(script.read_text() + "python -m app.main --config-name trainx trainer.epochs=2\n", encoding="utf-8")
    result, report = _review(cli)
    assert result.code == 1 and [case for case, _ in _blocking(report)] == ["cmd/scripts/run.sh#4"], result.out
    assert cli("--settings", "harness.toml", "check").code == 1


def test_an_entry_written_before_launches_carried_their_identity_still_matches_its_script_at_any_line(small_project, cli):
    """A known file an earlier version wrote (`source: FILE:LINE`, no `config`/`launch`) keeps working: its entries
    name their script, at whatever line the launch now sits."""
    project = _adopted(small_project, cli)
    known = project / "known.yaml"
    known.write_text(
        "".join(line for line in known.read_text().splitlines(keepends=True) if not line.startswith(("  config:", "  launch:")))
    )
    git(project, "commit", "-q", "--allow-empty", "-am", "the known file as an earlier version wrote it")
    script = project / "scripts" / "run.sh"
    script.write_text("set -x\n" + script.read_text(), encoding="utf-8")
    result, report = _review(cli)
    assert result.code == 0 and not _blocking(report) and not _said(report, "known finding fixed"), result.out
    checked = cli("--settings", "harness.toml", "check")
    assert checked.code == 0 and "2 known findings" in checked.out, checked.out
    # `known` gives such entries their launch's identity (every other byte kept), which is no loosening in a review ...
    written = cli("--settings", "harness.toml", "known")
    assert "2 launch entries in known.yaml given their launch's identity" in written.out, written.out
    assert known.read_text().count("  config: ") == 2 and known.read_text().count("  launch: ") == 1
    result, report = _review(cli)
    assert result.code == 0 and not [f for f in report["findings"] if f["kind"] == "contract_change"], result.out
    # ... and from there a script moved with its text keeps them too.
    commit(project, "known: the entries' identities")
    git(project, "mv", "scripts/run.sh", "scripts/train.sh")
    checked = cli("--settings", "harness.toml", "check")
    assert checked.code == 0 and "2 known findings" in checked.out and "known finding fixed" not in checked.out, checked.out
