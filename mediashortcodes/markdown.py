"""markdown-it-py plugin: shortcodes in Markdown, with their real positions in the file.

::

    md = MarkdownIt("commonmark").use(shortcodes_plugin)
    env = {"mediashortcodes": {"path": "content/post.md", "start_line": 4}}
    html = md.render(text, env)
    env["mediashortcodes"]["shortcodes"], env["mediashortcodes"]["problems"]

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
from .htmltext import find_in_html, splice
from .shortcodes import (
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

__all__ = ["ENV_KEY", "shortcodes_plugin"]

ENV_KEY = "mediashortcodes"
TOKEN = "media_shortcode"
BLOCK_TOKEN = "media_shortcode_block"
_BLOCK = "mediashortcodes_block"  # paragraph meta: the paragraph holds only shortcodes
_FOUND = "mediashortcodes_found"  # html_block meta: the shortcodes in its text
_LONE_TOKENS = "_lone_tokens"  # env data while parsing: the block rule's tokens, in order


def shortcodes_plugin(md: MarkdownIt, *, renderer: ShortcodeRenderer | None = None) -> None:
    """Parse ``<% ... %>`` shortcodes; render them with ``renderer`` when one is given.

    Per document, ``env["mediashortcodes"]`` takes ``path`` (default "<string>"),
    ``start_line`` (the file line of the text's first line, default 1) and optionally
    ``renderer`` (overrides the plugin's); after parsing it holds ``shortcodes`` (in
    document order) and ``problems``.
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
    data["shortcodes"], data["problems"] = shortcodes, problems
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
    in_paragraphs = False  # a shortcode in an inline token; lone lines are block tokens
    for token in state.tokens:
        if token.type == "inline" and token.children:
            if "<%" not in token.content:
                continue  # nothing to find, and no text a later table cell could be taken for
            in_paragraphs = True
            locate = lines.locator(token)
            locate.advance()
            for child in token.children:
                if child.type == "image" and child.children:
                    _as_text(child.children)
                if child.type != TOKEN:
                    continue
                found = _parse_token(child, path, locate)
                child.meta["found"] = found
                _record(found, shortcodes, problems)
        elif token.type == BLOCK_TOKEN and token.map:
            _collect_lone(token, path, start_line, shortcodes, problems)
        elif token.type == "html_block" and "<%" in token.content:
            founds = list(find_in_html(token.content, path, lines.locator(token), escaped=False))
            token.meta[_FOUND] = founds
            for found in founds:
                _record(found, shortcodes, problems)
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
