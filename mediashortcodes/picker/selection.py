"""What the page picked -> the shortcode text (pure).

The page sends its choice as JSON; everything it says is checked here, so a bad request
gets a message that names the field instead of producing a shortcode the build rejects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import MAX_WIDTH, MAX_WIDTHS
from ..language import check_formats, check_widths, widths_of
from ..records import Crop, File, Format
from .shortcode_text import CLOSE, OPEN, format_token, image_shortcode, video_shortcode

EMBEDS = ("iframe", "script")
MAX_SIDE = 20000  # larger outputs are a typo, not a web image


class SelectionError(ValueError):
    """The page asked for something that is not a valid shortcode."""


def _int(data: Mapping[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SelectionError(f"{where}: {key} must be a whole number, got {value!r}")
    return value


def crop_from(data: Any) -> Crop:
    """A custom crop drawn on the preview: w,h the output, sw,sh the surface it was drawn on.

    ``stretch`` asks for exactly w x h: the page sets it when a format fixed the aspect, so
    the sub-pixel difference between the drawn and the real proportions does not cost a row.
    """
    if not isinstance(data, Mapping):
        raise SelectionError("crop: draw a rectangle on the preview first")
    v = {key: _int(data, key, "crop") for key in ("w", "h", "sw", "sh", "x1", "x2", "y1", "y2")}
    for key in ("w", "h", "sw", "sh"):
        if not 1 <= v[key] <= MAX_SIDE:
            raise SelectionError(f"crop: {key} must be between 1 and {MAX_SIDE}, got {v[key]}")
    if not 0 <= v["x1"] < v["x2"] <= v["sw"]:
        raise SelectionError("crop: need 0 <= x1 < x2 <= sw; draw the rectangle again")
    if not 0 <= v["y1"] < v["y2"] <= v["sh"]:
        raise SelectionError("crop: need 0 <= y1 < y2 <= sh; draw the rectangle again")
    stretch = data.get("stretch", False)
    if not isinstance(stretch, bool):
        raise SelectionError(f"crop: stretch must be true or false, got {stretch!r}")
    return Crop(**v, stretch=stretch)


def _alt(requested: Any, file: File) -> str | None:
    """None keeps the service's alt text in force; a changed text is written out."""
    if requested is None:
        return None
    if not isinstance(requested, str):
        raise SelectionError(f"alt must be text, got {type(requested).__name__}")
    text = " ".join(requested.split())  # one line: an alt text has no layout
    if text == " ".join(file.alttext.split()):
        return None
    if CLOSE in text:
        raise SelectionError(f"alt text cannot hold {CLOSE!r}: it would end the shortcode")
    if OPEN in text:
        raise SelectionError(f"alt text cannot hold {OPEN!r}: a shortcode cannot hold another")
    return text


def _format(requested: Any, formats: Sequence[Format]) -> str:
    if requested in (None, "", "original", "0", 0):
        return "original"
    try:
        wanted = int(requested)
    except (TypeError, ValueError):
        raise SelectionError(
            f"format must be 'original', 'custom' or a format id, got {requested!r}"
        ) from None
    for candidate in formats:
        if candidate.id == wanted:
            return format_token(candidate, formats)
    raise SelectionError(f"format {wanted} is not one of the service's formats; reload the page")


def _widths(requested: Any) -> tuple[int, ...]:
    """srcset widths typed as ``480, 960 1440``; empty: none (the site's default applies)."""
    if requested is None:
        return ()
    text = ",".join(re.split(r"[\s,]+", requested.strip())) if isinstance(requested, str) else ""
    if not isinstance(requested, str) or check_widths(text):
        raise SelectionError(
            f"widths: give pixel widths from 1 to {MAX_WIDTH} separated by commas, like "
            f"480, 960, 1440 (at most {MAX_WIDTHS}); got {requested!r}"
        )
    return widths_of(text)


def shortcode_for(request: Mapping[str, Any], file: File, formats: Sequence[Format]) -> str:
    """The shortcode for ``file`` as the page configured it."""
    if file.is_video:
        embed = request.get("embed") or None
        if embed is not None and embed not in EMBEDS:
            raise SelectionError(f"embed must be one of {', '.join(EMBEDS)}, got {embed!r}")
        load = request.get("load") or None
        if load is not None and load != "click":
            raise SelectionError(f"load must be click or left out, got {load!r}")
        return video_shortcode(file.id, embed=embed, load=load)
    alt = _alt(request.get("alt"), file)
    widths = _widths(request.get("widths"))
    encodings = request.get("formats") or ""
    if not isinstance(encodings, str) or check_formats(encodings):
        raise SelectionError(f"formats must be avif,webp or webp, got {encodings!r}")
    extra = {"formats": encodings, "priority": request.get("priority") is True}
    if request.get("format") == "custom":
        crop = crop_from(request.get("crop"))
        return image_shortcode(file.id, crop=crop, alt=alt, widths=widths, **extra)
    format = _format(request.get("format"), formats)
    if widths and format != "original":
        raise SelectionError(
            "widths: a predefined format cannot be scaled exactly; choose Original or a "
            "custom crop for responsive widths"
        )
    return image_shortcode(file.id, format=format, alt=alt, widths=widths, **extra)
