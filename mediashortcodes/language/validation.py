"""The rules of the language: :func:`check` (the parser and the Jinja functions both call
it) and :func:`build`, a shortcode from Python values, validated like parsed text."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..config import AUTO_WIDTHS, MAX_WIDTH, MAX_WIDTHS
from ..errors import Problem
from .model import (
    CROP_KEYS,
    CUSTOM_FORMAT,
    EMBED_VALUES,
    ENCODINGS,
    IMAGE,
    INTEGER,
    KEYS,
    LANGUAGE,
    LOAD_VALUES,
    LOADING_VALUES,
    NAMES,
    PLACEHOLDER_VALUES,
    PRIORITY_VALUES,
    REQUIRED_CROP_KEYS,
    STRETCH_VALUES,
    URL,
    Location,
    Shortcode,
    format_shortcode,
)


@dataclass(frozen=True)
class Issue:
    """A problem found by :func:`check`; ``where`` says which part it is about: "name",
    "id", "format", "shortcode", or the index of the option."""

    where: str | int
    message: str
    at_key: bool = False  # point at the key rather than its value


def check(
    name: str,
    file_id: str | None,
    format: str | None,
    options: Sequence[tuple[str, str]],
) -> list[Issue]:
    """Every problem of a shortcode given as plain values (no positions)."""
    if name not in KEYS:
        hint = difflib.get_close_matches(name, NAMES, n=1, cutoff=0.5)
        suggestion = f"did you mean {hint[0]!r}? " if hint else ""
        names = (
            "the shortcodes are media_image, media_video and media_url "
            "(write '\\<%' for a literal '<%')"
        )
        return [Issue("name", f"unknown shortcode {name!r}: {suggestion}{names}")]
    issues: list[Issue] = []
    if file_id is None:
        issues.append(Issue("shortcode", f"missing file ID: write <% {name} ID %>"))
    elif file_id.startswith("-") and INTEGER.match(file_id[1:]):
        issues.append(Issue("id", f"file ID must not be negative, got {file_id}"))
    elif not INTEGER.match(file_id):
        issues.append(Issue("id", f"file ID must be a whole number, got {file_id!r}"))
    allowed = KEYS[name]
    seen: dict[str, str] = {}
    for index, (key, value) in enumerate(options):
        if key not in allowed:
            hint = difflib.get_close_matches(key.lower(), allowed, n=1, cutoff=0.6)
            suggestion = f"did you mean {hint[0]!r}? " if hint else ""
            message = f"unknown key {key!r} for {name}: {suggestion}allowed keys are "
            issues.append(Issue(index, message + ", ".join(allowed), at_key=True))
        elif key in seen:
            issues.append(Issue(index, f"duplicate key {key!r}: give it once", at_key=True))
        else:
            seen[key] = value
            message = _check_value(key, value)
            if message:
                issues.append(Issue(index, message))
    if name in (IMAGE, URL):
        issues.extend(_check_format_and_crop(format, seen, options))
    return issues


_CHOICES = {
    "loading": LOADING_VALUES,
    "embed": EMBED_VALUES,
    "load": LOAD_VALUES,
    "placeholder": PLACEHOLDER_VALUES,
}


def _check_value(key: str, value: str) -> str | None:
    if key in _CHOICES and value not in _CHOICES[key]:
        return f"{key} must be {' or '.join(_CHOICES[key])}, got {value!r}"
    if key == "widths":
        return check_widths(value)
    if key == "formats":
        return check_formats(value)
    if key == "priority" and value.lower() not in PRIORITY_VALUES:
        return f"priority must be true or false, got {value!r}"
    if key == "lang" and not LANGUAGE.match(value):
        return f"lang must be a language code like sv or en_US, got {value!r}"
    if key == "stretch" and value.lower() not in STRETCH_VALUES:
        return f"stretch must be 1, 0, true or false, got {value!r}"
    if key in CROP_KEYS and key != "stretch":
        if not INTEGER.match(value):
            return f"{key} must be a whole number of pixels (0 or more), got {value!r}"
        if key in ("w", "h") and int(value) == 0:
            return f"{key} must be greater than 0"
    return None


def widths_of(text: str) -> tuple[int, ...]:
    """The pixel widths of a valid ``widths`` value, ascending, each once (``""``: none;
    ``"auto"``: the ladder of :data:`AUTO_WIDTHS`, cut at the base variant's width later)."""
    if text.strip() == "auto":
        return AUTO_WIDTHS
    return tuple(sorted({int(part) for part in text.split(",") if part.strip()}))


def check_widths(value: str) -> str | None:
    """What is wrong with a ``widths`` value, or None."""
    if not value.strip() or value.strip() == "auto":
        return None  # widths="": no srcset, even where the site sets default widths
    parts = [part.strip() for part in value.split(",")]
    if not all(INTEGER.match(part) and 0 < int(part) <= MAX_WIDTH for part in parts):
        return (
            f"widths must be pixel widths from 1 to {MAX_WIDTH} separated by commas, like "
            f'widths="480,960,1440", widths="auto" (or widths="" for no srcset), got {value!r}'
        )
    if len(parts) > MAX_WIDTHS:
        return f"widths lists {len(parts)} widths; give at most {MAX_WIDTHS}"
    return None


def formats_of(text: str) -> tuple[str, ...]:
    """The encodings of a valid ``formats`` value, in the order given (``""``: none)."""
    return tuple(part.strip().lower() for part in text.split(",") if part.strip())


def check_formats(value: str) -> str | None:
    """What is wrong with a ``formats`` value (``"avif,webp"``), or None."""
    names = formats_of(value)
    unknown = [name for name in names if name not in ENCODINGS]
    if unknown or len(set(names)) != len(names):
        return (
            f"formats must be {' and/or '.join(ENCODINGS)} separated by commas, each once, "
            f'best first, like formats="avif,webp" (or formats="" for none), got {value!r}'
        )
    return None


def _check_format_and_crop(
    format: str | None, seen: Mapping[str, str], options: Sequence[tuple[str, str]]
) -> list[Issue]:
    issues: list[Issue] = []
    if format is not None and not format.strip():
        empty = "FORMAT is empty: give a format name or id, or leave it out for the default format"
        issues.append(Issue("format", empty))
    cropping = any(k in seen for k in CROP_KEYS)
    if cropping and format is not None and format != CUSTOM_FORMAT:
        both = f"FORMAT {format!r} cannot be combined with crop keys (a crop is format -1)"
        issues.append(Issue("format", both + ": remove one or the other"))
    if not cropping:
        if format == CUSTOM_FORMAT:
            needed = " ".join(f"{k}=N" for k in REQUIRED_CROP_KEYS)
            issues.append(Issue("format", f"format -1 is a custom crop: add {needed}"))
        return issues
    missing = [k for k in REQUIRED_CROP_KEYS if k not in seen]
    if missing:
        needs = f"a custom crop needs {', '.join(REQUIRED_CROP_KEYS)}; add {', '.join(missing)}"
        return [*issues, Issue("shortcode", needs)]
    for low, high in (("x1", "x2"), ("y1", "y2")):
        a, b = seen[low], seen[high]
        if INTEGER.match(a) and INTEGER.match(b) and int(b) <= int(a):
            index = next(i for i, (k, _) in enumerate(options) if k == high)
            issues.append(Issue(index, f"{high} ({b}) must be greater than {low} ({a})"))
    return issues


def build(
    name: str,
    file_id: object,
    format: object,
    options: Mapping[str, object] | Sequence[tuple[str, object]],
    location: Location,
) -> tuple[Shortcode | None, list[Problem]]:
    """A shortcode from Python values (the Jinja functions), validated like parsed text;
    ``None`` values are left out, so ``alt=page.alt`` with no alt means "no alt given"."""
    pairs = options.items() if isinstance(options, Mapping) else options
    texts = [(str(k), _text(v)) for k, v in pairs if v is not None]
    id_text = None if file_id is None else _text(file_id)
    fmt = None if format is None else _text(format)
    issues = check(name, id_text, fmt, texts)
    problems = [Problem(location.path, location.line, location.col, i.message) for i in issues]
    if problems or id_text is None:
        return None, problems
    source = format_shortcode(name, int(id_text), fmt, texts)
    return Shortcode(name, int(id_text), fmt, tuple(texts), location, source), []


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):  # widths=[480, 960] in Jinja
        return ",".join(_text(item) for item in value)
    return str(value)
