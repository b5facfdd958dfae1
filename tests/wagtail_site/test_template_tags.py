"""Django template tags (``{% load mediashortcodes %}``) render byte for byte what the Jinja
functions and filter render, against the sandbox, and bad input the same way."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template import TemplateSyntaxError, engines
from django.utils.safestring import mark_safe

from mediashortcodes.errors import ContentError
from mediashortcodes.wagtail.live import LiveRenderer
from mediashortcodes.wagtail.rendering import rendering_with

# The same values, written once for each engine.
PAIRS = [
    ('{% media_image 110 "thumb" alt=title %}', '{{ media_image(110, "thumb", alt=title) }}'),
    ("{% media_image hero %}", "{{ media_image(hero) }}"),
    (
        '{% media_image 109 caption="At dusk" class="wide" loading="eager" %}',
        '{{ media_image(109, caption="At dusk", class="wide", loading="eager") }}',
    ),
    ('{% media_image 109 alt="" %}', '{{ media_image(109, alt="") }}'),
    ('{% media_image 101 widths="480,960" %}', '{{ media_image(101, widths="480,960") }}'),
    (
        '{% media_image 101 formats="avif,webp" widths="auto" priority=True placeholder="blur" %}',
        '{{ media_image(101, formats=["avif", "webp"], widths="auto", priority=True,'
        ' placeholder="blur") }}',
    ),
    ('{% media_url 110 "thumb" %}', '{{ media_url(110, "thumb") }}'),
    ("{% media_video 201 %}", "{{ media_video(201) }}"),
    (
        '{% media_video 202 embed="script" lang="en" title=title %}',
        '{{ media_video(202, embed="script", lang="en", title=title) }}',
    ),
    ('{% media_video 201 load="click" %}', '{{ media_video(201, load="click") }}'),
    ("{{ body|media_shortcodes }}", "{{ body|media_shortcodes }}"),
]
CONTEXT = {
    "title": "Boats & <sails>",
    "hero": 110,
    "body": mark_safe("<p>&lt;% media_image 102 thumb %&gt; and <% media_video 201 %></p>"),
}


def django(source: str, **context: Any) -> str:
    return engines["django"].from_string("{% load mediashortcodes %}" + source).render(context)


def jinja(source: str, **context: Any) -> str:
    return engines["jinja2"].from_string(source).render(context)


@pytest.mark.parametrize(("django_source", "jinja_source"), PAIRS)
def test_django_tags_render_what_the_jinja_functions_render(
    pages: dict[str, Any], django_source: str, jinja_source: str
) -> None:
    html = django(django_source, **CONTEXT)
    assert html == jinja(jinja_source, **CONTEXT)
    assert (
        "<img" in html
        or "<iframe" in html
        or "<script" in html
        or "<button" in html
        or (
            re.fullmatch(r"/media/media/[^\s<>\"]+", html)  # media_url: the URL alone
        )
    )
    if "formats" in django_source:
        assert '<source type="image/avif"' in html and "<picture" in html
    assert "<%" not in html and "&lt;%" not in html


def test_a_missing_variable_is_not_given_and_never_makes_an_image_decorative(
    pages: dict[str, Any],
) -> None:
    html = django("{% media_image 109 alt=page.missing %}", page={})
    assert html == django("{% media_image 109 %}")
    assert 'alt=""' not in html


def test_the_filter_escapes_a_plain_string_as_django_would(pages: dict[str, Any]) -> None:
    html = django("{{ text|media_shortcodes }}", text="<script>x</script> <% media_image 102 %>")
    assert "&lt;script&gt;x&lt;/script&gt;" in html
    assert re.search(r'<img src="/media/media/[^"]+"', html)


def test_bad_input_gets_the_placeholder_the_jinja_side_gives(pages: dict[str, Any]) -> None:
    for django_source, jinja_source, message in [
        ("{% media_image 999999 %}", "{{ media_image(999999) }}", "does not exist"),
        (
            '{% media_image 101 colour="red" %}',
            "{{ media_image(101, colour='red') }}",
            "unknown key",
        ),
        ("{% media_image 201 %}", "{{ media_image(201) }}", "is a video"),
    ]:
        shown, expected = django(django_source), jinja(jinja_source)
        assert 'class="mediashortcodes-missing"' in shown
        assert message in shown and message in expected
        # The same note, but each names its own template and line.
        place = re.compile(r'(data-location="|>)[^"<]*?:\d+(:\d+)?')
        assert place.sub("", shown) == place.sub("", expected)


def test_a_problem_names_the_django_template_and_line_in_an_export(
    pages: dict[str, Any], tmp_path: Any
) -> None:
    template = engines["django"].from_string(
        '{% load mediashortcodes %}\n\n{% media_image 101 colour="red" %}'
    )
    with rendering_with(_failing_renderer(tmp_path)), pytest.raises(ContentError) as error:
        template.render({})
    assert "<template>:3: unknown key 'colour'" in str(error.value)


def _failing_renderer(tmp_path: Any) -> LiveRenderer:
    """A renderer as strict as the static export's."""
    from mediashortcodes.wagtail.settings import read_settings

    settings = read_settings()
    return LiveRenderer(settings.config, settings.live_publication(), on_missing="fail")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("{% media_image %}", "media_image takes a file ID and a format, got 0 values"),
        ("{% media_image 1 2 3 %}", "got 3 values; write {% media_image ID [FORMAT]"),
        ("{% media_video 201 thumb %}", "media_video takes a file ID, got 2 values"),
        ("{% media_image alt='x' 101 %}", "'101' follows a key=value option"),
    ],
)
def test_a_malformed_tag_is_a_template_syntax_error(
    pages: dict[str, Any], source: str, message: str
) -> None:
    with pytest.raises(TemplateSyntaxError, match=re.escape(message)):
        django(source)
