"""Init's fingerprint: its unedited text is found where it lies, and any change to it is an edit."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


LINES = st.lists(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=20), min_size=1, max_size=6
)


@given(LINES, TEXT, TEXT, st.data())
def test_fingerprinted_text_is_found_where_it_lies_and_any_change_to_it_is_an_edit(lines, before, after, data):
    from harness.adopt.writer import fingerprinted, written_by_init

    body = "".join(f"{line}\n" for line in lines)
    before = before.replace("#", "") + "\n" if before else ""
    text = before + fingerprinted(body, "; the rest of the line") + after.replace("#", "")
    written = written_by_init(text)
    assert written is not None and written.unedited
    assert text[written.start : written.end] == fingerprinted(body, "; the rest of the line")
    # Change one character of the body, or drop its last line: the fingerprint no longer matches.
    at = data.draw(st.integers(0, len(body) - 1))
    changed = body[:at] + ("x" if body[at] != "x" else "y") + body[at + 1 :]
    assert not written_by_init(before + fingerprinted(body).split("\n", 1)[0] + "\n" + changed).unedited
    assert not written_by_init(fingerprinted(body).rsplit("\n", 2)[0] + "\n").unedited


def test_a_file_without_the_fingerprint_line_or_with_two_is_not_init_s_unedited_text():
    from harness.adopt.writer import fingerprinted, written_by_init

    assert written_by_init("[tool.x]\na = 1\n") is None
    once = fingerprinted("a = 1\n")
    assert written_by_init(once + once).unedited is False
    assert written_by_init(once.split("\n")[0]).unedited is False  # the line alone, without the lines it counts


def test_a_fingerprint_line_counting_more_lines_than_int_reads_is_an_edit_not_a_crash():
    # A 5,000-digit count on the known file's first line was `ValueError: Exceeds the limit (4300 digits)`: exit 3.
    from harness.adopt.writer import written_by_init

    line = "# Written by `config-harness init` (fingerprint 0123456789abcdef of the " + "9" * 5000 + " lines below)\n"
    assert written_by_init(line + "waivers: []\n").unedited is False
