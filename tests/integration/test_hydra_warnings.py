"""Hydra's own warnings are findings: once per file with its line, the same from the cache as freshly composed,
and never raw on stderr (real processes, so nothing but the harness decides what reaches the terminal)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

from tests.conftest import write_tree

# Two roots without `_self_` in their defaults lists (Hydra warns since 1.1 moved its implicit place), one
# launch that composes one of them again, and a golden test run through the pytest plugin.
TREE = {
    "conf/train.yaml": "defaults:\n  - model: small\nseed: 1\n",
    "conf/eval.yaml": "# the eval root\ndefaults:\n  - model: small\nsplit: test\n",
    "conf/model/small.yaml": "width: 8\n",
    "app/main.py": "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    pass\n",
    "scripts/run.sh": "python app/main.py seed=2\n",
    "harness.toml": 'config_dir = "conf"\nsnapshot_dir = "snapshots"\nroots = ["train", "eval"]\n[[commands]]\nglob = "scripts/*.sh"\n',
}
RAW = ("UserWarning", "warnings.warn(", "defaults_list.py")  # how a warning Python prints itself looks


def harness(project, *arguments):
    env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(project / "cache")}
    command = [sys.executable, "-m", "harness", "--settings", "harness.toml", *arguments]
    return subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)


def in_process(cli, project, *arguments):
    """The CLI in this process; a warning that escaped the harness is recorded here (pytest would hide it)."""
    with warnings.catch_warnings(record=True) as escaped:
        warnings.simplefilter("always")
        run = cli("--settings", "harness.toml", *arguments, cwd=project)
    assert not [str(w.message) for w in escaped] and not run.err, (escaped, run.err)
    return run


def hydra_warnings(stdout: str) -> list[tuple[str, str, str]]:
    return [(f["source"], f["severity"], f["message"]) for f in json.loads(stdout)["findings"] if f["kind"] == "hydra_warning"]


def test_missing_self_is_one_finding_per_file_cold_or_warm_and_nothing_raw_reaches_stderr(tmp_path, cli, monkeypatch):
    project = write_tree(tmp_path, TREE)
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(project / "cache"))
    assert in_process(cli, project, "generate").code == 0
    cold = harness(project, "check", "--format", "json")  # a real process: its stderr is what a terminal shows
    assert cold.returncode == 0 and not cold.stderr, cold.stderr
    warm = in_process(cli, project, "check", "--format", "json")  # read from the cache the cold run filled
    fresh = in_process(cli, project, "--no-cache", "check", "--format", "json")
    assert hydra_warnings(cold.stdout) == hydra_warnings(warm.out) == hydra_warnings(fresh.out)
    assert [(source, severity) for source, severity, _ in hydra_warnings(warm.out)] == [
        ("conf/train.yaml:1", "warning"),
        ("conf/eval.yaml:2", "warning"),
    ]
    assert all("In '" in message and "Defaults list is missing `_self_`" in message for _, _, message in hydra_warnings(warm.out))
    quiet = in_process(cli, project, "check", "--quiet")
    assert quiet.code == 0 and not any(text in quiet.out for text in RAW), quiet.out


def test_pytest_sessions_show_no_hydra_warning(pytester):
    write_tree(pytester.path, TREE)
    pytester.path.joinpath("snapshots").mkdir()
    first = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--config-harness-settings", "harness.toml", "harness.toml", "--snapshot-update"
    )
    assert first.ret == 0, first.stdout.str()[-1500:]
    session = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--config-harness-settings", "harness.toml", "harness.toml", "-rA")
    output = session.stdout.str() + session.stderr.str()
    assert session.ret == 0, output[-1500:]
    assert "warnings summary" not in output and not any(text in output for text in RAW), output[-1500:]
    assert "hydra warning: In 'train': Defaults list is missing `_self_`" in output  # said once, as a finding
