"""Jinja2 extension: shortcodes in templates, functions for ids known at render time, and
a filter for HTML (CMS rich text) that holds shortcodes. Usage, what is left alone and the
order the renderer is looked up in: docs/shortcodes.md, *Jinja*."""

from __future__ import annotations

import json
import math
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import lru_cache, partial
from types import FrameType
from typing import Any

from jinja2 import Environment, Template, Undefined, pass_context
from jinja2.ext import Extension
from jinja2.runtime import Context
from markupsafe import Markup, escape

from .errors import ConfigError, Problem, display_path
from .language import (
    IMAGE,
    URL,
    VIDEO,
    Found,
    LineIndex,
    Location,
    ShortcodeRenderer,
    build,
    html_for,
    htmltext,
    parse_one,
    scan,
)

__all__ = [
    "MediaShortcodesExtension",
    "media_image",
    "media_shortcodes",
    "media_url",
    "media_video",
]

RENDER_GLOBAL = "_mediashortcodes_render"
CONTEXT_RENDERER = "mediashortcodes_renderer"


class MediaShortcodesExtension(Extension):
    """Shortcodes for Jinja; configure it on the environment, it takes no arguments."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.extend(
            mediashortcodes_renderer=None,
            mediashortcodes_renderer_factory=None,
        )
        environment.globals.update(
            {
                "media_image": media_image,
                "media_video": media_video,
                "media_url": media_url,
                RENDER_GLOBAL: _render,
            }
        )
        environment.filters["media_shortcodes"] = media_shortcodes

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if "<%" not in source:
            return source
        return rewrite(source, template_path(name, filename), self.environment)


# -- template source --------------------------------------------------------------------------


def rewrite(source: str, path: str, environment: Environment) -> str:
    """Template source with every shortcode turned into a call to the renderer."""
    locate = LineIndex(source)
    in_tags = [m.span() for m in htmltext.HTML_TAG.finditer(source)]
    replacements: list[tuple[int, int, str]] = []
    for start, end in _template_text(source, environment):
        for found in scan(source, path, locate, start, end):
            tag = bisect_right(in_tags, (found.start, math.inf)) - 1  # the last one before it
            if tag < 0 or found.start >= in_tags[tag][1]:
                replacements.append((found.start, found.end, _call(found, environment)))
        escape = source.find("\\<%", start, end)
        while escape >= 0:
            replacements.append((escape, escape + 1, ""))
            escape = source.find("\\<%", escape + 3, end)
    replacements.sort()
    return htmltext.splice(source, replacements)


def _call(found: Found, environment: Environment) -> str:
    if found.shortcode is not None:
        loc = found.shortcode.location
        payload: dict[str, Any] = {"source": found.source, "at": [loc.path, loc.line, loc.col]}
    else:
        payload = {"problems": [[p.path, p.line, p.col, p.message] for p in found.problems]}
    literal = json.dumps(json.dumps(payload, ensure_ascii=True))
    newlines = "\n" * found.source.count("\n")
    return (
        f"{environment.variable_start_string} {RENDER_GLOBAL}({literal}){newlines} "
        f"{environment.variable_end_string}"
    )


def _template_text(source: str, environment: Environment) -> Iterator[tuple[int, int]]:
    """Ranges of template data: outside Jinja tags, comments, raw blocks, HTML comments,
    ``<script>`` and ``<style>``."""
    env = environment
    starts = [env.block_start_string, env.variable_start_string, env.comment_start_string]
    alternatives = [re.escape(s) for s in starts] + ["<%", "<!--", r"<(?:script|style)\b"]
    for prefix in (env.line_statement_prefix, env.line_comment_prefix):
        if prefix:
            alternatives.append(r"(?m:^[ \t]*)" + re.escape(prefix))
    opening = re.compile("|".join(alternatives), re.IGNORECASE)
    ends = partial(_construct_end, source, env=environment)
    return htmltext.outside(source, opening, ends, any_shortcode=False)


def _construct_end(source: str, match: re.Match[str], env: Environment) -> int:
    token, i = match.group(), match.start()
    if token == env.comment_start_string:
        return htmltext.end_of(source, env.comment_end_string, match.end())
    if token == env.variable_start_string:
        return _tag_end(source, match.end(), env.variable_end_string)
    if token == env.block_start_string:
        start, end = re.escape(token), re.escape(env.block_end_string)
        if re.compile(rf"{start}[-+]?\s*raw\s*[-+]?{end}").match(source, i):
            endraw = re.compile(rf"{start}[-+]?\s*endraw\s*[-+]?{end}").search(source, i)
            return len(source) if endraw is None else endraw.end()
        return _tag_end(source, match.end(), env.block_end_string)
    if token == "<!--":
        return htmltext.end_of(source, "-->", match.end())
    if token.lower() in ("<script", "<style"):
        return htmltext.element_end(source, token[1:], match.end())
    return htmltext.end_of(source, "\n", match.end())  # a line statement or line comment


def _tag_end(source: str, pos: int, end_string: str) -> int:
    """End of a Jinja tag, skipping string literals that may hold the end delimiter."""
    tag = re.compile(
        r"""(?:[^"']|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')*?""" + re.escape(end_string),
        re.DOTALL,
    ).match(source, pos)
    return len(source) if tag is None else tag.end()


def template_path(name: str | None, filename: str | None) -> str:
    """The path shown in problems: the file (relative to the working directory when below
    it), else the template's name."""
    if filename and not filename.startswith("<"):  # Jinja says "<template>" for no file
        return display_path(filename)
    return name or "<template>"


# -- render time ------------------------------------------------------------------------------


def renderer_for(context: Context) -> ShortcodeRenderer:
    """The renderer for this render call (the order: docs/shortcodes.md, *Jinja*)."""
    chosen = context.get(CONTEXT_RENDERER)
    env = context.environment
    if chosen is None:
        chosen = getattr(env, "mediashortcodes_renderer", None)
    if chosen is None:
        factory = getattr(env, "mediashortcodes_renderer_factory", None)
        chosen = factory() if factory is not None else None
    if chosen is None:
        raise ConfigError(
            f"template {context.name!r} uses media shortcodes but no renderer is configured:"
            " set environment.mediashortcodes_renderer (or mediashortcodes_renderer_factory),"
            " or pass mediashortcodes_renderer=... to render()"
        )
    return chosen


@lru_cache(maxsize=4096)
def _decode(payload: str) -> Found:
    data = json.loads(payload)
    if "problems" in data:
        return Found(0, 0, "", None, tuple(Problem(*p) for p in data["problems"]))
    path, line, col = data["at"]
    return parse_one(data["source"], path, lambda i: (line, col))  # it parsed when rewritten


@pass_context
def _render(context: Context, payload: str) -> Markup:
    """What a shortcode written in template source turns into."""
    return Markup(html_for(renderer_for(context), _decode(payload)))


@pass_context
def media_image(context: Context, file_id: Any, format: Any = None, **options: Any) -> Markup:
    """``{{ media_image(page.hero_id, "thumb", alt=page.hero_alt) }}``; ``None`` options
    are left out."""
    return _render_built(context, IMAGE, file_id, format, options)


@pass_context
def media_url(context: Context, file_id: Any, format: Any = None, **options: Any) -> Markup:
    """``{{ media_url(page.hero_id, "large") }}``: the published URL alone (``og:image``,
    CSS backgrounds, JSON-LD, feeds), escaped for an attribute."""
    return _render_built(context, URL, file_id, format, options)


@pass_context
def media_video(context: Context, file_id: Any, **options: Any) -> Markup:
    """``{{ media_video(page.video_id, embed="script", lang="en") }}``."""
    return _render_built(context, VIDEO, file_id, None, options)


def _render_built(
    context: Context, name: str, file_id: Any, format: Any, options: dict[str, Any]
) -> Markup:
    path, line = _caller(context)
    # An undefined value (a front matter key the page lacks) is "not given", like None: as
    # text it would be "", and alt="" marks an image as decorative.
    file_id, format = _given(file_id), _given(format)
    options = {key: _given(value) for key, value in options.items()}
    shortcode, problems = build(name, file_id, format, options, Location(path, line, 0))
    found = Found(0, 0, "", shortcode, tuple(problems))
    return Markup(html_for(renderer_for(context), found))


def _given(value: Any) -> Any:
    return None if isinstance(value, Undefined) else value


def _caller(context: Context) -> tuple[str, int]:
    """The template and line that called us (column unknown: 0; without frames, line 0)."""
    getframe = getattr(sys, "_getframe", None)
    found = calling_template(getframe(1) if getframe is not None else None)
    if found is None:
        return context.name or "<template>", 0
    template, line = found
    return template_path(template.name, template.filename), line


def calling_template(frame: FrameType | None) -> tuple[Template, int] | None:
    """The innermost compiled template code at ``frame`` or above it (a partial's or a
    macro's own file), and the template line it is at."""
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None:
            return template, template.get_corresponding_lineno(frame.f_lineno)
        frame = frame.f_back
    return None


@pass_context
def media_shortcodes(context: Context, value: Any, path: str | None = None) -> Markup:
    """Render the shortcodes in HTML, raw or HTML-escaped (rich text); a plain string is
    escaped first under autoescaping, so a text field cannot put a ``<script>`` on the page
    (docs/shortcodes.md, *Jinja*)."""
    if value is None:
        html = ""
    elif hasattr(value, "__html__") or not context.eval_ctx.autoescape:
        html = str(value)
    else:
        html = str(escape(value))
    if path is None and "%" in html:
        path = f"<html in {_caller(context)[0]}>"
    return shortcodes_in_html(html, path or "", partial(renderer_for, context))


def shortcodes_in_html(html: str, path: str, renderer: Callable[[], ShortcodeRenderer]) -> Markup:
    """``html`` with its shortcodes rendered by ``renderer()`` (asked only when there is one):
    the filter's work, shared with Django's ``media_shortcodes``."""
    if "%" not in html:
        return Markup(html)
    founds = list(htmltext.find_in_html(html, path, escaped=True))
    replacements = [(i, i + 1, "") for i in htmltext.escaped_openings(html)]
    if founds:
        chosen = renderer()
        replacements += [(f.start, f.end, html_for(chosen, f)) for f in founds]
    return Markup(htmltext.splice(html, sorted(replacements)))
