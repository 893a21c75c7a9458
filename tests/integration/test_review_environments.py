"""Issue 51 item 5 on a small repository: a launch whose value is set only under a condition on the environment
(`if [ -n "$CUDA_VISIBLE_DEVICES" ]`) is read and compared under that condition too. A pull request that changes
only the GPU branch was a silent exit 0 (the plain run never takes it); now the change is a changed value of the
launch's reading `only when CUDA_VISIBLE_DEVICES is set`, named so in every format, and what breaks there blocks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.synthetic_history import git

SETTINGS = """
    config_dir = "conf"
    snapshot_dir = "snapshots"
    roots = ["train"]

    [[commands]]
    glob = "scripts/*.sh"
    """
SCRIPT = """
    if [ -n "$CUDA_VISIBLE_DEVICES" ]; then
        N_GPUS=8
    else
        N_GPUS=1
    fi
    python -m app.main trainer.n_gpus_per_node=$N_GPUS trainer.epochs=5
    """
PROJECT = {
    "conf/train.yaml": "trainer:\n  n_gpus_per_node: 1\n  epochs: 3\n",
    "app/__init__.py": "",
    "app/main.py": textwrap.dedent("""
        import hydra


        @hydra.main(config_path="../conf", config_name="train", version_base=None)
        def main(config):
            print(config)
        """),
    "scripts/run.sh": SCRIPT,
}
GPU = "cmd/scripts/run.sh#1 (only when CUDA_VISIBLE_DEVICES is set)"


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    write_tree(tmp_path, {"harness.toml": SETTINGS, **PROJECT})
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=tmp_path).code == 0
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def script(project: Path, text: str) -> None:
    (project / "scripts" / "run.sh").write_text(textwrap.dedent(text).lstrip("\n"))


def review(cli, project: Path, fmt: str = "json"):
    return cli("--settings", "harness.toml", "diff", "--base", "main", "--format", fmt, cwd=project)


def values(report: dict) -> set[tuple[str, str, object, object]]:
    return {(c["id"], f["path"], f["old"], f["new"]) for c in report["cases"] for f in c["findings"] if f["kind"] == "changed"}


def test_a_change_of_the_gpu_branch_alone_is_a_changed_value_named_with_its_condition_in_every_format(project, cli):
    script(project, SCRIPT.replace("N_GPUS=8", "N_GPUS=16"))
    result = review(cli, project)
    assert result.code == 0, result.out  # a changed value informs a review, as any launch's does
    report = result.json()
    assert values(report) == {(GPU, "trainer.n_gpus_per_node", 8, 16)}
    (case,) = [c for c in report["cases"] if c["id"] == GPU]
    assert case["when"] == "only when CUDA_VISIBLE_DEVICES is set"  # JSON, additively: the condition as a field too
    assert "run.sh#1 (only when CUDA_VISIBLE_DEVICES is set)" in report["summary"]
    # The launch as a plain run reads it has not changed; every format says under which condition the value did.
    assert not [c for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#1" and c["findings"]]
    text = review(cli, project, "text").out
    assert "trainer.n_gpus_per_node: 8 -> 16  (scripts/run.sh:6 (only when CUDA_VISIBLE_DEVICES is set))" in text, text
    markdown = review(cli, project, "markdown").out
    assert "scripts/run.sh:6 (only when CUDA_VISIBLE_DEVICES is set)" in markdown, markdown
    github = review(cli, project, "github").out
    assert (
        f"::notice file=scripts/run.sh,line=6,title=changed trainer.n_gpus_per_node::trainer.n_gpus_per_node: 8 -> 16 ({GPU})"
    ) in github, github


def test_an_override_the_gpu_branch_breaks_blocks_the_review_at_its_line_with_the_condition(project, cli):
    script(
        project,
        SCRIPT.replace("N_GPUS=8\n", "N_GPUS=8\n    EXTRA=trainer.nope=1\n").replace("epochs=5", 'epochs=5 "${EXTRA:-trainer.epochs=5}"'),
    )
    result = review(cli, project)
    assert result.code == 1, result.out
    (failure,) = [(c["id"], f["source"]) for c in result.json()["cases"] for f in c["findings"] if f["severity"] == "error"]
    assert failure == (GPU, "scripts/run.sh:3")
    text = review(cli, project, "text").out
    assert (
        "ERROR no such key: trainer.nope is not in the config  (scripts/run.sh:3 (only when CUDA_VISIBLE_DEVICES is set): trainer.nope=1)"
        in text
    )


def test_a_branch_the_pull_request_removes_or_adds_is_compared_under_its_condition(project, cli):
    # Removed: under CUDA_VISIBLE_DEVICES the launch now runs with 1 GPU, compared with the base's 8 (never "gone").
    script(project, "N_GPUS=1\npython -m app.main trainer.n_gpus_per_node=$N_GPUS trainer.epochs=5\n")
    result = review(cli, project)
    assert (result.code, values(result.json())) == (0, {(GPU, "trainer.n_gpus_per_node", 8, 1)}), result.out
    assert not [f for c in result.json()["cases"] for f in c["findings"] if f["kind"] == "launch_gone"]
    # Added: a branch on another variable is a new launch, compared with the base's launch it reads otherwise.
    script(project, SCRIPT.replace("python -m", 'if [ "${DEVICE:-gpu}" = npu ]; then N_GPUS=16; fi\npython -m'))
    report = review(cli, project).json()
    npu = "cmd/scripts/run.sh#1 (only when DEVICE=npu)"
    assert (npu, "trainer.n_gpus_per_node", 1, 16) in values(report)
    assert [f["kind"] for c in report["cases"] if c["id"] == npu for f in c["findings"]] == ["new_launch", "changed"]


def test_a_change_under_every_reading_is_named_once_on_the_plain_launch(project, cli):
    """A value the config tree changes under the launch whichever way the script goes is that launch's change: its
    readings under a condition name only what changes there."""
    config = project / "conf" / "train.yaml"
    config.write_text(config.read_text() + "  lr: 0.1\n")
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    git(project, "commit", "-qam", "the base: a learning rate")
    config.write_text(config.read_text().replace("lr: 0.1", "lr: 0.2"))
    script(project, SCRIPT.replace("N_GPUS=8", "N_GPUS=16"))
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    found = values(review(cli, project).json())
    assert found == {
        ("train/base/default", "trainer.lr", 0.1, 0.2),
        ("cmd/scripts/run.sh#1", "trainer.lr", 0.1, 0.2),
        (GPU, "trainer.n_gpus_per_node", 8, 16),
    }


def test_list_and_explain_name_the_reading_under_its_condition(project, cli):
    rows = {row["id"]: row for row in cli("--settings", "harness.toml", "list", "--format", "json", cwd=project).json()["cases"]}
    assert (rows[GPU]["when"], rows[GPU]["overrides"]) == (
        "only when CUDA_VISIBLE_DEVICES is set",
        ["trainer.n_gpus_per_node=8", "trainer.epochs=5"],
    )
    assert "when" not in rows["cmd/scripts/run.sh#1"]
    explained = cli("--settings", "harness.toml", "explain", "trainer.n_gpus_per_node", "--case", GPU, cwd=project).out
    assert explained.startswith(f"trainer.n_gpus_per_node = 8   (case {GPU}, config train)"), explained


TWO_LAUNCHES = """
    N=2
    python -m app.main trainer.n_gpus_per_node=4 trainer.epochs=5
    python -m app.main trainer.n_gpus_per_node=$N trainer.epochs=5
    """


def test_a_branch_the_pull_request_adds_is_compared_with_what_the_base_ran_under_it(project, cli):
    """The base tests no environment; the pull request adds `if [ -n "$X" ]` before the second of two launches that run
    the same command. Its reading under X is compared with the base's second launch (what the base ran whatever X
    holds), never with the first, which has the same command; an override the branch appends is compared too."""
    script(project, TWO_LAUNCHES)
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    git(project, "commit", "-qam", "the base: two launches, no branch")
    added = "cmd/scripts/run.sh#2 (only when X is set)"
    script(project, TWO_LAUNCHES.replace("N=2\n", 'N=2\n    if [ -n "$X" ]; then N=8; fi\n'))
    result = review(cli, project)
    assert (result.code, values(result.json())) == (0, {(added, "trainer.n_gpus_per_node", 2, 8)}), result.out
    (note,) = [f["message"] for c in result.json()["cases"] if c["id"] == added for f in c["findings"] if f["kind"] == "new_launch"]
    assert note.startswith("new launch, compared with scripts/run.sh:3 at the base (what the base runs only when X is set)"), note
    text = review(cli, project, "text").out
    assert "trainer.n_gpus_per_node: 2 -> 8  (scripts/run.sh:4 (only when X is set))" in text, text
    # An override the branch adds (a key the command did not pass): the value under X against the base's, at the branch.
    script(
        project,
        TWO_LAUNCHES.replace("N=2\n", 'N=2\n    if [ -n "$X" ]; then MORE=trainer.epochs=7; fi\n').replace(
            "=$N trainer.epochs=5\n", "=$N trainer.epochs=5 $MORE\n"
        ),
    )
    found = {
        (c["id"], f["path"], f["old"], f["new"], f["source"])
        for c in review(cli, project).json()["cases"]
        for f in c["findings"]
        if f["kind"] == "changed"
    }
    assert found == {(added, "trainer.epochs", 5, 7, "scripts/run.sh:2")}, found


def test_a_new_reading_under_a_value_the_base_tests_otherwise_is_named_not_compared_with_a_guess(project, cli):
    """The base tests `-n "$D"`; the pull request tests `D = xpu` first. What the base ran under D=xpu depends on tests
    of D the base has (its reading `D is set` may or may not be it), so the new reading is named, never compared with
    the plain launch (which would state `1 -> 4` where the base ran 8)."""
    script(project, 'N=1\nif [ -n "$D" ]; then N=8; fi\npython -m app.main trainer.n_gpus_per_node=$N\n')
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    git(project, "commit", "-qam", "the base: a branch on D")
    script(project, 'N=1\nif [ "$D" = xpu ]; then N=4; elif [ -n "$D" ]; then N=8; fi\npython -m app.main trainer.n_gpus_per_node=$N\n')
    report = review(cli, project).json()
    assert values(report) == set(), report["cases"]
    (case,) = [c for c in report["cases"] if c["id"] == "cmd/scripts/run.sh#1 (only when D=xpu)"]
    assert [(f["kind"], f["message"].startswith("new launch: ")) for f in case["findings"]] == [("new_launch", True)], case


def test_a_launch_only_a_reading_has_is_compared_with_the_bases_under_the_same_environment(project, cli):
    """A loop that runs a pass more when X is set: that pass has no plain launch, and is the base's pass under X."""
    loop = (
        'S="1"\nif [ -n "$X" ]; then S="1 2"; fi\nfor s in $S; do\n  python -m app.main trainer.n_gpus_per_node=$s trainer.epochs=5\ndone\n'
    )
    script(project, loop)
    assert cli("--settings", "harness.toml", "generate", "--quiet", cwd=project).code == 0
    git(project, "commit", "-qam", "the base: a pass more under X")
    script(project, loop.replace("epochs=5", "epochs=6"))
    result = review(cli, project)
    assert result.code == 0, result.out
    extra = "cmd/scripts/run.sh#2 (only when X is set)"
    assert values(result.json()) == {("cmd/scripts/run.sh#1", "trainer.epochs", 5, 6), (extra, "trainer.epochs", 5, 6)}
    assert not [f for c in result.json()["cases"] for f in c["findings"] if f["kind"] in ("launch_gone", "new_launch")]
