"""markdown-it-py plugin: shortcodes in Markdown, with their real positions in the file.

::

    md = MarkdownIt("commonmark").use(shortcodes_plugin)
    env = {"mediashortcodes": {"path": "content/post.md", "start_line": 4}}
    html = md.render(text, env)
    env["mediashortcodes"]["shortcodes"], env["mediashortcodes"]["problems"]
    env["mediashortcodes"]["warnings"]

An inline rule only finds where a shortcode ends, so code spans, code blocks and backslash
escapes keep their meaning; a core rule then parses each one and maps its offsets back to
lines and columns of the source. Rendering is separate: without a renderer a shortcode
shows as its own (escaped) text, so nothing needs the network.

Shortcodes are also expanded in the text of raw HTML blocks (a ``<div>`` around images),
but not in attributes, comments, or ``pre``/``code``/``script``/``style``/``textarea``.

A top-level paragraph of one line holding one shortcode, the commonest case, is claimed by a
block rule as a single ``media_shortcode_block`` token, the same as a one-shortcode paragraph
in output and records; it skips the other block rules and the inline parser, which cost a
shortcode-heavy site more than all the rest of the plugin (profiled on the benchmarks).

A shortcode that renders as a block element (a video player, an image with a caption: a
``<figure>``) but is written inside a paragraph's text splits the paragraph around it, so the
HTML stays valid; where no split can be exact (in a heading, a link, emphasis, an inline HTML
element) it renders where it is and a warning at its place tells the author to move it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from .errors import Problem
from .language import (
    Found,
    Location,
    Shortcode,
    ShortcodeRenderer,
    find_end,
    is_opening,
    parse_one,
    simple_shortcode,
    unterminated,
)
from .language.htmltext import find_in_html, splice

__all__ = ["ENV_KEY", "shortcodes_plugin"]

ENV_KEY = "mediashortcodes"
TOKEN = "media_shortcode"
BLOCK_TOKEN = "media_shortcode_block"
_BLOCK = "mediashortcodes_block"  # paragraph meta: the paragraph holds only shortcodes
_FOUND = "mediashortcodes_found"  # html_block meta: the shortcodes in its text
_LONE_TOKENS = "_lone_tokens"  # env data while parsing: the block rule's tokens, in order

# Where the HTML of a block shortcode (a figure, a video player) is invalid: inside these
# inline elements (Markdown's and raw HTML's), and in headings. "a link" in the message,
# "the link" in its advice.
_INSIDE = {
    "a": ("a link", "link"),
    "em": ("emphasis", "emphasis"),
    "strong": ("strong emphasis", "strong emphasis"),
    "s": ("strikethrough", "strikethrough"),
}
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_HTML_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_BLANK = " \t\n"


def shortcodes_plugin(md: MarkdownIt, *, renderer: ShortcodeRenderer | None = None) -> None:
    """Parse ``<% ... %>`` shortcodes; render them with ``renderer`` when one is given.

    Per document, ``env["mediashortcodes"]`` takes ``path`` (default "<string>"),
    ``start_line`` (the file line of the text's first line, default 1) and optionally
    ``renderer`` (overrides the plugin's); after parsing it holds ``shortcodes`` (in
    document order), ``problems`` and ``warnings``: a ``Problem`` for each block shortcode (a
    video, a captioned image) inside a heading, a link, emphasis or an inline HTML element,
    where its HTML is invalid; a builder prints them as ``path:line:col: warning: message``.
    """
    md.inline.ruler.before("autolink", TOKEN, _shortcode_rule)
    md.block.ruler.before(md.block.ruler.get_all_rules()[0], BLOCK_TOKEN, _block_rule)
    md.core.ruler.before("block", f"{TOKEN}_begin", _begin)
    md.core.ruler.after("inline", TOKEN, _collect)

    def renderer_for(env: EnvType) -> ShortcodeRenderer | None:
        data = env.get(ENV_KEY) if isinstance(env, dict) else None
        chosen = data.get("renderer") if isinstance(data, dict) else None
        return chosen or renderer

    default_open = _previous(md, "paragraph_open")
    default_close = _previous(md, "paragraph_close")
    default_html_block = _previous(md, "html_block")

    def render_shortcode(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        chosen = renderer_for(env)
        found = token.meta.get("found")
        if chosen is None or found is None:
            return escapeHtml(token.content)
        return _render_found(chosen, found)

    def render_block(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        chosen = renderer_for(env)
        shortcode = token.meta.get("shortcode")
        if chosen is not None and shortcode is not None:
            return chosen.render(shortcode) + "\n"
        found = token.meta.get("found")
        if chosen is None or found is None:
            return f"<p>{escapeHtml(token.content)}</p>\n"
        return _render_found(chosen, found) + "\n"

    def paragraph_open(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        if _is_block(tokens[idx]) and renderer_for(env) is not None:
            return ""
        return default_open(self, tokens, idx, options, env)

    def paragraph_close(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        if _is_block(tokens[idx]) and renderer_for(env) is not None:
            return "\n"
        return default_close(self, tokens, idx, options, env)

    def html_block(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        chosen = renderer_for(env)
        founds: list[Found] = token.meta.get(_FOUND) or []
        if chosen is None or not founds:
            return default_html_block(self, tokens, idx, options, env)
        return splice(token.content, ((f.start, f.end, _render_found(chosen, f)) for f in founds))

    md.add_render_rule(TOKEN, render_shortcode)
    md.add_render_rule(BLOCK_TOKEN, render_block)
    md.add_render_rule("paragraph_open", paragraph_open)
    md.add_render_rule("paragraph_close", paragraph_close)
    md.add_render_rule("html_block", html_block)


def _previous(md: MarkdownIt, name: str) -> Callable[..., str]:
    """The render rule in place before ours (another plugin's, or the default)."""
    rule = md.renderer.rules.get(name)
    if rule is None:
        return lambda self, tokens, idx, options, env: self.renderToken(tokens, idx, options, env)
    return lambda self, tokens, idx, options, env: rule(tokens, idx, options, env)


def _is_block(token: Token) -> bool:
    return bool(token.meta.get(_BLOCK)) and not token.hidden


def _render_found(renderer: ShortcodeRenderer, found: Found) -> str:
    if found.shortcode is not None:
        return renderer.render(found.shortcode)
    return "".join(renderer.problem(p) for p in found.problems)


# -- parsing ----------------------------------------------------------------------------------


def _shortcode_rule(state: StateInline, silent: bool) -> bool:
    """Claim ``<% ... %>`` as one token, so nothing inside it is read as Markdown."""
    pos = state.pos
    if state.src[pos] != "<" or not is_opening(state.src, pos, escapable=False):
        return False
    end = find_end(state.src, pos, state.posMax)
    stop = pos + 2 if end is None else end
    if not silent:
        token = state.push(TOKEN, "", 0)
        token.content = state.src[pos:stop]
        token.meta = {"offset": pos, "terminated": end is not None}
    state.pos = stop
    return True


# A line that is one shortcode, closed by the first "%>", with nothing but blanks after it:
# what is_opening and find_end accept, in one match (the rule's commonest case).
_LONE_LINE = re.compile(r"(<%(?:[^\S\n]|[^\W\d])(?:(?!<%|%>)[^\n])*%>)[ \t]*(?=\n|\Z)")


def _block_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Claim a top-level line that is one complete shortcode followed by a blank line.

    Anything else (nested blocks, several shortcodes, text around it, a shortcode over
    several lines) is left to the paragraph and inline rules, which handle it all.
    """
    if state.level or state.blkIndent or state.sCount[start] >= 4:
        return False
    src = state.src
    pos = state.bMarks[start] + state.tShift[start]
    if not src.startswith("<%", pos):
        return False
    if start + 1 < end and not state.isEmpty(start + 1):
        return False
    line_end = state.eMarks[start]
    match = _LONE_LINE.match(src, pos, line_end)
    if match is not None:
        stop = match.end(1)
    else:
        if not is_opening(src, pos, escapable=False):
            return False
        found_stop = find_end(src, pos, line_end)
        if found_stop is None or src[found_stop:line_end].strip():
            return False
        stop = found_stop
    if not silent:
        token = state.push(BLOCK_TOKEN, "", 0)
        token.content = src[pos:stop]
        token.map = [start, start + 1]
        token.meta = {"col": pos - state.bMarks[start]}
        state.env[ENV_KEY][_LONE_TOKENS].append(token)  # the list _begin put there
    state.line = start + 1
    return True


def _begin(state: StateCore) -> None:
    """Give the block rule a list for the lone lines' tokens of this document."""
    data = state.env.get(ENV_KEY)
    if not isinstance(data, dict):
        data = state.env[ENV_KEY] = {}
    data[_LONE_TOKENS] = []


def _collect(state: StateCore) -> None:
    """Parse every shortcode token with its real position; record them in ``env``."""
    data = state.env.setdefault(ENV_KEY, {})
    path = str(data.get("path", "<string>"))
    start_line = int(data.get("start_line", 1))
    shortcodes: list[Shortcode] = []
    problems: list[Problem] = []
    warnings: list[Problem] = []
    data["shortcodes"], data["problems"], data["warnings"] = shortcodes, problems, warnings
    lone: list[Token] = data.pop(_LONE_TOKENS, [])
    if "<%" not in state.src:
        return
    if state.src.count("<%") == len(lone):
        # Every "<%" opens a lone line's shortcode (the commonest page): those tokens are
        # all there is to parse, in order, without walking every token of the page.
        for token in lone:
            _collect_lone(token, path, start_line, shortcodes, problems)
        return
    lines = _SourceLines(state.src, start_line)
    _check_references(state.env.get("references"), lines, path, warnings)
    in_paragraphs = False  # a shortcode in an inline token; lone lines are block tokens
    with_blocks: list[int] = []  # inline tokens holding a block shortcode (a figure, a video)
    for i, token in enumerate(state.tokens):
        if token.type == "inline" and token.children:
            if "<%" not in token.content:
                continue  # nothing to find, and no text a later table cell could be taken for
            in_paragraphs = True
            locate = lines.locator(token)
            locate.advance()
            destinations = 0  # shortcodes written as destinations met so far in this token
            for child in token.children:
                if child.type == "image" and child.children:
                    _as_text(child.children)
                if child.type != TOKEN:
                    if child.type in ("link_open", "image") and _check_destination(
                        child, token.content, destinations, path, locate, warnings
                    ):
                        destinations += 1
                    continue
                found = _parse_token(child, path, locate)
                child.meta["found"] = found
                _record(found, shortcodes, problems)
                if _block_kind(found) and (not with_blocks or with_blocks[-1] != i):
                    with_blocks.append(i)
        elif token.type == BLOCK_TOKEN and token.map:
            _collect_lone(token, path, start_line, shortcodes, problems)
        elif token.type == "html_block" and "<%" in token.content:
            founds = list(find_in_html(token.content, path, lines.locator(token), escaped=False))
            token.meta[_FOUND] = founds
            for found in founds:
                _record(found, shortcodes, problems)
    if with_blocks:
        _place_blocks(state.tokens, with_blocks, warnings)
    if in_paragraphs:
        _mark_blocks(state.tokens)


def _collect_lone(
    token: Token, path: str, start_line: int, shortcodes: list[Shortcode], problems: list[Problem]
) -> None:
    line, col = start_line + token.map[0], token.meta["col"] + 1
    shortcode = simple_shortcode(token.content, path, line, col)
    if shortcode is not None:  # the commonest case, without the general parser's Found
        token.meta["shortcode"] = shortcode
        shortcodes.append(shortcode)
        return
    found = _parse_block(token, path, line)
    token.meta["found"] = found
    _record(found, shortcodes, problems)


def _parse_token(token: Token, path: str, locate: _Locator) -> Found:
    offset = token.meta["offset"]
    if not token.meta["terminated"]:
        return unterminated(token.content, 0, path, lambda i: locate(offset + i))
    found = parse_one(token.content, path, lambda i: locate(offset + i))
    shortcode = found.shortcode
    line, col = locate.shortcode_start(offset, token.content)
    if shortcode is not None and (line, col) != (shortcode.location.line, shortcode.location.col):
        # The content did not map onto the source line (tabs, escaped table pipes).
        shortcode = replace(shortcode, location=Location(path, line, col))
        return Found(found.start, found.end, found.source, shortcode, found.problems)
    return found


def _parse_block(token: Token, path: str, line: int) -> Found:
    col = token.meta["col"]
    return parse_one(token.content, path, lambda i: (line, col + i + 1))


def _record(found: Found, shortcodes: list[Shortcode], problems: list[Problem]) -> None:
    if found.shortcode is not None:
        shortcodes.append(found.shortcode)
    problems.extend(found.problems)


def _as_text(tokens: list[Token]) -> None:
    """Shortcodes in an image's alt text stay text: an alt cannot hold an image."""
    for token in tokens:
        if token.type == TOKEN:
            token.type = "text"
        elif token.children:
            _as_text(token.children)


# A shortcode written as a link's or image's destination, `[x](<% media_image 1 %>)`, as
# markdown-it percent-encodes it: "<" opens the destination, the rest is escaped.
_SHORTCODE_DESTINATION = re.compile(r"%25(?:%20)*media_(?:image|video)\b")
_DESTINATION_OPENING = re.compile(r"\]\(\s*<%")  # where such a destination is written
_NO_DESTINATION = (
    "a shortcode cannot be a link's or an image's destination (it becomes a broken URL); "
    "write the shortcode on its own, or link to a page that shows the file"
)


def _check_destination(
    child: Token,
    content: str,
    before: int,
    path: str,
    locate: _Locator,
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


def _check_references(
    references: Any, lines: _SourceLines, path: str, warnings: list[Problem]
) -> None:
    """The same for a reference definition, ``[photo]: <% media_image 1 %>``."""
    for reference in (references or {}).values():
        target, where = reference.get("href"), reference.get("map")
        if isinstance(target, str) and where and _SHORTCODE_DESTINATION.match(target):
            index = where[0]
            text = lines.lines[index] if index < len(lines.lines) else ""
            col = max(text.find("<%"), 0) + 1
            warnings.append(Problem(path, lines.start_line + index, col, _NO_DESTINATION))


def _block_kind(found: Found | None) -> str | None:
    """What a shortcode is when its HTML is a block element (as the bundled templates make it).

    A video's player is a ``<div>`` (iframe wrapper or script embed), a captioned image a
    ``<figure>``; an image without a caption is an inline ``<img>``.
    """
    shortcode = found.shortcode if found is not None else None
    if shortcode is None:
        return None
    if shortcode.is_video:
        return "a video player is a block"
    if shortcode.option("caption"):
        return "an image with a caption is a block (<figure>)"
    return None


def _place_blocks(tokens: list[Token], with_blocks: list[int], warnings: list[Problem]) -> None:
    """Split paragraphs around their block shortcodes; warn where that cannot be done.

    A block is valid HTML directly in a list item (a tight list's hidden paragraph) or a table
    cell; in a shown paragraph, outside any inline element, the paragraph is split around it
    (``<p>before</p>``, the block, ``<p>after</p>``); anywhere else (a heading, a link,
    emphasis, inline HTML) it stays, with a warning.
    """
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
    heading = opening is not None and opening.tag in _HEADINGS
    inside: list[tuple[bool, str, str]] = []  # open inline elements: (raw HTML, where, noun)
    at: list[int] = []
    for k, child in enumerate(children):
        if child.nesting == 1:
            where, noun = _INSIDE.get(child.tag) or (f"<{child.tag}>", f"<{child.tag}>")
            inside.append((False, where, noun))
        elif child.nesting == -1:
            _close(inside, False, None)
        elif child.type == "html_inline":
            _follow_html(child.content, inside)
        elif child.type == TOKEN:
            found: Found | None = child.meta.get("found")
            kind = _block_kind(found)
            if kind is None or found is None or found.shortcode is None:
                continue
            if inside:
                _warn(warnings, found.shortcode, kind, inside[-1][1], inside[-1][2])
            elif heading:
                _warn(warnings, found.shortcode, kind, "a heading", "heading")
            elif splittable:
                at.append(k)
    return at


def _follow_html(tag: str, inside: list[tuple[bool, str, str]]) -> None:
    """Keep ``inside`` up to date with an inline HTML tag (comments and the like: no change)."""
    match = _HTML_TAG.match(tag)
    if match is None:
        return
    name = f"<{match.group(2).lower()}>"
    if match.group(1):
        _close(inside, True, name)
    elif match.group(2).lower() not in _VOID and not tag.rstrip().endswith("/>"):
        inside.append((True, name, name))


def _close(inside: list[tuple[bool, str, str]], html: bool, name: str | None) -> None:
    """Forget the innermost open element of that origin (and name, for raw HTML)."""
    for j in range(len(inside) - 1, -1, -1):
        if inside[j][0] == html and (name is None or inside[j][1] == name):
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
    """The paragraph as paragraphs of its text between the blocks, and one per block.

    Whitespace and line breaks next to a block go: no empty ``<p></p>``, no ``<br />`` at a
    paragraph's end. A block's own paragraph renders without ``<p>`` (see ``_mark_blocks``).
    """
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
    piece = list(children)
    while piece and _blank(piece[0]):
        del piece[0]
    while piece and _blank(piece[-1]):
        del piece[-1]
    if piece and piece[0].type == "text":
        piece[0].content = piece[0].content.lstrip(_BLANK)
    if piece and piece[-1].type == "text":
        piece[-1].content = piece[-1].content.rstrip(_BLANK)
    return piece


def _blank(token: Token) -> bool:
    if token.type in ("softbreak", "hardbreak"):
        return True
    return token.type == "text" and not token.content.strip(_BLANK)


def _paragraph(
    opening: Token, inline: Token, closing: Token, children: list[Token], begin: int, end: int
) -> list[Token]:
    """A paragraph of ``children``: the part ``begin:end`` of ``inline``'s content."""
    content = inline.content[begin:end]
    begin += len(content) - len(content.lstrip(_BLANK))
    content = content.strip(_BLANK)
    lines = None
    if inline.map:
        first = inline.map[0] + inline.content.count("\n", 0, begin)
        lines = [first, first + content.count("\n") + 1]
    return [
        opening.copy(attrs=dict(opening.attrs), map=lines, meta=dict(opening.meta)),
        inline.copy(content=content, children=children, map=lines, meta=dict(inline.meta)),
        closing.copy(attrs=dict(closing.attrs), meta=dict(closing.meta)),
    ]


def _mark_blocks(tokens: list[Token]) -> None:
    """Mark paragraphs that hold only shortcodes: they render as blocks, without ``<p>``."""
    for i in range(len(tokens) - 2):
        opening, inline, closing = tokens[i], tokens[i + 1], tokens[i + 2]
        if (
            opening.type == "paragraph_open"
            and inline.type == "inline"
            and closing.type == "paragraph_close"
            and _only_shortcodes(inline.children or [])
        ):
            opening.meta[_BLOCK] = closing.meta[_BLOCK] = True


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


# -- positions --------------------------------------------------------------------------------


class _SourceLines:
    """The document's lines, and how far inline tokens already reached on each line."""

    def __init__(self, src: str, start_line: int) -> None:
        self.src = src
        self.start_line = start_line
        self.cursors: dict[int, int] = {}

    @cached_property  # only for shortcodes inside paragraphs and HTML: most pages have none
    def lines(self) -> list[str]:
        return self.src.split("\n")

    def locator(self, token: Token) -> _Locator:
        return _Locator(self, token)

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


class _Locator:
    """Offsets in an inline or HTML block token's content to (line, col) in the file.

    Block rules strip list markers, ``>`` and indentation from each line, and table cells
    are parts of a line; each content line is found again on its source line.
    """

    def __init__(self, source: _SourceLines, token: Token) -> None:
        self.source = source
        self.content = token.content
        self.first = token.map[0] if token.map else None
        self.starts = [0]
        newline = self.content.find("\n")
        while newline >= 0:  # str.find, not a loop over characters: this runs for every inline
            self.starts.append(newline + 1)
            newline = self.content.find("\n", newline + 1)
        self.cols: dict[int, int] = {}

    def __call__(self, offset: int) -> tuple[int, int]:
        j = bisect_right(self.starts, offset) - 1
        col = offset - self.starts[j]
        if self.first is None:
            return self.source.start_line + j, col + 1
        return self.source.start_line + self.first + j, self._line_col(j) + col + 1

    def advance(self) -> None:
        """Claim this token's place on its first line, so a later table cell is found after it."""
        if self.first is not None:
            self._line_col(0)

    def _line_col(self, j: int) -> int:
        if j not in self.cols:
            end = self.starts[j + 1] - 1 if j + 1 < len(self.starts) else len(self.content)
            text = self.content[self.starts[j] : end].rstrip()
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
        head = source.split("\n", 1)[0]
        if 0 <= index < len(lines) and lines[index][col - 1 : col - 1 + len(head)] == head:
            return line, col
        found = lines[index].find(head) if 0 <= index < len(lines) else -1
        return (line, found + 1) if found >= 0 else (line, col)
