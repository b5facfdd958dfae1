"""The parser's fast path for common shortcodes gives exactly what the full parser gives."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mediashortcodes.language import LineIndex, parse_one
from mediashortcodes.language.parser import _parse_full, _parse_simple

SPACE = st.sampled_from([" ", "  ", "\n", "\t", "\r\n", "", "\u00a0"])
NAME = st.sampled_from(["media_image", "media_video", "media_img", "Media_image"])
ID = st.sampled_from(["1", "007", "12", "-3", "x", "", "1.5"])
FORMAT = st.sampled_from(
    ["", "thumb", "0", "original", "-1", '"square"', "a=b", "th!umb", "Medium"]
)
KEY = st.sampled_from(
    [
        *("alt", "title", "class", "caption", "loading", "w", "h", "x1", "x2", "y1", "y2"),
        *("sw", "sh", "stretch", "embed", "lang", "size", "ALT", "a-b"),
    ]
)
VALUE = st.sampled_from(
    [
        *("x", "1", "640", "eager", "lazy", "script", "iframe", "en", "sv_SE", "true", "bad value"),
        *('""', '"a b"', '"say \\"hi\\""', "'single'", '"100%"', "a:b/c.d", "x=y", '"é"', "-2"),
    ]
)
OPTION = st.builds(lambda k, v, s: f"{k}={v}" if s else f"{k} = {v}", KEY, VALUE, st.booleans())


@st.composite
def shortcodes(draw: st.DrawFn) -> str:
    parts = [draw(NAME), draw(ID), draw(FORMAT), *draw(st.lists(OPTION, max_size=8))]
    text = "<%" + draw(SPACE)
    for part in parts:
        text += part + draw(SPACE) if part else ""
    return text + draw(SPACE) + "%>"


@st.composite
def likely_valid(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(["media_image", "media_video"]))
    fmt = draw(st.sampled_from(["", "", "thumb", "0", "12"])) if name == "media_image" else ""
    keys = ["alt", "title", "class", "loading"] if name == "media_image" else ["title", "lang"]
    values = st.sampled_from(["x", '"a b"', '""', "eager", "en", '"x\\y"', "'q'"])
    options = draw(st.dictionaries(st.sampled_from(keys), values, max_size=3))
    space = st.sampled_from([" ", " ", "\n  "])
    parts = [name, draw(st.from_regex(r"[0-9]{1,4}", fullmatch=True)), fmt]
    parts += [f"{k}={v}" for k, v in options.items()]
    return "<% " + "".join(p + draw(space) for p in parts if p) + "%>"


@settings(max_examples=800, deadline=None)
@given(st.one_of(shortcodes(), likely_valid()))
@example('<% media_image 12 thumb alt="a b" loading=eager %>')
@example("<% media_image 3 w=480 h=270 x1=0 x2=480 y1=60 y2=330 %>")
@example("<% media_video 9 embed=script lang=en %>")
@example('<% media_image 23 "square" %>')
@example('<% media_image 23 "square"%>')
@example('<% media_image 23 "square"alt=x %>')
@example('<% media_video 23 "square" %>')
@example('<% media_image 23 "sq" w=1 h=2 x1=0 x2=1 y1=0 y2=2 %>')
@example('<% media_image 23 "" %>')
def test_the_fast_path_parses_exactly_as_the_full_parser(text: str) -> None:
    locate = LineIndex(text, start_line=4, start_col=3)
    assert parse_one(text, "page.md", locate, 7) == _parse_full(text, "page.md", locate, 7)


def test_common_shortcodes_take_the_fast_path_and_problems_the_full_one() -> None:
    locate = LineIndex("")
    assert _parse_simple('<% media_image 12 thumb alt="a b" %>', "p.md", locate, 0) is not None
    assert _parse_simple("<% media_image 12 w=1 h=2 x1=0 x2=1 y1=0 y2=2 %>", "p", locate, 0)
    assert _parse_simple('<% media_image 12 "square" %>', "p.md", locate, 0) is not None
    assert _parse_simple("<% media_video 12 thumb %>", "p.md", locate, 0) is None
    assert _parse_simple("<% media_image 12 size=big %>", "p.md", locate, 0) is None
