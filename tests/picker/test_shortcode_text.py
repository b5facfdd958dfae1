"""Shortcode text in the language of DESIGN.md."""

from __future__ import annotations

from mediashortcodes.picker.shortcode_text import (
    format_token,
    image_shortcode,
    quote,
    video_shortcode,
)
from mediashortcodes.records import Crop, Format


def test_barewords_stay_bare_and_everything_else_is_quoted_with_escapes() -> None:
    assert quote("hero_1.jpg") == "hero_1.jpg"
    assert quote("A tree") == '"A tree"'
    assert quote('say "hi" \\o/') == '"say \\"hi\\" \\\\o/"'
    assert quote("") == '""'


def test_an_original_image() -> None:
    assert image_shortcode(123) == "<% media_image 123 original %>"


def test_a_custom_crop_writes_every_crop_key_and_no_format() -> None:
    crop = Crop(w=800, h=450, sw=400, sh=300, x1=10, x2=410, y1=20, y2=245)
    assert image_shortcode(123, crop=crop, alt="A tree") == (
        '<% media_image 123 w=800 h=450 sw=400 sh=300 x1=10 x2=410 y1=20 y2=245 alt="A tree" %>'
    )


def test_an_empty_alt_is_written_to_mark_a_decorative_image() -> None:
    assert image_shortcode(5, format="thumb", alt="") == '<% media_image 5 thumb alt="" %>'


def test_a_format_is_written_by_name_when_the_name_is_unambiguous() -> None:
    formats = [
        Format(12, "Thumb"),
        Format(13, "Wide banner"),
        Format(14, "2024"),
        Format(15, "Same"),
        Format(16, "same"),
        Format(17, "Original"),
    ]
    assert format_token(formats[0], formats) == "Thumb"
    assert format_token(formats[1], formats) == '"Wide banner"'
    assert format_token(formats[2], formats) == "14"
    assert format_token(formats[3], formats) == "15"
    assert format_token(formats[5], formats) == "17"


def test_a_video_with_its_embed() -> None:
    assert video_shortcode(456) == "<% media_video 456 %>"
    assert video_shortcode(456, embed="script") == "<% media_video 456 embed=script %>"


def test_a_format_name_holding_the_closing_mark_is_written_as_its_id() -> None:
    formats = [Format(8, "50%> crop")]
    assert format_token(formats[0], formats) == "8"
