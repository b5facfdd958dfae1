"""A build reads its site's snapshot of the cache: never an answer the cache would not give."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.site.builder import BuildOptions, build_site


@pytest.fixture
def own_sandbox():  # a sandbox of its own: a test changes the library
    from mediashortcodes.sandbox import Sandbox

    with Sandbox() as server:
        yield server


def published(site: Path, file_id: int) -> set[str]:
    return {p.name for p in (site / "_site" / "media").iterdir() if f"-{file_id}-" in p.name}


def test_a_warm_build_makes_no_request(make_site, sandbox):
    site = make_site()
    build_site(config_mod.load(site))
    sandbox.reset_stats()
    result = build_site(config_mod.load(site))
    assert (result.requests, result.downloads) == (0, 0)
    assert result.cache_hits > 0


def test_a_blob_removed_by_hand_is_downloaded_again(make_site, env: Path):
    site = make_site()
    build_site(config_mod.load(site))
    blobs = [p for p in env.rglob("blobs/*/*") if p.is_file()]
    blobs[0].chmod(0o644)
    blobs[0].unlink()
    result = build_site(config_mod.load(site))
    assert result.downloads == 1
    assert blobs[0].is_file()
    linked = [p for p in (site / "_site" / "media").iterdir() if os.path.samefile(p, blobs[0])]
    assert linked, "the new blob is published"


def test_after_refresh_the_next_build_keeps_the_refreshed_image(make_site, own_sandbox):
    from PIL import Image

    site = make_site(server=own_sandbox)
    build_site(config_mod.load(site))
    before = published(site, 113)
    buffer = io.BytesIO()
    Image.new("RGB", (320, 200), (200, 30, 30)).save(buffer, "JPEG")
    own_sandbox.library.replace_data(
        113, buffer.getvalue(), uploaded="2026-11-01T10:00:00.000+01:00"
    )
    build_site(config_mod.load(site), BuildOptions(refresh=True))
    refreshed = published(site, 113)
    assert refreshed != before

    result = build_site(config_mod.load(site))
    assert published(site, 113) == refreshed, "not the image the snapshot held before"
    assert result.downloads == 0


def test_check_leaves_the_next_build_warm(make_site, sandbox):
    site = make_site()
    build_site(config_mod.load(site))
    build_site(config_mod.load(site), BuildOptions(check_only=True))
    result = build_site(config_mod.load(site))
    assert (result.requests, result.downloads) == (0, 0)
