"""`cache`: says where the cache is and what it holds, or that it is off; `--clear` empties it."""

import re


def test_off_absent_filled_and_cleared(tiny, cli, tmp_path):
    folder = tmp_path / "cache"
    assert cli("--no-cache", "cache").out == "cache: off\n"
    assert cli("--cache-dir", str(folder), "cache").out == f"{folder}: empty (not created yet)\n"
    assert cli("--settings", "harness.toml", "--cache-dir", str(folder), "check").code == 1  # no goldens yet; fills the cache
    shown = cli("--cache-dir", str(folder), "cache").out
    counted = re.fullmatch(rf"{re.escape(str(folder))}: (\d+) entries, \d+ KiB \(cap \d+ MiB\), 0 kept base trees, key .+\n", shown)
    assert counted is not None and int(counted.group(1)) > 0, shown
    cleared = cli("--cache-dir", str(folder), "cache", "--clear")
    assert cleared.out == f"cleared {counted.group(1)} entries and 0 kept base trees from {folder}\n"
    assert cli("--cache-dir", str(folder), "cache").out.startswith(f"{folder}: 0 entries")
    assert cli("--cache-dir", str(folder), "cache", "--clear", "--quiet").out == ""


def test_a_folder_others_can_write_is_refused_and_left_alone(tmp_path, cli):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    folder.chmod(0o777)
    run = cli("--cache-dir", str(folder), "cache", "--clear", cwd=tmp_path)
    assert run.code == 2 and run.err.count("\n") == 1
    assert f"cache folder refused: cache folder {folder} is writable by group or others (mode 777)" in run.err
    assert (folder / "notes.txt").read_text() == "mine\n"
