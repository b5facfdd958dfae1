"""Golden test: the example site, built exactly as the README says, gives this HTML.

Content hashes in media file names are normalised, so a different image encoder build
does not break the test; every other byte of every page must match. To accept an
intended change: UPDATE_GOLDEN=1 pytest tests/builder/test_example_golden.py
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
HASHED = re.compile(r"-[0-9a-f]{10}\.(jpg|png|gif|webp|js)")


def normalise(html: str) -> str:
    return HASHED.sub(r"-HASH.\1", html)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("PIL", reason="the example site builds against the sandbox (Pillow)")
    out = tmp_path_factory.mktemp("example") / "_site"
    cache = tmp_path_factory.mktemp("cache")
    env = {"MEDIASHORTCODES_CACHE_DIR": str(cache)}
    result = CliRunner(env=env).invoke(
        cli, ["build", str(ROOT / "example_site"), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def pages(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.rglob("*.html"))


def test_example_site_pages_match_the_golden_copies(built: Path) -> None:
    if os.environ.get("UPDATE_GOLDEN"):
        for page in pages(built):
            target = GOLDEN / page
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(normalise((built / page).read_text()))
    assert pages(built) == pages(GOLDEN)
    for page in pages(built):
        assert normalise((built / page).read_text()) == (GOLDEN / page).read_text(), page


def test_example_site_manifest_lists_every_page(built: Path) -> None:
    import json

    manifest = json.loads((built / "media-usage.json").read_text())
    assert sorted(manifest["pages"]) == [
        "https://www.example.org/",
        "https://www.example.org/about/",
        "https://www.example.org/articles/autumn-walk/",
        "https://www.example.org/articles/city-nights/",
        "https://www.example.org/articles/coastal-town/",
        "https://www.example.org/gallery/",
        "https://www.example.org/videos/",
    ]


@pytest.mark.browser
def test_the_inline_icon_stays_within_its_line_in_chromium(built: Path, browser: Any) -> None:
    """A 200 x 150 thumbnail with ``class="inline-icon"`` is drawn at the text's size."""
    page = browser.new_page()
    page.route(
        "http://example.test/**",
        lambda route: route.fulfill(path=built / route.request.url.split("/", 3)[3]),
    )
    page.goto("http://example.test/articles/autumn-walk/index.html")
    page.wait_for_load_state("load")
    icon, text = page.evaluate(
        """() => {
            const icon = document.querySelector("img.inline-icon");
            const style = getComputedStyle(icon.parentElement);
            return [icon.getBoundingClientRect().height, parseFloat(style.lineHeight)];
        }"""
    )
    page.close()
    assert 0 < icon <= text, f"the icon is {icon}px high in a {text}px line"
