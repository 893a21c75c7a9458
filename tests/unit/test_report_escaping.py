"""Escaping in every output format, each case from a hostile input."""

from __future__ import annotations

import re

from harness.reporters.github import escape_data, escape_property, workflow_command
from harness.reporters.markdown import code_span, markdown_text
from harness.reporters.text import printable

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


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


def test_workflow_command_escaping_follows_github():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = workflow_command("error", "x\n::stop-commands::tok", file="conf/a,b:c.yaml", line=3, title="t:1")
    assert line == "::error file=conf/a%2Cb%3Ac.yaml,line=3,title=t%3A1::x%0A::stop-commands::tok"
    assert "\n" not in line


def test_text_output_keeps_input_on_its_line():
    assert printable("key\n::stop-commands::x\r\x1b[31m") == "key\\n::stop-commands::x\\r\\x1b[31m"


def test_sarif_locations_are_uri_references_a_file_name_cannot_bend():
    from harness.reporters.sarif import artifact_uri

    assert artifact_uri("conf/train.yaml") == "conf/train.yaml"
    assert artifact_uri("conf/a b#c%d?.yaml") == "conf/a%20b%23c%25d%3F.yaml"
    assert artifact_uri("/tmp/x\n::stop-commands::y.yaml") == "file:///tmp/x%0A%3A%3Astop-commands%3A%3Ay.yaml"


def test_junit_text_is_always_well_formed_xml():
    import xml.etree.ElementTree as ET

    from harness.reporters.junit import xml_text

    hostile = "a\x00b\x1b[31m</failure><x>&amp;\ud800\ufffe"
    element = ET.Element("failure", {"message": xml_text(hostile)})
    element.text = xml_text(hostile)
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert parsed.text == parsed.get("message") == "a\\x00b\\x1b[31m</failure><x>&amp;\\ud800\\ufffe"
