"""The shortcode language's vocabulary (pure): names, keys, values, and the Shortcode,
Location and parse results that the parser, the hosts and the build share."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from ..config import ENCODINGS as ENCODING_NAMES
from ..errors import Problem, place
from ..records import Crop

IMAGE = "media_image"
VIDEO = "media_video"
URL = "media_url"  # the published URL of an image variant alone (og:image, CSS, feeds)
NAMES = (IMAGE, VIDEO, URL)

CUSTOM_FORMAT = "-1"
CROP_KEYS = ("w", "h", "sw", "sh", "x1", "x2", "y1", "y2", "stretch")
REQUIRED_CROP_KEYS = ("w", "h", "x1", "x2", "y1", "y2")
KEYS = {
    IMAGE: (
        "alt",
        "title",
        "class",
        "caption",
        "loading",
        "widths",
        "sizes",
        "formats",
        "priority",
        "placeholder",
        *CROP_KEYS,
    ),
    VIDEO: ("embed", "title", "lang", "load"),
    URL: CROP_KEYS,
}

LOADING_VALUES = ("lazy", "eager")
EMBED_VALUES = ("iframe", "script")
LOAD_VALUES = ("eager", "click")
STRETCH_VALUES = {"1": True, "true": True, "0": False, "false": False}
PRIORITY_VALUES = STRETCH_VALUES
ENCODINGS = {name: f"image/{name}" for name in ENCODING_NAMES}  # formats=: <source> types
PLACEHOLDER_VALUES = ("none", "color", "blur")

NOT_BAREWORD = re.compile(r"[^A-Za-z0-9_.:/-]")
NAME = re.compile(r"[A-Za-z_]")
FULL_BAREWORD = re.compile(r"[A-Za-z0-9_.:/-]+\Z")
INTEGER = re.compile(r"[0-9]+\Z")
LANGUAGE = re.compile(r"[a-z]{2,3}([_-][A-Za-z]{2})?\Z")
OPEN = "<%"
CLOSE = "%>"

Locate = Callable[[int], tuple[int, int]]
"""Maps an offset in the scanned text to a 1-based (line, column) in the real file."""


# Slots: a large site holds tens of thousands of these. Pickling takes the fields only.
@dataclass(frozen=True, slots=True)
class Location:
    """Where a shortcode starts: 1-based line and column; col 0 means "column unknown"."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return place(self.path, self.line, self.col)

    def __reduce__(self) -> tuple[type, tuple[str, int, int]]:
        # A worker's pages come back pickled: the constructor is faster than
        # dataclasses' __setstate__, which looks the fields up for every object.
        return Location, (self.path, self.line, self.col)


class _Memo:
    __slots__ = ("_hash",)  # worked out once, never pickled (a str hash is per process)


@dataclass(frozen=True, slots=True)
class Shortcode(_Memo):
    """One valid shortcode. Options keep the order written; values are unquoted."""

    name: str
    file_id: int
    format: str | None
    options: tuple[tuple[str, str], ...]
    location: Location
    source: str

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return Shortcode, (
            self.name,
            self.file_id,
            self.format,
            self.options,
            self.location,
            self.source,
        )

    def __hash__(self) -> int:
        # Builds key dicts by shortcode at every phase: the hash is worked out once.
        try:
            return self._hash  # type: ignore[no-any-return]
        except AttributeError:
            loc = self.location
            value = hash((self.source, loc.path, loc.line, loc.col))
            object.__setattr__(self, "_hash", value)
            return value

    def option(self, key: str, default: str | None = None) -> str | None:
        """The value of ``key``; ``""`` (e.g. a decorative ``alt=""``) differs from absent."""
        for k, v in self.options:
            if k == key:
                return v
        return default

    @property
    def crop(self) -> Crop | None:
        """The custom crop (format -1) when any crop key is present."""
        return crop_of(self.options)

    @property
    def priority(self) -> bool:
        """``priority=true``: loaded first (eager, ``fetchpriority``) and preloaded."""
        return PRIORITY_VALUES.get((self.option("priority") or "false").lower(), False)

    @property
    def is_image(self) -> bool:
        return self.name == IMAGE

    @property
    def is_url(self) -> bool:
        return self.name == URL

    @property
    def is_video(self) -> bool:
        return self.name == VIDEO

    def to_source(self) -> str:
        """The canonical text of this shortcode; parsing it gives the same shortcode back."""
        return format_shortcode(self.name, self.file_id, self.format, self.options)


# Sites repeat options: equal options give the same Crop object, worked out once.
@lru_cache(maxsize=65536)
def crop_of(options: tuple[tuple[str, str], ...]) -> Crop | None:
    """The custom crop the options describe, or None when they hold no crop key."""
    values = dict(options)
    if not any(k in values for k in CROP_KEYS):
        return None

    def number(key: str) -> int | None:
        return int(values[key]) if key in values else None

    return Crop(
        **{key: int(values[key]) for key in REQUIRED_CROP_KEYS},
        sw=number("sw"),
        sh=number("sh"),
        stretch=STRETCH_VALUES.get(values.get("stretch", "0").lower(), False),
    )


@dataclass(frozen=True)
class ParseResult:
    """Literal text (``\\<%`` unescaped; a malformed shortcode as its source) and shortcodes
    in order, plus every problem."""

    segments: list[str | Shortcode]
    problems: list[Problem]

    @property
    def shortcodes(self) -> list[Shortcode]:
        return [s for s in self.segments if isinstance(s, Shortcode)]


@dataclass(frozen=True)
class Found:
    """A shortcode found by :func:`scan`: ``text[start:end]`` and what it parsed into."""

    start: int
    end: int
    source: str
    shortcode: Shortcode | None
    problems: tuple[Problem, ...]


class ShortcodeRenderer(Protocol):
    """What the Markdown and Jinja adapters call to turn shortcodes into HTML."""

    def render(self, shortcode: Shortcode) -> str:
        """HTML for a valid shortcode (trusted, inserted as is)."""
        ...

    def problem(self, problem: Problem) -> str:
        """Record a malformed shortcode's problem; return HTML to put in its place."""
        ...


def html_for(renderer: ShortcodeRenderer, found: Found) -> str:
    """A valid shortcode's HTML, else its problems' stand-ins (every host places them so)."""
    if found.shortcode is not None:
        return renderer.render(found.shortcode)
    return "".join(renderer.problem(p) for p in found.problems)


def quote(value: str) -> str:
    """``value`` as written in a shortcode: a bareword when it can be, else quoted."""
    if FULL_BAREWORD.match(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_shortcode(
    name: str, file_id: int, format: str | None, options: Sequence[tuple[str, str]]
) -> str:
    """The canonical text of a shortcode (what the picker copies, what round-trips)."""
    parts = [name, str(file_id)]
    if format is not None:
        parts.append(quote(format))
    parts.extend(f"{key}={quote(value)}" for key, value in options)
    return f"<% {' '.join(parts)} %>"
