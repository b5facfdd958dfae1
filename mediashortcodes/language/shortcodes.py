"""The shortcode language: grammar, parser and locations (pure; no I/O).

::

    <% media_image ID [FORMAT] [key=value ...] %>
    <% media_video ID [key=value ...] %>

A shortcode starts at ``<%`` followed by whitespace or a letter (so ERB-style ``<%=``,
``<%-``, ``<%#`` stay text) and runs to the first ``%>``; a second ``<%`` before that
leaves the first one unterminated. ``\\<%`` is a literal ``<%``. Every problem of a text
is collected, each with the line and column of the part that is wrong.

The adapters (``markdown``, ``jinja``, ``htmltext``) share :func:`scan` and
:func:`build`; :func:`parse` is the whole-text convenience on top of them.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from ..errors import Problem, place
from ..records import Crop

__all__ = [
    "IMAGE",
    "NAMES",
    "VIDEO",
    "Found",
    "Issue",
    "LineIndex",
    "Location",
    "ParseResult",
    "Shortcode",
    "ShortcodeRenderer",
    "build",
    "check",
    "find_end",
    "format_shortcode",
    "is_opening",
    "parse",
    "parse_one",
    "quote",
    "scan",
    "simple_shortcode",
    "unescape_literal",
    "unterminated",
]

IMAGE = "media_image"
VIDEO = "media_video"
NAMES = (IMAGE, VIDEO)

CUSTOM_FORMAT = "-1"
TEXT_KEYS = ("alt", "title", "class", "caption")
CROP_KEYS = ("w", "h", "sw", "sh", "x1", "x2", "y1", "y2", "stretch")
REQUIRED_CROP_KEYS = ("w", "h", "x1", "x2", "y1", "y2")
IMAGE_KEYS = (*TEXT_KEYS, "loading", *CROP_KEYS)
VIDEO_KEYS = ("embed", "title", "lang")
KEYS = {IMAGE: IMAGE_KEYS, VIDEO: VIDEO_KEYS}

LOADING_VALUES = ("lazy", "eager")
EMBED_VALUES = ("iframe", "script")
STRETCH_VALUES = {"1": True, "true": True, "0": False, "false": False}

BAREWORD = re.compile(r"[A-Za-z0-9_.:/-]+")
_WORD = re.compile(r"[^\s\"'=]+")
_NOT_BAREWORD = re.compile(r"[^A-Za-z0-9_.:/-]")
_NAME = re.compile(r"[A-Za-z_]")
_FULL_BAREWORD = re.compile(r"[A-Za-z0-9_.:/-]+\Z")
_INTEGER = re.compile(r"[0-9]+\Z")
_SIGNED_INTEGER = re.compile(r"-?[0-9]+\Z")
_LANGUAGE = re.compile(r"[a-z]{2,3}([_-][A-Za-z]{2})?\Z")
_OPEN = "<%"
_CLOSE = "%>"

Locate = Callable[[int], tuple[int, int]]
"""Maps an offset in the scanned text to a 1-based (line, column) in the real file."""


@dataclass(frozen=True)
class Location:
    """Where a shortcode starts: 1-based line and column; col 0 means "column unknown"."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return place(self.path, self.line, self.col)


@dataclass(frozen=True)
class Shortcode:
    """One valid shortcode. Options keep the order written; values are unquoted."""

    name: str
    file_id: int
    format: str | None
    options: tuple[tuple[str, str], ...]
    location: Location
    source: str

    def __hash__(self) -> int:
        # A build keys dicts by shortcode at every phase (tens of thousands of lookups): the
        # hash of all fields is worked out once. It is not pickled (see __getstate__).
        # Equal shortcodes have the same text and place, whose strings cache their own hashes.
        try:
            return self.__dict__["_hash"]  # type: ignore[no-any-return]
        except KeyError:
            loc = self.location
            value = hash((self.source, loc.path, loc.line, loc.col))
            object.__setattr__(self, "_hash", value)
            return value

    def __getstate__(self) -> dict[str, object]:
        # The hash of text differs between processes: an unpickled copy works it out again.
        return {k: v for k, v in self.__dict__.items() if k not in ("_hash", "_crop")}

    def option(self, key: str, default: str | None = None) -> str | None:
        """The value of ``key``; ``""`` (e.g. a decorative ``alt=""``) differs from absent."""
        for k, v in self.options:
            if k == key:
                return v
        return default

    @property
    def crop(self) -> Crop | None:
        """The custom crop (format -1) when any crop key is present."""
        # Asked several times for each of a site's thousands of shortcodes: worked out once,
        # kept like the hash (functools.cached_property takes a lock on every first read).
        try:
            return self.__dict__["_crop"]  # type: ignore[no-any-return]
        except KeyError:
            crop = crop_of(self.options)
            object.__setattr__(self, "_crop", crop)
            return crop

    @property
    def is_image(self) -> bool:
        return self.name == IMAGE

    @property
    def is_video(self) -> bool:
        return self.name == VIDEO

    def to_source(self) -> str:
        """The canonical text of this shortcode; parsing it gives the same shortcode back."""
        return format_shortcode(self.name, self.file_id, self.format, self.options)


# Sites repeat the same options on many shortcodes: each crop is worked out once, and equal
# options give the same Crop object (cheap to hash again as a key of the variant).
@lru_cache(maxsize=65536)
def crop_of(options: tuple[tuple[str, str], ...]) -> Crop | None:
    """The custom crop the options describe, or None when they hold no crop key."""
    values = dict(options)
    if not any(k in values for k in CROP_KEYS):
        return None

    def number(key: str) -> int | None:
        return int(values[key]) if key in values else None

    return Crop(
        w=int(values["w"]),
        h=int(values["h"]),
        x1=int(values["x1"]),
        x2=int(values["x2"]),
        y1=int(values["y1"]),
        y2=int(values["y2"]),
        sw=number("sw"),
        sh=number("sh"),
        stretch=STRETCH_VALUES.get(values.get("stretch", "0").lower(), False),
    )


@dataclass(frozen=True)
class ParseResult:
    """Literal text (``\\<%`` unescaped) and shortcodes in order, plus every problem.

    A malformed shortcode stays in ``segments`` as its source text; its problems say why.
    """

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


class LineIndex:
    """Offsets of one text to (line, column); the first line is ``start_line``."""

    def __init__(self, text: str, start_line: int = 1, start_col: int = 1) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._start_line = start_line
        self._start_col = start_col

    def __call__(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self._starts, offset) - 1
        col = offset - self._starts[index] + 1
        if index == 0:
            col += self._start_col - 1
        return self._start_line + index, col


# -- finding shortcodes ---------------------------------------------------------------------


def is_opening(text: str, pos: int, *, escapable: bool = True) -> bool:
    """Whether a shortcode starts at ``pos``: ``<%`` then whitespace or a letter.

    ``escapable``: a backslash right before it makes it literal (Markdown handles its own
    backslash escapes, so its adapter turns this off).
    """
    if not text.startswith(_OPEN, pos) or (escapable and pos > 0 and text[pos - 1] == "\\"):
        return False
    after = text[pos + 2 : pos + 3]
    return after.isspace() or after.isalpha() or after == "_"


def find_end(text: str, pos: int, limit: int | None = None) -> int | None:
    """End (exclusive) of the shortcode opened at ``pos``; None when it is unterminated."""
    limit = len(text) if limit is None else limit
    close = text.find(_CLOSE, pos + 2, limit)
    if close < 0:
        return None
    reopen = text.find(_OPEN, pos + 2, close)
    return None if reopen >= 0 else close + 2


def scan(
    text: str,
    path: str,
    locate: Locate | None = None,
    start: int = 0,
    end: int | None = None,
) -> Iterator[Found]:
    """Every shortcode in ``text[start:end]``, valid or not, in order."""
    locate = locate or LineIndex(text)
    end = len(text) if end is None else end
    pos = text.find(_OPEN, start, end)
    while pos >= 0:
        if not is_opening(text, pos):
            pos = text.find(_OPEN, pos + 1, end)
            continue
        stop = find_end(text, pos, end)
        if stop is None:
            yield unterminated(text, pos, path, locate)
            stop = pos + 2
        else:
            yield parse_one(text[pos:stop], path, lambda i, p=pos: locate(p + i), pos)
        pos = text.find(_OPEN, stop, end)


def unterminated(text: str, pos: int, path: str, locate: Locate) -> Found:
    line, col = locate(pos)
    message = (
        "unterminated shortcode: close it with '%>' (it cannot span a second '<%'"
        " or, in Markdown, a blank line), or write '\\<%' for a literal '<%'"
    )
    return Found(pos, pos + 2, _OPEN, None, (Problem(path, line, col, message),))


def unescape_literal(text: str) -> str:
    """Literal text as shown: ``\\<%`` becomes ``<%``."""
    return text.replace("\\" + _OPEN, _OPEN)


def parse(text: str, path: str = "<string>", *, start_line: int = 1) -> ParseResult:
    """Split ``text`` into literal text and shortcodes; collect every problem."""
    segments: list[str | Shortcode] = []
    problems: list[Problem] = []
    pending: list[str] = []
    pos = 0
    for found in scan(text, path, LineIndex(text, start_line)):
        pending.append(unescape_literal(text[pos : found.start]))
        if found.shortcode is None:
            pending.append(found.source)
        else:
            _flush(pending, segments)
            segments.append(found.shortcode)
        problems.extend(found.problems)
        pos = found.end
    pending.append(unescape_literal(text[pos:]))
    _flush(pending, segments)
    return ParseResult(segments, problems)


def _flush(pending: list[str], segments: list[str | Shortcode]) -> None:
    literal = "".join(pending)
    pending.clear()
    if literal:
        segments.append(literal)


# -- one shortcode ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    kind: str  # "word" | "quoted" | "eq"
    value: str
    offset: int
    spaced: bool  # whitespace (or the name) comes right before it


@dataclass(frozen=True)
class _Part:
    """A positional value or a key=value pair, with the offsets to point problems at."""

    key: str | None
    value: str
    offset: int
    value_offset: int
    quoted: bool


@dataclass(frozen=True)
class Issue:
    """A problem found by :func:`check`; ``where`` says which part it is about.

    ``where`` is "name", "id", "format", "shortcode", or the index of the option.
    """

    where: str | int
    message: str
    at_key: bool = False  # point at the key rather than its value


# The commonest shape in one regular expression: a name, an ID, a bare or quoted FORMAT, then
# key=value options with bare or plain double-quoted values, parts separated by spaces.
# Anything else (other quotes, escapes, odd spacing, any problem) takes the full parser.
_SPACE = r"[ \t\r\n]"
_SIMPLE = re.compile(
    rf"<%{_SPACE}+(?P<name>{IMAGE}|{VIDEO})"
    rf"{_SPACE}+(?P<id>[0-9]+)"
    rf"(?:{_SPACE}+(?:(?P<format>[A-Za-z0-9_.:/-]+)(?![A-Za-z0-9_.:/=-])"
    rf"|\"(?P<quoted>[A-Za-z0-9_.:/-]+)\"))?"
    rf"(?P<options>(?:{_SPACE}+[A-Za-z0-9_]+=(?:[A-Za-z0-9_.:/-]+|\"[^\"\\\\]*\"))*)"
    rf"{_SPACE}*%>\Z"
)
_OPTION = re.compile(r"([A-Za-z0-9_]+)=(?:([A-Za-z0-9_.:/-]+)|\"([^\"\\\\]*)\")")


def parse_one(source: str, path: str, locate: Locate, start: int = 0) -> Found:
    """Parse one complete ``<% ... %>``; offsets given to ``locate`` are within ``source``."""
    return _parse_simple(source, path, locate, start) or _parse_full(source, path, locate, start)


def _parse_simple(source: str, path: str, locate: Locate, start: int) -> Found | None:
    """The common, valid shortcode, parsed quickly (a site has thousands); else None."""
    parts = _simple_parts(source)
    if parts is None:
        return None
    name, file_id, fmt, options = parts
    line, col = locate(0)
    shortcode = Shortcode(name, file_id, fmt, options, Location(path, line, col), source)
    return Found(start, start + len(source), source, shortcode, ())


def simple_shortcode(source: str, path: str, line: int, col: int) -> Shortcode | None:
    """The shortcode ``source`` at ``path:line:col`` when it is a common, valid one; else None
    (then :func:`parse_one` says what it is, with every problem positioned)."""
    parts = _simple_parts(source)
    if parts is None:
        return None
    return Shortcode(*parts, Location(path, line, col), source)


# Sites repeat the same shortcode text on many pages: its parts are worked out once. A large
# site has over 10,000 different texts; an entry is a few hundred bytes.
@lru_cache(maxsize=65536)
def _simple_parts(source: str) -> tuple[str, int, str | None, tuple[tuple[str, str], ...]] | None:
    match = _SIMPLE.match(source)
    if match is None:
        return None
    name, file_id, fmt, quoted = match.group("name", "id", "format", "quoted")
    fmt = fmt if quoted is None else quoted
    if fmt is not None and name != IMAGE:
        return None
    pairs = tuple(
        (m[1], m[2] if m[2] is not None else m[3]) for m in _OPTION.finditer(match.group("options"))
    )
    if check(name, file_id, fmt, pairs):
        return None
    return name, int(file_id), fmt, pairs


def _parse_full(source: str, path: str, locate: Locate, start: int = 0) -> Found:
    problems: list[Problem] = []

    def problem(offset: int, message: str) -> None:
        line, col = locate(offset)
        problems.append(Problem(path, line, col, message))

    tokens = _lex(source, problem)
    parts = _group(tokens, problem)
    shortcode = None
    first = parts[0] if parts else None
    if first is None or first.key is not None or first.quoted or not _NAME.match(first.value):
        problem(
            0,
            "expected a shortcode name after '<%': write <% media_image ID %> or"
            " <% media_video ID %>",
        )
    else:
        shortcode = _interpret(source, parts, path, locate, problem)
    end = start + len(source)
    problems.sort()
    return Found(start, end, source, None if problems else shortcode, tuple(problems))


def _lex(source: str, problem: Callable[[int, str], None]) -> list[_Token]:
    tokens: list[_Token] = []
    i, end = 2, len(source) - 2
    spaced = True
    while i < end:
        ch = source[i]
        if ch.isspace():
            spaced = True
            i += 1
            continue
        if ch in "\"'":
            value, stop, closed = _read_quoted(source, i, end)
            if not closed:
                problem(i, f"unclosed quote: add the closing {ch} (a value cannot hold '%>')")
            tokens.append(_Token("quoted", value, i, spaced))
            i = stop
        elif ch == "=":
            tokens.append(_Token("eq", ch, i, spaced))
            i += 1
        else:
            word = _WORD.match(source, i, end)
            assert word is not None  # any other character starts a word
            bad = _NOT_BAREWORD.search(word.group())
            if bad:
                problem(
                    i + bad.start(),
                    f"unexpected character {bad.group()!r}: put values that hold it in quotes,"
                    ' like alt="..."',
                )
            tokens.append(_Token("word", word.group(), i, spaced))
            i = word.end()
        spaced = False
    return tokens


def _read_quoted(source: str, i: int, end: int) -> tuple[str, int, bool]:
    quote, out, j = source[i], [], i + 1
    while j < end:
        ch = source[j]
        if ch == "\\" and j + 1 < end and source[j + 1] in (quote, "\\"):
            out.append(source[j + 1])
            j += 2
        elif ch == quote:
            return "".join(out), j + 1, True
        else:
            out.append(ch)
            j += 1
    return "".join(out), end, False


def _group(tokens: list[_Token], problem: Callable[[int, str], None]) -> list[_Part]:
    """Tokens into parts: ``value`` or ``key=value`` with nothing between them."""
    parts: list[_Part] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.kind == "eq":
            problem(tok.offset, "'=' needs a key before it: write key=value")
            i += 1
            continue
        if i + 1 < n and tokens[i + 1].kind == "eq":
            eq = tokens[i + 1]
            value = tokens[i + 2] if i + 2 < n and tokens[i + 2].kind != "eq" else None
            if tok.kind != "word":
                problem(tok.offset, "a key cannot be quoted: write key=value")
            if value is None:
                problem(
                    eq.offset,
                    f'key {tok.value!r} has no value: write {tok.value}=value or {tok.value}=""',
                )
                i += 2
                continue
            if eq.spaced or value.spaced:
                problem(eq.offset, f"write {tok.value}=value with no spaces around '='")
            if tok.kind == "word":
                quoted = value.kind == "quoted"
                parts.append(_Part(tok.value, value.value, tok.offset, value.offset, quoted))
            i += 3
        else:
            parts.append(_Part(None, tok.value, tok.offset, tok.offset, tok.kind == "quoted"))
            i += 1
        if i < n and not tokens[i].spaced and tokens[i].kind != "eq":
            problem(
                tokens[i].offset, "missing space: separate the parts of a shortcode with whitespace"
            )
    return parts


def _interpret(
    source: str,
    parts: list[_Part],
    path: str,
    locate: Locate,
    problem: Callable[[int, str], None],
) -> Shortcode | None:
    name = parts[0].value
    positional: list[_Part] = []
    options: list[_Part] = []
    for part in parts[1:]:
        if part.key is None:
            if options and name in KEYS:
                problem(
                    part.offset,
                    f"unexpected {part.value!r} after key=value options:"
                    " the ID (and FORMAT) come first, options after them",
                )
                continue
            positional.append(part)
        else:
            options.append(part)
    file_id = positional[0].value if positional else None
    fmt = None
    if name == IMAGE and len(positional) > 1:
        fmt = positional[1].value
    limit = 2 if name == IMAGE else 1
    for extra in positional[limit:]:
        if name == IMAGE:
            problem(
                extra.offset,
                f"unexpected {extra.value!r}: media_image takes ID and"
                " FORMAT, then key=value options",
            )
        elif name == VIDEO:
            problem(
                extra.offset,
                f"unexpected {extra.value!r}: media_video takes no FORMAT,"
                " only key=value options (embed, title, lang)",
            )
    pairs = [(p.key or "", p.value) for p in options]
    issues = check(name, file_id, fmt, pairs)
    where = {
        "name": parts[0].offset,
        "id": positional[0].offset if positional else 0,
        "format": positional[1].offset if len(positional) > 1 else 0,
        "shortcode": 0,
    }
    for issue in issues:
        if isinstance(issue.where, int):
            part = options[issue.where]
            offset = part.offset if issue.at_key else part.value_offset
        else:
            offset = where[issue.where]
        problem(offset, issue.message)
    if issues or file_id is None:
        return None
    line, col = locate(0)
    return Shortcode(name, int(file_id), fmt, tuple(pairs), Location(path, line, col), source)


# -- validation, shared by the parser and the Jinja functions --------------------------------


def check(
    name: str,
    file_id: str | None,
    format: str | None,
    options: Sequence[tuple[str, str]],
) -> list[Issue]:
    """Every problem of a shortcode given as plain values (no positions).

    This is the one place the rules of the language live: the parser and the Jinja
    functions both call it, so a shortcode is valid in one form exactly when it is in the other.
    """
    if name not in KEYS:
        hint = difflib.get_close_matches(name, NAMES, n=1, cutoff=0.5)
        suggestion = f"did you mean {hint[0]!r}? " if hint else ""
        return [
            Issue(
                "name",
                f"unknown shortcode {name!r}: {suggestion}the shortcodes are"
                " media_image and media_video (write '\\<%' for a literal '<%')",
            )
        ]
    issues: list[Issue] = []
    if file_id is None:
        issues.append(Issue("shortcode", f"missing file ID: write <% {name} ID %>"))
    elif _SIGNED_INTEGER.match(file_id) and file_id.startswith("-"):
        issues.append(Issue("id", f"file ID must not be negative, got {file_id}"))
    elif not _INTEGER.match(file_id):
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
    if name == IMAGE:
        issues.extend(_check_format_and_crop(format, seen, options))
    return issues


def _check_value(key: str, value: str) -> str | None:
    if key == "loading" and value not in LOADING_VALUES:
        return f"loading must be lazy or eager, got {value!r}"
    if key == "embed" and value not in EMBED_VALUES:
        return f"embed must be iframe or script, got {value!r}"
    if key == "lang" and not _LANGUAGE.match(value):
        return f"lang must be a language code like sv or en_US, got {value!r}"
    if key == "stretch" and value.lower() not in STRETCH_VALUES:
        return f"stretch must be 1, 0, true or false, got {value!r}"
    if key in CROP_KEYS and key != "stretch":
        if not _INTEGER.match(value):
            return f"{key} must be a whole number of pixels (0 or more), got {value!r}"
        if key in ("w", "h") and int(value) == 0:
            return f"{key} must be greater than 0"
    return None


def _check_format_and_crop(
    format: str | None, seen: Mapping[str, str], options: Sequence[tuple[str, str]]
) -> list[Issue]:
    issues: list[Issue] = []
    if format is not None and not format.strip():
        issues.append(
            Issue(
                "format",
                "FORMAT is empty: give a format name or id, or leave it out for the default format",
            )
        )
    cropping = any(k in seen for k in CROP_KEYS)
    if cropping and format is not None and format != CUSTOM_FORMAT:
        issues.append(
            Issue(
                "format",
                f"FORMAT {format!r} cannot be combined with crop keys"
                " (a crop is format -1): remove one or the other",
            )
        )
    if not cropping:
        if format == CUSTOM_FORMAT:
            issues.append(
                Issue(
                    "format",
                    "format -1 is a custom crop: add "
                    + " ".join(f"{k}=N" for k in REQUIRED_CROP_KEYS),
                )
            )
        return issues
    missing = [k for k in REQUIRED_CROP_KEYS if k not in seen]
    if missing:
        issues.append(
            Issue(
                "shortcode",
                f"a custom crop needs {', '.join(REQUIRED_CROP_KEYS)}; add {', '.join(missing)}",
            )
        )
        return issues
    for low, high in (("x1", "x2"), ("y1", "y2")):
        a, b = seen[low], seen[high]
        if _INTEGER.match(a) and _INTEGER.match(b) and int(b) <= int(a):
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
    """A shortcode from Python values (the Jinja functions), validated like parsed text.

    ``None`` values are left out, so ``alt=page.alt`` with no alt means "no alt given";
    numbers and booleans become their text form.
    """
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
    return str(value)


def quote(value: str) -> str:
    """``value`` as written in a shortcode: a bareword when it can be, else quoted."""
    if _FULL_BAREWORD.match(value):
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
