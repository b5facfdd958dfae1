"""The same shortcode text at several places: each is read at its own place."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mediashortcodes.language import LineIndex, parse, parse_one

SPACE = st.sampled_from([" ", "  ", "\n", "\t", "\r\n", "", "\u00a0"])
NAME = st.sampled_from(["media_image", "media_video", "media_img"])
ID = st.sampled_from(["1", "007", "12", "-3", "x", ""])
FORMAT = st.sampled_from(["", "thumb", "0", "-1", '"square"', "a=b", "th!umb"])
KEY = st.sampled_from(["alt", "title", "loading", "w", "h", "x1", "x2", "embed", "lang", "size"])
VALUE = st.sampled_from(["x", "1", "eager", "en", '""', '"a b"', '"say \\"hi\\""', "'q", "x=y"])
OPTION = st.builds(lambda k, v, s: f"{k}={v}" if s else f"{k} = {v}", KEY, VALUE, st.booleans())


@st.composite
def shortcodes(draw: st.DrawFn) -> str:
    parts = [draw(NAME), draw(ID), draw(FORMAT), *draw(st.lists(OPTION, max_size=6))]
    text = "<%" + draw(SPACE)
    for part in parts:
        text += part + draw(SPACE) if part else ""
    return text + draw(SPACE) + "%>"


@settings(max_examples=300, deadline=None)
@given(shortcodes(), st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=9))
@example('<% media_image 12 thumb alt="a b" loading=eager %>', 3, 5)
@example("<% media_image 12 size=big %>", 3, 5)
def test_a_text_read_twice_is_placed_where_each_copy_stands(text, line, col):
    first = parse_one(text, "a.md", LineIndex(text))
    index = LineIndex(text, start_line=line)

    def shifted(offset):  # the text starts at column col of its first line
        at_line, at_col = index(offset)
        return at_line, at_col + (col - 1 if at_line == line else 0)

    second = parse_one(text, "b.md", shifted, 9)
    assert (second.start, second.end) == (9, 9 + len(text))
    assert (first.shortcode is None) == (second.shortcode is None) == bool(first.problems)
    moved = [(p.line + line - 1, p.col + (col - 1 if p.line == 1 else 0)) for p in first.problems]
    assert [(p.path, p.line, p.col) for p in second.problems] == [("b.md", *m) for m in moved]
    if second.shortcode is not None:
        assert (second.shortcode.location.line, second.shortcode.location.col) == (line, col)
        assert second.shortcode.location.path == "b.md"


def test_the_same_shortcode_on_two_lines_has_two_places():
    result = parse("<% media_image 12 %>\n\n<% media_image 12 %>\n", "p.md", start_line=4)
    assert [(s.location.line, s.location.col) for s in result.shortcodes] == [(4, 1), (6, 1)]
