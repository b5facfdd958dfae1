"""The Jinja2 extension: shortcodes in template source, the functions, the rich-text filter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
from jinja2 import DictLoader, Environment, FileSystemLoader
from markupsafe import Markup

from mediashortcodes.errors import ConfigError, Problem
from mediashortcodes.jinja import MediaShortcodesExtension
from mediashortcodes.language import Location, Shortcode, parse

FIXTURES = Path(__file__).parent / "fixtures"


class FakeRenderer:
    """Records every call; returns HTML that autoescaping would visibly mangle."""

    def __init__(self) -> None:
        self.rendered: list[Shortcode] = []
        self.problems: list[Problem] = []

    def render(self, shortcode: Shortcode) -> str:
        self.rendered.append(shortcode)
        tag = "img" if shortcode.is_image else "iframe"
        return f'<{tag} data-id="{shortcode.file_id}">'

    def problem(self, problem: Problem) -> str:
        self.problems.append(problem)
        return "<mark>problem</mark>"


def environment(templates: dict[str, str], **options) -> tuple[Environment, FakeRenderer]:
    env = Environment(
        loader=DictLoader(templates), extensions=[MediaShortcodesExtension], **options
    )
    renderer = FakeRenderer()
    env.mediashortcodes_renderer = renderer  # type: ignore[attr-defined]
    return env, renderer


def render(source: str, **context) -> tuple[str, FakeRenderer]:
    env, renderer = environment({"t.html": source}, autoescape=True)
    return env.get_template("t.html").render(**context), renderer


# -- shortcodes in template source ------------------------------------------------------------


def test_a_shortcode_in_template_source_renders_through_the_renderer_unescaped():
    html, renderer = render("<p>Logo: <% media_image 12 thumb alt='A & B' %></p>")
    assert html == '<p>Logo: <img data-id="12"></p>'
    (sc,) = renderer.rendered
    assert (sc.file_id, sc.format, sc.option("alt")) == (12, "thumb", "A & B")
    assert sc.location == Location("t.html", 1, 10)


def test_layouts_partials_and_includes_render_their_shortcodes_with_their_own_locations(
    monkeypatch,
):
    monkeypatch.chdir(FIXTURES)
    env = Environment(
        loader=FileSystemLoader("templates"),
        extensions=[MediaShortcodesExtension],
        autoescape=True,
    )
    renderer = FakeRenderer()
    env.mediashortcodes_renderer = renderer  # type: ignore[attr-defined]
    body = Markup("<p>&lt;% media_video 8 %&gt;")  # rich text: HTML, as |richtext marks it
    page = {"title": "Hi", "hero_id": 7, "hero_alt": None, "body": body}
    html = env.get_template("page.html").render(page=page, footer_ids=[1, 2])
    assert [(s.file_id, str(s.location)) for s in renderer.rendered] == [
        (1, "templates/base.html:2:9"),
        (2, "templates/page.html:4:1"),
        (7, "templates/page.html:6"),
        (8, "<html in templates/page.html>:1:4"),
        (3, "templates/partials/footer.html:1:35"),
        (3, "templates/partials/footer.html:1:35"),
    ]
    assert '<header><img data-id="1"></header>' in html
    assert '<iframe data-id="2">\n<img data-id="7">\n<p><iframe data-id="8">' in html
    assert '<footer><img data-id="3"><img data-id="3"></footer>' in html
    assert renderer.rendered[1].option("embed") == "script"
    assert renderer.rendered[2].option("alt") is None


def test_a_shortcode_spanning_lines_keeps_jinja_line_numbers_right():
    source = "<% media_image 1\n   alt='x'\n   class=y %>\n\n{% endfor %}"
    env, _ = environment({"t.html": source})
    with pytest.raises(jinja2.TemplateSyntaxError) as raised:
        env.get_template("t.html")
    assert raised.value.lineno == 5


def test_the_text_around_a_spanning_shortcode_keeps_its_lines():
    html, _ = render("a\n<% media_image 1\n%>\nb {{ x }}", x=1)
    assert html == 'a\n<img data-id="1">\nb 1'


@pytest.mark.parametrize(
    "source",
    [
        "{# <% media_image 1 %> #}",
        "{% raw %}<% media_image 1 %>{% endraw %}",
        "{%- raw -%}<% media_image 1 %>{%- endraw -%}",
        '{{ "<% media_image 1 %>" }}',
        '{% set x = "<% media_image 1 %>" %}{{ x }}',
        "<!-- <% media_image 1 %> -->",
        "<script>var t = '<% if (a) { %>';</script>",
        "<style>/* <% media_image 1 %> */</style>",
        '<div data-x="<% media_image 1 %>">',  # an <img> in an attribute would break the tag
        "<a href='/x' title='<% media_image 1 %>'>x</a>",
        '<img {% if 1 %}alt="<% media_image 1 %>"{% endif %} src="/x.png">',
    ],
)
def test_shortcodes_in_jinja_tags_comments_raw_blocks_html_comments_and_scripts_are_left_alone(
    source,
):
    html, renderer = render(source)
    assert renderer.rendered == renderer.problems == []
    assert "data-id" not in html


def test_a_shortcode_between_tags_and_beside_attributes_is_still_rendered():
    html, renderer = render(
        '<p class="x"><% media_image 1 %></p><a href="/y">y</a> <% media_image 2 %>'
    )
    assert [sc.file_id for sc in renderer.rendered] == [1, 2]
    assert html.count("data-id") == 2


def test_a_backslash_makes_a_shortcode_literal_in_template_source():
    html, renderer = render(r"Write \<% media_image 1 %>.")
    assert html == "Write <% media_image 1 %>."
    assert renderer.rendered == []


def test_a_malformed_shortcode_in_source_goes_to_problem_with_its_position():
    html, renderer = render("ok\n  <% media_image 1 size=big %> <% media_imge 2 %>")
    assert html == "ok\n  <mark>problem</mark> <mark>problem</mark>"
    assert [str(p) for p in renderer.problems] == [
        str(p)
        for p in parse("ok\n  <% media_image 1 size=big %> <% media_imge 2 %>", "t.html").problems
    ]


def test_custom_delimiters_are_respected():
    env, renderer = environment(
        {"t.html": "[[ '<% media_image 9 %>' ]] <% media_image 1 %> [# <% media_image 2 %> #]"},
        variable_start_string="[[",
        variable_end_string="]]",
        comment_start_string="[#",
        comment_end_string="#]",
    )
    assert env.get_template("t.html").render() == '<% media_image 9 %> <img data-id="1"> '
    assert [s.file_id for s in renderer.rendered] == [1]


def test_templates_without_shortcodes_are_not_changed():
    source = "{% for i in xs %}<b>{{ i }}</b>{% endfor %}<%= erb %>"
    env, _ = environment({"t.html": source})
    assert env.preprocess(source, "t.html") == source


# -- functions ----------------------------------------------------------------------------------


def test_media_image_builds_a_shortcode_at_the_calling_line():
    html, renderer = render(
        "\n\n{{ media_image(page.hero_id, 'thumb', alt=page.alt, title=none) }}",
        page={"hero_id": 55, "alt": ""},
    )
    assert html == '\n\n<img data-id="55">'
    (sc,) = renderer.rendered
    assert sc.location == Location("t.html", 3, 0)
    assert (sc.format, sc.options) == ("thumb", (("alt", ""),))
    assert sc.source == '<% media_image 55 thumb alt="" %>'


def test_an_option_the_page_lacks_is_not_given_rather_than_empty():
    # alt="" would mark the image as decorative: a missing hero_alt must leave the service's.
    _, renderer = render(
        "{{ media_image(page.hero_id, page.format, alt=page.hero_alt) }}", page={"hero_id": 55}
    )
    (sc,) = renderer.rendered
    assert (sc.format, sc.options, sc.source) == (None, (), "<% media_image 55 %>")


def test_media_image_takes_a_crop_as_numbers():
    _, renderer = render("{{ media_image(5, w=400, h=300, x1=0, x2=800, y1=0, y2=600) }}")
    (sc,) = renderer.rendered
    assert sc.crop is not None
    assert (sc.crop.w, sc.crop.x2) == (400, 800)


def test_media_video_passes_its_options():
    _, renderer = render("{{ media_video(vid, embed='script', lang='en') }}", vid="77")
    (sc,) = renderer.rendered
    assert (sc.name, sc.file_id, sc.options) == (
        "media_video",
        77,
        (("embed", "script"), ("lang", "en")),
    )


def test_bad_function_arguments_become_problems_with_the_parsers_messages():
    html, renderer = render("x\n{{ media_image(none) }}{{ media_image(3, loading='soon') }}")
    assert html == "x\n<mark>problem</mark><mark>problem</mark>"
    assert renderer.problems == [
        Problem("t.html", 2, 0, "missing file ID: write <% media_image ID %>"),
        Problem("t.html", 2, 0, parse("<% media_image 3 loading=soon %>").problems[0].message),
    ]


def test_functions_inside_an_included_partial_report_the_partials_line():
    env, renderer = environment(
        {"page.html": "a\n{% include 'p.html' %}", "p.html": "\n\n\n{{ media_video(4) }}"}
    )
    env.get_template("page.html").render()
    assert renderer.rendered[0].location == Location("p.html", 4, 0)


# -- the rich-text filter -------------------------------------------------------------------------


def test_the_filter_renders_raw_and_html_escaped_shortcodes_and_keeps_the_html_around_them():
    body = (
        '<p class="x">One &amp; <% media_image 1 %></p>\n'
        "<p>&lt;% media_image 2 alt=&quot;Tom &amp; Jerry&quot; %&gt; &copy;</p>\n"
        "<p>&lt;%&nbsp;media_video&nbsp;3 title=&#x27;Talk&#x27;&nbsp;%&gt;</p>"
    )
    html, renderer = render("{{ body|media_shortcodes }}", body=Markup(body))
    assert html == (
        '<p class="x">One &amp; <img data-id="1"></p>\n'
        '<p><img data-id="2"> &copy;</p>\n'
        '<p><iframe data-id="3"></p>'
    )
    assert [(s.file_id, s.options) for s in renderer.rendered] == [
        (1, ()),
        (2, (("alt", "Tom & Jerry"),)),
        (3, (("title", "Talk"),)),
    ]
    assert renderer.rendered[2].location == Location("<html in t.html>", 3, 4)


def test_the_filter_leaves_code_comments_attributes_and_escaped_shortcodes_alone():
    body = (
        "<code>&lt;% media_image 1 %&gt;</code><pre><% media_image 2 %></pre>"
        '<!-- <% media_image 3 %> --><a title="&lt;% media_image 4 %&gt;">x</a>'
        r"<p>\&lt;% media_image 5 %&gt; \<% media_image 6 %></p>"
    )
    html, renderer = render("{{ body|media_shortcodes }}", body=Markup(body))
    assert renderer.rendered == []
    assert html == body.replace("\\&lt;%", "&lt;%").replace("\\<%", "<%")


def test_the_filter_sends_malformed_shortcodes_to_problem_under_the_path_given():
    html, renderer = render(
        "{{ body|media_shortcodes('page 12 body') }}",
        body=Markup("<p>\n&lt;% media_image x %&gt;</p>"),
    )
    assert html == "<p>\n<mark>problem</mark></p>"
    assert renderer.problems == [
        Problem("page 12 body", 2, 19, "file ID must be a whole number, got 'x'")
    ]


def test_the_filter_returns_markup_so_autoescape_does_not_touch_it():
    html, _ = render("{{ body|media_shortcodes }}", body=Markup("<b>&lt;% media_image 1 %&gt;</b>"))
    assert html == '<b><img data-id="1"></b>'


def test_a_plain_string_is_text_under_autoescape_so_its_markup_is_escaped():
    # A Wagtail TextBlock's value is plain text an editor typed: its tags must not run.
    text = "Use <b>x</b> & <script>alert(1)</script> then <% media_image 105 thumb %>"
    html, renderer = render("{{ text|media_shortcodes }}", text=text)
    assert html == (
        "Use &lt;b&gt;x&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt; then "
        '<img data-id="105">'
    )
    assert [s.file_id for s in renderer.rendered] == [105]


def test_without_autoescape_a_plain_string_is_html_as_the_template_chose():
    env, _ = environment({"t.html": "{{ body|media_shortcodes }}"}, autoescape=False)
    html = env.get_template("t.html").render(body="<b><% media_image 1 %></b>")
    assert html == '<b><img data-id="1"></b>'


def test_the_filter_on_undefined_or_empty_values_gives_nothing():
    html, renderer = render("[{{ missing|media_shortcodes }}][{{ ''|media_shortcodes }}]")
    assert html == "[][]"
    assert renderer.rendered == []


# -- configuration --------------------------------------------------------------------------------


def test_the_extension_takes_no_arguments_and_loads_by_its_dotted_name():
    env = Environment(extensions=["mediashortcodes.jinja.MediaShortcodesExtension"])
    assert env.mediashortcodes_renderer is None  # type: ignore[attr-defined]
    assert env.mediashortcodes_renderer_factory is None  # type: ignore[attr-defined]
    assert {"media_image", "media_video"} <= set(env.globals)
    assert "media_shortcodes" in env.filters


def test_a_renderer_configured_before_the_extension_loads_is_kept():
    class Configured(Environment):
        mediashortcodes_renderer = FakeRenderer()

    env = Configured(extensions=[MediaShortcodesExtension])
    assert isinstance(env.mediashortcodes_renderer, FakeRenderer)  # type: ignore[attr-defined]


def test_without_a_renderer_rendering_fails_saying_how_to_configure_one():
    env = Environment(
        loader=DictLoader({"t.html": "<% media_image 1 %>"}), extensions=[MediaShortcodesExtension]
    )
    with pytest.raises(ConfigError, match="mediashortcodes_renderer") as raised:
        env.get_template("t.html").render()
    assert "'t.html'" in str(raised.value)


def test_a_template_without_shortcodes_renders_without_a_renderer():
    env = Environment(extensions=[MediaShortcodesExtension])
    assert env.from_string("{{ 1 + 1 }} <%= x %>").render() == "2 <%= x %>"


def test_the_factory_is_used_when_no_renderer_is_set():
    env = Environment(extensions=[MediaShortcodesExtension])
    made = FakeRenderer()
    env.mediashortcodes_renderer_factory = lambda: made  # type: ignore[attr-defined]
    assert env.from_string("<% media_video 5 %>").render() == '<iframe data-id="5">'
    assert [s.file_id for s in made.rendered] == [5]


def test_a_renderer_passed_to_render_wins_over_the_environments():
    env, default = environment({"t.html": "<% media_image 1 %>{{ media_video(2) }}"})
    per_page = FakeRenderer()
    env.get_template("t.html").render(mediashortcodes_renderer=per_page)
    assert default.rendered == []
    assert [s.file_id for s in per_page.rendered] == [1, 2]


DJANGO_SCRIPT = """
import sys
from django.conf import settings
settings.configure(DEBUG=False)
from django.template.backends.jinja2 import Jinja2
from django.utils.safestring import mark_safe
engine = Jinja2({
    "NAME": "jinja2", "DIRS": [sys.argv[1]], "APP_DIRS": False,
    "OPTIONS": {"extensions": ["mediashortcodes.jinja.MediaShortcodesExtension"]},
})
class Renderer:
    def render(self, sc): return f"<img data-id={sc.file_id}>"
    def problem(self, p): return "!"
engine.env.mediashortcodes_renderer = Renderer()
print(engine.get_template("partials/footer.html").render({"footer_ids": [1]}), end="")
print(engine.from_string("{{ media_video(4) }}|{{ b|media_shortcodes }}").render(
    {"b": mark_safe("&lt;% media_image 5 %&gt;")}), end="")
"""


def test_the_extension_works_in_djangos_jinja2_backend():
    pytest.importorskip("django")
    result = subprocess.run(
        [sys.executable, "-c", DJANGO_SCRIPT, str(FIXTURES / "templates")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("<footer><img data-id=3></footer><img data-id=4>|<img data-id=5>")


def test_public_names_are_exported():
    from mediashortcodes import jinja

    assert jinja.__all__
    for name in jinja.__all__:
        assert hasattr(jinja, name)
