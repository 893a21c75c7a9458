"""What runs a review is reviewed too: a workflow that runs config-harness, a file the CODEOWNERS template lists,
or a submodule re-pointed since the base is a settings change naming who must approve; a workflow that never runs
config-harness, or a link a pull request commits, is not read. (A review end to end: test_review_around.py.)"""

from harness.runner.around import around_review
from tests.synthetic_history import commit, git

WORKFLOW = ".github/workflows/ci.yml"


def repository(tmp_path):
    top = tmp_path / "repo"
    (top / ".github" / "workflows").mkdir(parents=True)
    (top / WORKFLOW).write_text("steps:\n  - run: config-harness check\n")
    (top / ".github" / "workflows" / "lint.yml").write_text("steps:\n  - run: ruff check\n")
    git(top, "init", "-q", "-b", "main")
    return top, commit(top, "base")


def test_a_workflow_that_runs_the_harness_changed_needs_its_owners(tmp_path):
    top, base = repository(tmp_path)
    assert around_review(top, base, None) == []
    (top / WORKFLOW).write_text("steps:\n  - run: config-harness check || true\n")
    (top / ".github" / "workflows" / "lint.yml").write_text("steps:\n  - run: ruff check --fix\n")  # runs no harness: not named
    (change,) = around_review(top, base, None)
    assert (
        change.key == WORKFLOW
        and change.old != change.new
        and change.narrows
        and change.description
        == (f"{WORKFLOW} changed (a workflow that runs config-harness): the owners of {WORKFLOW} must approve (CODEOWNERS)")
    )


def test_the_requirements_file_templates_codeowners_lists_is_watched(tmp_path):
    top, base = repository(tmp_path)
    (top / "config-harness").mkdir()
    (top / "config-harness" / "requirements.txt").write_text("config-harness==9.9\n")
    (change,) = around_review(top, base, None)
    assert change.key == "config-harness/requirements.txt" and change.old is None and "templates/CODEOWNERS lists" in change.description


def test_a_workflow_replaced_by_a_link_is_not_followed(tmp_path):
    top, base = repository(tmp_path)
    (tmp_path / "elsewhere.yml").write_text("steps:\n  - run: config-harness check\n")
    (top / WORKFLOW).unlink()
    (top / WORKFLOW).symlink_to(tmp_path / "elsewhere.yml")
    (change,) = around_review(top, base, None)
    assert change.key == WORKFLOW and change.new is None  # read as absent, never through the link


def test_deleting_the_record_of_the_code_s_config_writes_needs_its_owners(tmp_path):
    # A pull request deleting `_config_writes.yaml` while changing the code's writes passed: `check` had no record to
    # compare the code with (issue 53).
    from types import SimpleNamespace

    top, _ = repository(tmp_path)
    (top / "snapshots").mkdir()
    (top / "snapshots" / "_config_writes.yaml").write_text("entry_points: {}\n")
    base = commit(top, "the record")
    settings = SimpleNamespace(snapshot_dir=top / "snapshots", command_globs=())
    assert around_review(top, base, settings) == []
    (top / "snapshots" / "_config_writes.yaml").unlink()
    (change,) = around_review(top, base, settings)
    assert change.key == "snapshots/_config_writes.yaml" and change.new is None and change.narrows
    assert "owners of the snapshot folder must approve" in change.description
