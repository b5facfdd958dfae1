"""A page that shows the same script embed twice gets a player in each place.

A script embed's element id comes from its place in the source, so a partial included
twice, or a macro called twice with the same video, would give two elements one id, and
the second player would take over the first element. The builder numbers the copies.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config
from mediashortcodes.site.builder import BuildOptions, SiteBuilder
from mediashortcodes.site.markers import with_markers_replaced

from .conftest import demo_env_while, small_site

LAYOUT = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ page.title }}</title></head><body>
{% macro clip(id) %}<section>{{ media_video(id, embed="script") }}</section>{% endmacro %}
{% include "film.html" %}
{{ page.content }}
{% include "film.html" %}
{{ clip(202) }}{{ clip(202) }}
</body></html>
"""


@pytest.fixture(scope="module")
def built_page(tmp_path_factory: pytest.TempPathFactory, sandbox_server: Any) -> Path:
    # Built once, before the module's browser starts (its event loop stays current after).
    files = {
        "templates/page.html": LAYOUT,
        "templates/film.html": "<aside><% media_video 201 embed=script %></aside>\n",
        "content/index.md": "---\ntitle: Films\n---\n\n<% media_video 203 embed=script %>\n",
    }
    root = tmp_path_factory.mktemp("script-embeds")
    site = small_site(root / "site", sandbox_server, files, player=True)
    with demo_env_while(root / "cache"):
        SiteBuilder(config.load(site), BuildOptions()).build()
    return site / "_site" / "index.html"


def test_each_script_embed_on_a_page_has_its_own_element_id(built_page: Path):
    html = built_page.read_text()

    elements = re.findall(r'<div id="(mediashortcodes-video-[^"]+)"></div>', html)
    started = re.findall(r'var id = "(mediashortcodes-video-[^"]+)"', html)

    assert len(elements) == 5 and len(set(elements)) == 5
    assert started == elements  # each script starts the player of the element before it
    assert sum(e.endswith("-2") for e in elements) == 2  # the second copy of 201 and of 202


def test_numbering_copies_leaves_other_shortcodes_and_single_embeds_alone():
    marker = re.compile("\x02k:(\\d+)\x03")
    html_by_index = ['<div id="v-a"></div>', '<img src="x">', '<div id="v-b"></div>']
    page = "\x02k:0\x03 \x02k:1\x03 \x02k:2\x03 \x02k:0\x03 \x02k:1\x03 \x02k:0\x03"

    result = with_markers_replaced(page, marker, html_by_index, {0: "v-a", 2: "v-b"})

    assert result == (
        '<div id="v-a"></div> <img src="x"> <div id="v-b"></div> '
        '<div id="v-a-2"></div> <img src="x"> <div id="v-a-3"></div>'
    )
    assert with_markers_replaced(page, marker, html_by_index) == page.replace(
        "\x02k:0\x03", html_by_index[0]
    ).replace("\x02k:1\x03", html_by_index[1]).replace("\x02k:2\x03", html_by_index[2])


@pytest.mark.browser
def test_every_copy_of_a_script_embed_starts_its_own_player_in_chromium(
    built_page: Path, browser: Any
):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = browser.new_page()
    try:
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(built_page.as_uri())
        players = page.locator('[id^="mediashortcodes-video-"]')
        expect(players).to_have_count(5)
        for i in range(5):  # the sandbox's player draws an iframe into its element
            expect(players.nth(i).locator("iframe.mfp-frame")).to_have_count(1)
    finally:
        page.close()
    assert errors == []
