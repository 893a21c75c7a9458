"""The optimized path (shared bases, parse cache, forked workers) against the plain one, on a small tree
whose presets include a group selection (`sgd`) and a value preset on top of a route."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

from harness.baselines.goldens import write_goldens
from harness.baselines.kinds import GoldenFolder
from harness.composition.session import forget_content
from harness.model.settings import load_settings
from harness.reporters.json import result_as_dict, to_json
from harness.rules.contracts import checks_for, load_contracts
from harness.runner.run import RuleSet, Run, Runner


def harness(project, *arguments):
    command = [sys.executable, "-m", "harness", "--settings", "harness.toml", "--jobs", "2", *arguments]
    env = {**os.environ, "CONFIG_HARNESS_CACHE_DIR": str(project / "cache")}
    return subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)


def test_optimized_goldens_and_findings_equal_the_plain_path(small_project, monkeypatch):
    monkeypatch.chdir(small_project)
    settings = load_settings(small_project / "harness.toml")
    assert any("@" in o for _, overrides in settings.presets for o in overrides)  # a group-selecting preset

    written = harness(small_project, "--snapshot-dir", "fast", "generate")
    assert written.returncode == 0, written.stderr
    plain_dir = small_project / "plain"
    write_goldens(Runner(Run.check(settings, RuleSet(), keep_rendered=True, baseline=GoldenFolder(plain_dir)), plain=True).run(), plain_dir)
    names = sorted(p.name for p in (small_project / "plain").iterdir())
    assert names == sorted(p.name for p in (small_project / "fast").iterdir()) and len(names) == 7
    for name in names:
        assert (small_project / "fast" / name).read_bytes() == (small_project / "plain" / name).read_bytes(), name

    # Break the goldens in a few ways, then compare every finding both paths report.
    gpu = small_project / "conf" / "backend" / "gpu.yaml"
    gpu.write_text(gpu.read_text().replace("count: 8", "count: 4"))
    (small_project / "fast" / "_generated_train__cpu__sgd.yaml").unlink()
    fast = harness(small_project, "--snapshot-dir", "fast", "check", "--format", "json")
    assert fast.returncode == 1, fast.stderr
    fast_settings = replace(settings, snapshot_dir=small_project / "fast")
    plain = Runner(
        Run.check(fast_settings, RuleSet(tuple(checks_for(load_contracts(settings.contracts, settings.read_scope))))), plain=True
    ).run()
    plain_document = json.loads(to_json(result_as_dict(plain)))
    fast_document = json.loads(fast.stdout)
    assert fast_document.pop("next_steps")  # the CLI's advice names its own command line; the engine's result is the same
    assert fast_document == plain_document
    assert {c["status"] for c in plain_document["cases"]} == {"ok", "changed", "new"}


def in_process(cli, project, monkeypatch):
    """The CLI in this process with the project's own cache folder; each run starts as a new process would,
    with nothing parsed in memory, so what it reuses comes from the cache folder."""
    monkeypatch.setenv("CONFIG_HARNESS_CACHE_DIR", str(project / "cache"))

    def run(*arguments):
        forget_content()
        return cli("--settings", "harness.toml", *arguments, cwd=project)

    return run


def test_the_parse_cache_follows_every_edit_and_survives_corruption(small_project, cli, monkeypatch):
    harness_run = in_process(cli, small_project, monkeypatch)
    assert harness_run("generate").code == 0
    cache = small_project / "cache"
    entries = sorted(cache.glob("*.pickle"))
    assert entries
    for entry in entries:  # a truncated cache is a miss, never a wrong answer
        entry.write_bytes(entry.read_bytes()[:10])
    assert harness_run("check").code == 0
    adam = small_project / "conf" / "optimizer" / "adam.yaml"
    adam.write_text(adam.read_text().replace("name: adam", "name: adamw"))
    report = harness_run("check", "--format", "json").json()
    changed = {(c["id"], f["path"], f["new"]) for c in report["cases"] for f in c["findings"] if f["kind"] == "changed"}
    assert ("train/cpu/default", "trainer.optim.name", "adamw") in changed
    assert not any(case_id.endswith("/sgd") for case_id, _, _ in changed)


def test_no_cache_writes_no_cache(small_project, cli, monkeypatch):
    harness_run = in_process(cli, small_project, monkeypatch)
    assert harness_run("--no-cache", "generate").code == 0
    assert not (small_project / "cache").exists()
    assert harness_run("generate").code == 0
    assert any((small_project / "cache").iterdir())
    cleared = harness_run("cache", "--clear")
    assert cleared.code == 0 and cleared.out.startswith("cleared ")
    assert not any((small_project / "cache").glob("*.pickle"))
