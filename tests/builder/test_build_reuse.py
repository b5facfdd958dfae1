"""The builder renders a repeated shortcode once, unless its template can show its place."""

from __future__ import annotations

from pathlib import Path

from mediashortcodes import config as config_mod
from mediashortcodes.site.builder import build_site

PAGE = (
    "---\ntitle: Twice\n---\n\n<% media_image 101 thumb %>\n\nText.\n\n"
    "<% media_image 101 thumb %>\n"
)


def test_a_template_showing_the_place_gets_each_place_of_a_repeated_shortcode(make_site):
    site = make_site({"content/twice.md": PAGE})
    (site / "templates" / "media_image.html").write_text(
        '<img src="{{ src }}" data-line="{{ shortcode.location.line }}">'
    )
    build_site(config_mod.load(site))
    html = (site / "_site" / "twice" / "index.html").read_text()
    assert 'data-line="5"' in html
    assert 'data-line="9"' in html


def test_a_repeated_shortcode_renders_the_same_html_at_each_place(make_site):
    site = make_site({"content/twice.md": PAGE})
    build_site(config_mod.load(site))
    html = (site / "_site" / "twice" / "index.html").read_text()
    images = [line for line in html.splitlines() if "<img" in line and "-101-" in line]
    assert len(images) == 2
    assert images[0] == images[1]


def test_a_repeated_shortcode_gets_a_privacy_warning_at_each_place_in_page_order(make_site):
    page = "<% media_image 117 small %>\n\nText.\n\n<% media_image 117 small %>\n"
    site = make_site({"content/a.md": page, "content/b.md": page})
    result = build_site(config_mod.load(site))
    places = [
        Path(w.as_warning().split(": warning")[0]).name
        for w in result.warnings
        if "117" in w.message
    ]
    assert places == ["a.md:1:1", "a.md:5:1", "b.md:1:1", "b.md:5:1"]
