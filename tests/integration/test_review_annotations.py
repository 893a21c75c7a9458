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
