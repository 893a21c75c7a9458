"""A pull request is hostile input: one test per promise of README "What it guarantees", each built from the
repro in issue 16. Items 1 and 7 (the cache) and 9 (CI output escaping) are tested by their own modules."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.composition.render import parse_yaml
from tests.conftest import write_tree, write_wheel
from tests.synthetic_history import git
from tests.unit.composition.test_compose import plain_compose

CONSOLE_SCRIPT = str(Path(sys.executable).with_name("config-harness"))
FORMATS = ("text", "json", "markdown", "github")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def every_output(cli, project: Path, *global_args: str) -> str:
    """stdout and stderr of `list` and of `check` in every format, run in `project`, joined."""
    runs = [cli(*global_args, "list", cwd=project)] + [cli(*global_args, "check", "--format", f) for f in FORMATS]
    return "".join(run.out + run.err for run in runs)


def without_route(project: Path) -> None:
    """The small project without its route: Hydra reads `hydra.searchpath` only from the primary config."""
    settings = project / "harness.toml"
    settings.write_text(settings.read_text().split("[[routes]]")[0])


# Item 2: `hydra.searchpath: [pkg://evilpkg]` imported the package when the project root was on sys.path. A package
# folder of the project's own is now read as a config folder (verl's fully_async configs name `pkg://verl.trainer.config`
# in verl's own checkout); any other package, and one whose folder leads out of the project, is refused. Nothing imports.
def test_a_pkg_search_path_never_imports_code(small_project, tmp_path_factory):
    git(small_project, "init", "-q")  # the project is the checkout: its folders are the project's own
    without_route(small_project)
    package = small_project / "evilpkg"
    write_tree(
        package,
        {
            "__init__.py": "import pathlib\npathlib.Path(__file__).parents[1].joinpath('PWNED').write_text('ran')\n",
            "conf/extra/x.yaml": "from_the_package: 1\n",
        },
    )
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "hydra:\n  searchpath: [pkg://evilpkg.conf]\ntrainer:\n")
    edit(small_project / "conf" / "train.yaml", "  - _self_\n", "  - extra: x\n  - _self_\n")
    outside = write_tree(tmp_path_factory.mktemp("elsewhere") / "conf", {"extra/x.yaml": "from_outside: 1\n"})
    (small_project / "linked").mkdir()
    (small_project / "linked" / "conf").symlink_to(outside)
    # The project on sys.path, as `PYTHONPATH=.` or an editable install of the project would have it.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(small_project), os.environ.get("PYTHONPATH")]))}

    def check() -> list[dict]:
        run = subprocess.run(
            [CONSOLE_SCRIPT, "--settings", "harness.toml", "check", "--format", "json"],
            cwd=small_project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 1 and "Traceback" not in run.stderr
        return json.loads(run.stdout)["cases"]

    # The project's own package: its folder is read as configs (the case composes, only its golden is missing).
    assert {f["kind"] for case in check() for f in case["findings"] if f["severity"] == "error"} == {"missing_golden"}
    previous = "pkg://evilpkg.conf"
    # A folder that leads out is refused; a package nothing provides is skipped as Hydra skips it (issue 54), so the
    # option it would have held is missing, and the message names the entry Hydra skipped.
    for entry, said in (("pkg://linked.conf", "pkg://linked.conf"), ("pkg://not_in_the_project.conf", "'not_in_the_project.conf'")):
        edit(small_project / "conf" / "train.yaml", previous, entry)
        previous = entry
        for case in check():
            (finding,) = [f for f in case["findings"] if f["severity"] == "error"]
            assert finding["kind"] == "error" and "train.yaml" in finding["message"] and said in finding["message"], finding
    assert not (small_project / "PWNED").exists()  # no code from the pull request ran


def test_the_projects_own_package_folder_composes_as_plain_hydra_composes_the_folder(small_project, cli):
    git(small_project, "init", "-q")
    without_route(small_project)
    write_tree(small_project / "mypkg", {"__init__.py": "raise SystemExit('imported')\n", "conf/extra/x.yaml": "k: 2\n"})
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "hydra:\n  searchpath: [pkg://mypkg.conf]\ntrainer:\n")
    edit(small_project / "conf" / "train.yaml", "  - _self_\n", "  - extra: x\n  - _self_\n")
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    golden = parse_yaml((small_project / "snapshots" / "_generated_train__cpu__default.yaml").read_text())
    edit(small_project / "conf" / "train.yaml", "pkg://mypkg.conf", f"file://{small_project / 'mypkg' / 'conf'}")
    assert golden == plain_compose(small_project / "conf", "train", ["backend=cpu"]) and golden["extra"] == {"k": 2}


# Item 3: an `oc.env` that chooses a file was resolved for real, and its value reached every output format.
TOKEN = "tok9f2c41"
STEERED = {
    "defaults entry": ("conf/train.yaml", "  - backend: cpu\n", "  - backend: ${oc.env:CH_TEST_TOKEN}\n", "train.yaml"),
    "group-selecting preset": (
        "harness.toml",
        'sgd = ["',
        'sgd = ["backend=${oc.env:CH_TEST_TOKEN}", "',
        "backend=${oc.env:CH_TEST_TOKEN}",
    ),
    # The route `legacy` composes train below it: Hydra's own error there ("In 'train': ... only from the primary config").
    "search path": ("conf/train.yaml", "trainer:\n", "hydra:\n  searchpath: ['file://${oc.env:CH_TEST_TOKEN}']\ntrainer:\n", "train"),
}


@pytest.mark.parametrize("place", sorted(STEERED))
def test_no_environment_value_chooses_a_file_or_reaches_any_output(small_project, cli, monkeypatch, place):
    name, old, new, named = STEERED[place]
    edit(small_project / name, old, new)
    monkeypatch.setenv("CH_TEST_TOKEN", TOKEN)
    output = every_output(cli, small_project, "--settings", "harness.toml")
    report = cli("--settings", "harness.toml", "check", "--format", "json")
    assert report.code == 1
    errors = [f["message"] for c in report.json()["cases"] for f in c["findings"] if f["kind"] == "error"]
    assert errors and all(named in message for message in errors)  # an error naming the file, not a lookup
    assert TOKEN not in output


def test_an_option_file_named_with_a_resolver_is_refused(small_project, cli, monkeypatch):
    write_tree(small_project / "conf", {"backend/${oc.env:CH_TEST_TOKEN}.yaml": "backend: stolen\n"})
    monkeypatch.setenv("CH_TEST_TOKEN", "gpu")
    for command in (["list"], ["check", "--format", "json"], ["generate"]):
        run = cli("--settings", "harness.toml", *command, cwd=small_project)
        assert run.code == 2 and "${oc.env:CH_TEST_TOKEN}" in run.err and "conf/backend" in run.err
    assert not (small_project / "snapshots").exists()


# Item 4: `[source] into = "../victim"` made `make setup` delete ../victim.
def tiny_wheel(folder: Path) -> Path:
    """A real wheel file with a config tree, installable by pip from disk (no network)."""
    return write_wheel(folder, "demo", {"demo/conf/train.yaml": "a: 1\n"})


@pytest.mark.parametrize("into", ["../victim", "keep"])
def test_fetch_deletes_nothing_it_did_not_make(tmp_path, cli, into):
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    for folder in (tmp_path / "victim", project / "keep"):
        folder.mkdir()
        (folder / "precious.txt").write_text("mine")
    wheel = tiny_wheel(project)
    (project / "harness.toml").write_text(
        f'config_dir = "conf"\nroots = ["train"]\n[source]\nwheel = "{wheel.name}"\nunpack = "demo/conf"\ninto = "{into}"\n'
    )
    run = cli("--settings", "harness.toml", "fetch", cwd=project)
    assert run.code == 2 and into.lstrip("./") in run.err
    assert (tmp_path / "victim" / "precious.txt").read_text() == "mine"
    assert (project / "keep" / "precious.txt").read_text() == "mine"


def test_fetch_replaces_its_own_folder(tmp_path, cli):
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    wheel = tiny_wheel(project)
    (project / "harness.toml").write_text(
        f'config_dir = "conf"\nroots = ["train"]\n[source]\nwheel = "{wheel.name}"\nunpack = "demo/conf"\ninto = ".cache/demo"\n'
    )
    assert cli("--settings", "harness.toml", "fetch", cwd=project).code == 0
    assert cli("--settings", "harness.toml", "fetch", "--force").code == 0  # its own folder, stamped: replaced
    assert (project / ".cache" / "demo" / "demo" / "conf" / "train.yaml").read_text() == "a: 1\n"


# Item 5: an 861-byte golden with YAML aliases drove `check` to 6 GiB.
def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = [f"l0: &l0 [{', '.join(['x'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1536 * 1024 * 1024,) * 2)


def bounded_run(project: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """The console script under a 1.5 GiB address-space limit and a timeout: an unbounded harness fails
    here (MemoryError, or TimeoutExpired) instead of taking the machine with it."""
    return subprocess.run(
        [CONSOLE_SCRIPT, "--settings", "harness.toml", "--jobs", "1", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit_memory,
    )


def test_an_alias_bomb_golden_is_refused_within_bounded_memory(small_project, cli):
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    golden = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    golden.write_text(golden.read_text() + alias_bomb())
    assert len(alias_bomb()) < 1024
    run = bounded_run(small_project, "check", "--format", "json")
    assert run.returncode == 1, run.stderr[-2000:]
    (case,) = [c for c in json.loads(run.stdout)["cases"] if c["id"] == "train/cpu/default"]
    assert case["status"] == "error" and "aliases" in case["findings"][0]["message"]
    assert "_generated_train__cpu__default.yaml" in case["findings"][0]["message"]


def test_an_alias_bomb_config_and_a_huge_config_are_case_errors(small_project):
    write_tree(small_project / "conf", {"backend/bomb.yaml": alias_bomb()})
    (small_project / "conf" / "backend" / "huge.yaml").write_text("backend: huge\npad: '" + "x" * (9 * 1024 * 1024) + "'\n")
    run = bounded_run(small_project, "check", "--format", "json")
    assert run.returncode == 1, run.stderr[-2000:]
    cases = {c["id"]: c for c in json.loads(run.stdout)["cases"]}
    assert "aliases" in cases["train/bomb/default"]["findings"][0]["message"]
    assert "backend/bomb.yaml" in cases["train/bomb/default"]["findings"][0]["message"]
    assert "MiB" in cases["train/huge/default"]["findings"][0]["message"]
    assert cases["train/cpu/default"]["status"] == "new"  # every other case is still composed


# The long interpolation chain (2000 steps, 8 CPU-seconds of check): tests/e2e/test_hostile_chain.py.


# Item 6: `actor: {lr: 1e-3}` plus a top-level `"actor.lr": 1e-6` hid the change of actor.lr.
def test_a_key_with_a_dot_never_hides_a_change(small_project, cli):
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "actor:\n  lr: 1.0e-06\ntrainer:\n")
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    edit(small_project / "conf" / "train.yaml", "actor:\n  lr: 1.0e-06\n", "actor:\n  lr: 0.001\n'actor.lr': 1.0e-06\n")
    report = cli("--settings", "harness.toml", "check", "--format", "json")
    assert report.code == 1
    (case,) = [c for c in report.json()["cases"] if c["id"] == "train/cpu/default"]
    rows = {(f["kind"], f["path"], f["old"], f["new"]) for f in case["findings"]}
    assert ("changed", "actor.lr", 1e-06, 0.001) in rows and ("added", '"actor.lr"', None, 1e-06) in rows
    assert not any(f["kind"] == "format" for f in case["findings"])


# Item 8: a config symlinked to a host file was copied into a golden; a golden symlinked outside was printed.
@pytest.fixture
def host_secret(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A host file outside the project (a sibling of the project's folder)."""
    secret = tmp_path_factory.mktemp("host") / "secret.yaml"
    secret.write_text("backend: hostsecret-7d1\n")
    return secret


def test_a_config_symlinked_outside_the_project_is_not_read(small_project, cli, host_secret):
    (small_project / "conf" / "backend" / "pw.yaml").symlink_to(host_secret)
    for command in (["generate"], ["check", "--format", "markdown"]):
        run = cli("--settings", "harness.toml", *command, cwd=small_project)
        assert run.code == 2 and "backend/pw.yaml" in run.err and "outside the project" in run.err
        assert "hostsecret" not in run.out + run.err
    assert not (small_project / "snapshots").exists()  # nothing copied into a golden


def test_a_golden_symlinked_outside_the_project_is_not_read(small_project, cli, host_secret):
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    golden = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    golden.unlink()
    golden.symlink_to(host_secret)
    for output_format in FORMATS:
        run = cli("--settings", "harness.toml", "check", "--format", output_format)
        assert run.code == 2 and "_generated_train__cpu__default.yaml" in run.err and "outside the project" in run.err
        assert "hostsecret" not in run.out + run.err


@pytest.mark.parametrize("key", ["config_dir", "snapshot_dir"])
def test_settings_cannot_point_outside_the_project(small_project, cli, host_secret, key):
    (host_secret.parent / "train.yaml").write_text("a: 1\n")
    escape = os.path.relpath(host_secret.parent, small_project)  # ../host0: out through `..`
    settings = small_project / "harness.toml"
    settings.write_text(
        f'{key} = "{escape}"\n' + "\n".join(line for line in settings.read_text().splitlines() if not line.startswith(f"{key} =")) + "\n"
    )
    run = cli("--settings", "harness.toml", "generate", cwd=small_project)
    assert run.code == 2 and key in run.err and "outside the project" in run.err
    assert sorted(p.name for p in host_secret.parent.iterdir()) == ["secret.yaml", "train.yaml"]


def test_read_outside_allows_reading_a_named_folder(small_project, cli, tmp_path_factory):
    shared = tmp_path_factory.mktemp("shared") / "conf"
    shutil.copytree(small_project / "conf", shared)
    (small_project / "conf" / "train.yaml").unlink()  # the project's own tree is not what is read
    settings = small_project / "harness.toml"
    settings.write_text(f'read_outside = ["{shared}"]\n' + settings.read_text().replace('config_dir = "conf"', f'config_dir = "{shared}"'))
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    settings.write_text(settings.read_text().replace(f'read_outside = ["{shared}"]\n', ""))
    refused = cli("--settings", "harness.toml", "check")
    assert refused.code == 2 and "read_outside" in refused.err


def test_an_absolute_search_path_outside_the_project_is_an_error(small_project, cli, host_secret):
    edit(small_project / "conf" / "train.yaml", "trainer:\n", f"hydra:\n  searchpath: ['{host_secret.parent}']\ntrainer:\n")
    edit(small_project / "harness.toml", 'sgd = ["', 'sgd = ["backend=secret", "')
    report = cli("--settings", "harness.toml", "check", "--format", "json", cwd=small_project)
    assert report.code == 1 and "hostsecret" not in report.out
    for case in report.json()["cases"]:
        # route/legacy composes train below it: Hydra's own error there, as plain Hydra gives it.
        expected = "only supported from the primary config" if case["id"] == "route/legacy" else "outside the project"
        assert case["status"] == "error" and expected in case["findings"][0]["message"]


# Item 10: `train/a/p__default` and `train/a__p/default` shared one golden; generate said OK, check failed.
def test_two_cases_never_share_a_golden(small_project, cli):
    write_tree(small_project / "conf", {"backend/a.yaml": "backend: a\n", "backend/a__p.yaml": "backend: a__p\n"})
    edit(small_project / "harness.toml", "[presets]\n", '[presets]\np__default = ["trainer.epochs=2"]\n')
    run = cli("--settings", "harness.toml", "generate", cwd=small_project)
    assert run.code == 2 and "__" in run.err
    assert not (small_project / "snapshots").exists()


# Item 11: the small ones.
def test_option_names_reach_hydra_as_written(small_project, cli):
    write_tree(
        small_project / "conf",
        {"backend/[cpu].yaml": "# @package _global_\nbackend: bracketed\n", "backend/1.yaml": "# @package _global_\nbackend: one\n"},
    )
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    for engine, expected in (("[cpu]", "bracketed"), ("1", "one")):
        golden = (small_project / "snapshots" / f"_generated_train__{engine}__default.yaml").read_text()
        assert parse_yaml(golden)["backend"] == expected
        assert parse_yaml(golden) == plain_compose(small_project / "conf", "train", [f"backend='{engine}'"])


def test_a_non_string_key_keeps_the_golden_sorted(small_project, cli):
    edit(small_project / "conf" / "train.yaml", "trainer:\n", "mixed:\n  zeta: 1\n  7: seven\n  alpha: 2\ntrainer:\n")
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    golden = (small_project / "snapshots" / "_generated_train__cpu__default.yaml").read_text()
    block = golden.split("mixed:\n")[1].split("\ntrainer:")[0].splitlines()
    assert block == ["  alpha: 2", "  zeta: 1", "  7: seven"]


def test_a_file_name_that_is_not_utf8_breaks_nothing(small_project, cli):
    folder = os.fsencode(small_project / "conf" / "misc")
    os.makedirs(folder)
    with open(os.path.join(folder, b"\xff.yaml"), "wb") as handle:
        handle.write(b"x: 1\n")
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    assert cli("--settings", "harness.toml", "check").code == 0  # cached runs too


def test_an_empty_engines_list_is_an_error(small_project, cli):
    settings = small_project / "harness.toml"
    without_routes = settings.read_text().split("[[routes]]")[0]  # no route: the matrix would be empty, a silent pass
    settings.write_text(without_routes.replace('engine_group = "backend"', 'engine_group = "backend"\nengines = []'))
    run = cli("--settings", "harness.toml", "check", cwd=small_project)
    assert run.code == 2 and "engines" in run.err and "empty" in run.err


def test_a_killed_writes_temporary_file_is_reported_and_generate_removes_it(small_project, cli):
    from tests.integration.test_atomic_writes import kill_mid_write

    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    edit(small_project / "conf" / "train.yaml", "epochs: 3", "epochs: 4")
    # --no-cache: the first fsync is then a golden's, not a cache entry's
    kill_mid_write(small_project, "cli", "--settings", "harness.toml", "--no-cache", "--jobs", "1", "generate")
    (leftover,) = (small_project / "snapshots").glob("._generated_*.tmp")
    report = cli("--settings", "harness.toml", "check", "--format", "json")
    assert report.code == 1 and any(leftover.name in orphan for orphan in report.json()["orphans"])
    assert cli("--settings", "harness.toml", "generate").code == 0
    assert not leftover.exists()
    assert cli("--settings", "harness.toml", "check").code == 0


# Attacker pass: `[source] wheel` went to pip as given: a folder was built (its setup.py ran) and `-r FILE`
# printed the file (or /proc/self/environ) in pip's error.
@pytest.mark.parametrize("wheel", ["./evil", "-r/proc/self/environ", "git+https://example.invalid/x", "evil @ file:///tmp/x"])
def test_a_source_wheel_is_a_pinned_requirement_never_a_folder_url_or_option(tmp_path, cli, monkeypatch, wheel):
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    (project / "evil").mkdir()
    marker = tmp_path / "PWNED"
    (project / "evil" / "setup.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\nfrom setuptools import setup; setup(name='evil')\n"
    )
    (project / "harness.toml").write_text(
        f'config_dir = "conf"\nroots = ["train"]\n[source]\nwheel = "{wheel}"\nunpack = "conf"\ninto = ".cache/x"\n'
    )
    monkeypatch.setenv("SECRET_TOKEN", "TOPSECRET123")
    run = cli("--settings", "harness.toml", "fetch", cwd=project)
    assert run.code == 2 and "source.wheel" in run.err and len(run.err.strip().splitlines()) == 1
    assert "TOPSECRET123" not in run.err + run.out and not marker.exists()


def string_bomb(copies: int = 3000) -> str:
    """One 1 MB string behind thousands of aliases: few nodes, gigabytes of text once expanded."""
    return f'big: &a "{"x" * 1_000_000}"\nlist: [{", ".join(["*a"] * copies)}]\n'


# Attacker pass: the alias bound counted nodes, not text, so one big string behind 3,000 aliases passed it.
def test_a_big_string_behind_many_aliases_is_refused_in_configs_goldens_and_contracts(small_project, cli):
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    golden = small_project / "snapshots" / "_generated_train__cpu__default.yaml"
    golden.write_text(golden.read_text() + string_bomb())
    write_tree(small_project / "conf", {"backend/bomb.yaml": "backend: bomb\n" + string_bomb()})
    run = bounded_run(small_project, "check", "--format", "json")
    assert run.returncode == 1, run.stderr[-2000:]
    cases = {c["id"]: c for c in json.loads(run.stdout)["cases"]}
    for case_id in ("train/cpu/default", "train/bomb/default"):
        assert "MiB of text through YAML aliases" in cases[case_id]["findings"][0]["message"], case_id
    bomb_contract = (
        "contracts:\n  - name: c\n    cases: '*'\n    equal:\n      a: &a \""
        + "x" * 1_000_000
        + '"\n      b: ['
        + ", ".join(["*a"] * 3000)
        + "]\n"
    )
    (small_project / "contracts.yaml").write_text(bomb_contract)
    refused = bounded_run(small_project, "--contracts", "contracts.yaml", "check")
    assert refused.returncode == 2 and "contracts.yaml" in refused.stderr and "aliases" in refused.stderr, refused.stderr[-500:]


# Attacker pass: the int key 1 and the string key "1" shared the path `x.1`, so a change to one was hidden.
def test_an_int_key_and_a_string_key_of_the_same_text_are_two_paths(small_project, cli):
    edit(small_project / "conf" / "train.yaml", "trainer:\n", 'x:\n  "1": safe\n  1: other\ntrainer:\n')
    assert cli("--settings", "harness.toml", "generate", cwd=small_project).code == 0
    edit(small_project / "conf" / "train.yaml", '"1": safe', '"1": DANGER')
    report = cli("--settings", "harness.toml", "check", "--format", "json").json()
    (case,) = [c for c in report["cases"] if c["id"] == "train/cpu/default"]
    changes = [(f["kind"], f["path"], f["old"], f["new"]) for f in case["findings"] if f["kind"] == "changed"]
    assert changes == [("changed", 'x."1"', "safe", "DANGER")]
