"""Responsive images: srcset candidates the service scales, built against the sandbox."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes import config as config_mod
from mediashortcodes.cli import cli
from mediashortcodes.errors import ContentError
from mediashortcodes.media.imageinfo import probe
from mediashortcodes.site.builder import BuildOptions, BuildResult, build_site

from .conftest import demo_env_while, small_site

LAYOUT = "{{ page.content }}\n<footer>{{ media_image(104, widths=[400, 800]) }}</footer>\n"
HOME = """---
title: Home
---
<% media_image 101 widths="480,960,1440,4000" sizes="(min-width: 60em) 50vw, 100vw" %>

<% media_image 102 w=800 h=400 x1=0 x2=400 y1=0 y2=200 widths="200,400" %>

<% media_image 103 %>

<% media_image 105 widths="" %>

<% media_image 106 thumb %>
"""
# The same candidates as the home page's first image, on another page.
GALLERY = '---\ntitle: Gallery\n---\n<% media_image 101 widths="960,480" alt="Again" %>\n'
SITE_DEFAULTS = (
    '\n[site]\nbase_url = "https://www.example.org"\n'
    '\n[images]\nwidths = [320, 640]\nsizes = "50vw"\n'
)


@pytest.fixture(scope="module")
def site(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("responsive")
    files = {
        "templates/page.html": LAYOUT,
        "content/index.md": HOME,
        "content/gallery.md": GALLERY,
    }
    small_site(root / "site", sandbox_server, files, player=False)
    config = root / "site" / "mediashortcodes.toml"
    config.write_text(config.read_text() + SITE_DEFAULTS)
    with demo_env_while(root / "cache"):
        yield root / "site"


@pytest.fixture(scope="module")
def cold(site: Path, sandbox_server: Any) -> tuple[BuildResult, dict[str, int]]:
    sandbox_server.reset_stats()
    result = build_site(config_mod.load(site), BuildOptions())
    return result, dict(sandbox_server.stats)


def images(page: Path) -> dict[str, dict[str, str]]:
    """Each <img> of a page by the file id in its name: its attributes."""
    found = {}
    for tag in re.findall(r"<img [^>]+>", page.read_text()):
        attributes = dict(re.findall(r'([a-z]+)="([^"]*)"', tag))
        file_id = re.search(r"-(\d{3})-", attributes["src"])
        assert file_id is not None
        found[file_id.group(1)] = attributes
    return found


def candidates(img: dict[str, str]) -> list[tuple[str, int]]:
    pairs = [c.rsplit(" ", 1) for c in img["srcset"].split(", ")]
    return [(url, int(width.removesuffix("w"))) for url, width in pairs]


def test_each_width_is_a_published_file_exactly_as_wide_as_its_descriptor(cold, site) -> None:
    out = site / "_site"
    home = images(out / "index.html")
    for img in (home["101"], home["102"], home["103"], home["104"]):
        for url, width in candidates(img):
            assert probe((out / url.lstrip("/")).read_bytes()).width == width, url


def test_widths_above_the_image_are_dropped_and_the_image_itself_is_the_widest(cold, site):
    home = images(site / "_site" / "index.html")
    lake = home["101"]  # the original is 1600 x 1067: 4000 would be an upscale
    assert [w for _, w in candidates(lake)] == [480, 960, 1440, 1600]
    assert candidates(lake)[-1][0] == lake["src"]
    assert (lake["width"], lake["height"]) == ("1600", "1067")
    assert lake["sizes"] == "(min-width: 60em) 50vw, 100vw"
    crop = home["102"]  # a custom crop 800 x 400: its candidates keep its 2:1 shape
    assert [w for _, w in candidates(crop)] == [200, 400, 800]
    assert (crop["width"], crop["height"]) == ("800", "400")
    out = site / "_site"
    for url, width in candidates(crop):
        assert probe((out / url.lstrip("/")).read_bytes()).height == width // 2


def test_site_defaults_apply_where_the_shortcode_says_nothing(cold, site) -> None:
    home = images(site / "_site" / "index.html")
    waterfall = home["103"]
    assert [w for _, w in candidates(waterfall)] == [320, 640, 800]
    assert waterfall["sizes"] == "auto, 50vw"  # a lazy image
    assert "srcset" not in home["105"], 'widths="" turns the site default off'
    assert "srcset" not in home["106"], "a predefined format gets no default srcset"
    footer = home["104"]  # media_image(104, widths=[400, 800]) in the layout
    assert [w for _, w in candidates(footer)] == [400, 800, 1600]


def test_every_candidate_is_fetched_once_for_the_whole_site(cold, site) -> None:
    result, stats = cold
    media = list((site / "_site" / "media").iterdir())
    # Both pages show 101 at 480w and 960w: one file each, asked for and downloaded once.
    assert result.downloads == len(media) == stats["download"] == stats["download_info"]
    gallery = images(site / "_site" / "gallery" / "index.html")["101"]
    home = images(site / "_site" / "index.html")["101"]
    assert candidates(gallery) == [c for c in candidates(home) if c[1] in (480, 960, 1600)]


def test_a_warm_build_makes_no_request(cold, site, sandbox_server) -> None:
    sandbox_server.reset_stats()
    result = build_site(config_mod.load(site), BuildOptions())
    assert result.requests == 0 and result.downloads == 0
    assert sum(sandbox_server.stats.values()) == 0


def test_the_manifest_counts_an_image_once_whatever_its_candidates(cold, site) -> None:
    manifest = json.loads((site / "_site" / "media-usage.json").read_text())
    pages = manifest["pages"]
    assert pages["https://www.example.org/"]["files"] == [101, 102, 103, 104, 105, 106]
    assert pages["https://www.example.org/gallery/"]["files"] == [101, 104]


def test_check_lists_the_candidates_each_image_asks_for(cold, site) -> None:
    result = CliRunner().invoke(cli, ["check", str(site)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(
        line.endswith(
            "content/index.md:4:1: file 101 (default format): srcset 480w, 960w, 1440w, 4000w"
        )
        for line in lines
    )
    assert any("file 102 (custom crop): srcset 200w, 400w" in line for line in lines)
    assert any("file 104 (default format): srcset 400w, 800w" in line for line in lines)
    assert not any("file 106" in line for line in lines)


def test_widths_on_a_predefined_format_is_refused_with_what_to_do(site, tmp_path) -> None:
    page = site / "content" / "thumbs.md"
    page.write_text('---\ntitle: Thumbs\n---\n\n<% media_image 106 thumb widths="100" %>\n')
    try:
        with pytest.raises(ContentError) as caught:
            build_site(config_mod.load(site), BuildOptions(output=tmp_path / "out"))
    finally:
        page.unlink()
    [problem] = caught.value.problems
    assert problem.path.endswith("content/thumbs.md") and (problem.line, problem.col) == (5, 1)
    assert "predefined format 'thumb'" in problem.message
    assert "FORMAT original" in problem.message and "custom crop" in problem.message
    assert not (tmp_path / "out").exists()
