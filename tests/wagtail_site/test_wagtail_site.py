"""Pages rendered live, through Django's test client and Wagtail's preview, against the
sandbox: what runserver and an editor's preview show."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.test import Client

from .mediasite.models import ArticlePage


def get(path: str) -> str:
    response = Client().get(path)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_shortcodes_render_from_layouts_fields_rich_text_and_streamfield(
    pages: dict[str, Any], sandbox: Any
) -> None:
    html = get("/harbour/")
    assert re.search(r'<header><img src="/media/media/logo-120-original-\w+\.png"', html)
    assert re.search(r'<div class="hero"><img src="[^"]*harbour-boats-110-format-1-', html)
    assert 'alt="Harbour" width="200" height="112"' in html
    assert f'src="{sandbox.player_url}/ovp/11/Xk7Pq2Lm"' in html  # media_video(page.video_id)
    assert re.search(
        r'<p><img src="[^"]*lighthouse-109-original-\w+\.jpg" alt="A lighthouse"', html
    )
    assert 'id="mediashortcodes-video-202-' in html  # StreamField rich text, script embed
    assert "&lt;%" not in html and "<%" not in html


def test_live_images_are_stored_under_media_root_and_served_from_media_url(
    pages: dict[str, Any],
) -> None:
    sources = re.findall(r'<img src="([^"]+)"', get("/city/"))
    assert len(sources) == 3  # the layout's logo, the hero, the StreamField raw block
    for src in sources:
        assert src.startswith(settings.MEDIA_URL + "media/")
        stored = Path(settings.MEDIA_ROOT) / src.removeprefix(settings.MEDIA_URL)
        assert stored.is_file()


def test_a_warm_cache_renders_a_page_without_calling_the_service(
    pages: dict[str, Any], sandbox: Any
) -> None:
    first = get("/city/")
    sandbox.reset_stats()
    assert get("/city/") == first
    assert sum(sandbox.stats.values()) == 0


def test_preview_shows_a_placeholder_for_a_missing_file(pages: dict[str, Any]) -> None:
    response = pages["draft"].make_preview_request()
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="mediashortcodes-missing"' in html
    assert 'data-file-id="999999"' in html
    assert "does not exist or is not visible to this integration" in html


def test_a_live_page_with_a_missing_file_still_renders(pages: dict[str, Any]) -> None:
    pages["home"].add_child(
        instance=ArticlePage(
            title="Gone", slug="gone", intro="<p>&lt;% media_image 301 %&gt; and text</p>"
        )
    )
    html = get("/gone/")
    assert 'data-file-id="301"' in html  # a file in a folder the integration cannot see
    assert "and text</p>" in html


def test_a_malformed_shortcode_in_rich_text_is_pointed_out_in_preview(
    pages: dict[str, Any],
) -> None:
    page = ArticlePage(
        title="Typo", slug="typo", intro="<p>&lt;% media_image 101 colour=red %&gt;</p>"
    )
    pages["home"].add_child(instance=page)
    html = page.make_preview_request().content.decode()
    assert 'class="mediashortcodes-missing"' in html
    assert "colour" in html


def test_a_service_that_fails_shows_placeholders_not_an_error_page(
    pages: dict[str, Any], sandbox: Any
) -> None:
    pages["home"].add_child(
        instance=ArticlePage(title="Down", slug="down", hero_id=119, intro="<p>still here</p>")
    )
    sandbox.fail(503)
    html = get("/down/")
    assert 'data-file-id="119"' in html
    assert "still here" in html
