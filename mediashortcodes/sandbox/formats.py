"""Predefined formats and the geometry of every image variant (pure: no Pillow).

The spec does not show the format record; the sandbox answers ``GET /1/format`` with
``{"id", "name", "width", "height"}``. A format fits the image inside width x height
without enlarging it, except ``square``, which cuts the centre to exactly that size.
The geometry is planned here and executed by ``imaging``, so it is testable without Pillow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ORIGINAL = 0
CUSTOM = -1
MAX_SIDE = 8000  # larger custom outputs are refused: a typo should not allocate gigabytes


@dataclass(frozen=True)
class PredefinedFormat:
    id: int
    name: str
    width: int
    height: int
    fill: bool = False  # cut the centre to exactly width x height instead of fitting inside

    def to_api(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "width": self.width, "height": self.height}


FORMATS: tuple[PredefinedFormat, ...] = (
    PredefinedFormat(1, "thumb", 200, 200),
    PredefinedFormat(2, "small", 480, 480),
    PredefinedFormat(3, "medium", 1024, 1024),
    PredefinedFormat(4, "large", 1920, 1920),
    PredefinedFormat(5, "square", 600, 600, fill=True),
)


def format_by_id(format_id: int) -> PredefinedFormat | None:
    return next((f for f in FORMATS if f.id == format_id), None)


@dataclass(frozen=True)
class Resize:
    """Scale the whole image to exactly width x height."""

    width: int
    height: int


@dataclass(frozen=True)
class Cut:
    """Cut the box (left, top, right, bottom) out of the image and scale it to width x height."""

    left: int
    top: int
    right: int
    bottom: int
    width: int
    height: int


Operation = Resize | Cut


@dataclass(frozen=True)
class CropRequest:
    """The query of a custom format (-1) download, validated."""

    w: int
    h: int
    x1: int
    x2: int
    y1: int
    y2: int
    sw: int | None = None
    sh: int | None = None
    stretch: bool = False

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> CropRequest:
        """Parse w, h, x1, x2, y1, y2 (required), sw, sh, stretch; ValueError names the fault."""
        missing = [k for k in ("w", "h", "x1", "x2", "y1", "y2") if not query.get(k)]
        if missing:
            raise ValueError(
                f"custom format -1 needs the query parameters w, h, x1, x2, y1, y2; "
                f"missing: {', '.join(missing)}"
            )
        values = {k: _int_param(query, k) for k in ("w", "h", "x1", "x2", "y1", "y2", "sw", "sh")}
        stretch = _bool_param(query.get("stretch", "0"))
        request = cls(stretch=stretch, **values)  # type: ignore[arg-type]
        request._validate()
        return request

    def _validate(self) -> None:
        for key in ("w", "h"):
            value = getattr(self, key)
            if not 1 <= value <= MAX_SIDE:
                raise ValueError(f"{key}={value} is out of range: use 1..{MAX_SIDE}")
        for key in ("sw", "sh"):
            value = getattr(self, key)
            if value is not None and value < 1:
                raise ValueError(f"{key}={value} must be a positive surface size")
        if min(self.x1, self.x2, self.y1, self.y2) < 0:
            raise ValueError("crop coordinates x1, x2, y1, y2 must not be negative")
        if self.x2 <= self.x1 or self.y2 <= self.y1:
            raise ValueError(
                f"empty crop: need x1 < x2 and y1 < y2, got x1={self.x1} x2={self.x2} "
                f"y1={self.y1} y2={self.y2}"
            )

    def to_query(self) -> dict[str, str]:
        """The parameters in a fixed order (also what the download link signs)."""
        query = {"w": self.w, "h": self.h}
        if self.sw is not None:
            query["sw"] = self.sw
        if self.sh is not None:
            query["sh"] = self.sh
        query.update(x1=self.x1, x2=self.x2, y1=self.y1, y2=self.y2)
        if self.stretch:
            query["stretch"] = 1
        return {k: str(v) for k, v in query.items()}

    def canonical(self) -> str:
        return "&".join(f"{k}={v}" for k, v in self.to_query().items())


def _int_param(query: Mapping[str, str], key: str) -> int | None:
    raw = query.get(key)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{key}={raw!r} is not an integer") from None


def _bool_param(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes"):
        return True
    if value in ("", "0", "false", "no"):
        return False
    raise ValueError(f"stretch={raw!r} must be 1 or 0")


def plan_format(fmt: PredefinedFormat, size: tuple[int, int]) -> Operation | None:
    """What to do to an image of ``size`` for a predefined format; None: serve the original."""
    width, height = size
    if fmt.fill:
        scale = max(fmt.width / width, fmt.height / height)
        box_w, box_h = fmt.width / scale, fmt.height / scale
        left, top = round((width - box_w) / 2), round((height - box_h) / 2)
        return Cut(left, top, left + round(box_w), top + round(box_h), fmt.width, fmt.height)
    scale = min(fmt.width / width, fmt.height / height)
    if scale >= 1:
        return None  # never enlarged: the original already fits
    return Resize(max(1, round(width * scale)), max(1, round(height * scale)))


def plan_crop(crop: CropRequest, size: tuple[int, int]) -> Cut:
    """Map the crop from its sw x sh surface onto the real image and size the output.

    With ``stretch`` the output is exactly w x h; otherwise the crop keeps its aspect
    ratio and is scaled (up or down) to fit inside w x h.
    """
    width, height = size
    surface_w, surface_h = crop.sw or width, crop.sh or height
    if crop.x2 > surface_w or crop.y2 > surface_h:
        raise ValueError(
            f"crop x2={crop.x2} y2={crop.y2} lies outside the {surface_w}x{surface_h} "
            "surface; give sw and sh for the surface the coordinates refer to"
        )
    fx, fy = width / surface_w, height / surface_h
    left, right = round(crop.x1 * fx), round(crop.x2 * fx)
    top, bottom = round(crop.y1 * fy), round(crop.y2 * fy)
    right, bottom = max(right, left + 1), max(bottom, top + 1)
    right, bottom = min(right, width), min(bottom, height)
    left, top = min(left, right - 1), min(top, bottom - 1)
    if crop.stretch:
        return Cut(left, top, right, bottom, crop.w, crop.h)
    box_w, box_h = right - left, bottom - top
    scale = min(crop.w / box_w, crop.h / box_h)
    out_w = min(crop.w, max(1, round(box_w * scale)))
    out_h = min(crop.h, max(1, round(box_h * scale)))
    return Cut(left, top, right, bottom, out_w, out_h)
