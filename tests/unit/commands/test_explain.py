"""`explain KEY --case ID`: the file and line that set a key's final value, an override, what an interpolation
depends on and resolves to; a key the case lacks is bad input with the closest key."""


def explain(cli, *args):
    return cli("--settings", "harness.toml", "explain", *args)


def test_the_file_and_line_that_set_the_value(tiny, cli):
    run = explain(cli, "device.count", "--case", "train/gpu/default")
    assert run.code == 0
    lines = run.out.splitlines()
    assert lines[0] == "device.count = 8   (case train/gpu/default)"
    assert lines[1].split() == ["set", "by", "conf/backend/gpu.yaml:2", "[defaults", "entry", "backend/gpu]", "=", "8"]
    assert explain(cli, "device.count", "--case", "train/gpu/default", "--quiet").out == lines[0] + "\n"


def test_an_interpolation_names_what_it_depends_on_and_its_value(tiny, cli):
    lines = explain(cli, "trainer.effective_lr", "--case", "train/cpu/*").out.splitlines()
    assert lines[0] == 'trainer.effective_lr = "${trainer.lr}"   (case train/cpu/default)'
    assert "  depends on trainer.lr = 0.1  (set by conf/train.yaml:5)" in lines
    assert lines[-1] == "  resolves to: 0.1"


def test_a_missing_key_or_an_ambiguous_case_is_one_line_of_bad_input(tiny, cli):
    missing = explain(cli, "trainer.stepz", "--case", "train/cpu/default")
    assert missing.code == 2 and missing.err.count("\n") == 1
    assert "trainer.stepz does not exist in case train/cpu/default" in missing.err and "trainer.steps" in missing.err
    both = explain(cli, "trainer.lr", "--case", "train/*")
    assert both.code == 2 and "matches 2 cases (train/cpu/default, train/gpu/default); name exactly one" in both.err
