"""Geometry of predefined formats and custom crops (pure, no image needed)."""

from __future__ import annotations

import pytest

from mediashortcodes.sandbox.formats import (
    FORMATS,
    CropRequest,
    Cut,
    Resize,
    format_by_id,
    plan_crop,
    plan_format,
)


def fmt(name: str):
    return next(f for f in FORMATS if f.name == name)


def test_format_records_have_id_name_width_height():
    assert FORMATS[0].to_api() == {
        "id": 1,
        "name": "thumb",
        "width": 200,
        "height": 200,
    }
    assert {f.id for f in FORMATS} == {1, 2, 3, 4, 5}


def test_a_format_fits_a_landscape_image_inside_its_box():
    assert plan_format(fmt("medium"), (1600, 1067)) == Resize(1024, 683)


def test_a_format_fits_a_portrait_image_by_its_height():
    assert plan_format(fmt("thumb"), (800, 1200)) == Resize(133, 200)


def test_a_format_never_enlarges_a_small_image():
    assert plan_format(fmt("large"), (800, 600)) is None


def test_square_cuts_the_centre_to_exactly_its_size():
    assert plan_format(fmt("square"), (1600, 1000)) == Cut(300, 0, 1300, 1000, 600, 600)


def test_unknown_format_id_is_not_found():
    assert format_by_id(99) is None


def crop(**q: object) -> CropRequest:
    return CropRequest.from_query({k: str(v) for k, v in q.items()})


def test_crop_coordinates_are_scaled_from_the_surface_to_the_image():
    request = crop(w=300, h=200, sw=800, sh=500, x1=100, x2=400, y1=50, y2=250)
    assert plan_crop(request, (1600, 1000)) == Cut(200, 100, 800, 500, 300, 200)


def test_crop_without_surface_uses_image_coordinates():
    assert plan_crop(crop(w=50, h=50, x1=0, x2=100, y1=0, y2=100), (640, 480)).right == 100


def test_crop_keeps_its_aspect_ratio_inside_w_by_h_without_stretch():
    cut = plan_crop(crop(w=400, h=400, x1=0, x2=200, y1=0, y2=100), (640, 480))
    assert (cut.width, cut.height) == (400, 200)


def test_crop_with_stretch_is_exactly_w_by_h():
    cut = plan_crop(crop(w=400, h=400, x1=0, x2=200, y1=0, y2=100, stretch=1), (640, 480))
    assert (cut.width, cut.height) == (400, 400)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"w": 10, "h": 10, "x1": 0, "x2": 5}, "missing: y1, y2"),
        ({"w": "ten", "h": 10, "x1": 0, "x2": 5, "y1": 0, "y2": 5}, "w='ten' is not an integer"),
        ({"w": 10, "h": 10, "x1": 5, "x2": 5, "y1": 0, "y2": 5}, "empty crop"),
        ({"w": 0, "h": 10, "x1": 0, "x2": 5, "y1": 0, "y2": 5}, "w=0 is out of range"),
        ({"w": 10, "h": 10, "x1": -1, "x2": 5, "y1": 0, "y2": 5}, "must not be negative"),
        (
            {"w": 10, "h": 10, "x1": 0, "x2": 5, "y1": 0, "y2": 5, "stretch": "yes please"},
            "stretch",
        ),
        ({"w": 10, "h": 10, "x1": 0, "x2": 5, "y1": 0, "y2": 5, "sw": 0}, "sw=0"),
    ],
)
def test_a_bad_crop_is_refused_with_the_reason(query, message):
    with pytest.raises(ValueError, match=message):
        crop(**query)


def test_a_crop_outside_its_surface_is_refused():
    with pytest.raises(ValueError, match="outside the 800x500 surface"):
        plan_crop(crop(w=10, h=10, sw=800, sh=500, x1=0, x2=900, y1=0, y2=10), (1600, 1000))


def test_crop_query_round_trips_in_a_fixed_order():
    request = crop(y2=9, x1=1, w=10, h=10, x2=5, y1=0, sh=20, sw=30, stretch=1)
    assert request.canonical() == "w=10&h=10&sw=30&sh=20&x1=1&x2=5&y1=0&y2=9&stretch=1"
    assert CropRequest.from_query(request.to_query()) == request
