"""The parser (pure; no I/O).

::

    <% media_image ID [FORMAT] [key=value ...] %>
    <% media_video ID [key=value ...] %>

A shortcode starts at ``<%`` followed by whitespace or a letter (so ERB-style ``<%=``,
``<%-``, ``<%#`` stay text) and runs to the first ``%>``; a second ``<%`` before that
leaves the first one unterminated. ``\\<%`` is a literal ``<%``. Every problem of a text
is collected, each with the line and column of the part that is wrong.

The adapters (``markdown``, ``jinja``, ``htmltext``) share :func:`scan` and
:func:`~.writing.build`; :func:`parse` is the whole-text convenience on top of them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from ..errors import Problem
from .model import (
    CLOSE,
    IMAGE,
    KEYS,
    NAME,
    NOT_BAREWORD,
    OPEN,
    VIDEO,
    WORD,
    Found,
    Locate,
    Location,
    ParseResult,
    Shortcode,
)
from .validation import check


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
    text: str,
    path: str,
    locate: Locate | None = None,
    start: int = 0,
    end: int | None = None,
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


def unescape_literal(text: str) -> str:
    """Literal text as shown: ``\\<%`` becomes ``<%``."""
    return text.replace("\\" + OPEN, OPEN)


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
    if first is None or first.key is not None or first.quoted or not NAME.match(first.value):
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
            word = WORD.match(source, i, end)
            assert word is not None  # any other character starts a word
            bad = NOT_BAREWORD.search(word.group())
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
                " only key=value options (embed, title, lang, load)",
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
