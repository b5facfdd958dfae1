"""The markdown-it-py plugin's rules (usage: docs/shortcodes.md, *Markdown*).

An inline rule only finds where a shortcode ends, so code spans, code blocks and backslash
escapes keep their meaning; a core rule then parses each one at its place in the file.
A top-level line that is one shortcode is one block token: it skips the paragraph and inline
rules, the plugin's largest cost on a shortcode-heavy site.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType

from ..errors import Problem
from ..language import (
    Found,
    Location,
    Shortcode,
    ShortcodeRenderer,
    find_end,
    html_for,
    is_opening,
    parse_one,
    unterminated,
)
from ..language.htmltext import find_in_html, splice
from .blocks import (
    BLOCK,
    BLOCK_TOKEN,
    ENV_KEY,
    FOUND,
    TOKEN,
    Locator,
    SourceLines,
    block_kind,
    check_destination,
    check_references,
    mark_blocks,
    place_blocks,
)

Rule = Callable[..., str]  # a render rule: (self, tokens, idx, options, env) -> HTML


def shortcodes_plugin(md: MarkdownIt, *, renderer: ShortcodeRenderer | None = None) -> None:
    """Parse ``<% ... %>`` shortcodes; render them with ``renderer`` when one is given. What
    ``env["mediashortcodes"]`` takes and holds: docs/shortcodes.md, *Markdown*."""
    md.inline.ruler.before("autolink", TOKEN, _shortcode_rule)
    md.block.ruler.before(md.block.ruler.get_all_rules()[0], BLOCK_TOKEN, _block_rule)
    md.core.ruler.after("inline", TOKEN, _collect)

    def renderer_for(env: EnvType) -> ShortcodeRenderer | None:
        data = env.get(ENV_KEY) if isinstance(env, dict) else None
        chosen = data.get("renderer") if isinstance(data, dict) else None
        return chosen or renderer

    def shortcode(block: bool) -> Rule:
        def render(self: Any, tokens: list[Token], idx: int, options: Any, env: EnvType) -> str:
            token, chosen = tokens[idx], renderer_for(env)
            found = token.meta.get("found")
            if chosen is None or found is None:
                text = escapeHtml(token.content)
                return f"<p>{text}</p>\n" if block else text
            return html_for(chosen, found) + ("\n" if block else "")

        return render

    def paragraph(name: str, as_block: str) -> Rule:
        default = _previous(md, name)

        def render(self: Any, tokens: list[Token], idx: int, options: Any, env: EnvType) -> str:
            token = tokens[idx]
            if token.meta.get(BLOCK) and not token.hidden and renderer_for(env) is not None:
                return as_block
            return default(self, tokens, idx, options, env)

        return render

    default_html_block = _previous(md, "html_block")

    def html_block(self: Any, tokens: list[Token], idx: int, options: Any, env: EnvType) -> str:
        token, chosen = tokens[idx], renderer_for(env)
        founds: list[Found] = token.meta.get(FOUND) or []
        if chosen is None or not founds:
            return default_html_block(self, tokens, idx, options, env)
        return splice(token.content, ((f.start, f.end, html_for(chosen, f)) for f in founds))

    md.add_render_rule(TOKEN, shortcode(block=False))
    md.add_render_rule(BLOCK_TOKEN, shortcode(block=True))
    md.add_render_rule("paragraph_open", paragraph("paragraph_open", ""))
    md.add_render_rule("paragraph_close", paragraph("paragraph_close", "\n"))
    md.add_render_rule("html_block", html_block)


def _previous(md: MarkdownIt, name: str) -> Rule:
    """The render rule in place before ours (another plugin's, or the default)."""
    rule = md.renderer.rules.get(name)
    if rule is None:
        return lambda self, tokens, idx, options, env: self.renderToken(tokens, idx, options, env)
    return lambda self, tokens, idx, options, env: rule(tokens, idx, options, env)


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


def _block_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Claim a top-level line that is one complete shortcode followed by a blank line;
    anything else is left to the paragraph and inline rules."""
    if state.level or state.blkIndent or state.sCount[start] >= 4:
        return False
    src = state.src
    pos = state.bMarks[start] + state.tShift[start]
    if not is_opening(src, pos, escapable=False):
        return False
    if start + 1 < end and not state.isEmpty(start + 1):
        return False
    line_end = state.eMarks[start]
    stop = find_end(src, pos, line_end)
    if stop is None or src[stop:line_end].strip():
        return False
    if not silent:
        token = state.push(BLOCK_TOKEN, "", 0)
        token.content = src[pos:stop]
        token.map = [start, start + 1]
        token.meta = {"col": pos - state.bMarks[start]}
    state.line = start + 1
    return True


def _collect(state: StateCore) -> None:
    """Parse every shortcode token with its real position; record them in ``env``."""
    data = state.env.setdefault(ENV_KEY, {})
    path = str(data.get("path", "<string>"))
    start_line = int(data.get("start_line", 1))
    shortcodes: list[Shortcode] = []
    problems: list[Problem] = []
    warnings: list[Problem] = []
    data["shortcodes"], data["problems"], data["warnings"] = shortcodes, problems, warnings
    if "<%" not in state.src:
        return
    lines = SourceLines(state.src, start_line)
    check_references(state.env.get("references"), lines, path, warnings)
    in_paragraphs = False  # a shortcode in an inline token; lone lines are block tokens
    with_blocks: list[int] = []  # inline tokens holding a block shortcode (a figure, a video)
    for i, token in enumerate(state.tokens):
        if token.type == "inline" and token.children:
            if "<%" not in token.content:
                continue  # nothing to find, and no text a later table cell could be taken for
            in_paragraphs = True
            locate = Locator(lines, token)
            locate.advance()
            destinations = 0  # shortcodes written as destinations met so far in this token
            for child in token.children:
                if child.type == "image" and child.children:
                    _as_text(child.children)
                if child.type != TOKEN:
                    if child.type in ("link_open", "image") and check_destination(
                        child, token.content, destinations, path, locate, warnings
                    ):
                        destinations += 1
                    continue
                found = _parse_token(child, path, locate)
                child.meta["found"] = found
                _record(found, shortcodes, problems)
                if block_kind(found) and (not with_blocks or with_blocks[-1] != i):
                    with_blocks.append(i)
        elif token.type == BLOCK_TOKEN and token.map:
            line, col = start_line + token.map[0], token.meta["col"] + 1
            found = parse_one(token.content, path, lambda i, at=(line, col): (at[0], at[1] + i))
            token.meta["found"] = found
            _record(found, shortcodes, problems)
        elif token.type == "html_block" and "<%" in token.content:
            founds = list(find_in_html(token.content, path, Locator(lines, token), escaped=False))
            token.meta[FOUND] = founds
            for found in founds:
                _record(found, shortcodes, problems)
    if with_blocks:
        place_blocks(state.tokens, with_blocks, warnings)
    if in_paragraphs:
        mark_blocks(state.tokens)


def _parse_token(token: Token, path: str, locate: Locator) -> Found:
    offset = token.meta["offset"]
    if not token.meta["terminated"]:
        return unterminated(token.content, 0, path, lambda i: locate(offset + i))
    found = parse_one(token.content, path, lambda i: locate(offset + i))
    shortcode = found.shortcode
    line, col = locate.shortcode_start(offset, token.content)
    if shortcode is not None and (line, col) != (shortcode.location.line, shortcode.location.col):
        # The content did not map onto the source line (tabs, escaped table pipes).
        return replace(found, shortcode=replace(shortcode, location=Location(path, line, col)))
    return found


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
