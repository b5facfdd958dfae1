"""Where a shortcode sits in the Markdown structure and in the file (lines and columns,
front matter included), and the plugin's token and ``env`` names.

A shortcode written as a link's or image's destination warns; a block shortcode (a video, a
captioned image) inside a paragraph's text splits the paragraph, or warns where no split can
be exact."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from markdown_it.token import Token

from ..errors import Problem
from ..language import Found, LineIndex, Shortcode
from ..language.htmltext import HTML_TAG

ENV_KEY = "mediashortcodes"
TOKEN = "media_shortcode"
BLOCK_TOKEN = "media_shortcode_block"
BLOCK = "mediashortcodes_block"  # paragraph meta: the paragraph holds only shortcodes
FOUND = "mediashortcodes_found"  # html_block meta: the shortcodes in its text

_SHORTCODE_DESTINATION = re.compile(r"%25(?:%20)*media_(?:image|video)\b")
_DESTINATION_OPENING = re.compile(r"\]\(\s*<%")  # where such a destination is written
_NO_DESTINATION = (
    "a shortcode cannot be a link's or an image's destination (it becomes a broken URL); "
    "write the shortcode on its own, or link to a page that shows the file"
)


# Where the HTML of a block shortcode (a figure, a video player) is invalid: inside these
# inline elements (Markdown's and raw HTML's), and in headings. "a link" in the message,
# "the link" in its advice.
INSIDE = {
    "a": ("a link", "link"),
    "em": ("emphasis", "emphasis"),
    "strong": ("strong emphasis", "strong emphasis"),
    "s": ("strikethrough", "strikethrough"),
}
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
BLANK = " \t\n"


class SourceLines:
    """The document's lines, and how far inline tokens already reached on each line."""

    def __init__(self, src: str, start_line: int) -> None:
        self.src = src
        self.start_line = start_line
        self.cursors: dict[int, int] = {}

    @cached_property  # only for shortcodes inside paragraphs and HTML: most pages have none
    def lines(self) -> list[str]:
        return self.src.split("\n")

    def find(self, index: int, text: str) -> int:
        """Column (0-based) of ``text`` on line ``index``, after earlier cells of that line."""
        if not 0 <= index < len(self.lines):
            return -1
        line = self.lines[index]
        cursor = self.cursors.get(index, 0)
        col = line.find(text, cursor)
        if col < 0:
            col = line.find(text)
        if col >= 0:
            self.cursors[index] = max(cursor, col + len(text))
        return col


class Locator:
    """Offsets in an inline or HTML block token's content to (line, col) in the file: each
    content line (markers, ``>`` and indentation stripped; a table cell) found on its line."""

    def __init__(self, source: SourceLines, token: Token) -> None:
        self.source = source
        self.content = token.content
        self.first = token.map[0] if token.map else None
        self.index = LineIndex(self.content)
        self.cols: dict[int, int] = {}

    def __call__(self, offset: int) -> tuple[int, int]:
        j, col = self.index.split(offset)
        if self.first is None:
            return self.source.start_line + j, col + 1
        return self.source.start_line + self.first + j, self._line_col(j) + col + 1

    def advance(self) -> None:
        """Claim this token's place on its first line, so a later table cell is found after it."""
        if self.first is not None:
            self._line_col(0)

    def _line_col(self, j: int) -> int:
        if j not in self.cols:
            starts = self.index.starts
            end = starts[j + 1] - 1 if j + 1 < len(starts) else len(self.content)
            text = self.content[starts[j] : end].rstrip()
            found = self.source.find(self.first + j, text) if text and self.first is not None else 0
            self.cols[j] = max(found, 0)
        return self.cols[j]

    def shortcode_start(self, offset: int, source: str) -> tuple[int, int]:
        """Where ``source`` (a shortcode at ``offset``) starts, checked against the file."""
        line, col = self(offset)
        if self.first is None:
            return line, col
        index = line - self.source.start_line
        lines = self.source.lines
        text = lines[index] if 0 <= index < len(lines) else ""
        head = source.split("\n", 1)[0]
        found = col - 1 if text.startswith(head, col - 1) else text.find(head)
        return (line, found + 1) if found >= 0 else (line, col)


def check_destination(
    child: Token,
    content: str,
    before: int,
    path: str,
    locate: Locator,
    warnings: list[Problem],
) -> bool:
    """Warn about a shortcode used as a destination (it would be published as a broken URL);
    ``before`` such destinations came earlier in ``content``. True when it warned."""
    target = child.attrs.get("href" if child.type == "link_open" else "src")
    if not isinstance(target, str) or not _SHORTCODE_DESTINATION.match(target):
        return False
    found = [m.end() - 2 for m in _DESTINATION_OPENING.finditer(content)]
    line, col = locate(found[before] if before < len(found) else 0)
    warnings.append(Problem(path, line, col, _NO_DESTINATION))
    return True


def check_references(
    references: Any, lines: SourceLines, path: str, warnings: list[Problem]
) -> None:
    """The same for a reference definition, ``[photo]: <% media_image 1 %>``."""
    for reference in (references or {}).values():
        target, where = reference.get("href"), reference.get("map")
        if isinstance(target, str) and where and _SHORTCODE_DESTINATION.match(target):
            index = where[0]
            text = lines.lines[index] if index < len(lines.lines) else ""
            col = max(text.find("<%"), 0) + 1
            warnings.append(Problem(path, lines.start_line + index, col, _NO_DESTINATION))


def block_kind(found: Found | None) -> str | None:
    """What a shortcode is when its HTML is a block element (as the bundled templates make
    it: a video's ``<div>``, a captioned image's ``<figure>``; else an inline ``<img>``)."""
    shortcode = found.shortcode if found is not None else None
    if shortcode is None:
        return None
    if shortcode.is_video:
        return "a video player is a block"
    if shortcode.option("caption"):
        return "an image with a caption is a block (<figure>)"
    return None


def place_blocks(tokens: list[Token], with_blocks: list[int], warnings: list[Problem]) -> None:
    """Split paragraphs around their block shortcodes; warn where that cannot be done (the
    decision: docs/shortcodes.md, *Block shortcodes in inline text*)."""
    splits: dict[int, list[int]] = {}
    for i in with_blocks:
        at = _check_blocks(tokens, i, warnings)
        if at:
            splits[i] = at
    if not splits:
        return
    result: list[Token] = []
    done = 0
    for i, at in splits.items():  # in document order: with_blocks is
        result.extend(tokens[done : i - 1])
        result.extend(_split(tokens[i - 1], tokens[i], tokens[i + 1], at))
        done = i + 2
    result.extend(tokens[done:])
    tokens[:] = result


def _check_blocks(tokens: list[Token], i: int, warnings: list[Problem]) -> list[int]:
    """The children of ``tokens[i]`` to split its paragraph at; warns about the others."""
    inline, opening = tokens[i], tokens[i - 1] if i else None
    children = inline.children or []
    paragraph = opening is not None and opening.type == "paragraph_open" and not opening.hidden
    splittable = paragraph and not _only_shortcodes(children)  # else it renders as blocks
    heading = opening is not None and opening.tag in HEADINGS
    # Open inline elements: (raw HTML's tag, or None for Markdown's, where, noun).
    inside: list[tuple[str | None, str, str]] = []
    at: list[int] = []
    for k, child in enumerate(children):
        if child.nesting == 1:
            where, noun = INSIDE.get(child.tag) or (f"<{child.tag}>", f"<{child.tag}>")
            inside.append((None, where, noun))
        elif child.nesting == -1:
            _close(inside, None)
        elif child.type == "html_inline":
            _follow_html(child.content, inside)
        elif child.type == TOKEN:
            found: Found | None = child.meta.get("found")
            kind = block_kind(found)
            if kind is None or found is None or found.shortcode is None:
                continue
            if inside:
                _warn(warnings, found.shortcode, kind, inside[-1][1], inside[-1][2])
            elif heading:
                _warn(warnings, found.shortcode, kind, "a heading", "heading")
            elif splittable:
                at.append(k)
    return at


def _follow_html(tag: str, inside: list[tuple[str | None, str, str]]) -> None:
    """Keep ``inside`` up to date with an inline HTML tag (comments and the like: no change)."""
    match = HTML_TAG.match(tag)
    if match is None:
        return
    name = f"<{match.group(2).lower()}>"
    if match.group(1):
        _close(inside, name)
    elif match.group(2).lower() not in VOID and not tag.rstrip().endswith("/>"):
        inside.append((name, name, name))


def _close(inside: list[tuple[str | None, str, str]], tag: str | None) -> None:
    """Forget the innermost open element with that raw HTML tag (None: Markdown's)."""
    for j in range(len(inside) - 1, -1, -1):
        if inside[j][0] == tag:
            del inside[j]
            return


def _warn(warnings: list[Problem], shortcode: Shortcode, kind: str, where: str, noun: str) -> None:
    advice = f"move the shortcode out of the {noun}, onto a line of its own"
    if shortcode.is_image:
        advice += ", or drop caption= to get an inline <img>"
    loc = shortcode.location
    message = (
        f"{kind} and cannot be inside {where} "
        f"(invalid HTML: browsers break the page apart there); {advice}"
    )
    warnings.append(Problem(loc.path, loc.line, loc.col, message))


def _split(opening: Token, inline: Token, closing: Token, at: list[int]) -> list[Token]:
    """The paragraph as paragraphs of its text between the blocks, and one per block
    (rendered without ``<p>``: see ``mark_blocks``); whitespace and breaks next to a block go."""
    children = inline.children or []
    result: list[Token] = []
    start, begin = 0, 0  # the piece's first child, and its offset in the inline content
    for k in [*at, len(children)]:
        if k < len(children):
            block = children[k]
            end = block.meta["offset"]
            after = end + len(block.content)
        else:
            end = after = len(inline.content)
        piece = _trimmed(children[start:k])
        if piece:
            result += _paragraph(opening, inline, closing, piece, begin, end)
        if k < len(children):
            result += _paragraph(opening, inline, closing, [children[k]], end, after)
        start, begin = k + 1, after
    return result


def _trimmed(children: list[Token]) -> list[Token]:
    kept = [
        k
        for k, child in enumerate(children)
        if child.type not in ("softbreak", "hardbreak")
        and (child.type != "text" or child.content.strip(BLANK))
    ]
    piece = children[kept[0] : kept[-1] + 1] if kept else []
    if piece and piece[0].type == "text":
        piece[0].content = piece[0].content.lstrip(BLANK)
    if piece and piece[-1].type == "text":
        piece[-1].content = piece[-1].content.rstrip(BLANK)
    return piece


def _paragraph(
    opening: Token, inline: Token, closing: Token, children: list[Token], begin: int, end: int
) -> list[Token]:
    """A paragraph of ``children``: the part ``begin:end`` of ``inline``'s content."""
    content = inline.content[begin:end]
    begin += len(content) - len(content.lstrip(BLANK))
    content = content.strip(BLANK)
    lines = None
    if inline.map:
        first = inline.map[0] + inline.content.count("\n", 0, begin)
        lines = [first, first + content.count("\n") + 1]
    return [
        opening.copy(attrs=dict(opening.attrs), map=lines, meta=dict(opening.meta)),
        inline.copy(content=content, children=children, map=lines, meta=dict(inline.meta)),
        closing.copy(attrs=dict(closing.attrs), meta=dict(closing.meta)),
    ]


def mark_blocks(tokens: list[Token]) -> None:
    """Mark paragraphs that hold only shortcodes: they render as blocks, without ``<p>``."""
    for i in range(len(tokens) - 2):
        opening, inline, closing = tokens[i], tokens[i + 1], tokens[i + 2]
        if (
            opening.type == "paragraph_open"
            and inline.type == "inline"
            and closing.type == "paragraph_close"
            and _only_shortcodes(inline.children or [])
        ):
            opening.meta[BLOCK] = closing.meta[BLOCK] = True


def _only_shortcodes(children: list[Token]) -> bool:
    seen = False
    for child in children:
        if child.type == TOKEN:
            seen = True
        elif child.type in ("softbreak", "hardbreak"):
            continue
        elif child.type != "text" or child.content.strip():
            return False
    return seen
