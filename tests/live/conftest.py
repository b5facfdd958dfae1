"""What the live renderer's tests share: a tiny JPEG, a config pointed at the fake service,
and renderers over it."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import API, CREDENTIALS, FakeService

from mediashortcodes.config import Config, Credentials, from_mapping
from mediashortcodes.language import Shortcode, parse
from mediashortcodes.wagtail.live import LiveRenderer, Publication

PLAYER = "https://player.example.com"

Make = Callable[..., LiveRenderer]


def shortcode(text: str) -> Shortcode:
    result = parse(text, "page.html")
    assert not result.problems, result.problems
    (found,) = result.shortcodes
    return found


@pytest.fixture
def jpeg() -> bytes:
    image = pytest.importorskip("PIL.Image")
    out = io.BytesIO()
    image.new("RGB", (4, 3), (200, 30, 30)).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    monkeypatch.delenv("MEDIASHORTCODES_CACHE_DIR", raising=False)
    service = {"base_url": API, "player_url": PLAYER, "static_url": PLAYER, "max_retries": 0}
    return from_mapping({"service": service, "cache": {"dir": "cache"}}, tmp_path)


@pytest.fixture
def make(fake: FakeService, jpeg: bytes, config: Config, tmp_path: Path) -> Iterator[Make]:
    """Build renderers over the fake; each opens its own client, closed with the renderer."""
    fake.download_body = jpeg
    made: list[LiveRenderer] = []

    def factory(credentials: Credentials = CREDENTIALS, **kwargs: Any) -> LiveRenderer:
        publication = Publication.under(tmp_path / "media_root", "/media/", "media")
        connector = fake.connector(credentials)
        renderer = LiveRenderer(config, publication, connector=connector, **kwargs)
        made.append(renderer)
        return renderer

    try:
        yield factory
    finally:
        for renderer in made:
            renderer.close()
