"""A live Wagtail page while the service is down: asked once, then left alone for a while."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from mediashortcodes.wagtail import rendering

from .mediasite.models import ArticlePage

# Ids no other test resolves: never in the shared cache, so each would need the service.
IDS = range(990001, 990008)


@pytest.fixture(autouse=True)
def _fresh_renderer() -> Iterator[None]:
    """The process-wide renderer remembers outages: no other test may inherit one."""
    rendering.reset()
    try:
        yield
    finally:
        rendering.reset()


def get(path: str) -> str:
    response = Client().get(path)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_a_page_during_an_outage_asks_once_and_the_next_views_ask_nothing(
    pages: dict[str, Any], sandbox: Any
) -> None:
    body = "".join(f"<p>&lt;% media_image {i} %&gt;</p>" for i in IDS)
    pages["home"].add_child(
        instance=ArticlePage(title="Outage", slug="outage", hero_id=IDS[0], intro=body)
    )
    sandbox.fail(503)
    html = get("/outage/")
    assert "Outage" in html
    assert all(f'data-file-id="{i}"' in html for i in IDS)  # placeholders, visible
    asked = sum(sandbox.stats.values())
    assert 1 <= asked <= 2  # the first shortcode's request(s), run side by side; none after
    for _ in range(3):
        assert get("/outage/") == html
    assert sum(sandbox.stats.values()) == asked
