"""Srcset candidates (pure): the base variant's picture at each smaller width, as format -1
over the whole original or the shortcode's crop. Nothing is upscaled."""

from __future__ import annotations

import math
from dataclasses import replace

from ..records import Crop


def narrower(widths: tuple[int, ...], base_width: int) -> tuple[int, ...]:
    """The requested widths below the base variant's width, ascending."""
    return tuple(w for w in sorted(set(widths)) if w < base_width)


def candidate_crop(crop: Crop | None, base_width: int, base_height: int, width: int) -> Crop:
    """Format -1 parameters for the base variant's picture ``width`` pixels wide (the height
    rounds up, so the service, fitting inside w x h, binds on the width)."""
    height = max(1, math.ceil(width * base_height / base_width))
    if crop is None:  # the whole original, in its own pixels
        w, h = base_width, base_height
        crop = Crop(w=w, h=h, x1=0, x2=w, y1=0, y2=h, sw=w, sh=h)
    return replace(crop, w=width, h=height)
