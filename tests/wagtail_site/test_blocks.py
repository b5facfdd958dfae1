"""MediaImageBlock, MediaVideoBlock, MediaFileField and rich-text media embeds render what
the equivalent shortcode renders, in Django and Jinja templates, in previews and in the
static export (which publishes and reports their files), against the sandbox."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.template import engines
from django.test import Client
from django.test.utils import override_settings

from .conftest import SITE, service_settings
from .mediasite.models import ArticlePage

IMAGE = {
    "file": 110,
    "format": "thumb",
    "alt": "Boats",
    "caption": "In the harbour",
    "css_class": "wide",
    "loading": "eager",
}
# Each block (or embed) beside the shortcode with the same values.
CASES = [
    (
        "image",
        IMAGE,
        '<% media_image 110 thumb alt=Boats caption="In the harbour" class=wide loading=eager %>',
    ),
    ("image", {"file": 109, "decorative": True, "alt": "ignored"}, '<% media_image 109 alt="" %>'),
    (
        "image",
        {"file": 109, "crop": {"w": 300, "h": 200, "x1": 0, "x2": 600, "y1": 0, "y2": 400}},
        "<% media_image 109 w=300 h=200 x1=0 x2=600 y1=0 y2=400 %>",
    ),
    ("image", {"file": 101}, "<% media_image 101 %>"),
    (
        "image",
        {"file": 101, "formats": ["avif", "webp"], "priority": True, "placeholder": "color"},
        '<% media_image 101 formats="avif,webp" priority=true placeholder=color %>',
    ),
    (
        "video",
        {"file": 202, "embed": "script", "lang": "en", "title": "Trailer"},
        "<% media_video 202 embed=script title=Trailer lang=en %>",
    ),
    ("video", {"file": 201, "load": "click"}, "<% media_video 201 load=click %>"),
]
EMBEDS = [
    (
        '<embed embedtype="media_image" id="110" format="thumb" alt="Boats"/>',
        "<% media_image 110 thumb alt=Boats %>",
    ),
    ('<embed embedtype="media_image" id="109" alt=""/>', '<% media_image 109 alt="" %>'),
    (
        '<embed embedtype="media_video" id="201" embed="script"/>',
        "<% media_video 201 embed=script %>",
    ),
]


def shortcode_html(source: str) -> str:
    return engines["jinja2"].from_string(source).render({})


def same_place(html: str) -> str:
    """``html`` with a script embed's element id made place-free: the id is derived from
    where the shortcode is written, and a block is not where the compared shortcode is."""
    return re.sub(r"(mediashortcodes-video-\d+)-[0-9a-f]{8}", r"\1-ID", html)


def body_of(kind: str, value: dict[str, Any]) -> Any:
    return ArticlePage(title="x", body=[(kind, value)]).body


@pytest.mark.parametrize(("kind", "value", "shortcode"), CASES)
def test_a_block_renders_what_its_shortcode_renders_in_both_engines(
    pages: dict[str, Any], kind: str, value: dict[str, Any], shortcode: str
) -> None:
    expected = shortcode_html(shortcode)
    body = body_of(kind, value)
    django = engines["django"].from_string(
        "{% load wagtailcore_tags %}{% for b in body %}{% include_block b %}{% endfor %}"
    )
    jinja = engines["jinja2"].from_string("{% for b in body %}{% include_block b %}{% endfor %}")
    assert same_place(django.render({"body": body})) == same_place(expected)
    assert same_place(jinja.render({"body": body})) == same_place(expected)
    assert "mediashortcodes-missing" not in expected


@pytest.mark.parametrize(("embed", "shortcode"), EMBEDS)
def test_a_rich_text_embed_renders_what_its_shortcode_renders(
    pages: dict[str, Any], embed: str, shortcode: str
) -> None:
    stored = f"<p>Before</p>{embed}<p>After</p>"
    django = engines["django"].from_string("{% load wagtailcore_tags %}{{ text|richtext }}")
    jinja = engines["jinja2"].from_string("{{ text|richtext }}")
    expected = f"<p>Before</p>{shortcode_html(shortcode)}<p>After</p>"
    assert same_place(django.render({"text": stored})) == same_place(expected)
    assert same_place(jinja.render({"text": stored})) == same_place(expected)


def test_a_bad_block_or_embed_shows_the_shortcodes_placeholder(pages: dict[str, Any]) -> None:
    jinja = engines["jinja2"].from_string("{% for b in body %}{% include_block b %}{% endfor %}")
    html = jinja.render({"body": body_of("image", {"file": 201})})  # a video as an image
    assert 'class="mediashortcodes-missing"' in html and "video" in html
    text = engines["jinja2"].from_string("{{ text|richtext }}")
    html = text.render({"text": '<embed embedtype="media_image" id="101" colour="red"/>'})
    assert "unknown key &#39;colour&#39;" in html or "unknown key 'colour'" in html


def editors_page(pages: dict[str, Any], slug: str = "editors") -> ArticlePage:
    page = ArticlePage(
        title="Editors",
        slug=slug,
        hero=112,
        body=[
            ("text", '<p>Intro</p><embed embedtype="media_image" id="113" alt="Bridge"/>'),
            ("image", IMAGE),
            ("video", {"file": 201}),
        ],
    )
    pages["home"].add_child(instance=page)
    return page


def test_a_page_and_its_preview_show_the_field_blocks_and_embeds(pages: dict[str, Any]) -> None:
    page = editors_page(pages)
    response = Client().get("/editors/")
    assert response.status_code == 200
    html = response.content.decode()
    preview = page.make_preview_request().content.decode()
    for shown in (html, preview):
        assert re.search(r'<div class="hero-field"><img src="/media/media/[^"]*-112-', shown)
        assert shortcode_html("<% media_image 113 alt=Bridge %>") in shown
        assert shortcode_html(CASES[0][2]) in shown
        assert shortcode_html("<% media_video 201 %>") in shown


@pytest.fixture
def exported(pages: dict[str, Any], sandbox: Any, tmp_path: Path) -> Iterator[Path]:
    editors_page(pages)
    value = service_settings(sandbox, tmp_path / "usage-state.json", base_url=SITE)
    with override_settings(MEDIASHORTCODES=value, BUILD_DIR=str(tmp_path / "build")):
        call_command("build", verbosity=0)
        yield tmp_path / "build"


def test_the_export_publishes_and_reports_fields_blocks_and_embeds(exported: Path) -> None:
    usage = json.loads((exported / "media-usage.json").read_text())
    assert usage["pages"][f"{SITE}/editors/"]["files"] == [110, 112, 113, 120, 201]
    html = (exported / "editors" / "index.html").read_text()
    sources = re.findall(r'<img src="([^"]+)"', html)
    assert len(sources) == 4  # the layout's logo, the hero, the embed, the image block
    for src in sources:
        assert (exported / src.lstrip("/")).is_file()
    assert "\x02" not in html and "mediashortcodes-missing" not in html
