"""Pillow at the edge of the sandbox: draw demo images, resize, cut, encode.

Pillow is the optional extra ``[sandbox]``; it is imported on first use so the rest of the
package works without it. Drawing and encoding use fixed seeds and encoder settings, so
the same spec gives the same bytes on every run; results are cached in memory.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from ..errors import ConfigError
from .formats import Cut, Operation

PILLOW_MISSING = "the sandbox needs Pillow: pip install 'mediashortcodes[sandbox]'"

_PIL_FORMATS = {"jpg": "JPEG", "jpeg": "JPEG", "png": "PNG", "gif": "GIF", "webp": "WEBP"}
CONTENT_TYPES = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
}


def pillow() -> tuple[ModuleType, ModuleType, ModuleType]:
    """Return PIL's Image, ImageDraw and ImageFont modules, or raise a ConfigError."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ConfigError(PILLOW_MISSING) from None
    return Image, ImageDraw, ImageFont


@dataclass(frozen=True)
class Drawing:
    """Everything that decides the pixels of a generated image."""

    width: int
    height: int
    extension: str
    seed: int
    label: str = ""
    detail: bool = True  # shapes and a label; False draws a plain gradient (fast, for benchmarks)


@lru_cache(maxsize=4096)
def draw(spec: Drawing) -> bytes:
    """A decodable image: a gradient, a few shapes and a label naming the file."""
    image_mod, draw_mod, font_mod = pillow()
    rng = random.Random(spec.seed)
    corners = image_mod.new("RGB", (2, 2))
    corners.putdata([_colour(rng) for _ in range(4)])
    image = corners.resize((spec.width, spec.height), image_mod.BILINEAR)
    pen = draw_mod.Draw(image)
    shapes = 6 if spec.detail else 1
    for _ in range(shapes):
        x, y = rng.randrange(spec.width), rng.randrange(spec.height)
        size = rng.randrange(16, max(17, min(spec.width, spec.height) // 3))
        box = (x - size, y - size, x + size, y + size)
        if rng.random() < 0.5:
            pen.ellipse(box, fill=_colour(rng))
        else:
            pen.rectangle(box, fill=_colour(rng))
    if spec.label:
        size = max(12, min(spec.width, spec.height) // 16)
        font = font_mod.load_default(size=size) if spec.detail else font_mod.load_default()
        text = f"{spec.label}  {spec.width}x{spec.height}"
        pen.rectangle((0, 0, spec.width, size * 2), fill=(0, 0, 0))
        pen.text((size // 2, size // 2), text, fill=(255, 255, 255), font=font)
    return encode(image, spec.extension, fast=not spec.detail)


def _colour(rng: random.Random) -> tuple[int, int, int]:
    return (rng.randrange(256), rng.randrange(256), rng.randrange(256))


def encode(image: Any, extension: str, *, fast: bool = False) -> bytes:
    """Encode with fixed settings so the bytes are reproducible (``fast``: light PNG zlib)."""
    fmt = _PIL_FORMATS.get(extension.lower(), "PNG")
    if fmt == "JPEG" and image.mode != "RGB":
        image = image.convert("RGB")
    out = io.BytesIO()
    if fmt == "JPEG":
        image.save(out, fmt, quality=85, optimize=False, progressive=False, subsampling=2)
    elif fmt == "PNG":
        image.save(out, fmt, compress_level=1 if fast else 6)
    else:
        image.save(out, fmt)
    return out.getvalue()


def size_of(data: bytes) -> tuple[int, int]:
    """Pixel size of encoded image bytes; ValueError if they are not an image."""
    image_mod, _, _ = pillow()
    try:
        with image_mod.open(io.BytesIO(data)) as image:
            return image.size
    except (OSError, image_mod.DecompressionBombError) as exc:
        raise ValueError(f"not a decodable image: {exc}") from None


# Large enough for a benchmark's every variant (10,000 pages over 3,000 images): after one
# priming build the sandbox serves them as an origin serves stored files (docs/benchmarks.md).
@lru_cache(maxsize=16384)
def apply(data: bytes, extension: str, operation: Operation) -> bytes:
    """Execute a planned resize or cut and encode in the original's file type."""
    image_mod, _, _ = pillow()
    with image_mod.open(io.BytesIO(data)) as source:
        image = source.convert("RGBA" if source.mode in ("RGBA", "LA", "P") else "RGB")
    if isinstance(operation, Cut):
        image = image.crop((operation.left, operation.top, operation.right, operation.bottom))
    target = (operation.width, operation.height)
    if image.size != target:
        image = image.resize(target, image_mod.LANCZOS)
    return encode(image, extension)


@lru_cache(maxsize=1024)
def preview(data: bytes, box: int) -> bytes:
    """A JPEG no larger than box x box, for smallPreview and thumbPreview."""
    image_mod, _, _ = pillow()
    with image_mod.open(io.BytesIO(data)) as source:
        image = source.convert("RGB")
    image.thumbnail((box, box), image_mod.LANCZOS)
    return encode(image, "jpg")
