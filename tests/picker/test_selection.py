"""The page's choice becomes a shortcode, or a message naming what is wrong."""

from __future__ import annotations

import pytest

from mediashortcodes.picker.selection import SelectionError, crop_from, shortcode_for
from mediashortcodes.records import File, FileType, Format

IMAGE = File(id=10, name="Tree", alttext="A tall tree", type=FileType(type="image"))
VIDEO = File(id=20, name="Intro", media_id="abc123", type=FileType(type="video"))
FORMATS = [Format(3, "Thumb", 200, 200), Format(4, "Hero", 1600, 900)]
CROP = {"w": 800, "h": 450, "sw": 400, "sh": 300, "x1": 0, "x2": 400, "y1": 0, "y2": 225}


def test_an_unchanged_alt_text_is_left_to_the_service() -> None:
    request = {"format": "original", "alt": "A tall tree"}
    assert shortcode_for(request, IMAGE, FORMATS) == "<% media_image 10 original %>"


def test_a_changed_alt_text_is_written_on_one_line() -> None:
    request = {"format": "4", "alt": "A tree\n in  fog"}
    assert shortcode_for(request, IMAGE, FORMATS) == '<% media_image 10 Hero alt="A tree in fog" %>'


def test_a_custom_crop_becomes_the_crop_keys() -> None:
    request = {"format": "custom", "crop": CROP, "alt": "A tall tree"}
    assert shortcode_for(request, IMAGE, FORMATS) == (
        "<% media_image 10 w=800 h=450 sw=400 sh=300 x1=0 x2=400 y1=0 y2=225 %>"
    )


def test_a_video_gets_the_chosen_embed_and_ignores_image_options() -> None:
    request = {"embed": "script", "format": "custom", "alt": "x"}
    assert shortcode_for(request, VIDEO, FORMATS) == "<% media_video 20 embed=script %>"


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"format": "custom"}, "draw a rectangle"),
        ({"format": "custom", "crop": {**CROP, "x2": 401}}, "x1 < x2 <= sw"),
        ({"format": "custom", "crop": {**CROP, "y1": 225}}, "y1 < y2 <= sh"),
        ({"format": "custom", "crop": {**CROP, "w": 0}}, "w must be between"),
        ({"format": "custom", "crop": {**CROP, "h": "tall"}}, "h must be a whole number"),
        ({"format": "custom", "crop": {**CROP, "stretch": 1}}, "stretch must be true or false"),
        ({"format": "99"}, "not one of the service's formats"),
        ({"format": "big"}, "format must be"),
        ({"alt": 3}, "alt must be text"),
    ],
)
def test_a_bad_image_choice_is_refused_with_the_field_named(request_: dict, message: str) -> None:
    with pytest.raises(SelectionError, match=message):
        shortcode_for(request_, IMAGE, FORMATS)


def test_an_unknown_embed_is_refused() -> None:
    with pytest.raises(SelectionError, match="embed must be one of iframe, script"):
        shortcode_for({"embed": "flash"}, VIDEO, FORMATS)


def test_integral_numbers_from_javascript_are_accepted() -> None:
    assert crop_from({**CROP, "w": 800.0}).w == 800


def test_an_alt_text_that_would_end_the_shortcode_is_refused() -> None:
    with pytest.raises(SelectionError, match="cannot hold '%>'"):
        shortcode_for({"alt": "50%> off"}, IMAGE, FORMATS)


def test_the_services_own_alt_text_needs_no_quoting_at_all() -> None:
    file = File(id=11, alttext="100%> sure", type=FileType(type="image"))
    assert shortcode_for({"alt": "100%> sure"}, file, FORMATS) == "<% media_image 11 original %>"


def test_a_crop_locked_to_a_format_asks_for_exactly_its_size() -> None:
    request = {"format": "custom", "crop": {**CROP, "stretch": True}}
    assert shortcode_for(request, IMAGE, FORMATS).endswith("y1=0 y2=225 stretch=1 %>")


def test_an_alt_text_that_would_open_another_shortcode_is_refused() -> None:
    with pytest.raises(SelectionError, match="cannot hold '<%'"):
        shortcode_for({"alt": "a <% b"}, IMAGE, FORMATS)


def test_responsive_widths_go_with_the_original_or_a_crop_never_a_format() -> None:
    original = {"file": 10, "format": "original", "widths": "960, 480 1440"}
    assert shortcode_for(original, IMAGE, FORMATS) == (
        '<% media_image 10 original widths="480,960,1440" %>'
    )
    assert shortcode_for({**original, "widths": ""}, IMAGE, FORMATS) == (
        "<% media_image 10 original %>"
    )
    with pytest.raises(SelectionError, match="predefined format"):
        shortcode_for({**original, "format": FORMATS[0].id}, IMAGE, FORMATS)
    with pytest.raises(SelectionError, match="widths: give pixel widths"):
        shortcode_for({**original, "widths": "wide"}, IMAGE, FORMATS)


def test_the_copied_shortcode_offers_modern_formats_and_priority() -> None:
    choice = {"file": 10, "format": "original", "formats": "avif,webp", "priority": True}
    assert shortcode_for(choice, IMAGE, FORMATS) == (
        '<% media_image 10 original formats="avif,webp" priority=true %>'
    )
    with pytest.raises(SelectionError, match="formats must be avif,webp or webp"):
        shortcode_for({**choice, "formats": "jpeg"}, IMAGE, FORMATS)


def test_a_video_can_load_on_click() -> None:
    chosen = {"file": 20, "embed": "iframe", "load": "click"}
    assert shortcode_for(chosen, VIDEO, FORMATS) == ("<% media_video 20 embed=iframe load=click %>")
    with pytest.raises(SelectionError, match="load must be click"):
        shortcode_for({**chosen, "load": "later"}, VIDEO, FORMATS)
