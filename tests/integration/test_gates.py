"""Issue 20: one gate for every byte a pull request controls. Each reproduction of the issue is a test here
(each failed on the main it was filed against), then the two sweeping tests: a secret in the environment
reaches no output and no written file of any command in any format, and no hostile tree, settings or golden
ends in exit 3."""

from __future__ import annotations

import json
import os
import shutil
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf

from harness.reporters import FORMATS as REPORT_FORMATS
from tests.conftest import SMALL_SETTINGS, SMALL_TREE, add_contracts, write_tree
from tests.integration.test_hostile import FORMATS, bounded_run, edit, tiny_wheel
from tests.synthetic_history import git

SECRET = "ghs_gate20SECRETvalue"
SECRET_YAML = "{leak: ghs_gate20SECRETvalue}"


# ---- gate 3: a value-only preset went through Hydra's override code outside the resolver guard ----


def test_a_value_only_preset_never_resolves_the_environment(small_project, cli, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "token: ${oc.env:GITHUB_TOKEN}\ntrainer:\n")
    edit(small_project / "harness.toml", 'fast = ["', 'fast = ["~token=x", "')
    outputs = [cli("--settings", "harness.toml", "check", "--format", f, cwd=small_project) for f in FORMATS]
    generated = cli("--settings", "harness.toml", "generate")
    assert all(run.code == 1 for run in outputs) and generated.code == 1
    text = "".join(run.out + run.err for run in [*outputs, generated])
    assert SECRET not in text and "The value of 'token' is ${oc.env:GITHUB_TOKEN} and not x" in text
    assert not any(SECRET in path.read_text() for path in (small_project / "snapshots").iterdir())


# ---- gate 2: `fetch` with `into = ".git/refs/origin"` let a pull request choose what a review compares with ----


def test_fetch_never_writes_into_git(tmp_path, cli):
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    wheel = tiny_wheel(project)
    (project / "harness.toml").write_text(
        f'config_dir = "conf"\nroots = ["train"]\n[source]\nwheel = "{wheel.name}"\nunpack = "demo/conf"\ninto = ".git/refs/origin"\n'
    )
    before = sorted(p.relative_to(project) for p in (project / ".git").rglob("*"))
    run = cli("--settings", "harness.toml", "fetch", cwd=project)
    assert run.code == 2 and "git folder" in run.err and "source.into" in run.err
    cli_run = cli("fetch", "--wheel", str(wheel), "--into", ".git/refs/origin")
    assert cli_run.code == 2 and "git folder" in cli_run.err
    assert sorted(p.relative_to(project) for p in (project / ".git").rglob("*")) == before


# ---- gate 1: provenance joined `a/../evil` lexically while Hydra followed the symlink, then read it whole ----


def test_provenance_reads_the_file_hydra_read_never_a_device(small_project, cli):
    conf = small_project / "conf"
    (conf / "sub" / "inner").mkdir(parents=True)
    (conf / "a").symlink_to(conf / "sub" / "inner", target_is_directory=True)
    (conf / "sub" / "evil.yaml").write_text("# @package _global_\nevil: benign\n")  # what Hydra reads for a/../evil
    (conf / "evil.yaml").symlink_to("/dev/zero")  # what a lexical join reads
    edit(conf / "train.yaml", "  - _self_\n", "  - a/../evil\n  - _self_\n")
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    edit(conf / "sub" / "evil.yaml", "benign", "changed")
    run = bounded_run(small_project, "check", "--format", "github", timeout=120)
    assert run.returncode == 1, run.stderr[-2000:]
    assert "evil: benign -> changed" not in run.stdout  # shown as a value change, from the file Hydra read
    assert "sub/evil.yaml" in run.stdout and "evil" in run.stdout


# ---- gate 1: contracts and settings files had no size bound ----


@pytest.mark.parametrize("what", ["contracts", "settings"])
def test_contracts_and_settings_files_are_bounded(small_project, cli, what):
    if what == "contracts":
        add_contracts(small_project, "contracts: []\n# " + "x" * (9 * 1024 * 1024) + "\n")
    else:
        with (small_project / "harness.toml").open("a") as handle:
            handle.write("# " + "x" * (9 * 1024 * 1024) + "\n")
    run = cli("--settings", "harness.toml", "check", cwd=small_project)
    assert run.code == 2 and "MiB" in run.err and len(run.err.strip().splitlines()) == 1


# ---- gate 4: a `snapshot_dir` holding workflow commands printed them raw; a bidi override hid a value ----

INJECTED = "\\n::stop-commands::x\\n::notice title=pwned::All cases OK"


def test_no_setting_prints_a_workflow_command_of_its_own(small_project, cli):
    edit(small_project / "harness.toml", 'snapshot_dir = "snapshots"', f'snapshot_dir = "snap{INJECTED}"')
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    for output_format in (*REPORT_FORMATS, None):
        args = ["check"] if output_format is None else ["check", "--format", output_format]
        run = cli("--settings", "harness.toml", *args)
        for line in (run.out + run.err).splitlines():
            assert not line.startswith(("::stop-commands", "::notice title=pwned")), line
            assert not line.startswith("::") or output_format == "github"


def test_a_value_holding_a_bidi_override_is_shown_escaped_with_a_warning(small_project, cli):
    edit(small_project / "conf" / "train.yaml", "trainer:\n", 'model_path: "/models/\\u202edoog"\ntrainer:\n')
    for output_format in REPORT_FORMATS:
        run = cli("--settings", "harness.toml", "check", "--format", output_format, cwd=small_project)
        assert "\u202e" not in run.out + run.err and "202e" in run.out
    report = cli("--settings", "harness.toml", "check", "--format", "json").json()
    warnings = [f for c in report["cases"] for f in c["findings"] if f["kind"] == "hidden_text"]
    assert warnings and all(f["severity"] == "warning" and f["path"] == "model_path" for f in warnings)


# ---- gate 5: crashes on input (exit 3) ----


def test_a_contract_path_that_is_not_a_path_is_one_line_exit_2(small_project, cli):
    add_contracts(small_project, "contracts:\n  - name: c\n    require: ['model.\"x']\n")
    run = cli("--settings", "harness.toml", "check", cwd=small_project)
    assert run.code == 2 and "contracts.yaml:3" in run.err and "not a dotted path" in run.err


def test_a_990_deep_golden_is_a_case_error_not_a_crash(small_project, cli):
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    golden = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    golden.write_text(golden.read_text() + "deep: " + "[" * 990 + "]" * 990 + "\n")
    report = cli("--settings", "harness.toml", "check", "--format", "json")
    assert report.code == 1
    (case,) = [c for c in report.json()["cases"] if c["id"] == "train/cpu/default"]
    assert case["status"] == "error" and "levels deep" in case["findings"][0]["message"]


def test_a_circular_alias_in_a_config_is_a_case_error_not_a_hang(small_project, cli):
    write_tree(small_project / "conf", {"backend/loop.yaml": "backend: loop\nself: &x [*x]\n"})
    run = bounded_run(small_project, "check", "--format", "json", timeout=60)
    cases = {c["id"]: c for c in json.loads(run.stdout)["cases"]}
    assert run.returncode == 1 and "alias" in cases["train/loop/default"]["findings"][0]["message"]


# ---- gate 3, sweeping: every command and format, a secret in the environment, every way to reach it ----

REACHING = {
    "conf/train.yaml": {
        "env": "${oc.env:CH_GATE_SECRET}",
        "decoded": "${oc.decode:${oc.env:CH_GATE_SECRET}}",
        "created": "${oc.create:${oc.env:CH_GATE_SECRET_YAML}}",
        "custom": "${gate_leak:}",
        "hydra_cwd": "${hydra:runtime.cwd}",
        "copied": "${env}",
    },
}
PRESETS = {
    "delete": ["~env=x", "~decoded=x"],
    "set": ["trainer.epochs=${oc.env:CH_GATE_SECRET}"],
    "add": ["+added=${oc.env:CH_GATE_SECRET}", "++forced={a: ${oc.decode:${oc.env:CH_GATE_SECRET}}}"],
    "under": ["+created.leak=1"],
    "select": ["backend=${oc.env:CH_GATE_SECRET}"],
}
CONTRACTS = """
contracts:
  - name: secrets
    equal: {env: x, decoded: x, created: x, custom: x, copied: x, added: x}
    agree: [[env, copied, custom]]
"""


@pytest.fixture
def secret_project(small_project, cli, monkeypatch):
    """The small project committed in git, whose configs and presets reach a secret every way there is."""
    monkeypatch.setenv("CH_GATE_SECRET", SECRET)
    monkeypatch.setenv("CH_GATE_SECRET_YAML", SECRET_YAML)
    OmegaConf.register_new_resolver("gate_leak", lambda: os.environ["CH_GATE_SECRET"])
    lines = "".join(f"{key}: {json.dumps(value)}\n" for key, value in REACHING["conf/train.yaml"].items())
    edit(small_project / "conf" / "train.yaml", "trainer:\n", lines + "trainer:\n")
    presets = "".join(f"{name} = {json.dumps(overrides)}\n" for name, overrides in PRESETS.items())
    edit(small_project / "harness.toml", "[presets]\n", "[presets]\n" + presets)
    add_contracts(small_project, CONTRACTS)
    cli("--settings", "harness.toml", "generate", cwd=small_project)
    git(small_project, "init", "-q", "-b", "main")
    git(small_project, "add", "-A")
    git(small_project, "commit", "-q", "-m", "base")
    edit(small_project / "conf" / "train.yaml", "copied: ", "was_copied: 1\ncopied: ")
    git(small_project, "commit", "-q", "-am", "edit")
    yield small_project
    OmegaConf.clear_resolver("gate_leak")


def reported_commands(project: Path, old_tree: Path, generated: Path, golden: str) -> list[list[str]]:
    """The runs that write a report in every format: check, both reviews, and a diff in each mode."""
    return [
        ["check"],
        ["diff", "--base", "main"],
        ["diff", "--base", "main", "--compose-base"],
        ["diff", str(old_tree), str(project / "conf")],
        ["diff", str(generated / golden), str(project / "snapshots" / golden)],
        ["diff", str(generated), str(project / "snapshots")],
    ]


def every_command(project: Path) -> list[list[str]]:
    """Every public command with every format it takes, over the secret project."""
    old_tree = project.parent / "old_tree"
    shutil.copytree(project / "conf", old_tree)
    edit(project / "conf" / "backend" / "cpu.yaml", "count: 1", "count: 2")
    generated = project / "generated"
    shutil.copytree(project / "snapshots", generated)
    golden = "_generated_train__cpu__default.yaml"
    runs = [["list"], ["list", "--format", "json"], ["generate", "--check"]]
    # Every format of each run (text, json, markdown, github, sarif, junit): one on standard output, each other one
    # written by --report from the same run, into a folder the test reads back.
    reports = project.parent / "reports"
    for index, command in enumerate(reported_commands(project, old_tree, generated, golden)):
        shown = list(REPORT_FORMATS)[index % len(REPORT_FORMATS)]  # a different format on standard output each time
        runs += [
            [
                *command,
                "--format",
                shown,
                *(f"--report={other}:{reports / f'{index}.{other}'}" for other in REPORT_FORMATS if other != shown),
            ]
        ]
    for key in REACHING["conf/train.yaml"]:
        runs += [
            ["explain", key, "--case", "train/cpu/default"],
            *(["log", key, "--case", "train/cpu/default", "--format", f] for f in ("text", "json")),
        ]
    runs += [
        ["lock", "--baseline", "train/cpu/default", "--target", "train/gpu/default", "--name", "n", "--cases", "*"],
        [
            "lock",
            "--baseline",
            "train/cpu/default",
            "--target",
            "train/gpu/add",
            "--name",
            "n",
            "--cases",
            "*",
            "--output",
            "contracts.yaml",
            "--reason",
            "r",
        ],
        ["generate"],
    ]
    return runs


def test_no_command_in_any_format_shows_or_writes_a_secret(secret_project, cli):
    outputs = []
    for args in every_command(secret_project):
        run = cli("--settings", "harness.toml", *args, cwd=secret_project)
        assert run.code in (0, 1, 2), (args, run.err)
        outputs.append((args, run.out + run.err))
    init_project = secret_project.parent / "adopting"
    shutil.copytree(secret_project / "conf", init_project / "conf")
    init = cli("init", "--config-dir", "conf", "--settings", "adopted.toml", cwd=init_project)
    outputs.append((["init"], init.out + init.err))
    reports = sorted((secret_project.parent / "reports").iterdir())
    assert len(reports) == 6 * (len(REPORT_FORMATS) - 1)
    outputs += [([f"--report {report.name}"], report.read_text(encoding="utf-8")) for report in reports]
    leaked = [args for args, text in outputs if SECRET in text]
    assert leaked == []
    assert any("${oc.env:CH_GATE_SECRET}" in text for _, text in outputs)  # the secret's reference, as written
    written = [p for root in (secret_project, init_project) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert written and not [p for p in written if SECRET.encode() in p.read_bytes()]


# ---- gate 5, sweeping: no hostile tree, settings or golden gives exit 3 ----

HOSTILE_TEXT = st.one_of(
    st.text(alphabet=string.printable + "\u202e\u200b\x00\x1b&*!|>-[]{}:#'\"%@`", max_size=60),
    st.sampled_from(
        [
            "a: &x [*x]",
            "x: " + "[" * 60 + "]" * 60,
            "k: ${a.b",
            "k: ${oc.env:CH_GATE_SECRET}",
            "defaults: [x]",
            "defaults:\n  - backend: ${oc.env:X}",
            "!!python/object/apply:os.system ['true']",
            "1: a\n1.0: b",
            "? [a]\n: b",
            "x: !!binary aGk=",
            "'a.b': 1\na: {b: 2}",
            "\ufeffa: 1",
            "a: 1\na: 2",
            "hydra:\n  searchpath: [pkg://os]",
        ]
    ),
)
SETTINGS_VALUES = st.one_of(
    st.sampled_from(
        [
            'snapshot_dir = "../x"',
            'snapshot_dir = ".git/hooks"',
            'contracts = ["/dev/zero"]',
            'engines = ["a/b"]',
            'roots = ["train", "train"]',
            'version_base = "9"',
            'search_path = ["pkg://os"]',
            "jobs = 0",
            '[presets]\nx = ["~trainer=${oc.env:CH_GATE_SECRET}"]',
            '[presets]\ny = ["+' + "a." * 60 + 'b=1"]',
            '[[routes]]\nname = "r"\nconfig_name = "../x"',
        ]
    ),
    st.just(""),
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(config=HOSTILE_TEXT, golden=HOSTILE_TEXT, contracts=HOSTILE_TEXT, extra_settings=SETTINGS_VALUES)
def test_no_hostile_input_is_an_internal_error(tmp_path_factory, cli, config, golden, contracts, extra_settings):
    project = tmp_path_factory.mktemp("hostile")
    write_tree(project / "conf", SMALL_TREE)
    (project / "conf" / "backend" / "hostile.yaml").write_text(config, encoding="utf-8")
    (project / "snapshots").mkdir()
    (project / "snapshots" / "_generated_train__cpu__default.yaml").write_text(golden, encoding="utf-8")
    (project / "contracts.yaml").write_text(contracts, encoding="utf-8")
    toml = 'contracts = ["contracts.yaml"]\n' + SMALL_SETTINGS
    if extra_settings.startswith("[presets]"):
        toml = toml.replace("[presets]\n", extra_settings + "\n", 1)
    elif extra_settings.startswith("[[routes]]"):
        toml += extra_settings + "\n"
    elif extra_settings:
        key = extra_settings.partition(" =")[0]
        toml = extra_settings + "\n" + "\n".join(line for line in toml.splitlines() if not line.startswith(f"{key} ="))
    (project / "harness.toml").write_text(toml, encoding="utf-8")
    for args in (["check", "--format", "json"], ["check", "--format", "github"], ["list"]):
        run = cli("--settings", "harness.toml", "--no-cache", "--jobs", "1", *args, cwd=project)
        assert run.code in (0, 1, 2), (args, run.err[-500:])


# Attacker pass (round three): a key or value holding a workflow command reached the CI log in every format
# (`  ::error ...` once the runner trims the indent, and the legacy `##[cmd]` form anywhere in a line).
def test_no_format_lets_a_key_or_value_start_a_workflow_command(small_project, cli):
    import re

    from harness.reporters import FORMATS
    from tests.conftest import commit_small_project

    repository = commit_small_project(small_project, cli, "contracts: []\n")
    train = repository / "conf" / "train.yaml"
    train.write_text(
        train.read_text().replace("  name: ???", '  name: "##[add-mask]FAILED"')
        + '"::error title=config-harness::All cases match their goldens": 1\n'
    )
    own = re.compile(r"^::(error|warning|notice)( [^:]*)?::")
    for command in (["check"], ["diff", "--base", "main"]):
        for output_format in FORMATS:
            out = cli("--settings", "harness.toml", *command, "--format", output_format).out
            assert "##[" not in out, (command, output_format)
            for line in out.splitlines():
                if output_format == "github" and own.match(line):
                    continue
                assert not line.lstrip().startswith("::"), (command, output_format, line)
            if output_format == "json":  # the guard keeps the values: JSON reads back the same text
                document = cli("--settings", "harness.toml", *command, "--format", "json").json()
                assert "##[add-mask]FAILED" in json.dumps(document, ensure_ascii=False)
