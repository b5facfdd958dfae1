"""Every shortcode the picker writes parses back, with the build's own parser, to the choice."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from mediashortcodes.language import parse
from mediashortcodes.media.resolver import format_id_for
from mediashortcodes.picker.selection import shortcode_for
from mediashortcodes.picker.shortcode_text import CLOSE, OPEN
from mediashortcodes.records import Crop, File, FileType, Format

IMAGE = File(id=10, alttext="A tall tree", type=FileType(type="image"))
VIDEO = File(id=20, media_id="m20", type=FileType(type="video"))

alt_texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40).filter(
    lambda s: CLOSE not in (one_line := " ".join(s.split())) and OPEN not in one_line
)


def parsed_one(text: str):  # type: ignore[no-untyped-def]
    result = parse(text, "picked.md")
    assert result.problems == []
    assert len(result.shortcodes) == 1
    return result.shortcodes[0]


@given(alt=alt_texts)
def test_any_alt_text_comes_back_as_written(alt: str) -> None:
    shortcode = parsed_one(shortcode_for({"format": "original", "alt": alt}, IMAGE, []))
    expected = " ".join(alt.split())
    assert shortcode.option("alt") == (None if expected == IMAGE.alttext else expected)


@st.composite
def crops(draw: st.DrawFn) -> dict[str, int | bool]:
    sw, sh = draw(st.integers(2, 3000)), draw(st.integers(2, 3000))
    x1, y1 = draw(st.integers(0, sw - 1)), draw(st.integers(0, sh - 1))
    return {
        "w": draw(st.integers(1, 20000)),
        "h": draw(st.integers(1, 20000)),
        "sw": sw,
        "sh": sh,
        "x1": x1,
        "x2": draw(st.integers(x1 + 1, sw)),
        "y1": y1,
        "y2": draw(st.integers(y1 + 1, sh)),
        "stretch": draw(st.booleans()),
    }


@given(crop=crops())
def test_any_drawn_crop_comes_back_as_the_same_crop(crop: dict[str, int | bool]) -> None:
    shortcode = parsed_one(shortcode_for({"format": "custom", "crop": crop}, IMAGE, []))
    assert shortcode.crop == Crop(**crop)
    assert shortcode.format is None


@given(name=st.text(min_size=1, max_size=30), other=st.text(max_size=30))
@example(name="²", other="")  # a digit to str.isdigit, not to int()
def test_any_format_name_resolves_back_to_its_format(name: str, other: str) -> None:
    formats = [Format(7, name), Format(8, other)]
    shortcode = parsed_one(shortcode_for({"format": "7"}, IMAGE, formats))
    assert format_id_for(shortcode.format or "original", formats) == 7


def test_both_embeds_come_back() -> None:
    for embed in ("iframe", "script"):
        shortcode = parsed_one(shortcode_for({"embed": embed}, VIDEO, []))
        assert (shortcode.name, shortcode.file_id, shortcode.option("embed")) == (
            "media_video",
            20,
            embed,
        )
