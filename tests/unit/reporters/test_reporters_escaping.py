"""Escaping in every output format, each case from a hostile input: every string a pull request controls
(values, keys, file names, case ids, settings paths, messages) passes its format's sink."""

from __future__ import annotations

import json
import re

import pytest

from harness.composition.provenance import Source
from harness.gates.escape import code_span, escape_data, escape_property, markdown_text, printable, suspicious, workflow_command, xml_text
from harness.model.findings import ERROR, WARNING, CaseResult, Comparison, ContractRef, Finding, Kind, MatrixResult, Mode, Status
from harness.model.matrix import Case
from harness.reporters import FORMATS, ReportOptions, reporter

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


def test_xml_text_holds_nothing_xml_forbids_or_a_reader_cannot_see():
    assert xml_text("<a>&\x00\u202e\ud800\n\t") == "<a>&\\x00\\u202e\\ud800\\n\t"  # ElementTree escapes the markup


def hostile_result() -> MatrixResult:
    """A result where every string a pull request could control holds HOSTILE."""
    case = Case(f"train/{HOSTILE}/default", "train", ())
    findings = (
        Finding(Kind.CHANGED, f"a.{HOSTILE}", HOSTILE, HOSTILE, ERROR, HOSTILE, source=Source(f"conf/{HOSTILE}.yaml", 3)),
        Finding(Kind.CONTRACT, "b", None, HOSTILE, ERROR, f"c: {HOSTILE}", detail=ContractRef(HOSTILE)),
        Finding(Kind.ERROR, "", severity=ERROR, message=HOSTILE),
        Finding(Kind.HIDDEN_TEXT, "d", None, HOSTILE, WARNING, HOSTILE),
    )
    return MatrixResult(
        (CaseResult(case, f"snapshots/{HOSTILE}.yaml", Status.CHANGED, findings),),
        baseline=f"goldens in {HOSTILE}",
        comparison=Comparison(Mode.FILES, f"old/{HOSTILE}", f"new/{HOSTILE}", folders=True),  # the mode line
        orphans=(f"snapshots/_generated_{HOSTILE}.yaml",),
        pruned=(HOSTILE,),
    )


def no_command_of_its_own(output: str, commands: bool = False) -> None:
    """No line of the input's own: a workflow command starts only where the report writes one (`commands`)."""
    for line in output.splitlines():
        assert not line.startswith(("::stop-commands", "::notice title=t::")), line
        assert not line.startswith("::") or (commands and line.startswith(("::error", "::warning", "::notice"))), line
    assert not any(raw in output for raw in RAW)


def strings(document) -> str:
    """Every string in a JSON document, joined."""
    if isinstance(document, dict):
        return "".join(strings(key) + strings(value) for key, value in document.items())
    if isinstance(document, list):
        return "".join(strings(item) for item in document)
    return document if isinstance(document, str) else ""


def render(output_format: str, **options) -> str:
    return reporter(output_format).render(hostile_result(), ReportOptions(**options))


@pytest.mark.parametrize("output_format", sorted(FORMATS))
@pytest.mark.parametrize("verbose", [False, True])
def test_every_format_escapes_every_field(output_format, verbose):
    """Every registered format: no workflow command, line break, escape, bidi or zero-width character of the
    input's own reaches the output, whatever field holds it."""
    output = render(output_format, verbose=verbose, review=verbose)
    no_command_of_its_own(output, commands=output_format == "github")
    assert "two folders file by file" in output  # a diff's mode line, with hostile folder names, in every format
    if output_format in ("json", "sarif"):
        assert output.isascii()
        assert HOSTILE in strings(json.loads(output))  # the values themselves survive, escaped only in the text
    if output_format == "junit":
        import xml.etree.ElementTree as ET

        ET.fromstring(output)  # well-formed whatever the input
    if output_format in ("text", "markdown"):
        assert "\\u202edoog" in output


def test_markdown_report_opens_no_tag_of_its_own():
    output = render("markdown", verbose=True)
    for tag in ("<details>", "</details>", "<summary>", "</summary>", "<br>", "<code>", "</code>", "<wbr>"):
        output = output.replace(tag, "")
    assert "<" not in output


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


LINKS = (
    "https://evil.example/x",
    "HTTP://EVIL.EXAMPLE",
    "ftp://evil.example",
    "www.evil.example",
    "WWW.Evil.Example/x",
    "bob@evil.example",
    "mailto:bob@evil.example",
    "xmpp:bob@evil.example",
    "<https://evil.example>",
    "(see:https://evil.example)",
    "@octocat",
    "#1234",
    "GH-1234",
    "a|https://evil.example|b",
)


@pytest.mark.parametrize("link", LINKS)
def test_markdown_holds_no_link_of_the_inputs_own(link):
    """Rendered as GitHub renders markdown (cmark-gfm with its autolink extension), in a table cell and a paragraph,
    from every field of a report: no `<a>` at all. Mentions and issue references are linked by GitHub's filters
    after cmark, which skip code spans; they are checked to be inside one."""
    import cmarkgfm

    text = f"value {link} end"
    cell = markdown_text(text)
    html = cmarkgfm.github_flavored_markdown_to_html(f"| a |\n|---|\n| {cell} |\n\n{cell}\n")
    assert "<a " not in html and html.count("<code>") == 2
    assert cell.startswith("value ") and cell.endswith(" end")  # only the word that would link is changed
    report = render_with(link, "markdown")
    assert "<a " not in cmarkgfm.github_flavored_markdown_to_html(report)
    outside_code = re.sub(r"(`+).*?\1", "", report)
    assert not any(marker in outside_code for marker in ("@octocat", "#1234", "GH-1234"))


def render_with(text: str, output_format: str) -> str:
    case = Case("train/base/default", "train", ())
    finding = Finding(Kind.CHANGED, f"a.{text}", text, text, ERROR, text, source=Source(f"conf/{text}.yaml", 3))
    result = MatrixResult((CaseResult(case, "snapshots/x.yaml", Status.CHANGED, (finding,)),), baseline="goldens")
    return reporter(output_format).render(result, ReportOptions(verbose=True))


def test_sarif_messages_hold_no_embedded_link_of_the_inputs_own():
    """SARIF 2.1.0, 3.11.6: `[text](target)` in a plain-text message is a link; literal brackets are escaped."""
    document = json.loads(render_with("[click](https://evil.example)", "sarif"))
    message = document["runs"][0]["results"][0]["message"]["text"]
    assert re.search(r"(?<!\\)\]\(", message) is None and "[click\\](https://evil.example)" in message


def test_an_alike_rows_word_leaves_the_sentences_punctuation_out():
    """`(also: actor.lr, ...)` names the key, never `(actor.lr` or `merge:` (found on a review of verl's contracts)."""
    from harness.reporters.layout import ALIKE_WORD

    assert ALIKE_WORD.findall("added for (actor_rollout_ref.ref.x, and") == ["actor_rollout_ref.ref.x"]
    assert ALIKE_WORD.findall("actor_rollout_ref.model.lora.merge: true") == ["actor_rollout_ref.model.lora.merge"]
    assert ALIKE_WORD.findall("at scripts/run.sh:12.") == ["scripts/run.sh:12"]
