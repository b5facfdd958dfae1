"""Shortcodes inside HTML (raw HTML blocks, a CMS's rich text), pure: found in text only.

In an attribute, a comment or a ``pre``/``code``/``script``/``style``/``textarea`` element a
shortcode is left alone (expanding it would break the markup, or expand what the author
quoted). Rich-text editors save shortcodes HTML-escaped; ``escaped=True`` finds those too.
A generator's typographer (Goldmark, kramdown, markdown-it's) makes a shortcode's quotes
curly and its ``--``/``...`` dashes and ellipses; ``typographic=True`` reads them back.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from .model import Found, Locate
from .parser import LineIndex, find_end, is_opening, scan

__all__ = [
    "HTML_TAG",
    "SKIPPED_ELEMENTS",
    "element_end",
    "end_of",
    "escaped_openings",
    "find_in_html",
    "outside",
    "splice",
    "text_ranges",
]

SKIPPED_ELEMENTS = ("pre", "code", "script", "style", "textarea", "title")

# A tag: its attributes may hold '>' inside quotes. Alternatives start with distinct
# characters, so matching stays linear.
HTML_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)(?:[^>\"']|\"[^\"]*\"|'[^']*')*>")
_LT = re.compile("<%?")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Inside a shortcode: a typographer's characters back to what the author typed; a curly
# single quote between two letters or digits is an apostrophe, and stays.
_TYPOGRAPHIC = re.compile(
    "[\u201c\u201d\u2013\u2014\u2026]|(?<!\\w)[\u2018\u2019]|[\u2018\u2019](?!\\w)"
)
_TYPED = {"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u2013": "--"}
_TYPED |= {"\u2014": "---", "\u2026": "..."}
_ESCAPED_OPENING = re.compile(r"\\(?=<%|&lt;%|&#0*60;%|&#[xX]0*3[cC];%)", re.IGNORECASE)


def text_ranges(html: str) -> Iterator[tuple[int, int]]:
    """The (start, end) ranges of ``html`` that are text, outside markup and code."""
    return outside(html, _LT, lambda match: _markup_end(html, match.start()))


def outside(
    text: str,
    opening: re.Pattern[str],
    construct_end: Callable[[re.Match[str]], int | None],
    *,
    any_shortcode: bool = True,
) -> Iterator[tuple[int, int]]:
    """The ranges of ``text`` outside the constructs ``opening`` finds (``construct_end``:
    where one ends; None: it is none). A shortcode is text: it is jumped over, so a tag in
    one of its values is no construct (``any_shortcode=False``: only a real opening)."""
    pos = text_start = 0
    while (match := opening.search(text, pos)) is not None:
        i = match.start()
        if match.group() == "<%":
            shortcode = any_shortcode or is_opening(text, i)
            pos = (find_end(text, i) or i + 2) if shortcode else i + 2
            continue
        end = construct_end(match)
        if end is None:
            pos = i + 1
            continue
        if i > text_start:
            yield text_start, i
        pos = text_start = max(end, i + 1)
    if text_start < len(text):
        yield text_start, len(text)


def _markup_end(html: str, i: int) -> int | None:
    """End of the comment, declaration or tag at ``i`` (with a skipped element's content)."""
    if html.startswith("<!--", i):
        return end_of(html, "-->", i + 4)
    tag = HTML_TAG.match(html, i)
    if tag is None:
        return end_of(html, ">", i) if html.startswith(("<!", "<?"), i) else None
    name = tag.group(2).lower()
    if tag.group(1) or name not in SKIPPED_ELEMENTS or tag.group().endswith("/>"):
        return tag.end()
    return element_end(html, name, tag.end())


def end_of(text: str, needle: str, pos: int) -> int:
    """Where the first ``needle`` from ``pos`` ends; the text's end when there is none."""
    found = text.find(needle, pos)
    return len(text) if found < 0 else found + len(needle)


def element_end(html: str, name: str, pos: int) -> int:
    """The end of element ``name``'s closing tag from ``pos`` (case-blind), else of ``html``."""
    close = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(html, pos)
    return len(html) if close is None else close.end()


def find_in_html(
    html: str,
    path: str,
    locate: Locate | None = None,
    *,
    escaped: bool = True,
    typographic: bool = False,
) -> Iterator[Found]:
    """Every shortcode in the text of ``html``; offsets are into ``html``."""
    locate = locate or LineIndex(html)
    for start, end in text_ranges(html):
        if not (escaped and "&" in html[start:end]) and not typographic:
            yield from scan(html, path, locate, start, end)
            continue
        text, offsets = html[start:end], [*range(start, end + 1)]
        if escaped:
            text, offsets = _rewritten(text, offsets, _ENTITY.finditer(text), htmllib.unescape)
        if typographic:
            text, offsets = _rewritten(text, offsets, _typographic(text), _TYPED.__getitem__)
        for found in scan(text, path, lambda i, o=offsets: locate(o[i])):
            yield replace(found, start=offsets[found.start], end=offsets[found.end])


def _rewritten(
    text: str, offsets: list[int], matches: Iterable[re.Match[str]], new: Callable[[str], str]
) -> tuple[str, list[int]]:
    """``text`` with each match replaced by ``new(match)``, and the offset in the HTML of
    each character (the one after the last too)."""
    out: list[str] = []
    kept: list[int] = []
    pos = 0
    for match in matches:
        out.append(text[pos : match.start()])
        kept.extend(offsets[pos : match.start()])
        replaced = new(match.group())
        out.append(replaced)
        kept.extend([offsets[match.start()]] * len(replaced))
        pos = match.end()
    out.append(text[pos:])
    kept.extend(offsets[pos:])
    return "".join(out), kept


def _typographic(text: str) -> Iterator[re.Match[str]]:
    """The typographer's characters inside each shortcode of ``text``."""
    pos = 0
    for opening in _LT.finditer(text):
        i = opening.start()
        if i < pos or not is_opening(text, i) or (stop := find_end(text, i)) is None:
            continue
        for char in _TYPOGRAPHIC.finditer(text, i, stop):
            yield char
            pos = char.end()


def escaped_openings(html: str) -> list[int]:
    """Offsets of the backslashes of ``\\<%`` (raw or HTML-escaped) in the text of ``html``."""
    return [
        m.start()
        for start, end in text_ranges(html)
        for m in _ESCAPED_OPENING.finditer(html, start, end)
    ]


def splice(html: str, replacements: Iterable[tuple[int, int, str]]) -> str:
    """``html`` with each (start, end) range replaced; ranges are in order, not overlapping."""
    out: list[str] = []
    pos = 0
    for start, end, text in replacements:
        out.append(html[pos:start])
        out.append(text)
        pos = end
    out.append(html[pos:])
    return "".join(out)
