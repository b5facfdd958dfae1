"""The shortcode language, pure (no I/O): vocabulary (:mod:`.model`), parser (:mod:`.parser`),
rules (:mod:`.validation`), shortcodes in HTML (:mod:`.htmltext`) and in built pages
(:mod:`.refs`). The names below are its interface to the rest of the package."""

from __future__ import annotations

from .model import (
    CROP_KEYS,
    IMAGE,
    URL,
    VIDEO,
    Found,
    Location,
    ParseResult,
    Shortcode,
    ShortcodeRenderer,
    format_shortcode,
    html_for,
    quote,
)
from .parser import (
    LineIndex,
    find_end,
    is_opening,
    parse,
    parse_one,
    scan,
    unterminated,
)
from .validation import build, check, check_formats, check_widths, formats_of, widths_of

__all__ = [
    "CROP_KEYS",
    "IMAGE",
    "URL",
    "VIDEO",
    "Found",
    "LineIndex",
    "Location",
    "ParseResult",
    "Shortcode",
    "ShortcodeRenderer",
    "build",
    "check",
    "check_formats",
    "check_widths",
    "find_end",
    "format_shortcode",
    "formats_of",
    "html_for",
    "is_opening",
    "parse",
    "parse_one",
    "quote",
    "scan",
    "unterminated",
    "widths_of",
]
