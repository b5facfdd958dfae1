"""The parser (pure; no I/O) of the language docs/shortcodes.md defines; a second ``<%``
before the first ``%>`` leaves the first one unterminated.

Every host reads shortcodes through :func:`is_opening`, :func:`find_end` and
:func:`parse_one` (or :func:`scan`, which uses them); :func:`parse` is the whole-text
convenience on top of them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import NamedTuple

from ..errors import Problem
from .model import (
    CLOSE,
    IMAGE,
    KEYS,
    NAME,
    NOT_BAREWORD,
    OPEN,
    URL,
    VIDEO,
    Found,
    Locate,
    Location,
    ParseResult,
    Shortcode,
)
from .validation import check


class LineIndex:
    """Offsets of one text to (line, column); the first line is ``start_line``."""

    def __init__(self, text: str, start_line: int = 1) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._start_line = start_line

    def split(self, offset: int) -> tuple[int, int]:
        """The 0-based line of ``offset`` within the text, and its 0-based column there."""
        index = bisect_right(self.starts, offset) - 1
        return index, offset - self.starts[index]

    def __call__(self, offset: int) -> tuple[int, int]:
        index, col = self.split(offset)
        return self._start_line + index, col + 1


# -- finding shortcodes ---------------------------------------------------------------------


def is_opening(text: str, pos: int, *, escapable: bool = True) -> bool:
    """Whether a shortcode starts at ``pos``: ``<%`` then whitespace or a letter.

    ``escapable``: a backslash right before it makes it literal (Markdown hosts handle their
    own backslash escapes and turn this off).
    """
    if not text.startswith(OPEN, pos) or (escapable and pos > 0 and text[pos - 1] == "\\"):
        return False
    after = text[pos + 2 : pos + 3]
    return after.isspace() or after.isalpha() or after == "_"


def find_end(text: str, pos: int, limit: int | None = None) -> int | None:
    """End (exclusive) of the shortcode opened at ``pos``; None when it is unterminated."""
    limit = len(text) if limit is None else limit
    close = text.find(CLOSE, pos + 2, limit)
    if close < 0:
        return None
    reopen = text.find(OPEN, pos + 2, close)
    return None if reopen >= 0 else close + 2


def scan(
    text: str, path: str, locate: Locate | None = None, start: int = 0, end: int | None = None
) -> Iterator[Found]:
    """Every shortcode in ``text[start:end]``, valid or not, in order."""
    locate = locate or LineIndex(text)
    end = len(text) if end is None else end
    pos = text.find(OPEN, start, end)
    while pos >= 0:
        if not is_opening(text, pos):
            pos = text.find(OPEN, pos + 1, end)
            continue
        stop = find_end(text, pos, end)
        if stop is None:
            yield unterminated(text, pos, path, locate)
            stop = pos + 2
        else:
            yield parse_one(text[pos:stop], path, lambda i, p=pos: locate(p + i), pos)
        pos = text.find(OPEN, stop, end)


def unterminated(text: str, pos: int, path: str, locate: Locate) -> Found:
    line, col = locate(pos)
    message = (
        "unterminated shortcode: close it with '%>' (it cannot span a second '<%'"
        " or, in Markdown, a blank line), or write '\\<%' for a literal '<%'"
    )
    return Found(pos, pos + 2, OPEN, None, (Problem(path, line, col, message),))


def parse(text: str, path: str = "<string>", *, start_line: int = 1) -> ParseResult:
    """Split ``text`` into literal text (``\\<%`` as ``<%``) and shortcodes; every problem."""
    segments: list[str | Shortcode] = []
    problems: list[Problem] = []
    literal, pos = "", 0
    for found in scan(text, path, LineIndex(text, start_line)):
        literal += text[pos : found.start].replace("\\<%", OPEN)
        if found.shortcode is None:
            literal += found.source
        else:
            segments += [literal, found.shortcode] if literal else [found.shortcode]
            literal = ""
        problems.extend(found.problems)
        pos = found.end
    literal += text[pos:].replace("\\<%", OPEN)
    return ParseResult([*segments, literal] if literal else segments, problems)


# -- one shortcode ----------------------------------------------------------------------------


class _Token(NamedTuple):
    kind: str  # "word" | "quoted" | "eq"
    value: str
    offset: int
    spaced: bool  # whitespace (or the name) comes right before it
    key: str | None = None  # key=value: one token (a part, once grouped)
    start: int = 0  # where the token starts: its key's offset, else its own


# A token after any whitespace, perhaps after ``key=``: a quoted value (a backslash escapes its
# quote and itself; an unclosed one runs to the end), '=', or a word (anything else up to
# whitespace, a quote or '=').
_TOKEN = re.compile(
    r"(\s*)"
    r"(?:([^\s\"'=]+)=(?=[^\s=]))?"
    r'(?:"((?:\\["\\]|[^"])*)(")?'
    r"|'((?:\\['\\]|[^'])*)(')?"
    r"|(=)"
    r"|([^\s\"'=]+))"
)
_ESCAPE = {'"': re.compile(r'\\(["\\])'), "'": re.compile(r"\\(['\\])")}

_Parts = tuple[str, int, str | None, tuple[tuple[str, str], ...]]
_Issues = tuple[tuple[int, str], ...]


def parse_one(source: str, path: str, locate: Locate, start: int = 0) -> Found:
    """Parse one complete ``<% ... %>``; offsets given to ``locate`` are within ``source``."""
    parts, issues = _read(source)
    end = start + len(source)
    if parts is None:
        problems = sorted(Problem(path, *locate(offset), message) for offset, message in issues)
        return Found(start, end, source, None, tuple(problems))
    line, col = locate(0)
    return Found(start, end, source, Shortcode(*parts, Location(path, line, col), source), ())


# Sites repeat the same shortcode text on many pages: each text is read once. A large site has
# over 10,000 different texts; an entry is a few hundred bytes.
@lru_cache(maxsize=65536)
def _read(source: str) -> tuple[_Parts | None, _Issues]:
    """The shortcode's parts, or None and its problems as (offset in ``source``, message)."""
    issues: list[tuple[int, str]] = []

    def problem(offset: int, message: str) -> None:
        issues.append((offset, message))

    parts = _group(_lex(source, problem), problem)
    first = parts[0] if parts else None
    if (
        first is None
        or first.key is not None
        or first.kind == "quoted"
        or not NAME.match(first.value)
    ):
        problem(
            0,
            "expected a shortcode name after '<%': write <% media_image ID %> or"
            " <% media_video ID %>",
        )
        return None, tuple(issues)
    shortcode = _interpret(parts, problem)
    return (None if issues else shortcode), tuple(issues)


def _lex(source: str, problem: Callable[[int, str], None]) -> list[_Token]:
    tokens: list[_Token] = []
    for match in _TOKEN.finditer(source, 2, len(source) - 2):
        space, key, double, double_end, single, single_end, eq, word = match.groups()
        spaced = bool(space) or not tokens
        i = start = match.start() + len(space)
        if key is not None:
            _check_word(key, i, problem)
            i += len(key) + 1
            if tokens and tokens[-1].kind == "eq":  # "k =v=w": v is k's value, not a key
                tokens.append(_Token("word", key, start, spaced, None, start))
                tokens.append(_Token("eq", "=", i - 1, False, None, i - 1))
                key, spaced, start = None, False, i
        if word is not None:
            _check_word(word, i, problem)
            kind, value = "word", word
        elif eq:
            kind, value = "eq", eq
        else:
            kind, quote = "quoted", source[i]
            value = double if double is not None else single
            if not (double_end or single_end):
                problem(i, f"unclosed quote: add the closing {quote} (a value cannot hold '%>')")
            if "\\" in value:
                value = _ESCAPE[quote].sub(r"\1", value)
        tokens.append(_Token(kind, value, i, spaced, key, start))
    return tokens


def _check_word(word: str, offset: int, problem: Callable[[int, str], None]) -> None:
    bad = NOT_BAREWORD.search(word)
    if bad:
        problem(
            offset + bad.start(),
            f"unexpected character {bad.group()!r}: put values that hold it in quotes,"
            ' like alt="..."',
        )


def _group(tokens: list[_Token], problem: Callable[[int, str], None]) -> list[_Token]:
    """Tokens into parts: ``value`` or ``key=value`` (one token with its key)."""
    parts: list[_Token] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.kind == "eq":
            problem(tok.offset, "'=' needs a key before it: write key=value")
            i += 1
            continue
        if tok.key is None and i + 1 < n and tokens[i + 1].kind == "eq":
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
                parts.append(value._replace(spaced=tok.spaced, key=tok.value, start=tok.offset))
            i += 3
        else:  # a value, or key=value written together
            parts.append(tok)
            i += 1
        if i < n and not tokens[i].spaced and tokens[i].kind != "eq":
            problem(
                tokens[i].start, "missing space: separate the parts of a shortcode with whitespace"
            )
    return parts


_TAKES = {
    IMAGE: "media_image takes ID and FORMAT, then key=value options",
    VIDEO: "media_video takes no FORMAT, only key=value options (embed, title, lang, load)",
    URL: "media_url takes ID and FORMAT (and the custom-crop keys)",
}


def _interpret(parts: list[_Token], problem: Callable[[int, str], None]) -> _Parts | None:
    name = parts[0].value
    positional: list[_Token] = []
    options: list[_Token] = []
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
    takes_format = name in (IMAGE, URL)
    fmt = positional[1].value if takes_format and len(positional) > 1 else None
    for extra in positional[2 if takes_format else 1 :]:
        if name in _TAKES:
            problem(extra.offset, f"unexpected {extra.value!r}: {_TAKES[name]}")
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
            offset = part.start if issue.at_key else part.offset
        else:
            offset = where[issue.where]
        problem(offset, issue.message)
    if issues or file_id is None:
        return None
    return name, int(file_id), fmt, tuple(pairs)
