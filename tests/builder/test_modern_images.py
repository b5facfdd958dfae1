"""AVIF and WebP in <picture>, priority, placeholders, widths="auto" and media_url, built
against the sandbox (issue 32)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.errors import ConfigError, ContentError
from mediashortcodes.media.imageinfo import probe
from mediashortcodes.site.builder import BuildOptions, BuildResult, build_site

from .conftest import demo_env_while, small_site

PIL = pytest.importorskip("PIL")

LAYOUT = (
    '<head><meta property="og:image" content="{{ media_url(103) }}"></head>\n'
    "{{ page.content }}\n"
    '<footer>{{ media_image(104, formats=["webp"], widths="auto", priority=True) }}</footer>\n'
)
HOME = """---
title: Home
---
<% media_image 101 formats="avif,webp" widths="auto" priority=true placeholder=blur %>

<% media_image 102 formats=avif placeholder=color caption="A caption" %>

<% media_image 105 widths="480" %>

The photo's address: <% media_url 106 %>
"""


@pytest.fixture(scope="module")
def site(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("modern")
    files = {"templates/page.html": LAYOUT, "content/index.md": HOME}
    small_site(root / "site", sandbox_server, files, player=False)
    with demo_env_while(root / "cache"):
        yield root / "site"


@pytest.fixture(scope="module")
def cold(site: Path, sandbox_server: Any) -> tuple[BuildResult, str]:
    result = build_site(config_mod.load(site), BuildOptions())
    return result, (site / "_site" / "index.html").read_text()


def tag(html: str, name: str, file_id: int) -> list[str]:
    return re.findall(rf"<{name} [^>]*-{file_id}-[^>]*>", html)


def test_formats_render_a_picture_with_a_source_per_format_and_the_same_widths(cold, site):
    _, html = cold
    picture = re.search(r"<picture>(.*?)</picture>", html, re.S)
    assert picture is not None
    avif, webp = re.findall(r"<source [^>]+>", picture.group(1))
    assert 'type="image/avif"' in avif and 'type="image/webp"' in webp
    [img] = tag(picture.group(1), "img", 101)
    widths = [re.findall(r" (\d+)w", t) for t in (avif, webp, img)]
    assert widths[0] == widths[1] == widths[2] and len(widths[0]) > 1
    assert int(widths[2][0]) == 320  # widths="auto": the ladder, up to the base's width
    out = site / "_site"
    for source, kind in ((avif, "avif"), (webp, "webp")):
        for url, width in re.findall(r"(/media/\S+) (\d+)w", source):
            info = probe((out / url.lstrip("/")).read_bytes())
            assert (info.kind, info.width) == (kind, int(width))


def test_the_priority_images_are_preloaded_from_the_head(cold):
    _, html = cold
    head = html[: html.index("</head>")]
    hero, footer = re.findall(r"<link rel=\"preload\" [^>]+>", head)
    assert 'type="image/avif"' in hero and "-101-" in hero and 'imagesizes="100vw"' in hero
    assert re.search(r'imagesrcset="[^"]+ 320w, ', hero) and 'fetchpriority="high"' in hero
    assert 'type="image/webp"' in footer and "-104-" in footer


def test_jinja_media_image_takes_formats_as_a_list(cold):
    _, html = cold
    footer = re.search(r"<footer><picture><source type=\"image/webp\" srcset=\"([^\"]+)\"", html)
    assert footer is not None and "-104-" in footer.group(1)


def test_priority_is_eager_and_high_and_lazy_images_get_sizes_auto(cold):
    _, html = cold
    [hero] = tag(html, "img", 101)
    assert 'loading="eager"' in hero and 'fetchpriority="high"' in hero
    assert 'sizes="100vw"' in hero
    [lazy] = tag(html, "img", 105)
    assert 'loading="lazy"' in lazy and 'sizes="auto, 100vw"' in lazy


def test_placeholders_are_a_colour_or_a_small_inline_preview_with_the_size_written(cold):
    _, html = cold
    [blur] = tag(html, "img", 101)
    [color] = tag(html, "img", 102)
    uri = re.search(r"url\((data:image/webp;base64,[^)]+)\)", blur)
    assert uri is not None and len(uri.group(1)) <= 2048
    assert re.search(r'style="background:#[0-9a-f]{6}"', color)
    for img in (blur, color):
        assert re.search(r'width="\d+" height="\d+"', img)
    assert "<figure><picture>" in html


def test_media_url_gives_the_published_url_alone_and_counts_the_file(cold, site):
    _, html = cold
    url = re.search(r'og:image" content="(/media/[^"]+-103-[^"]+)"', html)
    assert url is not None and (site / "_site" / url.group(1).lstrip("/")).is_file()
    text = re.search(r"The photo's address: (/media/\S+-106-\S+)</p>", html)
    assert text is not None and (site / "_site" / text.group(1).lstrip("/")).is_file()
    usage = json.loads((site / "_site" / "media-usage.json").read_text())
    [page] = usage["pages"].values()
    assert {103, 106} <= set(page["files"])


def test_a_warm_build_makes_no_request_and_no_encoding_and_the_same_bytes(
    cold, site, sandbox_server
):
    before = {p: p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file()}
    sandbox_server.reset_stats()
    result = build_site(config_mod.load(site), BuildOptions())
    assert cold[0].encodes > 0
    assert (result.encodes, result.requests, sum(sandbox_server.stats.values())) == (0, 0, 0)
    after = {p: p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file()}
    assert after == before


def test_bad_values_are_named_at_their_place(site):
    page = site / "content" / "bad.md"
    page.write_text('---\ntitle: Bad\n---\n<% media_image 101 formats="jpeg" priority=soon %>\n')
    try:
        with pytest.raises(ContentError) as caught:
            build_site(config_mod.load(site), BuildOptions())
    finally:
        page.unlink()
    text = str(caught.value) + "".join(str(p) for p in getattr(caught.value, "problems", []))
    assert "bad.md:4:" in text and "formats must be avif and/or webp" in text
    assert "priority must be true or false" in text


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('formats = ["gif"]', 'like ["avif", "webp"]'),
        ('placeholder = "fuzzy"', "must be one of none, color, blur"),
        ("avif_quality = 0", "must be from 1 to 100"),
        ('widths = "some"', '"auto"'),
    ],
)
def test_bad_image_settings_name_the_file_and_line(tmp_path: Path, line: str, says: str):
    toml = tmp_path / "mediashortcodes.toml"
    toml.write_text(f'[service]\nbase_url = "https://api.example.com"\n\n[images]\n{line}\n')
    with pytest.raises(ConfigError, match=f"mediashortcodes.toml:5: .*{re.escape(says)}"):
        config_mod.load(tmp_path)
