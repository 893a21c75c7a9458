"""Reviews and `log` in a real git repository that adopted the harness at verl 0.7.1, then took 0.8.0 and 0.9.1.

The repository has settings and a `lock`-derived contract but no goldens, as on an adopter's first pull
requests: every review composes its base from git.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from harness.cli import main
from harness.model.semantic_diff import flatten, same_value
from tests.conftest import verl_tree
from tests.synthetic_history import commit, git

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("verl-history")]

SETTINGS = """
[tool.config-harness]
config_dir = "conf"
snapshot_dir = "snapshots"
contracts = ["contracts.yaml"]
roots = ["ppo_trainer"]
engine_group = "model_engine"

[tool.config-harness.presets]
default = []

[[tool.config-harness.routes]]
name = "ppo_megatron_trainer"
config_name = "ppo_megatron_trainer"
same_as = "ppo_trainer/megatron/default"
became = "ppo_trainer/megatron/default"
"""

RELEASES = ("0.7.1", "0.8.0", "0.9.1")


def put_tree(repository: Path, version: str) -> None:
    conf = repository / "conf"
    shutil.rmtree(conf, ignore_errors=True)
    shutil.copytree(verl_tree(version), conf, ignore=shutil.ignore_patterns("_generated_*", "*.py", "__pycache__"))


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The repository and the commit of each release; the 0.7.1 commit carries a contract locked from it."""
    repository = tmp_path_factory.mktemp("adopter")
    git(repository, "init", "-q", "-b", "main")
    commits = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        for version in RELEASES:
            put_tree(repository, version)
            # At 0.7.1 there is no megatron engine to be the route's twin; the 0.8.0 commit says what it became.
            settings = SETTINGS if version != "0.7.1" else SETTINGS.split("same_as")[0]
            (repository / "pyproject.toml").write_text(settings)
            if version == "0.7.1":
                (repository / "contracts.yaml").write_text("contracts: []\n")
                locked = main(
                    [
                        "lock",
                        "--baseline",
                        "ppo_trainer/dp/default",
                        "--target",
                        "route/ppo_megatron_trainer",
                        "--name",
                        "megatron-critical",
                        "--cases",
                        "*megatron*",
                        "--output",
                        "contracts.yaml",
                    ]
                )
                assert locked == 0
            commits[version] = commit(repository, f"verl {version}")
    return repository, commits


def plain_flatten(tree: Path, config_name: str, overrides: list[str]) -> dict:
    with initialize_config_dir(config_dir=str(tree), version_base=None):
        return flatten(OmegaConf.to_container(compose(config_name, overrides=overrides), resolve=False))


def true_changes(before: dict, after: dict) -> set[tuple[str, str]]:
    changes = {("removed", p) for p in before.keys() - after.keys()}
    changes |= {("added", p) for p in after.keys() - before.keys()}
    changes |= {("changed", p) for p in before.keys() & after.keys() if not same_value(before[p], after[p])}
    return changes


def reported(case: dict) -> set[tuple[str, str]]:
    """The leaves a case's findings name as removed, added or changed; a moved key or subtree is its removed leaves
    at the old path and its added leaves at the new one (the value unchanged)."""
    leaves = {(f["kind"], f["path"]) for f in case["findings"] if f["kind"] in ("removed", "added", "changed")}
    for move in (f for f in case["findings"] if f["kind"] == "moved"):
        inside = flatten(move["value"]) if isinstance(move["value"], dict) and move["value"] else {"": None}
        for relative in inside:
            leaves |= {("removed", f"{move['old']}.{relative}".rstrip(".")), ("added", f"{move['new']}.{relative}".rstrip("."))}
    return leaves


@pytest.mark.parametrize("old, new", [("0.7.1", "0.8.0"), ("0.8.0", "0.9.1")])
def test_review_against_the_parent_composes_the_base_and_names_the_true_changes(history, cli, old, new):
    repository, commits = history
    git(repository, "checkout", "-q", commits[new])
    result = cli("diff", "--base", "HEAD~1", "--format", "json", cwd=repository)
    report = result.json()
    assert report["baseline"] == "config tree HEAD~1:conf (composed) (no goldens at HEAD~1)"
    cases = {c["id"]: c for c in report["cases"]}
    # The route still exists on both sides: its changes are exactly plain Hydra's.
    route = ["route/ppo_megatron_trainer", "ppo_megatron_trainer", []]
    expected = true_changes(plain_flatten(verl_tree(old), *route[1:]), plain_flatten(verl_tree(new), *route[1:]))
    assert reported(cases[route[0]]) == expected
    dp = true_changes(
        plain_flatten(verl_tree(old), "ppo_trainer", ["model_engine=dp"]),
        plain_flatten(verl_tree(new), "ppo_trainer", ["model_engine=dp"]),
    )
    assert reported(cases["ppo_trainer/dp/default"]) == dp
    # Differences are news, not failures; the megatron contract locked at 0.7.1 is what fails the review, with a
    # case the base's settings describe and this tree lost (0.9.1 dropped the mindspeed engine).
    kinds = ("contract", "stale_golden")
    assert all(f["severity"] == "info" for c in cases.values() if c["status"] != "gone" for f in c["findings"] if f["kind"] not in kinds)
    # This history commits no goldens: `check` on the head fails on every case's missing golden, so the review does.
    # (A case the pull request's settings describe otherwise, the route given a twin, is named at the run's level.)
    head_level = " ".join(f["message"] for f in report["findings"] if f["kind"] == "stale_golden")
    for case in (c for c in cases.values() if c["status"] != "gone"):
        assert any(f["kind"] == "stale_golden" for f in case["findings"]) or f"{case['id']} (as the pull request" in head_level
    gone = {c["id"] for c in cases.values() if c["status"] == "gone" and c["findings"][0]["severity"] == "error"}
    assert gone == ({"ppo_trainer/mindspeed/default"} if new == "0.9.1" else set())
    contract_errors = {f["path"] for f in cases[route[0]]["findings"] if f["kind"] == "contract" and f["severity"] == "error"}
    assert "actor_rollout_ref.rollout.layer_name_map.qkv_layer_name" in contract_errors
    assert result.code == 1


def test_review_follows_the_route_that_became_the_megatron_engine(history, cli):
    repository, commits = history
    git(repository, "checkout", "-q", commits["0.8.0"])
    report = cli("diff", "--base", "HEAD~1", "--format", "json", cwd=repository).json()
    (megatron,) = [c for c in report["cases"] if c["id"] == "ppo_trainer/megatron/default"]
    # 0.7.1 has no megatron engine: the case is compared with the route it came from.
    assert megatron["status"] == "changed"
    assert megatron["golden"] == "HEAD~1:conf route/ppo_megatron_trainer (became ppo_trainer/megatron/default)"
    expected = true_changes(
        plain_flatten(verl_tree("0.7.1"), "ppo_megatron_trainer", []),
        plain_flatten(verl_tree("0.8.0"), "ppo_trainer", ["model_engine=megatron"]),
    )
    assert reported(megatron) == expected
    removed = {f["path"]: f for f in megatron["findings"] if f["kind"] == "removed"}
    qkv = removed["actor_rollout_ref.rollout.layer_name_map.qkv_layer_name"]
    assert qkv["old"] == "qkv" and qkv["source"].startswith("conf/ppo_megatron_trainer.yaml:") and qkv["source"].endswith(" at HEAD~1")
    (padding,) = [f for f in megatron["findings"] if f["path"] == "actor_rollout_ref.model.use_remove_padding" and f["kind"] != "contract"]
    assert (padding["kind"], padding["old"], padding["new"]) == ("changed", False, True)
    # Every format says which baseline was used.
    text = cli("diff", "--base", "HEAD~1", cwd=repository).out
    markdown = cli("diff", "--base", "HEAD~1", "--format", "markdown", cwd=repository).out
    github = cli("diff", "--base", "HEAD~1", "--format", "github", cwd=repository).out
    for output in (text, markdown, github):
        assert "config tree HEAD~1:conf (composed)" in output


def test_log_finds_the_commit_that_flipped_use_remove_padding(history, cli):
    repository, commits = history
    git(repository, "checkout", "-q", commits["0.9.1"])
    key = "actor_rollout_ref.model.use_remove_padding"
    result = cli("log", key, "--case", "route/ppo_megatron_trainer", "--format", "json", cwd=repository)
    assert result.code == 0, result.err
    document = result.json()
    assert (document["key"], document["case"]) == (key, "route/ppo_megatron_trainer")
    flips = [c for c in document["changes"] if c["old"] is False and c["new"] is True]
    assert [c["commit"] for c in flips] == [commits["0.8.0"]]
    assert flips[0]["subject"] == "verl 0.8.0" and flips[0]["exists"] is True
    assert [c["commit"] for c in document["changes"]] == sorted(
        (c["commit"] for c in document["changes"]), key=list(commits.values()).index
    )
    since = cli("log", key, "--case", "route/ppo_megatron_trainer", "--since", commits["0.8.0"], "--format", "json", cwd=repository)
    assert since.json()["changes"] == []  # nothing flipped it after 0.8.0


def test_bad_refs_are_usage_errors(history, cli):
    repository, _ = history
    for ref in ("--output=/tmp/x", "no-such-ref"):
        result = cli("diff", "--base", ref, cwd=repository)
        assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.err


FETCHED = """
[tool.config-harness]
config_dir = ".cache/verl/verl/trainer/config"
snapshot_dir = "snapshots"
roots = ["ppo_trainer"]
engine_group = "model_engine"

[tool.config-harness.source]
wheel = "verl=={version}"
unpack = "verl/trainer/config"
into = ".cache/verl"
"""


def test_review_of_a_fetched_tree_fetches_the_wheel_pinned_at_the_base(tmp_path, cli):
    repository = tmp_path / "pinned"
    repository.mkdir()
    git(repository, "init", "-q", "-b", "main")
    (repository / ".gitignore").write_text(".cache/\n")
    (repository / "pyproject.toml").write_text(FETCHED.format(version="0.8.0"))
    commit(repository, "pin verl 0.8.0")
    (repository / "pyproject.toml").write_text(FETCHED.format(version="0.9.1"))
    assert cli("fetch", cwd=repository).code == 0
    report = cli("diff", "--base", "HEAD", "--case", "ppo_trainer/dp/default", "--format", "json", cwd=repository).json()
    assert report["baseline"] == "config tree HEAD:.cache/verl/verl/trainer/config (composed) (no goldens at HEAD)"
    (case,) = [c for c in report["cases"] if c["id"] == "ppo_trainer/dp/default"]
    expected = true_changes(
        plain_flatten(verl_tree("0.8.0"), "ppo_trainer", ["model_engine=dp"]),
        plain_flatten(verl_tree("0.9.1"), "ppo_trainer", ["model_engine=dp"]),
    )
    assert reported(case) == expected and expected
    assert sorted(p.name for p in repository.iterdir()) == [".cache", ".git", ".gitignore", "pyproject.toml"]
    assert sorted(p.name for p in (repository / ".cache").iterdir()) == ["verl"]  # the base was unpacked elsewhere
