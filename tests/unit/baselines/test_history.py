"""`log`'s walk over git history: each commit after which a key of one case composes to another value, oldest
first; the commits that change no config are skipped; a question with no answer in the range is one line; a
`--since` off HEAD's line is walked from the merge base, as `git log REF..HEAD` is. (`log` end to end:
tests/unit/commands/test_log.py and tests/integration/test_log_answers.py.)"""

import pytest

from harness.baselines.history import HistoryError, key_log
from harness.model.settings import load_settings
from tests.synthetic_history import commit, git

CASE = "train/base/default"


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "harness.toml").write_text('config_dir = "conf"\nroots = ["train"]\n')
    (tmp_path / "conf" / "train.yaml").write_text("trainer:\n  steps: 1\n")
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "start")
    (tmp_path / "conf" / "train.yaml").write_text("trainer:\n  steps: 1\n  lr: 0.1\n")
    commit(tmp_path, "add lr")
    (tmp_path / "README").write_text("no config\n")
    commit(tmp_path, "docs")
    (tmp_path / "conf" / "train.yaml").write_text("trainer:\n  steps: 1\n  lr: 0.2\n")
    commit(tmp_path, "raise lr")
    return tmp_path


def test_each_commit_that_changed_the_value_oldest_first(repo):
    changes = key_log(load_settings(repo / "harness.toml"), "trainer.lr", CASE).changes
    assert [(c.subject, c.old, c.new, c.old_present, c.new_present) for c in changes] == [
        ("add lr", None, 0.1, False, True),
        ("raise lr", 0.1, 0.2, True, True),
    ]
    assert all(len(c.commit) == 40 for c in changes)


def test_a_question_with_no_answer_is_one_line(repo):
    settings = load_settings(repo / "harness.toml")
    with pytest.raises(HistoryError, match=f"case {CASE} never had the key trainer.nothing"):
        key_log(settings, "trainer.nothing", CASE)
    with pytest.raises(HistoryError, match="case eval/base/default is in no commit's matrix"):
        key_log(settings, "trainer.lr", "eval/base/default")
    git(repo, "tag", "release-1")
    with pytest.raises(HistoryError, match="--since: .*nearest existing ref: release-1"):
        key_log(settings, "trainer.lr", CASE, since="relase-1")


def test_a_since_off_the_line_is_walked_from_the_merge_base(repo):
    git(repo, "checkout", "-q", "-b", "release", "HEAD~2")  # at "add lr": lr is 0.1
    (repo / "conf" / "train.yaml").write_text("trainer:\n  steps: 1\n  lr: 0.5\n")
    commit(repo, "release fix")
    git(repo, "checkout", "-q", "main")
    answer = key_log(load_settings(repo / "harness.toml"), "trainer.lr", CASE, since="release")
    assert answer.since is not None and (answer.since.value, answer.since.present) == (0.5, True)
    assert [c.subject for c in answer.changes] == ["raise lr"]  # after the merge base ("add lr")
    assert answer.since.line("trainer.lr", "0.5").startswith("--since release (")
