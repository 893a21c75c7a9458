"""The sinks' escapes, each with input that tries to leave its place: a terminal line, a markdown cell, a code span,
a workflow command, SARIF text, JSON and XML."""

import json

import pytest

from harness.gates.escape import (
    code_span,
    escape_data,
    escape_property,
    json_text,
    markdown_text,
    no_workflow_commands,
    printable,
    sarif_message,
    suspicious,
    workflow_command,
    xml_text,
)


def test_a_printable_line_shows_what_is_stored_on_one_line():
    assert printable("a\nb\tc\x1b[31m\u202e") == "a\\nb\\tc\\x1b[31m\\u202e"
    assert printable("::error::x") == "\\::error::x" and printable(3) == "3"


def test_suspicious_is_only_what_a_reader_cannot_see():
    assert suspicious("a\u200bb") and suspicious("x\u202ey") and not suspicious("tab\tand\nnewline") and not suspicious(5)


@pytest.mark.parametrize(
    "text, shown",
    [
        ("a|b", "a\\|b"),
        ("<img src=x>", "&lt;img src=x&gt;"),
        ("snake_case_key", "snake_case_key"),  # inside a word an underscore is no emphasis
        ("_em_", "\\_em\\_"),
        ("[t](x)", "[t\\](x)"),
        ("[t](http://x)", "`[t](http://x)`"),  # a word GitHub would link is shown as code
        ("see @someone", "see `@someone`"),
        ("line\nbreak", "line break"),
    ],
)
def test_markdown_text_is_plain_text_in_a_cell(text, shown):
    assert markdown_text(text) == shown


def test_a_code_span_cannot_be_ended_by_its_content():
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x`") == "`` `x` ``"
    assert code_span("a|b") == "`a\\|b`" and code_span("a|b", in_table=False) == "`a|b`"


def test_a_workflow_command_keeps_its_data_and_properties_in_place():
    assert escape_data("50%\r\nx") == "50%25%0D%0Ax"
    assert escape_property("a:b,c") == "a%3Ab%2Cc"
    assert (
        workflow_command("error", "x\n::warning::y", file="a,b.yaml", line=3, title="")
        == "::error file=a%2Cb.yaml,line=3::x%0A::warning::y"
    )


def test_no_input_line_of_a_report_reads_as_a_command_in_any_sink():
    report = "ok\n  ::error::forged\n##[error]old style\n"
    assert no_workflow_commands(report, "text") == "ok\n  \\::error::forged\n##\\[error]old style\n"
    assert json.loads(json.dumps(no_workflow_commands(report, "json"))) == "ok\n  \\u003a:error::forged\n##\\u005berror]old style\n"
    assert no_workflow_commands(report, "xml") == "ok\n  &#58;:error::forged\n##&#91;error]old style\n"
    # The github sink keeps the harness's own commands, and breaks a forged one inside a plain line.
    assert no_workflow_commands("::error::mine\nplain ##[x]\n", "github") == "::error::mine\nplain ##\\[x]\n"


def test_sarif_json_and_xml_text():
    assert sarif_message('see [a](b) and ["x"]') == 'see [a\\](b) and ["x"]'
    assert json_text({"a": "é\u202e"}, indent=None) == '{"a": "\\u00e9\\u202e"}'
    assert xml_text("a\nb\x00\u200b") == "a\\nb\\x00\\u200b" and xml_text("tab\there") == "tab\there"


def test_any_json_writes_every_value_a_report_may_hold():
    # A tuple or bytes key (a merged shard, a YAML `? !!binary` key) made json.dumps raise in every reporter.
    from harness.gates.escape import any_json, json_text

    assert any_json({(): None, b"k": 1, 2: [("a", 1)]}) == '{"()": null, "b\'k\'": 1, "2": [["a", 1]]}'
    assert any_json({"a": 1}, indent=None) == '{"a": 1}'  # plain JSON where JSON can write it
    assert json_text({("x",): "\u202e"}, indent=None) == '{"(\'x\',)": "\\u202e"}'
