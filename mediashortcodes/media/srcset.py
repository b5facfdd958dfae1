"""Responsive images: which widths become srcset candidates, and the custom format the
service scales for each (pure).

A candidate is the base variant's own picture at a smaller width: format -1 over the whole
image (the original's pixels as the crop surface) or over the shortcode's custom crop, with
the base variant's aspect ratio. Nothing is ever upscaled: a width at or above the base
variant's is no candidate (the base variant itself always is).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..records import Crop


def narrower(widths: tuple[int, ...], base_width: int) -> tuple[int, ...]:
    """The requested widths below the base variant's width, ascending."""
    return tuple(w for w in sorted(set(widths)) if w < base_width)


def candidate_crop(crop: Crop | None, base_width: int, base_height: int, width: int) -> Crop:
    """Format -1 parameters for the base variant's picture ``width`` pixels wide.

    The height is rounded up: the service fits the picture inside w x h keeping its
    proportions, so the width is the side that binds and comes out as asked.
    """
    height = max(1, math.ceil(width * base_height / base_width))
    if crop is None:  # the whole original, in its own pixels
        w, h = base_width, base_height
        crop = Crop(w=w, h=h, x1=0, x2=w, y1=0, y2=h, sw=w, sh=h)
    return replace(crop, w=width, h=height)
