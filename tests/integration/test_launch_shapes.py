"""Launch scripts as real applications write them (issue 54, the smaller items), each on a minimal repository and
the real CLI: a CRLF script read as bash reads it (each line's `\\r` kept, checked against bash itself), vissl's
`$BINARY config=$cfg`, and an 880 KB script on day one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_tree

MAIN = "import hydra\n\n\n@hydra.main(config_path='../conf', config_name='train', version_base=None)\ndef main(cfg):\n    print(cfg)\n"
PROJECT = {
    "conf/train.yaml": "trainer:\n  lr: 1\n  name: a\n",
    "app/__init__.py": "",
    "app/main.py": MAIN,
}
# A script saved with Windows line ends: bash keeps each line's `\r`, so `LR=3\r` sets `3\r`, the `\` before `\r\n`
# escapes the `\r` (an argument of its own) and continues nothing, and the next line is a command of its own.
CRLF_SCRIPT = b"LR=3\r\npython -m app.main trainer.lr=$LR \\\r\n  trainer.name=b\r\npython app/main.py\r\n"


def launch_cases(report: dict) -> dict[str, dict]:
    return {case["id"]: case for case in report["cases"] if case["id"].startswith("cmd/")}


def argv_bash_passes(folder: Path, script: str) -> list[list[str]]:
    """What real bash passes to `python` for each command of the script: a `python` on PATH that records its argv."""
    shim = folder / "shim"
    shim.mkdir()
    record = folder / "argv.txt"
    (shim / "python").write_text(
        f"#!{sys.executable}\nimport sys\nwith open({str(record)!r}, 'a') as f:\n    f.write(repr(sys.argv[1:]) + '\\n')\n"
    )
    (shim / "python").chmod(0o755)
    environment = {"PATH": f"{shim}:{os.environ['PATH']}", "HOME": str(folder)}
    subprocess.run(["bash", script], cwd=folder, env=environment, capture_output=True, check=False)
    return [eval(line) for line in record.read_text().splitlines()]  # noqa: S307  # the reprs of lists of str it wrote


def test_a_crlf_script_is_read_as_bash_reads_it_and_its_launches_fail_as_they_would(tmp_path, cli):
    write_tree(tmp_path, PROJECT)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/run.sh").write_bytes(CRLF_SCRIPT)
    bash = argv_bash_passes(tmp_path, "scripts/run.sh")
    assert bash == [["-m", "app.main", "trainer.lr=3\r", "\r"], ["app/main.py\r"]]  # what real bash does with it
    assert cli("init", "--config-dir", "conf", cwd=tmp_path).code == 0
    listed = launch_cases(cli("list", "--format", "json").json())
    assert [case["overrides"] for case in listed.values()] == [bash[0][2:], []]
    assert listed["cmd/scripts/run.sh#2"]["reason"] == "script app/main.py\r does not exist in the repository"
    # Day one: what the repository already has is known, not failed; the values are never read as Unix lines.
    known = (tmp_path / "config-harness/known.yaml").read_text()
    assert "scripts/run.sh" in known, known
    assert cli("generate", "--quiet").code == 0
    check = cli("check")
    assert check.code == 0, check.out
    (tmp_path / "config-harness/known.yaml").unlink()
    (tmp_path / "pyproject.toml").write_text((tmp_path / "pyproject.toml").read_text().replace(', "config-harness/known.yaml"', ""))
    failing = cli("check")
    assert failing.code == 1, failing.out
    assert "not a Hydra override (2 overrides)" in failing.out and "(it holds \\r: the script has CRLF line ends" in failing.out
    assert "script app/main.py\\r does not exist" in failing.out, failing.out


def test_an_880_kb_launch_script_is_known_on_day_one_and_init_says_its_launches_are_not_checked(tmp_path, cli):
    """A generated script as large as a real application's (880 KB) is past the bytes a script is read to: adoption
    goes on, the script is a known entry with why, init's output names it, and `check` stays green as it grows."""
    write_tree(tmp_path, PROJECT)
    lines = [f"python -m app.main trainer.lr={n} trainer.name=run_{n:05d}_with_a_long_generated_name" for n in range(10_500)]
    script = tmp_path / "scripts/sweep_all.sh"
    script.parent.mkdir()
    script.write_text("\n".join(lines) + "\n")
    assert 870 * 1024 < script.stat().st_size < 890 * 1024
    init = cli("init", "--config-dir", "conf", cwd=tmp_path)
    assert init.code == 0, init.err
    past = script.read_bytes()[: 256 * 1024].count(b"\n") + 1  # the line the budget ends in
    said = [line for line in init.out.splitlines() if line.startswith("  not read")]
    assert said == [
        f"  not read      scripts/sweep_all.sh: the size budget of 256 KiB exceeded at scripts/sweep_all.sh:{past}; its launches are "
        "not checked (known; split the script, or leave it out of [[commands]])"
    ], init.out
    known = (tmp_path / "config-harness/known.yaml").read_text()
    assert "source: scripts/sweep_all.sh:1" in known and "the size budget of 256 KiB exceeded" in known, known
    assert cli("generate", "--quiet").code == 0
    assert cli("check").code == 0
    script.write_text("echo regenerated\n" + script.read_text())  # the generated script changes: still the known entry
    check = cli("check")
    assert check.code == 0 and "1 known finding" in check.out, check.out


# vissl's layout: no @hydra.main; `tools/run_distributed_engines.py` hands `sys.argv[1:]` to a function of the package
# that composes `defaults` from `app.config` with the compose API; dev/run_quick_tests.sh holds the program in a
# variable (`BINARY="python ${SRC_DIR}/tools/run_distributed_engines.py"`, SRC_DIR computed from the script's folder).
VISSL = {
    "app/__init__.py": "",
    "app/utils.py": (
        "from hydra import compose, initialize_config_module\n\n\ndef compose_hydra_configuration(overrides):\n"
        '    with initialize_config_module(config_module="app.config", version_base="1.1"):\n'
        '        return compose("defaults", overrides=overrides)\n'
    ),
    "app/config/__init__.py": "",
    "app/config/defaults.yaml": "defaults:\n  - _self_\n  - config: ???\nconfig:\n  SEED: 0\n  OPTIM:\n    LR: 0.1\n",
    "app/config/config/pretrain/simclr.yaml": "# @package _global_\nconfig:\n  SEED: 1\n",
    "app/config/config/pretrain/swav.yaml": "# @package _global_\nconfig:\n  SEED: 2\n",
    "tools/run_distributed_engines.py": (
        "import sys\n\nfrom app.utils import compose_hydra_configuration\n\n\ndef hydra_main(overrides):\n"
        "    print(compose_hydra_configuration(overrides))\n\n\nif __name__ == '__main__':\n    hydra_main(sys.argv[1:])\n"
    ),
    "dev/run_quick_tests.sh": (
        '#!/bin/bash -e\nSRC_DIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" >/dev/null 2>&1 && pwd )"\n'
        'SRC_DIR=$(dirname "${SRC_DIR}")\nCFG_LIST=(\n    "pretrain/simclr"\n    "pretrain/swav"\n)\n'
        'BINARY="python ${SRC_DIR}/tools/run_distributed_engines.py"\n'
        'for cfg in "${CFG_LIST[@]}"; do\n    CUDA_LAUNCH_BLOCKING=1 $BINARY config=$cfg \\\n        config.OPTIM.LR=0.3 && echo "TEST OK" || exit\ndone\n'
        "python tools/run_distributed_engines.py config=pretrain/simclr config.OPTIM.LR=0.5\n"
    ),
}


def test_vissl_s_program_held_in_a_variable_is_a_launch_of_the_entry_point_that_composes(tmp_path, cli):
    write_tree(tmp_path, VISSL)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    init = cli("init", "--preset", "simclr=config=pretrain/simclr", cwd=tmp_path)
    assert init.code == 0, init.err
    assert (
        "  modules       tools/run_distributed_engines.py = defaults (no @hydra.main: it hands its command line to a compose of defaults)"
        in init.out
    )
    assert cli("generate", "--quiet").code == 0
    check = cli("check", "--format", "json")
    assert check.code == 0, check.out[-2000:]
    launches = launch_cases(check.json())
    assert list(launches) == ["cmd/dev/run_quick_tests.sh#1", "cmd/dev/run_quick_tests.sh#2", "cmd/dev/run_quick_tests.sh#3"]
    assert all(case["status"] == "ok" for case in launches.values()), launches
    assert "3 launches checked of 3 found: 3 compose, 0 fail" in cli("check").out
    # A change that breaks what the launches set blocks, naming the script's line: the held program is read alike.
    defaults = tmp_path / "app/config/defaults.yaml"
    defaults.write_text(defaults.read_text().replace("OPTIM:\n    LR: 0.1", "OPTIMIZER:\n    LR: 0.1"))
    failing = cli("check")
    assert failing.code == 1, failing.out
    assert "3 launches checked of 3 found: 0 compose, 3 fail" in failing.out, failing.out
    assert "config.OPTIM.LR is not in the config" in failing.out, failing.out
    assert "dev/run_quick_tests.sh:11, dev/run_quick_tests.sh:13" in failing.out, failing.out
