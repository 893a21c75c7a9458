"""A review's GitHub annotations: only what the change introduced, errors first, at most ten of each kind, and
never an error that already held at the base (harness/reporters/github.py, `annotated`)."""

from __future__ import annotations

import textwrap

from tests.conftest import SMALL_SETTINGS, SMALL_TREE, write_tree
from tests.synthetic_history import git

KEYS = range(1, 13)  # twelve: more than GitHub shows of one kind
TRAIN = textwrap.dedent(SMALL_TREE["train.yaml"]).replace(
    "  epochs: 3\n",
    "  epochs: 3\n  keys:\n" + "".join(f"    k{i}: {i}\n" for i in KEYS) + "  values:\n" + "".join(f"    v{i}: {i}\n" for i in KEYS),
)
CONTRACTS = f"""
contracts:
  - name: keys-kept
    require: [{", ".join(f"trainer.keys.k{i}" for i in KEYS)}]
  - name: cpu-map
    cases: "train/cpu/*"
    require: [device.map.qkv]
"""


def test_a_review_annotates_only_introduced_findings_errors_first_ten_of_each_kind(tmp_path, cli):
    write_tree(tmp_path / "conf", {**SMALL_TREE, "train.yaml": TRAIN})
    (tmp_path / "contracts.yaml").write_text(CONTRACTS)
    (tmp_path / "harness.toml").write_text('contracts = ["contracts.yaml"]\n' + SMALL_SETTINGS)
    assert cli("--settings", "harness.toml", "generate", cwd=tmp_path).code == 1  # cpu-map already fails at the base
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    train = tmp_path / "conf" / "train.yaml"
    edited = train.read_text()
    for i in KEYS:  # every key the contract keeps goes, and every value changes
        edited = edited.replace(f"    k{i}: {i}\n", "").replace(f"    v{i}: {i}\n", f"    v{i}: {i * 100}\n")
    train.write_text(edited)
    assert cli("--settings", "harness.toml", "generate").code == 1  # written; the contract errors fail it

    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "github")
    assert review.code == 1
    lines = review.out.splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    kinds = [line[2:].split(" ", 1)[0] for line in annotations]
    assert kinds == ["error"] * 10 + ["notice"] * 10  # errors first; ten of each kind
    errors = annotations[:10]
    assert all("keys-kept: trainer.keys.k" in line and "is required but missing" in line for line in errors), errors
    assert not any("device.map.qkv" in line for line in annotations)  # held at the base: on no line
    notices = annotations[10:]
    assert all(".values.v" in line or "trainer.keys" in line for line in notices), notices
    assert any(
        line.endswith("more are not annotated (GitHub shows 10 of each kind); the job summary lists them all")
        and line.startswith("2 errors, ")
        for line in lines
    ), lines[-6:]
    # The same error, in `check`, where nothing is at the base, is annotated.
    checked = cli("--settings", "harness.toml", "check", "--format", "github").out
    assert any(line.startswith("::error") and "device.map.qkv" in line for line in checked.splitlines())


def test_a_deleted_override_is_annotated_on_no_line_of_the_changed_script(small_project, cli):
    """The override a change deletes was on a base line that now holds another override: the annotation names the
    base's line in its message ("at main") and points at no line of this checkout's script."""
    app = {
        "app/__init__.py": "",
        "app/main.py": "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n",
        "scripts/run.sh": "python -m app.main \\\n  trainer.lr=0.5 \\\n  trainer.epochs=5 trainer.name=run\n",
    }
    write_tree(small_project, app)
    settings = small_project / "harness.toml"
    settings.write_text(settings.read_text() + '\n[[commands]]\nglob = "scripts/*.sh"\n', encoding="utf-8")
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    git(small_project, "init", "-q", "-b", "main")
    git(small_project, "add", "-A")
    git(small_project, "commit", "-q", "-m", "base")
    (small_project / "scripts" / "run.sh").write_text("python -m app.main \\\n  trainer.epochs=5 trainer.name=run\n")

    review = cli("--settings", "harness.toml", "diff", "--base", "main", "--format", "github")
    notices = [line for line in review.out.splitlines() if line.startswith("::notice") and "trainer.lr" in line]
    assert len(notices) == 1, review.out
    assert "scripts/run.sh,line=2" not in notices[0], notices[0]  # line 2 now sets trainer.epochs
    assert "scripts/run.sh:2 at main" in notices[0], notices[0]
