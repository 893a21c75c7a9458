"""What the commands share: `--shard` and `--report` checked as argparse types, `--case` resolving to one case,
the next-step command a failing report names, global flags a command does not use named and dropped."""

import argparse
import re
from pathlib import Path

import pytest

from harness.commands.common import (
    UsageError,
    drop_ignored_globals,
    next_steps_for,
    one_case,
    one_launch,
    report_target,
    say,
    shard_flag,
)
from harness.composition.shards import Shard
from harness.model.matrix import Case
from harness.model.settings import load_settings


def test_shard_is_k_of_n():
    assert shard_flag(" 2/4 ") == Shard(2, 4)
    for wrong, said in (("0/4", "K must be between 1 and N (4)"), ("2", "expected K/N"), ("5/4", "K must be between 1 and N")):
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(said)) as error:
            shard_flag(wrong)
        assert not str(error.value).startswith("--shard")  # argparse names the flag itself


def test_report_is_format_colon_file_with_did_you_mean():
    assert report_target("sarif:out/r.sarif") == ("sarif", Path("out/r.sarif"))
    assert report_target("json:C:/x.json") == ("json", Path("C:/x.json"))  # only the first colon separates
    with pytest.raises(argparse.ArgumentTypeError, match=r"'sarif' is not FORMAT:FILE \(for example sarif:results.sarif\)"):
        report_target("sarif")
    with pytest.raises(argparse.ArgumentTypeError, match=r"'jsno' is not a report format; did you mean 'json'\?"):
        report_target("jsno:x")
    with pytest.raises(argparse.ArgumentTypeError, match="formats: text, json"):
        report_target("sarif:x", names=("text", "json"))


CASES = [Case("train/cpu/default", "train", ()), Case("train/gpu/default", "train", ()), Case("train/gpu/default2", "train", ())]


def test_one_case_takes_an_exact_id_before_globs():
    assert one_case(CASES, ["train/gpu/default"]).id == "train/gpu/default"  # also a prefix of another id
    assert one_case(CASES, ["*/cpu/*"]).id == "train/cpu/default"
    assert one_case(CASES, ["*/cpu/*", "nothing"]).id == "train/cpu/default"  # the union of the globs
    with pytest.raises(UsageError, match=r"matches 2 cases \(train/gpu/default, train/gpu/default2\); name exactly one"):
        one_case(CASES, ["train/gpu/*"])
    with pytest.raises(UsageError, match="matches no case"):
        one_case(CASES, ["eval/*"])
    with pytest.raises(UsageError, match="a launch is named by one --case"):
        one_launch(["cmd/a", "cmd/b"])


def test_the_next_step_repeats_this_runs_flags(tmp_path, monkeypatch):
    (tmp_path / "h.toml").write_text('config_dir = "conf"\nsnapshot_dir = "golden files"\nroots = ["train"]\n')
    (tmp_path / "conf").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    args = argparse.Namespace(settings="h.toml", config_dir=None, snapshot_dir="golden files", contracts=["c.yaml"], case=["a/*"])
    steps = next_steps_for(args, load_settings(tmp_path / "h.toml"))
    assert steps.regenerate == "config-harness --settings h.toml --snapshot-dir 'golden files' --contracts c.yaml generate --case 'a/*'"
    assert steps.goldens == "golden files" and steps.in_commit_hook is False
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert next_steps_for(args, load_settings(tmp_path / "h.toml")).in_commit_hook is True


def test_a_global_flag_the_command_does_not_use_is_named_and_unset(capsys):
    args = argparse.Namespace(command="comment", settings="h.toml", no_cache=True, jobs=None, config_dir=None)
    drop_ignored_globals(args, ())
    assert (args.settings, args.no_cache) == (None, False)
    assert capsys.readouterr().err == "config-harness: warning: comment does not use --settings, --no-cache: ignored\n"
    drop_ignored_globals(args, ())
    assert capsys.readouterr().err == ""


def test_a_line_said_keeps_input_on_its_line(capsys):
    say("value: a\n::error::forged\x1b[2J")
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "\x1b" not in out and not out.startswith("::")
