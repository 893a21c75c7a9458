"""`--format github`: one workflow-command annotation per cause, errors first, at most ten of each kind, every
`file=` a file of this checkout, every part escaped, and the verdict first and last."""

from harness.model.findings import INFO, WARNING, CaseResult, Finding, Kind, MatrixResult, Status
from harness.model.grouping import Group, Tier
from harness.model.matrix import Case
from harness.reporters import ReportOptions
from harness.reporters.github import SHOWN_PER_KIND, annotated, to_github


def case(case_id, *findings, status=Status.ERROR, root=None):
    return CaseResult(Case(case_id, "train", ()), f"snapshots/{case_id}.yaml", status, findings, root_file=root)


def contract(path, severity="error", source=None):
    return Finding(Kind.CONTRACT, path, 1, 2, severity=severity, message=f"c: {path} broken", source=source)


def test_errors_come_before_warnings_and_the_verdict_opens_and_ends_the_log():
    run = MatrixResult(cases=(case("a", contract("w.x", WARNING), contract("e.x")),), baseline="goldens")
    lines = to_github(run, ReportOptions()).splitlines()
    assert lines[0] == lines[-1] and lines[0].startswith("FAILED: 1 case against goldens")
    assert [line.split(" ")[0] for line in lines[1:-1]] == ["::error", "::warning"]
    assert lines[1] == "::error title=contract e.x::c: e.x broken (a)"


def test_past_ten_of_a_kind_one_line_counts_the_rest():
    run = MatrixResult(cases=(case("a", *(contract(f"k{i:02}") for i in range(SHOWN_PER_KIND + 3))),), baseline="goldens")
    lines = to_github(run, ReportOptions()).splitlines()
    assert sum(line.startswith("::error") for line in lines) == SHOWN_PER_KIND
    assert "3 errors more are not annotated (GitHub shows 10 of each kind); the job summary lists them all" in lines


def test_a_file_not_in_this_checkout_points_at_the_case_root_with_the_base_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "train.yaml").write_text("a: 1\n")
    at_base = Finding(Kind.CONTRACT, "gone.x", 1, None, message="c: gone.x broken", source="conf/old.yaml:3")
    run = MatrixResult(cases=(case("a", at_base, root="conf/train.yaml"),), baseline="goldens")
    (annotation,) = [line for line in to_github(run, ReportOptions()).splitlines() if line.startswith("::")]
    assert annotation == "::error file=conf/train.yaml,title=contract gone.x::c: gone.x broken (a) [set by conf/old.yaml:3]"
    (tmp_path / "conf" / "train.yaml").unlink()  # no file of this checkout to point at: no file= at all
    (annotation,) = [line for line in to_github(run, ReportOptions()).splitlines() if line.startswith("::")]
    assert annotation.startswith("::error title=contract gone.x::")


def test_input_cannot_end_the_command_or_start_another():
    hostile = Finding(Kind.CONTRACT, "a", 1, 2, message="x\n::error::forged %0A")
    text = to_github(MatrixResult(cases=(case("a", hostile),), baseline="goldens"), ReportOptions())
    assert "\n::error::forged" not in text and "x%0A::error::forged %250A" in text


def group(tier, severity):
    return Group(tier, Finding(Kind.CHANGED, "a", 1, 2, severity=severity), ("a",))


def test_what_is_annotated_and_as_what():
    assert annotated(group(Tier.BLOCKING, "error")) == "error"
    assert annotated(group(Tier.CHANGED, INFO)) == "notice"  # a review's difference, on its line
    assert annotated(group(Tier.NOTED, INFO)) is None
    assert annotated(group(Tier.AT_BASE, "error")) is None  # not this change's: on lines it never touched


def test_a_new_workflow_and_a_code_write_are_annotated_at_their_file_and_line(tmp_path, monkeypatch):
    """Issue 56: the error for a workflow that runs config-harness had no file, and a config write's annotation no line."""
    from harness.composition.provenance import Source
    from harness.model.findings import RulesUsed

    monkeypatch.chdir(tmp_path)
    for name in (".github/workflows/ch.yml", "app/main.py", "pyproject.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    workflow = Finding(Kind.SETTINGS_CHANGE, ".github/workflows/ch.yml", None, "0315aeeaf567", message="a workflow changed")
    engines = Finding(Kind.SETTINGS_CHANGE, "engines", ["a"], ["b"], message="engines narrowed")
    write = Finding(Kind.CONFIG_WRITE, "rollout.n", None, 4, WARNING, "a config write added", source=Source("app/main.py", 175))
    run = MatrixResult(
        cases=(case("a", status=Status.OK),), findings=(workflow, engines, write), rules=RulesUsed("pyproject.toml", "main", False)
    )
    lines = to_github(run, ReportOptions(review=True)).splitlines()
    assert any(line.startswith("::error file=.github/workflows/ch.yml,title=settings_change") for line in lines), lines
    assert any(line.startswith("::error file=pyproject.toml,title=settings_change engines") for line in lines), lines
    assert any(line.startswith("::warning file=app/main.py,line=175,title=config_write") for line in lines), lines
