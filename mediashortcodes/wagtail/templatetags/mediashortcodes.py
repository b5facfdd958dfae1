"""Django template tags: ``{% load mediashortcodes %}``.

::

    {% media_image page.hero "thumb" alt=page.title %}
    {% media_video page.video_id embed="script" %}
    <meta property="og:image" content="{% media_url page.hero "wide" %}">
    {{ page.intro|richtext|media_shortcodes }}

They render exactly what the Jinja functions and filter render, on the same path
(``rendering.render_built``, ``jinja.shortcodes_in_html``) through the same renderer: the
live one, or the static export's. A variable the context lacks is "not given", as an
undefined one is in Jinja (``alt=page.missing`` never makes an image decorative).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django import template
from django.template.base import FilterExpression, Parser, Token, kwarg_re
from django.utils.html import conditional_escape
from markupsafe import Markup

from ...jinja import shortcodes_in_html, template_path
from ...language import IMAGE, URL, VIDEO, Location
from ..rendering import current_renderer, render_built

register = template.Library()

__all__ = ["media_image", "media_shortcodes", "media_video"]


class MediaNode(template.Node):
    def __init__(
        self,
        name: str,
        positional: list[FilterExpression],
        options: list[tuple[str, FilterExpression]],
        line: int,
    ) -> None:
        self.name = name
        self.positional = positional
        self.options = options
        self.line = line

    def render(self, context: template.Context) -> str:
        def value(expression: FilterExpression) -> Any:
            return expression.resolve(context, ignore_failures=True)

        file_id, *format = [value(e) for e in self.positional]
        options = [(key, value(e)) for key, e in self.options]
        where = Location(_template_name(context), self.line, 0)
        html = render_built(self.name, file_id, format[0] if format else None, options, where)
        return str(html)  # Markup: marked safe for Django too (it has __html__)


def _template_name(context: template.Context) -> str:
    origin = getattr(getattr(context, "template", None), "origin", None)
    if origin is None:
        return "<template>"
    return template_path(origin.template_name, origin.name)


def _compile(name: str, positional_max: int, parser: Parser, token: Token) -> MediaNode:
    tag, *bits = token.split_contents()
    usage = (
        f"write {{% {tag} ID [FORMAT] key=value ... %}}"
        if positional_max == 2
        else f"write {{% {tag} ID key=value ... %}}"
    )
    positional: list[FilterExpression] = []
    options: list[tuple[str, FilterExpression]] = []
    for bit in bits:
        match = kwarg_re.match(bit)
        key, expression = match.groups() if match else (None, bit)
        if key:
            options.append((key, parser.compile_filter(expression)))
        elif options:
            raise template.TemplateSyntaxError(
                f"{tag}: {bit!r} follows a key=value option; {usage}"
            )
        else:
            positional.append(parser.compile_filter(expression))
    if not positional or len(positional) > positional_max:
        raise template.TemplateSyntaxError(
            f"{tag} takes a file ID{' and a format' if positional_max == 2 else ''}, "
            f"got {len(positional)} values; {usage}"
        )
    return MediaNode(name, positional, options, token.lineno)


register.tag("media_image", partial(_compile, IMAGE, 2))
register.tag("media_video", partial(_compile, VIDEO, 1))
register.tag("media_url", partial(_compile, URL, 2))  # the published URL alone (og:image)
media_image = register.tags["media_image"]
media_video = register.tags["media_video"]
media_url = register.tags["media_url"]


@register.filter(needs_autoescape=True)
def media_shortcodes(value: Any, autoescape: bool = True) -> Markup:
    """The shortcodes in HTML (rich text), raw or HTML-escaped, rendered; as Jinja's filter,
    a plain string is escaped first when autoescaping is on."""
    if value is None:
        html = ""
    elif hasattr(value, "__html__") or not autoescape:
        html = str(value)
    else:
        html = str(conditional_escape(value))
    return shortcodes_in_html(html, "<html in a Django template>", current_renderer)
