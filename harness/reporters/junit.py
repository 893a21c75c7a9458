"""JUnit XML for CI test views: one test case per config case, failing with its errors.

ElementTree escapes markup in text and attributes; characters XML 1.0 cannot hold at all (most control
characters) are written as escapes first, so no input makes the document unreadable.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from harness.gates.escape import xml_text
from harness.model.findings import ERROR, WARNING, Kind, MatrixResult, Severity, Status
from harness.model.grouping import Group, group_findings
from harness.reporters.base import ReportOptions
from harness.reporters.layout import describe_group, mode_line, mode_properties, summary_line

SUITE = "config-harness"
RUN_CASE = "(run)"  # the test case that carries findings about the run as a whole and orphan goldens


def _line(group: Group) -> str:
    source = f"  (set by {group.source})" if group.source is not None else ""
    return describe_group(group) + source + (f"  [waived: {group.waiver}]" if group.waiver else "")


def _testcase(suite: ET.Element, name: str, file: str, errors: list[str], warnings: list[str], tag: str = "failure") -> ET.Element:
    case = ET.SubElement(suite, "testcase", {"classname": SUITE, "name": xml_text(name), "file": xml_text(file)})
    if errors:
        element = ET.SubElement(case, tag, {"message": xml_text(errors[0]), "type": tag})
        element.text = "\n".join(xml_text(error) for error in errors)
    if warnings:
        ET.SubElement(case, "system-out").text = "\n".join(xml_text(warning) for warning in warnings)
    return case


def to_junit(result: MatrixResult) -> ET.Element:
    """A `<testsuites>` document: one `<testcase>` per case, plus one for the run when it has findings."""
    by_case: dict[str, list[Group]] = {}
    for group in group_findings(result.cases, result.findings):
        for case_id in group.cases or (RUN_CASE,):
            by_case.setdefault(case_id, []).append(group)

    def lines(case_id: str, severity: str) -> list[str]:
        return [_line(g) for g in by_case.get(case_id, []) if g.severity == severity]

    root = ET.Element("testsuites", {"name": SUITE})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE})
    mode = mode_properties(result)
    if mode:  # a diff's mode, where JUnit keeps facts about a suite (before its test cases)
        properties = ET.SubElement(suite, "properties")
        for name, value in mode.items():
            ET.SubElement(properties, "property", {"name": name, "value": xml_text(value)})
    for case_result in result.cases:
        case_id = case_result.case.id
        # A case that cannot be composed is an error in JUnit's sense; a difference or a broken rule is a failure.
        broken = any(f.kind == Kind.ERROR and f.severity == ERROR for f in case_result.findings)
        case = _testcase(
            suite, case_id, case_result.golden, lines(case_id, ERROR), lines(case_id, WARNING), "error" if broken else "failure"
        )
        if case_result.status == Status.GONE:
            ET.SubElement(case, "skipped", {"message": "only in the baseline"})
    orphans = [f"orphan golden (no case): {orphan}; remove it with `generate --prune`" for orphan in result.orphans]
    if RUN_CASE in by_case or orphans:
        _testcase(suite, RUN_CASE, "", lines(RUN_CASE, ERROR) + orphans, lines(RUN_CASE, WARNING))
    cases = suite.findall("testcase")
    counts = {
        "tests": str(len(cases)),
        "failures": str(sum(c.find("failure") is not None for c in cases)),
        "errors": str(sum(c.find("error") is not None for c in cases)),
        "skipped": str(sum(c.find("skipped") is not None for c in cases)),
    }
    suite.attrib.update(counts)
    root.attrib.update(counts)
    ET.SubElement(suite, "system-out").text = "\n".join(xml_text(line) for line in (mode_line(result), summary_line(result)) if line)
    return root


class JunitReporter:
    """`--format junit`: JUnit XML, which CI systems show as test results."""

    name = "junit"
    sink = "xml"
    sourced: frozenset[Severity] = frozenset({ERROR})

    def render(self, result: MatrixResult, options: ReportOptions) -> str:
        """The JUnit XML document."""
        return ET.tostring(to_junit(result), encoding="unicode", xml_declaration=True) + "\n"


REPORTER = JunitReporter()
