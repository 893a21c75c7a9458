"""`fetch`: the settings' [source] wheel, or `--wheel REQ --into DIR`; what is missing is said in one line before
anything is downloaded."""


def test_wheel_and_into_go_together(tmp_path, cli):
    for argv in (["fetch", "--wheel", "verl==0.9.1"], ["fetch", "--into", "x"], ["fetch", "--unpack", "verl/trainer/config"]):
        run = cli(*argv, cwd=tmp_path)
        assert run.code == 2 and run.err.count("\n") == 1 and "fetch --wheel and --into go together" in run.err


def test_settings_without_a_source_table_say_what_to_give(tiny, cli):
    run = cli("--settings", "harness.toml", "fetch")
    assert run.code == 2 and run.err.count("\n") == 1
    assert "harness.toml: no [source] table to fetch (or give --wheel REQ --into DIR)" in run.err
    assert not (tiny / ".cache").exists()
