"""An image replaced upstream is picked up: after the metadata TTL, or at once with --refresh."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.site.builder import BuildOptions, build_site


@pytest.fixture
def own_sandbox():  # a sandbox of its own: this test changes the library
    from mediashortcodes.sandbox import Sandbox

    with Sandbox() as server:
        yield server


def published(site: Path) -> set[str]:
    return {p.name for p in (site / "_site" / "media").iterdir() if "-113-" in p.name}


def new_picture() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (320, 200), (200, 30, 30)).save(buffer, "JPEG")
    return buffer.getvalue()


def test_refresh_picks_up_a_replaced_image(make_site, own_sandbox) -> None:
    site = make_site(server=own_sandbox)
    build_site(config_mod.load(site))
    before = published(site)
    own_sandbox.library.replace_data(113, new_picture(), uploaded="2026-11-01T10:00:00.000+01:00")

    build_site(config_mod.load(site))
    assert published(site) == before, "within the metadata TTL the cache answers"

    result = build_site(config_mod.load(site), BuildOptions(refresh=True))
    after = published(site)
    assert after != before, "the new bytes get a new name"
    assert result.downloads == 1
    html = (site / "_site" / "articles" / "city-nights" / "index.html").read_text()
    assert 'width="320" height="200"' in html


def test_expired_metadata_is_rechecked_by_listing_only_its_folder(make_site, own_sandbox) -> None:
    site = make_site(server=own_sandbox, extra="\n[cache]\nmetadata_ttl = 0\n")
    build_site(config_mod.load(site))
    own_sandbox.reset_stats()
    result = build_site(config_mod.load(site))
    assert result.downloads == 0
    assert own_sandbox.stats.get("foldertree", 0) == 0
    assert own_sandbox.stats["files"] <= 7, "only the folders where the files live"
