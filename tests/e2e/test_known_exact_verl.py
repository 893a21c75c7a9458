"""Known entries are exact and part of the base's rules (issue 40 item 3, issue 41 item 1), on verl's whole repository.

Adopted at main-2026-08-22 as the README says, a pull request that adds a `model_engine` option built from dp's
files inherits only causes the base already knows: after the steps the tool prints, `check` and the review are green
with no contract change. A pull request that removes a required key and writes its known entry and the records its
error asks for in the known file alone fails, naming the owners who must approve; moving an entry's `until` to 2099
is a contract change. `known --base REF --reason` writes the records the review asks for where they count.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import ROOT
from tests.e2e.real_trees import SHARED_DATA
from tests.synthetic_history import git

pytestmark = pytest.mark.e2e

BUNDLE = SHARED_DATA / "verl-full.bundle"
TAG = "main-2026-08-22"
CONFIG = Path("verl/trainer/config")
CONTRACTS = """\
contracts:
  - name: validation
    require:
      - trainer.val_before_train
"""


def run(repository: Path, *args: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(repository)
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out.out + out.err


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """verl at TAG adopted as README.md's "Adopt it" says (init with the engine group, generate, known), with one
    contract, committed on branch `adopted`."""
    if not BUNDLE.is_file():
        pytest.skip(f"verl's whole repository is not beside the project: {BUNDLE}")
    repository = tmp_path_factory.mktemp("known") / "verl"
    git(ROOT, "clone", "--quiet", str(BUNDLE), str(repository))
    git(repository, "checkout", "-q", "-b", "adopted", TAG)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        (repository / "config-harness").mkdir()
        (repository / "config-harness" / "contracts.yaml").write_text(CONTRACTS)
        assert main(["init", "--config-dir", str(CONFIG), "--engine-group", "model_engine"]) == 0
        assert main(["generate", "--quiet"]) == 0
        assert main(["known"]) == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "adopt config-harness")
    return repository


def test_a_new_engine_copied_from_dp_is_green_in_check_and_the_review_after_the_steps_the_tool_prints(adopted, capsys, monkeypatch):
    repository = adopted
    git(repository, "checkout", "-q", "-b", "new-engine", "adopted")
    config = repository / CONFIG
    (config / "model_engine" / "mydp.yaml").write_text(
        (config / "model_engine" / "dp.yaml").read_text().replace("model_engine: dp", "model_engine: mydp")
    )
    for group in ("actor", "ref", "critic"):
        shutil.copy(config / group / f"dp_{group}.yaml", config / group / f"mydp_{group}.yaml")
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    # Before: ten program-view findings on the new case, each a cause the known file already names on dp.
    assert code == 1 and "ERROR no golden; run generate  (ppo_trainer/mydp/default)" in out, out
    assert not re.search(r"ERROR .*declares no field", out), out
    (step,) = re.findall(r"^Next: .*run `(config-harness [a-z]+)`", out, flags=re.M)
    assert step == "config-harness generate", out
    code, out = run(repository, *step.split()[1:], capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0, out
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "a new model_engine option built from dp's files")
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "contract change" not in out, out
    for base in (TAG, "adopted"):
        code, out = run(repository, "diff", "--base", base, capsys=capsys, monkeypatch=monkeypatch)
        assert code == 0 and "contract change" not in out, (base, out)


def test_a_known_entry_and_its_records_in_the_known_file_alone_buy_nothing(adopted, capsys, monkeypatch):
    repository = adopted
    git(repository, "checkout", "-q", "-b", "drop-required", "adopted")
    trainer = repository / CONFIG / "ppo_trainer.yaml"
    trainer.write_text(trainer.read_text().replace("  val_before_train: True\n", ""))
    assert run(repository, "generate", "--quiet", capsys=capsys, monkeypatch=monkeypatch)[0] in (0, 1)
    code, out = run(repository, "known", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and re.match(r"[1-9]\d* findings?( \(\d+ causes?\))? recorded", out), out
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "drop a required key, excused by a known entry")
    code, out = run(repository, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1, out
    records = re.findall(r"add to `changes:` in config-harness/contracts\.yaml (\{known: .*?reason: WHY\})", out)
    assert records, out
    # The attacker writes the records the error asked for, in the known file alone.
    known = repository / "config-harness" / "known.yaml"
    known.write_text(known.read_text() + "changes:\n" + "".join(f"- {r.replace('WHY', 'fine')}\n" for r in records))
    git(repository, "commit", "-q", "-am", "records in the known file")
    code, out = run(repository, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1, out
    assert re.search(r"ERROR contract change: known entry added for .*trainer\.val_before_train", out), out
    assert "the owners of config-harness/known.yaml and config-harness/contracts.yaml must approve" in out, out
    assert "a `changes:` record in a known file approves nothing (config-harness/known.yaml:" in out, out
    # The command the error names writes the same records where the base's owners own them: then it is accepted.
    known.write_text(known.read_text().split("changes:\n")[0])
    code, out = run(
        repository, "known", "--base", "adopted", "--reason", "validation moves to the launcher", capsys=capsys, monkeypatch=monkeypatch
    )
    assert code == 0 and f"{len(records)} `changes:` record" in out, out
    assert "validation moves to the launcher" in (repository / "config-harness" / "contracts.yaml").read_text()
    git(repository, "commit", "-q", "-am", "records where the owners own them")
    code, out = run(repository, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "[recorded reason: validation moves to the launcher]" in out, out
    assert "must approve" in out, out


def test_moving_a_known_entrys_until_later_is_a_contract_change(adopted, capsys, monkeypatch):
    repository = adopted
    git(repository, "checkout", "-q", "-b", "dated", "adopted")
    known = repository / "config-harness" / "known.yaml"
    text = known.read_text()
    first = text.index("  reason: ")
    end = text.index("\n", first) + 1
    known.write_text(text[:end] + "  until: 2027-01-31\n" + text[end:])
    git(repository, "commit", "-q", "-am", "a known entry with a date")
    git(repository, "checkout", "-q", "-b", "renewed")
    known.write_text(known.read_text().replace("until: 2027-01-31", "until: 2099-01-01"))
    git(repository, "commit", "-q", "-am", "renewed to 2099")
    code, out = run(repository, "diff", "--base", "dated", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1 and re.search(r"ERROR contract change: known entry renewed \(until 2027-01-31 -> 2099-01-01\)", out), out


def test_a_repointed_submodule_is_named_with_the_owners_who_must_approve(adopted, capsys, monkeypatch):
    # verl's `recipe` submodule holds programs its launch scripts run: a pull request that re-points it changes what
    # they run, and the base checks launches, so it is an error until a record gives the reason.
    repository = adopted
    git(repository, "checkout", "-q", "-b", "repoint", "adopted")
    git(repository, "update-index", "--cacheinfo", f"160000,{'3' * 40},recipe")
    git(repository, "commit", "-q", "-m", "re-point recipe")
    code, out = run(repository, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1 and "submodule recipe re-pointed" in out, out
    assert code == 1 and "(checked by the base)" in out and "must approve" in out, out


def test_known_launch_failures_keep_their_entries_when_their_scripts_shift_or_move(adopted, capsys, monkeypatch):
    """Issue 50 item 2 on verl: a comment line added under every script's first line that holds a known launch failure,
    and one of those scripts also moved, leave the review green with no false "known finding fixed", and `check`
    on the head green, every entry still excusing what it names (code-r1's `set -x`, rllm 9061cb2's renames)."""
    import yaml

    repository = adopted
    git(repository, "checkout", "-q", "-b", "shifted", "adopted")
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    (counted,) = set(re.findall(r"\(\d+ known findings[^)]*\)", out))
    known = yaml.safe_load((repository / "config-harness" / "known.yaml").read_text())["waivers"]
    scripts = sorted(
        {e["source"].rsplit(":", 1)[0] for e in known if e["finding"] == "launch" and e["source"].endswith(tuple("0123456789"))}
    )
    assert len(scripts) > 3, scripts
    for name in scripts:
        path = repository / name
        first, _, rest = path.read_text().partition("\n")
        path.write_text(f"{first}\n# a comment line: every launch below moves one line down\n{rest}")
    moved = Path(scripts[0])
    git(repository, "mv", str(moved), str(moved.with_name(f"renamed_{moved.name}")))
    code, out = run(repository, "diff", "--base", "adopted", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "known finding fixed" not in out and "contract change" not in out, out
    git(repository, "commit", "-q", "-am", "a comment line in each script with a known launch failure; one script moved")
    code, out = run(repository, "check", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and "known finding fixed" not in out and counted in out, (counted, out)
