"""A review's rules come from its base: every settings key the pull request changes is a settings change (an
error without a recorded reason where it checks less or reads more), and the settings the review composes with
are the base's plus the cases the pull request adds, its confinement never widened."""

from harness.model.settings import load_settings
from harness.rules.review_rules import review_settings, rules_for_review, settings_changes


def changed(base, head):
    return {c.key: (c.narrows, c.description) for c in settings_changes(base, head)}


def test_what_checks_less_or_reads_more_narrows_and_what_checks_more_does_not():
    base = {"roots": ["train", "eval"], "engines": ["cpu", "gpu"], "presets": {"default": []}, "jobs": 2, "read_outside": []}
    head = {"roots": ["train"], "engines": ["cpu", "gpu", "tpu"], "presets": {"default": [], "fast": ["a=1"]}, "jobs": 4}
    head["read_outside"] = ["/opt/data"]
    found = changed(base, head)
    assert found["roots"] == (True, 'settings roots: ["train", "eval"] -> ["train"]: narrows what the review checks')
    assert found["engines"][0] is False and found["presets.fast"][0] is False  # more engines, a new preset: checks more
    assert found["jobs"] == (False, "settings jobs: 2 -> 4")
    assert found["read_outside"] == (True, 'settings read_outside: [] -> ["/opt/data"]: widens what the harness may read')
    assert changed(base, base) == {}


def test_every_change_of_a_key_that_decides_the_tree_narrows():
    found = changed({"config_dir": "conf", "presets": {"fast": ["a=1"]}}, {"config_dir": "other", "presets": {}})
    assert found["config_dir"][0] is True
    assert found["presets.fast"] == (True, 'settings presets.fast removed (was ["a=1"]): narrows what the review checks')
    assert changed({"engines": ["a"]}, {})["engines"][0] is False  # absent: every option of the group, more than a list


def settings(tmp_path, name, text):
    (tmp_path / "conf").mkdir(exist_ok=True)
    (tmp_path / name).write_text('config_dir = "conf"\n' + text)
    return load_settings(tmp_path / name)


def test_the_review_composes_with_the_base_plus_what_the_pull_request_adds(tmp_path):
    base = settings(tmp_path, "base.toml", 'roots = ["train"]\nengines = ["cpu"]\nread_outside = ["/opt/a", "/opt/b"]\n')
    head = settings(tmp_path, "head.toml", 'roots = ["eval"]\nengines = ["gpu"]\nread_outside = ["/opt/a", "/opt/c"]\n')
    merged = review_settings(base, head)
    assert merged.roots == ("train", "eval") and merged.engines == ("cpu", "gpu")
    assert [str(p) for p in merged.read_outside] == ["/opt/a"]  # narrowed by the pull request, never widened
    assert merged.origin == head.origin


def test_a_first_adoption_imports_no_module_of_the_pull_request(tmp_path):
    head = settings(tmp_path, "head.toml", 'roots = ["train"]\nschemas = ["app.schemas"]\n')
    rules = rules_for_review(head, None, {}, None, "main")
    assert rules.first_adoption and rules.settings.schemas == () and rules.changes == ()
