"""One sink per output format: every string that reaches text, markdown, GitHub workflow commands, JSON or XML
passes that format's escaping here, whatever its origin (values, keys, file names, settings, git refs, Hydra's
own messages). Reporters build their output from these functions and nothing else touches input text.

- Control characters, ANSI escape sequences, bidirectional overrides and zero-width characters are shown
  escaped (`\\u202e`), never emitted: a terminal would obey them, a CI runner would read a line break as a new
  workflow command, and a right-to-left override makes `/models/evil` look like `/models/good`.
- Markdown: no HTML, no markup, no link, no table cell, no line break comes from input.
- GitHub workflow commands: data and properties are escaped as GitHub's toolkit does, so input stays inside the
  one command the harness writes and can never start one of its own (`::stop-commands::`).
- JSON (and SARIF): ASCII only, so every such character is a `\\uXXXX` escape.
- XML (JUnit): what XML 1.0 cannot hold, and what a reader cannot see, written as an escape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from harness.gates import linear

# Invisible or reordering characters: bidi controls and isolates, zero-width joiners and spaces, the BOM, word
# joiners and invisible operators, Hangul fillers, variation selectors and interlinear annotation marks.
HIDDEN = "\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb"
# Everything the text sink escapes: C0 and C1 controls (line breaks and ESC among them), line and paragraph
# separators, and the hidden characters.
UNPRINTABLE = linear.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{HIDDEN}]")
# What makes a value suspicious (a warning): everything above except the tab and line breaks a multi-line
# string holds on purpose.
SUSPICIOUS = linear.compile(f"[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\u2028\\u2029{HIDDEN}]")


SHORT_ESCAPES = MappingProxyType({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def _escaped(match: linear.Match[str]) -> str:
    char = match.group()
    if char in SHORT_ESCAPES:
        return SHORT_ESCAPES[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def printable(text: Any) -> str:
    """`text` with every control, escape, bidi and zero-width character written as an escape, and no workflow
    command in it: one line, shown as it is stored. The text sink (terminal, CI log, stderr)."""
    return no_workflow_commands(UNPRINTABLE.sub(_escaped, str(text)), "text")


def suspicious(text: Any) -> bool:
    """True when a string holds a character a reader cannot see or that reorders what they see (a warning)."""
    return isinstance(text, str) and SUSPICIOUS.search(text) is not None


# ---- markdown (GitHub-flavored) ----

# Underscores inside a word (snake_case keys) never emphasize in GitHub markdown, so they stay readable.
MARKDOWN_SPECIAL = frozenset("\\`*|~")
LINK_TARGET = frozenset("([:")  # a `]` before one: `[text](url)`, `[text][ref]`, `[ref]: url`: a bracket stays text
LINE_BREAKS = linear.compile(r"[\r\n\u2028\u2029]+")


# What GitHub turns into a link by itself: a URL with any scheme, `www.`, an e-mail address, `mailto:` and `xmpp:`
# (cmark-gfm's autolinks), and what its own filters link after that: `@user` mentions and `#123` / `GH-123`.
AUTOLINK = linear.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|(?i:www\.)|@|(?i:mailto|xmpp):|#[0-9]|(?i:gh-)[0-9]")


def markdown_text(text: Any) -> str:
    """Plain text safe in a markdown table cell or paragraph: no HTML, no markup, no link, no extra cells, one line.

    A word that GitHub would link by itself (a bare URL, `www.`, an e-mail address, a mention) is shown as a code
    span, where neither the autolinker nor GitHub's filters look.
    """
    text = printable(LINE_BREAKS.sub(" ", str(text)))
    return "".join(code_span(part) if AUTOLINK.search(part) else _markdown_word(part) for part in linear.compile(r"(\s+)").split(text))


def _markdown_word(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if not any(char in text for char in "\\`*|~_]"):
        return text
    last = len(text) - 1

    def alnum(index: int) -> bool:
        return 0 <= index <= last and text[index] in _ASCII_ALNUM

    # Each character with its neighbours in the text as given (was a regular expression with lookaround: RE2 has none).
    return "".join(
        "\\" + char
        if char in MARKDOWN_SPECIAL
        or (char == "_" and not (alnum(index - 1) and alnum(index + 1)))
        or (char == "]" and index < last and text[index + 1] in LINK_TARGET)
        else char
        for index, char in enumerate(text)
    )


_ASCII_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def code_span(text: Any, in_table: bool = True) -> str:
    """`text` as an inline code span that no backtick inside can end early; pipes escaped inside tables.

    A code span shows HTML as text, so only its fence and (in a table, where GitHub splits cells first) the
    pipe need care.
    """
    text = printable(LINE_BREAKS.sub(" ", str(text)))
    longest = max((len(run) for run in linear.compile(r"`+").findall(text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ") and text.strip()):
        text = f" {text} "
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


# ---- GitHub workflow commands ----


def escape_data(text: Any) -> str:
    """Workflow-command data as GitHub's toolkit escapes it (`%`, then CR and LF), other controls shown escaped."""
    return printable(str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: Any) -> str:
    """A workflow-command property value, where `:` and `,` are also separators."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, data: Any, **properties: Any) -> str:
    """One `::command key=value,...::data` line with every part escaped, so input cannot start a command of its own."""
    shown = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items() if value not in (None, ""))
    return f"::{command}{' ' + shown if shown else ''}::{escape_data(data)}"


# ---- the CI log: nothing the input holds may read as a workflow command ----

# GitHub's runner reads a command from a log line two ways: `::name ...::data` once leading whitespace is trimmed,
# and, when that fails, the legacy `##[name]data` anywhere in the line. Both are broken up here, in a way each
# format reads back as the same text: a backslash in text and markdown, a `\u005b` in JSON, `&#91;` in XML.
LEGACY_COMMAND = "##["
LINE_COMMAND = linear.compile(r"^(\s*)::", linear.M)  # the second `:` is put back
_BROKEN = MappingProxyType(
    {
        "text": ("##\\[", "\\:"),
        "markdown": ("##\\[", "\\:"),
        "json": ("##\\u005b", "\\u003a"),
        "xml": ("##&#91;", "&#58;"),
    }
)


def no_workflow_commands(report: str, sink: str) -> str:
    """A whole report for one sink (`text`, `markdown`, `json`, `xml`, or `github`: the harness's own `::command`
    lines, whose parts are already escaped, and text) with every workflow command its input could start broken up."""
    if sink == "github":
        return "".join(
            line if line.startswith("::") and not line.startswith(":::") else no_workflow_commands(line, "text")
            for line in report.splitlines(keepends=True)
        )
    legacy, line_start = _BROKEN[sink]
    return LINE_COMMAND.sub(lambda match: match[1] + line_start + ":", report.replace(LEGACY_COMMAND, legacy))


# ---- SARIF ----


def sarif_message(text: Any) -> str:
    """A SARIF `message.text`: plain text in which `[text](target)` is an embedded link (SARIF 2.1.0, 3.11.6), so a
    closing bracket of the input's own before `(` is escaped with a backslash, as the standard writes a literal
    one; other brackets (`["a", "b"]`) stay as they are."""
    return str(text).replace("](", "\\](")


# ---- JSON and XML ----


def json_text(document: Any, indent: int | None = 2) -> str:
    """JSON text, ASCII only: every control, bidi and zero-width character is a `\\uXXXX` escape."""
    return any_json(document, indent=indent, ensure_ascii=True)


def any_json(value: Any, **options: Any) -> str:
    """`json.dumps` that never fails on a value a report holds: other objects as their text, and a mapping key JSON
    cannot write (a tuple or bytes key, from a YAML file or a merged shard) as its text too."""
    try:
        return json.dumps(value, default=str, **options)
    except TypeError:
        return json.dumps(
            keys_as(value, lambda key: key if key is None or isinstance(key, str | int | float | bool) else str(key)),
            default=str,
            **options,
        )


def keys_as(value: Any, key_of: Callable[[Any], Any]) -> Any:
    """`value` with every mapping's keys replaced by `key_of(key)`, lists and tuples as lists: what JSON can write."""
    if isinstance(value, Mapping):
        return {key_of(key): keys_as(item, key_of) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [keys_as(item, key_of) for item in value]
    return value


# Characters XML 1.0 cannot hold at all (ElementTree escapes markup itself), those a reader cannot see, and line
# breaks: the report is printed to CI logs, where a line of the input's own could be a workflow command.
NOT_XML = linear.compile(f"[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x84\\x86-\\x9f\\ud800-\\udfff\\ufffe\\uffff{HIDDEN}]")


def xml_text(text: Any) -> str:
    """One piece of input for an XML element or attribute written with ElementTree (JUnit): what XML 1.0 forbids,
    what a reader cannot see and line breaks written as escapes; ElementTree escapes the markup."""
    return NOT_XML.sub(_escaped, str(text))
