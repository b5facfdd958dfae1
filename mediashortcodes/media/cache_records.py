"""What the cache's JSON holds, and the checks that decide whether to believe it (pure).

A record is ``{"v": 1, "key": KEY, "at": UNIX_TIME, "value": VALUE}``: ``key`` is the text
asked for (so a record copied under another name answers nothing), ``at`` when it was
fetched. A value becomes a class only when every field is there with its declared type
and nothing else is: anything else is a miss, fetched again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..records import File, Folder, Format
from . import imageinfo

RECORD_VERSION = 1
SNAPSHOT_VERSION = 1

EXTENSIONS = ("jpg", "png", "gif", "webp", "avif")  # of the image types a blob may be
# The keys (``kind:...``) whose value is a :class:`Stored` image.
STORED_KINDS = ("variant", "poster", "encoding")
# A placeholder's CSS value (media/encode.py), or "animated": an image never encoded.
PREVIEW = re.compile(r"#[0-9a-f]{6}|animated|data:image/webp;base64,[A-Za-z0-9+/]{4,2700}={0,2}")

T = TypeVar("T")


class Invalid(ValueError):
    """A cached value that does not fit the current classes."""


@dataclass(frozen=True)
class Stored:
    """An image variant in the blob store."""

    sha256: str
    ext: str
    width: int
    height: int
    size: int


def dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def loads(data: bytes | None) -> Any:
    """Parsed JSON, or None when ``data`` is absent or not JSON."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


def envelope(key: str, at: float, value: Any) -> dict[str, Any]:
    return {"v": RECORD_VERSION, "key": key, "at": at, "value": value}


# -- values -> classes ------------------------------------------------------------------------


def _checker(hint: Any) -> Callable[[Any], Any]:
    """A function that returns its argument as the type ``hint`` names, or raises Invalid."""
    if dataclasses.is_dataclass(hint):
        return lambda value: _build(hint, value)
    args = [a for a in typing.get_args(hint) if a is not type(None)]  # X | None
    kind, optional = (args[0], True) if args else (hint, False)

    def check(value: Any) -> Any:
        if type(value) is not kind and not (optional and value is None):
            raise Invalid(f"{value!r} is not {hint}")
        return value

    return check


_FIELDS: dict[type, tuple[tuple[str, Callable[[Any], Any]], ...]] = {}


def _build(cls: type[T], data: Any) -> T:
    fields = _FIELDS.get(cls)
    if fields is None:
        hints = typing.get_type_hints(cls)
        fields = _FIELDS[cls] = tuple(
            (f.name, _checker(hints[f.name]))
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        )
    if type(data) is not dict or len(data) != len(fields):
        raise Invalid(f"not the fields of {cls.__name__}")
    try:
        return cls(**{name: check(data[name]) for name, check in fields})
    except KeyError:
        raise Invalid(f"not the fields of {cls.__name__}") from None


def stored(value: Any) -> Stored | None:
    """A variant record's value, checked (written out: a warm build checks every one)."""
    if type(value) is not dict or len(value) != 5:
        return None
    sha, ext = value.get("sha256"), value.get("ext")
    width, height, size = value.get("width"), value.get("height"), value.get("size")
    if (
        not is_sha256(sha)
        or ext not in EXTENSIONS
        or type(width) is not int
        or type(height) is not int
        or type(size) is not int
        or width <= 0
        or height <= 0
        or size <= 0
    ):
        return None
    return Stored(sha, ext, width, height, size)


def located_file(value: Any) -> tuple[File, int] | None:
    """A file record's value: the file and the folder that listed it."""
    if type(value) is not dict or len(value) != 2 or type(value.get("folder")) is not int:
        return None
    try:
        return _build(File, value.get("file")), value["folder"]
    except Invalid:
        return None


def _listed(cls: type[T]) -> Callable[[Any], list[T] | None]:
    def decode(value: Any) -> list[T] | None:
        try:
            return [_build(cls, item) for item in value] if type(value) is list else None
        except Invalid:
            return None

    return decode


# -- blobs --------------------------------------------------------------------------------------


def is_sha256(value: Any) -> bool:
    """Whether ``value`` is a SHA-256 as the cache writes one: 64 lower-case hex digits."""
    return type(value) is str and len(value) == 64 and not value.strip("0123456789abcdef")


def is_image_of(found: Stored, data: bytes) -> bool:
    """Whether ``data`` is exactly the image ``found`` records: its size and SHA-256, and a
    whole image of its type and pixel size (the check every download gets, ``imageinfo``)."""
    if len(data) != found.size or hashlib.sha256(data).hexdigest() != found.sha256:
        return False
    try:
        info = imageinfo.probe(data)
    except imageinfo.ImageError:
        return False
    return (info.extension, info.width, info.height) == (found.ext, found.width, found.height)


_DECODERS: dict[str, Callable[[Any], Any]] = {
    "file": located_file,
    "folders": _listed(Folder),
    "formats": _listed(Format),
    **{kind: stored for kind in STORED_KINDS},
    "preview": lambda value: value if type(value) is str and PREVIEW.fullmatch(value) else None,
}


def decoded(record: Any, key: str) -> tuple[float, Any] | None:
    """(fetched at, value) of ``record`` (read under ``key``), decoded by its kind; None
    when it is not this version's record of that kind."""
    if (
        type(record) is not dict
        or record.get("v") != RECORD_VERSION
        or record.get("key") != key
        or len(record) != 4
        or "value" not in record
    ):
        return None
    at = record.get("at")
    decode = _DECODERS.get(key.partition(":")[0])
    if type(at) not in (int, float) or not math.isfinite(at) or decode is None:
        return None
    value = decode(record["value"])
    return None if value is None else (float(at), value)
