"""Launch commands as cases, on a small real project: scripts read, entry points read with `ast`, Hydra composes.

The project holds one Hydra application (`app.train`, its `@hydra.main` naming `conf/train.yaml`), a converter
without `@hydra.main`, and a script whose launches apply, break in each way an override can, or cannot be read.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from harness.composition.provenance import Source
from harness.model.findings import ERROR, WARNING, CaseResult, Kind, LaunchFix, Origin, Status
from harness.reporters.layout import launches_line
from harness.runner.launches import (
    CONFIG_REMOVED,
    ENTRY_MISSING,
    ENTRY_REMOVED,
    KEY_EXISTS,
    KEY_REMOVED,
    NEVER_RUNS,
    NO_SUCH_KEY,
    NO_SUCH_OPTION,
    NOT_EXTRACTED,
    NOT_HYDRA,
    UNAVAILABLE,
    VALUE_DIFFERS,
    Checked,
    Composer,
    Project,
    case_result,
    command_cases,
    find_scripts,
    findings_of,
    launch_reason,
    moved_override,
    origins,
    tally,
)
from tests.conftest import write_tree

PROJECT = {
    "app/__init__.py": "",
    "app/train.py": "import hydra\n\n@hydra.main(config_path='conf', config_name='train', version_base=None)\ndef main(cfg): ...\n",
    "app/convert.py": "print('no hydra here')\n",
    "app/conf/train.yaml": "defaults:\n  - optim: adam\n  - _self_\ntrainer:\n  lr: 0.1\n  epochs: 3\n",
    "app/conf/optim/adam.yaml": "name: adam\nbeta: 0.9\n",
    "app/conf/optim/sgd.yaml": "name: sgd\n",
    "scripts/run.sh": """
        EPOCHS=${EPOCHS:-5}
        python3 -m app.train trainer.epochs=$EPOCHS optim=sgd trainer.lr=$1
        python3 -m app.train \\
            trainer.learning_rate=0.1 \\
            +trainer.lr=0.2 \\
            optim=lion \\
            '~trainer.epochs=4'
        python3 -m app.train --config-name=eval a=1
        python3 -m app.gone x=1
        python3 app/convert.py --in x
        python3 -m pip install hydra-core
        $CMD a.x=1 a.y=2 a.z=3
        """,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = write_tree(tmp_path_factory.mktemp("launches"), PROJECT)
    return Project(root, root / "app" / "conf", {})


@pytest.fixture(scope="module")
def checked(project: Project) -> dict[str, Checked]:
    cases = command_cases(project, [project.root / "scripts" / "run.sh"])
    return {c.case.id: c for c in Composer(project.root).check(c for c in cases if not c.skipped)}


def failures(checked: Checked) -> list[tuple[str, str, Any]]:
    return [(f.reason, f.key, f.fix) for f in checked.failures]


def test_each_launch_of_a_project_program_is_a_case_with_the_config_its_entry_point_names(project):
    cases = {c.id: c for c in command_cases(project, [project.root / "scripts" / "run.sh"])}
    # `python3 -m pip` is another package's program: no case. The converter is no Hydra application: skipped.
    assert list(cases) == [f"cmd/scripts/run.sh#{n}" for n in range(1, 7)]
    first, broken, other_config, gone, converter, unknown = cases.values()
    assert (first.config_dir, first.config_name, first.version_base) == (project.root / "app" / "conf", "train", None)
    assert first.overrides == ("trainer.epochs=5", "optim=sgd", "trainer.lr=__unset_1__")
    assert first.written == ("trainer.epochs=5", "optim=sgd", "trainer.lr=$1")
    assert (other_config.config_name, other_config.problem) == ("eval", "")  # --config-name wins over @hydra.main
    assert (gone.problem_kind, gone.problem) == (ENTRY_MISSING, "module app.gone does not exist in the repository")
    assert (converter.problem_kind, converter.skipped) == (NOT_HYDRA, True)
    assert (unknown.problem_kind, unknown.problem) == (NOT_EXTRACTED, "could not be read: the program is $CMD, which the script never sets")
    assert not any(c.skipped for c in (first, broken, other_config, gone, unknown))


def test_a_launch_that_applies_composes_its_groups_first_and_an_unknown_value_of_a_known_key_applies(checked):
    first = checked["cmd/scripts/run.sh#1"]
    assert (first.failures, first.unchecked, first.selection) == ([], [], ("train", "optim=sgd"))


def test_every_override_that_no_longer_applies_is_named_not_only_the_first(checked):
    broken = checked["cmd/scripts/run.sh#2"]
    assert failures(broken) == [
        (NO_SUCH_OPTION, "optim", None),  # never a file of the tree: not a removed option (issue 56)
        (NO_SUCH_KEY, "trainer.learning_rate", None),
        (KEY_EXISTS, "trainer.lr", "trainer.lr=0.2"),  # drop the `+`
        (VALUE_DIFFERS, "trainer.epochs", "~trainer.epochs"),  # delete whatever it holds
    ]
    assert broken.failures[0].message == "optim: In 'train': 'lion' is not an option of optim (options: adam, sgd)"
    assert broken.failures[3].message.startswith("trainer.epochs no longer has the value `~` names (")


def test_a_key_no_baseline_had_is_no_such_key_with_the_closest_key_and_one_the_goldens_had_is_key_removed(checked, tmp_path):
    """Issue 42 item 9: `trainer.learning_rate` is not in the config. Without a baseline that had it (a typo in a new
    override) it is `no such key`, with the closest key where one is close (`trainer.lrr`); where the goldens had it
    (a REMOVED finding's path, or a key above it) it is `key removed`, without a guess."""
    broken = checked["cmd/scripts/run.sh#2"]
    typo = next(f for f in findings_of(broken) if f.path == "trainer.learning_rate")
    assert typo.message == "no such key: trainer.learning_rate is not in the config"  # nothing close beside it
    assert typo.detail == LaunchFix(NO_SUCH_KEY)
    root = write_tree(tmp_path, {**PROJECT, "scripts/run.sh": "python3 -m app.train trainer.lrr=1 '~trainer.epoch'\n"})
    (one,) = Composer(root).check(command_cases(Project(root, root / "app" / "conf", {}), [root / "scripts" / "run.sh"]))
    assert [f.message for f in findings_of(one)] == [
        "no such key: trainer.lrr is not in the config; did you mean 'trainer.lr'?",
        "no such key: trainer.epoch does not exist, so `~` has nothing to delete; did you mean 'trainer.epochs'?",
    ]
    for removed in (["trainer.learning_rate"], ["trainer.learning_rate.warmup"]):  # the leaf, or a leaf below it
        gone = next(f for f in findings_of(broken, removed=removed) if f.path == "trainer.learning_rate")
        assert (gone.message, gone.detail) == ("key removed: trainer.learning_rate is not in the config", LaunchFix(KEY_REMOVED))
    # Neither another leaf nor a leaf above it (verl's empty `override_transformer_config: {}`) had the key.
    for removed in (["trainer.learning_rates"], ["trainer"]):
        other = next(f for f in findings_of(broken, removed=removed) if f.path == "trainer.learning_rate")
        assert other.detail == LaunchFix(NO_SUCH_KEY)


def test_a_launch_that_cannot_compose_at_all_says_why_once(checked):
    assert [(f.reason, f.override, f.message) for f in checked["cmd/scripts/run.sh#3"].failures] == [
        (CONFIG_REMOVED, None, "eval: Cannot find primary config 'eval'. Check that it's in your config search path.")
    ]
    assert failures(checked["cmd/scripts/run.sh#4"]) == [(ENTRY_MISSING, "", None)]


def test_launch_findings_point_at_the_scripts_lines_and_a_moved_key_gets_its_new_override(checked):
    findings = findings_of(checked["cmd/scripts/run.sh#2"], {"trainer.learning_rate": "optim.lr"})
    assert [(f.path, f.new, str(f.source), f.detail.fix if isinstance(f.detail, LaunchFix) else "?") for f in findings] == [
        ("optim", "optim=lion", "scripts/run.sh:6", None),
        ("trainer.learning_rate", "trainer.learning_rate=0.1", "scripts/run.sh:4", "optim.lr=0.1"),
        ("trainer.lr", "+trainer.lr=0.2", "scripts/run.sh:5", "trainer.lr=0.2"),
        ("trainer.epochs", "~trainer.epochs=4", "scripts/run.sh:7", "~trainer.epochs"),
    ]
    assert findings[1].message == "key removed: trainer.learning_rate is not in the config; it moved to optim.lr"
    assert {(f.kind, f.severity) for f in findings} == {(Kind.LAUNCH, ERROR)}
    # A launch that cannot be read is a warning at the launch's own line; one whose program is gone is an error.
    (unread,) = findings_of(checked["cmd/scripts/run.sh#6"])
    assert (unread.severity, unread.path, str(unread.source)) == (WARNING, "", "scripts/run.sh:12")
    assert unread.message == "not extracted: could not be read: the program is $CMD, which the script never sets"
    assert [r.status for r in map(case_result, checked.values())] == [Status.OK, Status.ERROR, Status.ERROR, Status.ERROR, Status.OK]


def test_the_count_line_says_how_many_launches_were_read_composed_and_failing(project, checked):
    skipped = [c for c in command_cases(project, [project.root / "scripts" / "run.sh"]) if c.skipped]
    assert launches_line(tally(checked.values(), skipped)) == "4 launches checked of 5 found: 1 compose, 3 fail, 1 could not be extracted"
    in_submodule = replace(skipped[0], problem_kind="not available", submodule="recipe")
    assert launches_line(tally([], [in_submodule, in_submodule])) == (
        "0 launches checked of 0 found: 0 compose, 0 fail; 2 launches of programs in the git submodule recipe not checked"
        " (it is not checked out)"
    )


def test_a_review_marks_a_break_the_base_had_as_at_base_and_a_lost_entry_point_as_removed(checked):
    now = [case_result(checked[f"cmd/scripts/run.sh#{n}"]) for n in (2, 4)]
    base_broken = CaseResult(now[0].case, now[0].golden, Status.ERROR, now[0].findings[:1])  # only `optim=lion` broke
    base_gone = CaseResult(now[1].case, now[1].golden, Status.OK)  # the base ran app.gone here
    broken, gone = origins(now, [base_broken, base_gone])
    assert [(f.path, f.origin, f.severity) for f in broken.findings] == [
        ("optim", Origin.AT_BASE, WARNING),
        ("trainer.learning_rate", Origin.INTRODUCED, ERROR),
        ("trainer.lr", Origin.INTRODUCED, ERROR),
        ("trainer.epochs", Origin.INTRODUCED, ERROR),
    ]
    (lost,) = gone.findings
    assert (lost.detail, lost.origin, lost.message) == (
        LaunchFix(ENTRY_REMOVED),
        Origin.INTRODUCED,
        "entry point removed: module app.gone does not exist in the repository",
    )
    # A launch the base never had is new: its missing program is not "removed".
    (new,) = next(origins(now[1:], [])).findings
    assert new.detail == LaunchFix(ENTRY_MISSING)


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("trainer.lr=0.1", "optim.lr=0.1"),
        ("+trainer.lr.warm=1", "+optim.lr.warm=1"),
        ("~trainer.lr", "~optim.lr"),
        ("trainer.epochs=1", None),
        ("trainer.lrs=1", None),
    ],
)
def test_an_override_of_a_moved_key_or_of_a_key_below_it_is_rewritten_with_its_form(override, expected):
    assert moved_override(override, {"trainer.lr": "optim.lr"}) == expected


SUB_PROJECT = {
    # A sub-project's package below the root, as PRIME keeps verl in `training/` and documents its scripts as run from there.
    "training/verl/__init__.py": "",
    "training/verl/trainer/__init__.py": "",
    "training/verl/trainer/main_ppo.py": (
        "import hydra\n\n@hydra.main(config_path='config', config_name='ppo_trainer', version_base=None)\ndef main(cfg): ...\n"
    ),
    "training/verl/trainer/config/ppo_trainer.yaml": "trainer:\n  epochs: 3\n",
    "training/examples/run_prime_main.sh": "python3 -m verl.trainer.main_ppo \\\n    trainer.epochs=1\n",
    "run_from_root.sh": "cd training\npython3 -m verl.trainer.main_ppo trainer.epochs=2\n",
    "servers.sh": "python3 tools/search_server.py --port 8000 --topk 5\npython3 tools/gone_trainer.py trainer.epochs=4\n",
}


@pytest.fixture(scope="module")
def sub_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = write_tree(tmp_path_factory.mktemp("sub-project"), SUB_PROJECT)
    return Project(root, root / "training" / "verl" / "trainer" / "config", {})


def test_a_module_is_found_from_the_folder_the_script_cds_to_or_the_sub_project_above_it(sub_project):
    """Issue 42 item 7: `python -m verl...` in `training/examples/run_prime_main.sh` (run from `training/`) and after
    `cd training` in a root script are launches of `training/verl`, never silently absent."""
    scripts = [sub_project.root / "training/examples/run_prime_main.sh", sub_project.root / "run_from_root.sh"]
    cases = {c.id: c for c in command_cases(sub_project, scripts)}
    assert list(cases) == ["cmd/training/examples/run_prime_main.sh#1", "cmd/run_from_root.sh#1"]
    config = sub_project.root / "training" / "verl" / "trainer" / "config"
    for case in cases.values():
        assert (case.problem, case.config_dir, case.config_name, case.launch.folder) == ("", config, "ppo_trainer", "training")
        assert case.launch.program == "training/verl.trainer.main_ppo"
    checked = Composer(sub_project.root, trees=True).check(cases.values())
    assert [(c.failures, c.tree) for c in checked] == [([], {"trainer": {"epochs": 1}}), ([], {"trainer": {"epochs": 2}})]


def test_a_missing_program_without_hydra_arguments_is_no_launch_and_one_with_overrides_stays_one(sub_project):
    """Search-R1's server and data scripts whose files are absent are not launches (named by `list --verbose`, never
    known entries); a missing program given overrides is still a launch that cannot be read."""
    server, trainer = command_cases(sub_project, [sub_project.root / "servers.sh"])
    assert (server.skipped, server.problem_kind, server.launch.entry) == (True, NOT_HYDRA, "tools/search_server.py")
    assert "not in the repository" in server.problem
    assert (trainer.skipped, trainer.problem_kind) == (False, NOT_EXTRACTED)
    assert trainer.problem == "could not be read: tools/gone_trainer.py is not a file of the project"


def _submodule_project(root):
    """A repository with two git submodules: `verl` not checked out (an empty folder, as CI's default checkout leaves
    it) that the project's config links into, and `tools` checked out, holding scripts of its own."""
    from tests.synthetic_history import git

    write_tree(
        root,
        {
            ".gitmodules": '[submodule "verl"]\n\tpath = verl\n[submodule "tools"]\n\tpath = tools\n',
            "app/__init__.py": "",
            "app/main.py": "import hydra\n\n@hydra.main(config_path='../config', config_name='ppo_trainer', version_base=None)\ndef main(cfg): ...\n",
            "config/local.yaml": "trainer:\n  epochs: 3\n",
            "scripts/run.sh": "python -m app.main trainer.epochs=1\npython -m app.main --config-name=local trainer.epochs=2\n",
            "tools/run_tool.sh": "python -m app.main --config-name=local trainer.epochs=3\n",
        },
    )
    (root / "verl").mkdir()
    (root / "config" / "ppo_trainer.yaml").symlink_to("../verl/verl/trainer/config/ppo_trainer.yaml")
    git(root, "init", "-q", "-b", "main")
    for path in ("verl", "tools"):
        git(root, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},{path}")
    return Project(root, root / "config", {})


def test_a_config_linked_into_a_submodule_not_checked_out_is_named_with_the_submodule_and_its_path(tmp_path):
    """Issue 42 item 8 (RAGEN without its `verl` submodule): the launch is not checked and says why, in place of a
    'config removed' error a known entry would record as a ConfigStore config."""
    project = _submodule_project(tmp_path)
    linked, local = command_cases(project, find_scripts(project.root, ["scripts/*.sh"]))
    assert (linked.skipped, linked.problem_kind, linked.submodule) == (True, UNAVAILABLE, "verl")
    assert linked.problem == (
        "its config config/ppo_trainer.yaml is a link to verl/verl/trainer/config/ppo_trainer.yaml, in the git submodule verl,"
        " which is not checked out"
    )
    assert (local.skipped, local.problem) == (False, "")
    assert launches_line(tally([], [linked])).endswith("1 launch of programs in the git submodule verl not checked (it is not checked out)")


def test_scripts_inside_a_submodule_are_globbed_only_by_a_glob_that_names_the_submodule(tmp_path):
    project = _submodule_project(tmp_path)
    found = {p.relative_to(project.root).as_posix() for p in find_scripts(project.root, ["**/*.sh"], project.submodules)}
    assert found == {"scripts/run.sh"}
    named = find_scripts(project.root, ["tools/*.sh"], project.submodules)
    assert [p.relative_to(project.root).as_posix() for p in named] == ["tools/run_tool.sh"]


def test_a_config_name_the_script_takes_as_an_argument_is_checked_against_every_root_it_could_name(tmp_path):
    """Issue 42 item 4 (3D-Diffusion-Policy's `--config-name=${config_name}.yaml`, the name its first argument): one
    case per root config of the folder the name could take, each named by its root, in place of "not extracted"."""
    root = write_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/train.py": "import hydra\n\n@hydra.main(config_path='conf', version_base=None)\ndef main(cfg): ...\n",
            "app/conf/dp3.yaml": "training:\n  seed: 1\n",
            "app/conf/simple_dp3.yaml": "training:\n  rng_seed: 1\n",
            "app/conf/_base.yaml": "training: {}\n",
            "app/conf/task/adroit.yaml": "name: adroit\n",
            "scripts/train.sh": 'alg=${1}\npython -m app.train --config-name=${alg}.yaml training.seed=0\npython -m app.train --config-name="simple_${alg}" training.seed=0\n',
        },
    )
    project = Project(root, root / "app" / "conf", {})
    cases = command_cases(project, [root / "scripts" / "train.sh"])
    assert [(c.id, c.config_name, c.problem, c.candidate) for c in cases] == [
        ("cmd/scripts/train.sh#1@dp3", "dp3", "", "${alg}.yaml"),
        ("cmd/scripts/train.sh#1@simple_dp3", "simple_dp3", "", "${alg}.yaml"),
        ("cmd/scripts/train.sh#2@simple_dp3", "simple_dp3", "", '"simple_${alg}"'),  # only the roots its known part fits
    ]
    checked = {c.case.id: failures(c) for c in Composer(root).check(cases)}
    assert checked == {
        "cmd/scripts/train.sh#1@dp3": [],
        "cmd/scripts/train.sh#1@simple_dp3": [(NO_SUCH_KEY, "training.seed", None)],
        "cmd/scripts/train.sh#2@simple_dp3": [(NO_SUCH_KEY, "training.seed", None)],
    }


def test_a_root_linked_into_a_submodule_not_checked_out_is_named_so_in_check(tmp_path, capsys, monkeypatch):
    """RAGEN's `config/ppo_trainer.yaml` is a link into its `verl` submodule: without it, `check` says so with the
    submodule and the path, where Hydra alone says "Cannot find primary config" (and init once guessed ConfigStore)."""
    from harness.cli import main

    project = _submodule_project(tmp_path)
    (project.root / "harness.toml").write_text(
        'config_dir = "config"\nsnapshot_dir = "snapshots"\nroots = ["ppo_trainer", "local"]\njobs = 1\n', encoding="utf-8"
    )
    monkeypatch.chdir(project.root)
    assert main(["--settings", "harness.toml", "--no-cache", "check", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (error,) = [f["message"] for c in report["cases"] if c["id"].startswith("ppo_trainer/") for f in c["findings"] if f["kind"] == "error"]
    assert error.startswith("Cannot find primary config 'ppo_trainer'")
    assert error.endswith(
        "(config/ppo_trainer.yaml is a link to verl/verl/trainer/config/ppo_trainer.yaml, in the git submodule verl, which is not checked out)"
    )


def test_a_launch_bash_never_reaches_fails_at_the_line_where_bash_stops(tmp_path):
    """16bdafaad's parent: under `set -u`, `$DEVICE` with nothing set stops bash (`DEVICE: unbound variable`) before
    the launch; it was counted as composing."""
    files = {k: v for k, v in PROJECT.items() if k.startswith("app/")}
    files["scripts/run.sh"] = (
        "set -xeuo pipefail\nNGPUS=${NGPUS:-8}\nif [ $DEVICE = npu ]; then NGPUS=16; fi\npython3 -m app.train trainer.epochs=$NGPUS\n"
    )
    root = write_tree(tmp_path, files)
    project = Project(root, root / "app" / "conf", {})
    (case,) = command_cases(project, [root / "scripts" / "run.sh"])
    (result,) = Composer(root).check([case])
    (finding,) = findings_of(result)
    assert (finding.severity, str(finding.source)) == (ERROR, "scripts/run.sh:4")
    assert finding.message.endswith("bash stops before this launch runs, at scripts/run.sh:3: DEVICE: unbound variable (`set -u`)")
    assert case_result(result).status == Status.ERROR


def test_a_launch_bash_never_reaches_is_still_composed_and_its_stop_is_at_the_base_only_for_that_launch(tmp_path):
    """Issue 41: a launch after a stop was never composed, so a pull request could change its values unseen; and a
    launch added after a stop the base had took that stop as its own `already at base`."""
    files = {k: v for k, v in PROJECT.items() if k.startswith("app/")}
    files["scripts/run.sh"] = (
        "set -u\necho $DEVICE\npython3 -m app.train trainer.epochs=7 trainer.gone=1\npython3 -m app.train trainer.epochs=9\n"
    )
    root = write_tree(tmp_path, files)
    project = Project(root, root / "app" / "conf", {})
    cases = command_cases(project, [root / "scripts" / "run.sh"])
    first, second = Composer(root, trees=True).check(cases)
    # Composed like any launch: its values are there to compare, its overrides checked, the stop first.
    assert (first.tree["trainer"]["epochs"], second.tree["trainer"]["epochs"]) == (7, 9)
    assert [f.reason for f in first.failures] == [NEVER_RUNS, NO_SUCH_KEY]
    base = [case_result(first)]  # the base had only the first launch, stopped there too
    now = list(origins([case_result(first), case_result(second)], base, paired={first.case.id: first.case.id}))
    stops = [[f.origin for f in r.findings if f.detail == LaunchFix(NEVER_RUNS)] for r in now]
    assert stops == [[Origin.AT_BASE], [Origin.INTRODUCED]]


def test_a_launchs_identity_is_its_text_and_config_never_its_line_or_script(tmp_path):
    """Issue 50 item 2: a known entry and a review's `at_base` name a launch by what it runs. A comment line above it, a
    moved script or another value for one of its keys keeps its identity; another config name or key is another launch."""
    files = {k: v for k, v in PROJECT.items() if k.startswith("app/")}
    launch = "python3 -m app.train --config-name=evl trainer.epochs=2\n"
    files.update(
        {
            "scripts/a.sh": launch,
            "scripts/b.sh": "# a comment line\nset -x\n" + launch,
            "scripts/c.sh": launch.replace("evl", "evll"),
            "scripts/d.sh": launch.replace("epochs", "lr"),
            "scripts/e.sh": launch.replace("=2", "=3"),
        }
    )
    root = write_tree(tmp_path, files)
    cases = command_cases(Project(root, root / "app" / "conf", {}), sorted((root / "scripts").glob("*.sh")))
    a, b, c, d, e = (case.identity for case in cases)
    assert a == b == e and len({a, c, d}) == 3 and len(a) == 16  # another value for a key is the same launch
    checked = Composer(root).check(cases)
    (finding,) = findings_of(checked[1])
    fix = finding.detail_as(LaunchFix)
    assert fix is not None and (fix.config, fix.launch) == ("evl", a) and finding.source == Source("scripts/b.sh", 3)


def test_a_failure_about_no_key_is_at_base_only_on_the_same_launch_with_the_same_config(tmp_path):
    """A `--config-name` typo in a new launch beside one that failed the same way at the base was `at_base` (matched
    by kind alone) while `check` failed on it; the same launch, paired with the base's, still is."""
    files = {k: v for k, v in PROJECT.items() if k.startswith("app/")}
    files["scripts/run.sh"] = "python3 -m app.train --config-name=evl\npython3 -m app.train --config-name=evll trainer.epochs=2\n"
    root = write_tree(tmp_path, files)
    old, new = (
        case_result(c) for c in Composer(root).check(command_cases(Project(root, root / "app" / "conf", {}), [root / "scripts" / "run.sh"]))
    )
    assert [launch_reason(f) for f in (*old.findings, *new.findings)] == [CONFIG_REMOVED, CONFIG_REMOVED]
    now = list(origins([old, new], [old], paired={old.case.id: old.case.id}))
    assert [[f.origin for f in r.findings] for r in now] == [[Origin.AT_BASE], [Origin.INTRODUCED]]
    # Paired with a base launch that failed alike but ran another config: not the same launch.
    (alone,) = origins([new], [old], paired={new.case.id: old.case.id})
    assert [f.origin for f in alone.findings] == [Origin.INTRODUCED]
