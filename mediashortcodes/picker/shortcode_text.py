"""Shortcode text for a picked file, in the shortcode language (pure).

``<% media_image ID [FORMAT] [key=value ...] %>`` and ``<% media_video ID [key=value ...] %>``:
values are barewords when they can be, otherwise double-quoted with the quote and the
backslash escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..language import quote
from ..language.model import CLOSE, OPEN
from ..media.resolver import format_id_for, names_a_format
from ..records import Crop, Format


def format_token(chosen: Format, formats: Sequence[Format]) -> str:
    """The FORMAT part for a predefined format: its name when the build resolves that name
    back to this very format, else its id.

    A name reads better in the source, but a numeric name, the word ``original``, a name two
    formats share or one holding ``%>`` would not come back, so those get the id.
    """
    name = chosen.name
    readable = bool(name) and CLOSE not in name and OPEN not in name and names_a_format(name)
    if readable and format_id_for(name, list(formats)) == chosen.id and _unique(name, formats):
        return quote(name)
    return str(chosen.id)


def _unique(name: str, formats: Sequence[Format]) -> bool:
    return sum(f.name.lower() == name.lower() for f in formats) == 1


def image_shortcode(
    file_id: int,
    *,
    format: str | None = "original",
    crop: Crop | None = None,
    alt: str | None = None,
    widths: Sequence[int] = (),
    formats: str = "",
    priority: bool = False,
) -> str:
    """``format`` is an already formatted FORMAT token; a crop implies format -1 and
    replaces it. ``alt=None`` leaves the file's own alt text in force; ``widths`` are the
    srcset candidate widths (none: the site's default); ``formats`` ("avif,webp": a
    <picture>; "": the site's default) and ``priority`` as the language has them."""
    parts = ["media_image", str(file_id)]
    if crop is not None:
        parts += [f"{key}={value}" for key, value in crop.to_params().items()]
    elif format:
        parts.append(format)
    if alt is not None:
        parts.append(f"alt={quote(alt)}")
    if widths:
        parts.append(f"widths={quote(','.join(str(w) for w in widths))}")
    if formats:
        parts.append(f"formats={quote(formats)}")
    if priority:
        parts.append("priority=true")
    return "<% " + " ".join(parts) + " %>"


def video_shortcode(file_id: int, *, embed: str | None = None, load: str | None = None) -> str:
    parts = ["media_video", str(file_id)]
    if embed:
        parts.append(f"embed={quote(embed)}")
    if load:
        parts.append(f"load={quote(load)}")
    return "<% " + " ".join(parts) + " %>"
