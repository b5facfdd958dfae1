"""srcset and click-to-load in Wagtail: live pages and the static export publish every
candidate, the poster and the click script."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.test.utils import override_settings

from .conftest import SITE, service_settings
from .mediasite.models import ArticlePage

BLOCKS = [
    ("raw", '<% media_image 113 widths="200,400" sizes="50vw" %>'),
    ("text", "<p>&lt;% media_video 201 load=click %&gt;</p>"),
]


@pytest.fixture
def page(pages: dict[str, Any]) -> Any:
    return pages["home"].add_child(
        instance=ArticlePage(title="Media", slug="media-page", stream=BLOCKS)
    )


def published(html: str) -> list[str]:
    """Every URL of a file the page publishes: image, candidates, poster, script."""
    outside = re.sub(r"<template>.*?</template>", "", html, flags=re.S)
    urls = re.findall(r'(?:src|srcset)="([^"]+)"', outside)
    return [url.split(" ")[0] for found in urls for url in found.split(", ")]


def test_a_live_page_publishes_the_candidates_poster_and_script_under_media_root(
    page: Any,
) -> None:
    response = Client().get("/media-page/")
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'srcset="[^"]+ 200w, [^"]+ 400w, [^"]+ 1200w" sizes="50vw"', html)
    assert "Play video: Welcome to the park" in html
    urls = published(html)
    assert len([u for u in urls if "-poster-" in u]) == 1
    assert len([u for u in urls if u.endswith(".js")]) == 1
    for url in urls:
        if url.startswith(settings.MEDIA_URL):
            assert (Path(settings.MEDIA_ROOT) / url.removeprefix(settings.MEDIA_URL)).is_file()


@pytest.fixture
def build_dir(tmp_path: Path, sandbox: Any) -> Iterator[Path]:
    value = service_settings(sandbox, tmp_path / "usage-state.json", base_url=SITE)
    with override_settings(BUILD_DIR=str(tmp_path / "build"), MEDIASHORTCODES=value):
        yield tmp_path / "build"


def test_the_static_export_writes_the_candidates_poster_and_script(
    page: Any, build_dir: Path
) -> None:
    call_command("build", verbosity=0)
    html = (build_dir / "media-page" / "index.html").read_text()
    urls = [u for u in published(html) if "/media/" in u]
    assert len(urls) >= 6  # layout logo, 113 and its two candidates, poster, script
    for url in urls:
        assert (build_dir / url.lstrip("/")).is_file(), url
    script = next(u for u in urls if u.endswith(".js"))
    assert (build_dir / script.lstrip("/")).stat().st_size < 3500
