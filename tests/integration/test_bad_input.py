"""Bad input on a small tree: one clear line, the right exit code, no traceback, the rest still checked,
nothing written outside the snapshot folder and no golden touched by `check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.composition.render import parse_yaml
from tests.unit.composition.test_compose import plain_compose

ALL_CASES = {f"train/{e}/{p}" for e in ("cpu", "gpu") for p in ("default", "fast", "sgd")} | {"route/legacy"}
GPU_CASES = {"train/gpu/default", "train/gpu/fast", "train/gpu/sgd", "route/legacy"}


def files_of(root: Path) -> dict[str, bytes]:
    """Every file below root with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def outside_snapshots(files: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in files.items() if not name.startswith("snapshots")}


def write(project: Path, name: str, content: str | bytes) -> None:
    path = project / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())


def replace_in(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


BROKEN_CASES = {
    "malformed YAML": (
        lambda p: write(p, "conf/backend/gpu.yaml", "backend: gpu\ndevice: [\n"),
        GPU_CASES,
        ["backend/gpu.yaml:3", "invalid YAML"],
    ),
    "non-UTF-8 bytes": (
        lambda p: write(p, "conf/backend/gpu.yaml", b"backend: g\xffpu\n"),
        GPU_CASES,
        ["backend/gpu.yaml", "not UTF-8", "0xff"],
    ),
    "python object tag": (
        lambda p: write(p, "conf/backend/gpu.yaml", "backend: !!python/object/apply:os.system ['touch PWNED']\n"),
        GPU_CASES,
        ["backend/gpu.yaml:1", "python/object/apply"],
    ),
    "missing group option in a preset": (
        lambda p: replace_in(p, "harness.toml", "optimizer@trainer.optim=sgd", "optimizer@trainer.optim=nadam"),
        {"train/cpu/sgd", "train/gpu/sgd"},
        ["nadam"],
    ),
    "override with bad syntax": (
        lambda p: replace_in(p, "harness.toml", '"trainer.epochs=1"', '"trainer.epochs=["'),
        {"train/cpu/fast", "train/gpu/fast"},
        ["trainer.epochs=["],
    ),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_CASES))
def test_a_broken_case_is_one_error_line_and_everything_else_is_still_checked(small_project, cli, breakage):
    mutate, broken, words = BROKEN_CASES[breakage]
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    mutate(small_project)
    before = files_of(small_project)

    result = cli("--settings", "harness.toml", "check", "--format", "json")
    assert result.code == 1 and result.err == ""
    cases = {c["id"]: c for c in result.json()["cases"]}
    assert set(cases) == ALL_CASES  # every case reported
    assert {case_id for case_id, c in cases.items() if c["status"] == "error"} == broken
    assert all(c["status"] == "ok" for case_id, c in cases.items() if case_id not in broken)
    for case_id in broken:
        (finding,) = cases[case_id]["findings"]
        assert finding["kind"] == "error" and finding["severity"] == "error"
        assert "\n" not in finding["message"] and all(word in finding["message"] for word in words), finding
    assert files_of(small_project) == before  # check writes nothing and touches no golden

    text = cli("--settings", "harness.toml", "check")
    assert text.code == 1 and "Traceback" not in text.out
    generate = cli("--settings", "harness.toml", "generate")
    assert generate.code == 1
    after = files_of(small_project)
    assert outside_snapshots(after) == outside_snapshots(before)  # nothing written outside the snapshot folder
    for case_id in broken:  # a case that fails to compose never blanks or deletes its golden
        golden = "snapshots/_generated_" + case_id.replace("/", "__") + ".yaml"
        assert after[golden] == before[golden]
    assert not (small_project / "PWNED").exists() and not Path("PWNED").exists()  # no code ran from YAML


def test_an_empty_group_file_is_an_empty_config_not_a_crash(small_project, cli):
    write(small_project, "conf/backend/empty.yaml", "")
    result = cli("--settings", "harness.toml", "generate", cwd=small_project)
    assert result.code == 0, result.out
    golden = (small_project / "snapshots" / "_generated_train__empty__default.yaml").read_text()
    # Hydra places an empty option at its group's package as an empty mapping; the golden says exactly that.
    assert "\nbackend: {}\n" in golden
    assert parse_yaml(golden) == plain_compose(small_project / "conf", "train", ["backend=empty"])
    assert cli("--settings", "harness.toml", "check").code == 0


CONTRACTS = """
contracts:
  - name: needs-values
    cases: "train/cpu/default"
    equal: {trainer.dangling: 1, trainer.loop_a: 1, trainer.name: x}
"""


def test_unresolvable_values_are_named_when_a_contract_needs_them(small_project, cli):
    replace_in(
        small_project,
        "conf/train.yaml",
        "  lr: 0.1\n",
        "  lr: 0.1\n  dangling: ${trainer.nope}\n  loop_a: ${trainer.loop_b}\n  loop_b: ${trainer.loop_a}\n",
    )
    write(small_project, "contracts.yaml", CONTRACTS)
    write(small_project, "harness.toml", 'contracts = ["contracts.yaml"]\n' + (small_project / "harness.toml").read_text())
    # Composition keeps interpolations unresolved, so the goldens are written and the other cases pass.
    result = cli("--settings", "harness.toml", "generate", cwd=small_project)
    assert result.code == 1
    report = cli("--settings", "harness.toml", "check", "--format", "json").json()
    cases = {c["id"]: c for c in report["cases"]}
    # Every case holds the three leaves, and none can be resolved: each is `unresolved` everywhere (issue 40), whatever
    # the contracts ask; the case whose contract fails also names them in its contract findings.
    for case in cases.values():
        unresolved = {f["path"] for f in case["findings"] if f["kind"] == "unresolved" and f["severity"] == "error"}
        assert unresolved == {"trainer.dangling", "trainer.loop_a", "trainer.loop_b"}, case["id"]
    messages = {f["path"]: f["message"] for f in cases["train/cpu/default"]["findings"] if f["kind"] == "contract"}
    assert "trainer.nope" in messages["trainer.dangling"]
    assert "recursive interpolation" in messages["trainer.loop_a"].lower()
    assert "trainer.name" in messages["trainer.name"] and "???" in messages["trainer.name"]
    assert [c for c, v in cases.items() if any(f["severity"] == "error" and f["kind"] == "contract" for f in v["findings"])] == [
        "train/cpu/default"
    ]


def test_mandatory_values_and_env_lookups_are_not_errors(small_project, cli, monkeypatch):
    def generate_and_check(env_user: str | None) -> tuple[dict[str, bytes], str]:
        monkeypatch.delenv("USER", raising=False)
        if env_user is not None:
            monkeypatch.setenv("USER", env_user)
        assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
        check = cli("--settings", "harness.toml", "check", "--format", "json")
        assert check.code == 0, check.out + check.err
        return files_of(small_project / "snapshots"), check.out

    with_user = generate_and_check("alice")
    without_user = generate_and_check(None)
    assert with_user == without_user  # same goldens, same findings, whether USER is set or not
    goldens = b"".join(with_user[0].values())
    assert b"${oc.env:USER}" in goldens and b"alice" not in goldens and b"name: ???" in goldens


@pytest.mark.parametrize(
    "settings_text, words",
    [
        ('config_dir = "conf"\nroots = ["train"]\nsnapshots = "x"\n', ["harness.toml", "unknown key", "snapshots"]),
        ('config_dir = "conf"\nroots = "train"\n', ["harness.toml", "roots"]),
        ('config_dir = "nowhere"\nroots = ["train"]\n', ["config_dir", "nowhere", "does not exist"]),
        ('config_dir = "conf"\nroots = ["train"]\n[presets]\n"../evil" = []\n', ["presets", "../evil"]),
        ('config_dir = "conf"\nroots = ["train"]\nengines = ["gpu/x"]\n', ["engines", "gpu/x"]),
        ('config_dir = "conf"\nroots = ["train"]\ncontracts = ["c.yaml"]\n', ["c.yaml", "unknown key", "bogus"]),
    ],
    ids=["unknown key", "wrong type", "missing config_dir", "preset with ..", "engine with /", "contracts key"],
)
def test_unusable_settings_or_contracts_exit_2_with_one_line(small_project, cli, settings_text, words):
    write(small_project, "c.yaml", "contracts:\n  - name: x\n    cases: '*'\n    bogus: 1\n")
    write(small_project, "harness.toml", settings_text)
    before = files_of(small_project)
    for command in (["check"], ["generate"]):
        result = cli("--settings", "harness.toml", *command, cwd=small_project)
        assert result.code == 2 and result.out == ""
        (line,) = result.err.strip().splitlines()
        assert all(word in line for word in words), line
    assert files_of(small_project) == before


def test_an_engine_file_with_an_unsafe_name_is_a_usage_error(small_project, cli):
    write(small_project, "conf/backend/my gpu.yaml", "backend: x\n")
    result = cli("--settings", "harness.toml", "check", cwd=small_project)
    assert result.code == 2
    (line,) = result.err.strip().splitlines()
    assert "my gpu" in line and "backend" in line


def test_a_defaults_entry_of_a_group_that_does_not_exist_names_its_line_and_the_groups(small_project, cli):
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    train = small_project / "conf" / "train.yaml"
    train.write_text(train.read_text().replace("  - _self_", "  - backnd: cpu\n  - _self_", 1))
    run = cli("--settings", "harness.toml", "check")
    assert run.code == 1
    (line,) = [line for line in run.out.splitlines() if "backnd" in line]
    assert line.strip().startswith("ERROR conf/train.yaml:4: In 'train': Could not find 'backnd/cpu'")
    assert "no config group 'backnd'; did you mean 'backend'?" in line and "the groups: backend, optimizer" in line
    assert "ConfigStore" not in line  # a misspelt group is not a node registered from Python


@pytest.mark.parametrize(
    "known, words",
    [
        ("waivers: [\n", ["known.yaml:2", "invalid YAML"]),
        ("waivers:\n  - {finding: launch, sourse: run.sh:3, reason: r}\n", ["known.yaml:2", "'sourse'", "did you mean 'source'"]),
        ("waivers:\n  - finding: launch\n    path: [a]\n    reason: r\n", ["known.yaml:3", "path: expected str, got list"]),
        ("waivers:\n  - {finding: launch, path: a, cases: 5, reason: r}\n", ["known.yaml:2", "cases: expected str, got int 5"]),
    ],
    ids=["malformed YAML", "misspelled key", "list for a string", "number for a glob"],
)
def test_a_known_file_of_the_wrong_shape_is_one_line_naming_file_and_key_in_check_and_known(small_project, cli, known, words):
    """The known file is read by the one schema (harness/model/schema.py), by `check` and by `known` alike, before
    `known` reads it as YAML to rewrite it (it once said `YAML input:2` without the file)."""
    write(small_project, "known.yaml", known)
    replace_in(small_project, "harness.toml", "jobs = 1", 'jobs = 1\ncontracts = ["known.yaml"]')
    for command in ("check", "known"):
        result = cli("--settings", "harness.toml", command, "--no-cache", cwd=small_project)
        assert result.code == 2 and result.out == "", (command, result.out)
        (line,) = result.err.strip().splitlines()
        assert all(word in line for word in words), (command, line)
    assert (small_project / "known.yaml").read_text() == known
