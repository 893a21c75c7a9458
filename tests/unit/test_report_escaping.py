"""Escaping in every output format, each case from a hostile input: every string a pull request controls
(values, keys, file names, case ids, settings paths, messages) passes its format's sink."""

from __future__ import annotations

import json
import re

import pytest

from harness.escape import code_span, escape_data, escape_property, markdown_text, printable, suspicious, workflow_command, xml_text
from harness.findings import ERROR, CaseResult, Finding, Kind, MatrixResult, Status
from harness.matrix import Case
from harness.provenance import Source
from harness.report import result_as_dict, to_github, to_json, to_markdown, to_text

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
# A line break that starts workflow commands of its own, an ANSI color, a right-to-left override that shows
# `/models/good` for something else, and a zero-width space.
HOSTILE = "v\n::stop-commands::tok\n::notice title=t::All cases OK\r\x1b[31m\u202edoog/sledom/\u200b"
RAW = ("\x1b", "\u202e", "\u200b", "\r")


def test_markdown_text_cannot_open_cells_tags_links_or_lines():
    text = markdown_text("a | b <img src=x onerror=alert(1)> [click](javascript:alert(1)) ![i](u)\n## heading `tick`")
    assert not UNESCAPED_PIPE.search(text) and "<" not in text and "\n" not in text
    assert "](" not in text.replace("\\](", "") and "\\`tick\\`" in text
    # Text that only looks like markup near a bracket stays readable.
    assert markdown_text("[recorded reason: qkv moved]") == "[recorded reason: qkv moved]"


def test_a_code_span_is_never_closed_by_its_content():
    assert code_span("plain") == "`plain`"
    assert code_span("a`b") == "``a`b``"
    assert code_span("``x``") == "``` ``x`` ```"  # padded: content starting with a backtick
    assert code_span("a|b") == "`a\\|b`" and code_span("a|b", in_table=False) == "`a|b`"
    assert code_span("x\n::stop-commands::y") == "`x ::stop-commands::y`"
    assert code_span("a\u202eb\x1b") == "`a\\u202eb\\x1b`"


def test_workflow_command_escaping_follows_github():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = workflow_command("error", "x\n::stop-commands::tok", file="conf/a,b:c.yaml", line=3, title="t:1")
    assert line == "::error file=conf/a%2Cb%3Ac.yaml,line=3,title=t%3A1::x%0A::stop-commands::tok"
    assert "\n" not in line
    assert escape_data("\u202e\x1b") == "\\u202e\\x1b"


def test_text_output_keeps_input_on_its_line():
    assert printable("key\n::stop-commands::x\r\x1b[31m") == "key\\n::stop-commands::x\\r\\x1b[31m"
    assert printable("/models/\u202egood\u200b\u2066") == "/models/\\u202egood\\u200b\\u2066"


def test_suspicious_text_is_what_a_reader_cannot_see():
    assert suspicious("a\u202eb") and suspicious("\u200b") and suspicious("\x1b[31m") and suspicious("\ufeff")
    assert not suspicious("two\nlines\tand a tab") and not suspicious("naïve 日本") and not suspicious(3)


def test_xml_text_holds_no_markup_and_no_control():
    assert xml_text('<a b="c">&\x00\u202e') == "&lt;a b=&quot;c&quot;&gt;&amp;\\x00\\u202e"


def hostile_result() -> MatrixResult:
    """A result where every string a pull request could control holds HOSTILE."""
    case = Case(f"train/{HOSTILE}/default", "train", ())
    findings = (
        Finding(Kind.CHANGED, f"a.{HOSTILE}", HOSTILE, HOSTILE, ERROR, HOSTILE, source=Source(f"conf/{HOSTILE}.yaml", 3)),
        Finding(Kind.CONTRACT, "b", None, HOSTILE, ERROR, f"c: {HOSTILE}", contract=HOSTILE),
        Finding(Kind.ERROR, "", severity=ERROR, message=HOSTILE),
        Finding(Kind.HIDDEN_TEXT, "d", None, HOSTILE, "warning", HOSTILE),
    )
    result = MatrixResult([CaseResult(case, f"snapshots/{HOSTILE}.yaml", Status.CHANGED, findings)], baseline=f"goldens in {HOSTILE}")
    result.orphans = [f"snapshots/_generated_{HOSTILE}.yaml"]
    result.pruned = [HOSTILE]
    return result


def no_command_of_its_own(output: str, ours: tuple[str, ...] = ()) -> None:
    for line in output.splitlines():
        assert not line.startswith("::") or line.startswith(ours), line
    assert not any(raw in output for raw in RAW)


@pytest.mark.parametrize("verbose", [False, True])
def test_text_report_escapes_every_field(verbose):
    output = to_text(hostile_result(), verbose=verbose, include_info=True)
    no_command_of_its_own(output)
    assert "\\u202edoog" in output


def test_markdown_report_escapes_every_field():
    output = to_markdown(hostile_result(), include_info=True)
    no_command_of_its_own(output)
    assert "<" not in output.replace("<details>", "").replace("</details>", "").replace("<summary>", "").replace("</summary>", "")


def test_github_report_escapes_every_field():
    output = to_github(hostile_result())
    no_command_of_its_own(output, ours=("::error ", "::warning ", "::notice "))
    assert all(line.count("\n") == 0 for line in output.splitlines())


def test_json_report_escapes_every_field_and_keeps_the_values():
    output = to_json(result_as_dict(hostile_result()))
    assert output.isascii() and not any(line.startswith("::") for line in output.splitlines())
    assert json.loads(output)["cases"][0]["findings"][0]["old"] == HOSTILE
