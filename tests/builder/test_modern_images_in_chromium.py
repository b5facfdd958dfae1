"""AVIF and WebP in <picture>, priority and placeholders in headless Chromium, the site
served from 127.0.0.1 by a server that can hold the images' bytes back (issue 32)."""

from __future__ import annotations

import functools
import io
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.site.builder import BuildOptions, build_site

from .conftest import demo_env_while, small_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]
Image = pytest.importorskip("PIL.Image")

LAYOUT = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ page.title }}</title>
<style>body{margin:0} img{display:block;max-width:100%;height:auto}</style></head>
<body>{{ page.content }}</body></html>
"""
PAGES = {
    "content/hero.md": (
        "---\ntitle: Hero\n---\n"
        '<% media_image 101 formats="avif,webp" widths="auto" priority=true placeholder=color %>\n'
    ),
    "content/blur.md": (
        '---\ntitle: Blur\n---\n<% media_image 102 formats="avif,webp" placeholder=blur %>\n'
    ),
    "content/webp.md": '---\ntitle: WebP\n---\n<% media_image 101 formats=webp widths="auto" %>\n',
}
# Every layout shift the page makes, summed as CLS counts it (no recent input: all count).
CLS = """
window.__cls = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__cls += entry.value;
}).observe({type: "layout-shift", buffered: true});
"""
CHOSEN = "img => ({src: img.currentSrc, decoded: img.complete && img.naturalWidth > 0})"


class Held(SimpleHTTPRequestHandler):
    """Serves the site; an image waits while ``gate`` is clear."""

    gate = threading.Event()

    def do_GET(self) -> None:
        if self.path.startswith("/media/"):
            self.gate.wait(30)
        super().do_GET()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("modern-chromium")
    site = small_site(
        root / "site", sandbox_server, {"templates/page.html": LAYOUT, **PAGES}, player=False
    )
    with demo_env_while(root / "cache"), ThreadPoolExecutor(1) as worker:
        worker.submit(build_site, config_mod.load(site), BuildOptions()).result()
    Held.gate.set()
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Held, directory=str(site / "_site"))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        Held.gate.set()
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 800, "height": 900}, device_scale_factor=1)
    context.add_init_script(CLS)
    try:
        yield context.new_page()
    finally:
        Held.gate.set()
        context.close()


# The file's own pixels, decoded by the browser (naturalWidth is divided by the density).
DECODED = """async url => {
  const bitmap = await createImageBitmap(await (await fetch(url)).blob());
  return bitmap.width;
}"""


def loaded(page: Any) -> dict[str, Any]:
    page.wait_for_function("document.querySelector('img').complete", timeout=20000)
    chosen: dict[str, Any] = page.eval_on_selector("img", CHOSEN)
    chosen["width"] = page.evaluate(DECODED, chosen["src"])
    return chosen


def descriptor(page: Any, url: str) -> int:
    """The width a srcset of the page's <picture> gives ``url``."""
    for srcset in page.eval_on_selector_all("source, img", "els => els.map(e => e.srcset)"):
        for candidate in srcset.split(", "):
            if candidate and url.endswith(candidate.split()[0]):
                return int(candidate.split()[1].removesuffix("w"))
    raise AssertionError(f"{url} is in no srcset")


def test_chromium_takes_the_avif_at_its_size_with_no_layout_shift(page: Any, served: str):
    page.goto(f"{served}/hero/")
    chosen = loaded(page)
    assert chosen["src"].endswith(".avif") and chosen["decoded"], chosen
    assert chosen["width"] == descriptor(page, chosen["src"])  # 960w at 800 CSS pixels
    assert page.get_attribute("img", "fetchpriority") == "high"
    assert page.locator('link[rel="preload"][type="image/avif"]').count() == 1
    page.wait_for_timeout(300)  # layout shifts are reported after the frame
    assert page.evaluate("window.__cls") == 0


def test_the_webp_source_is_valid_too(page: Any, served: str):
    page.goto(f"{served}/webp/")
    chosen = loaded(page)
    assert chosen["src"].endswith(".webp") and chosen["decoded"], chosen
    assert chosen["width"] == descriptor(page, chosen["src"])


def pixel(page: Any) -> tuple[int, ...]:
    """The colour at the middle of the image's box, as painted."""
    box = page.locator("img").bounding_box()
    shot = page.screenshot(clip={"x": box["x"], "y": box["y"], "width": 8, "height": 8})
    return Image.open(io.BytesIO(shot)).convert("RGB").getpixel((4, 4))


@pytest.mark.parametrize("name", ["hero", "blur"])
def test_the_placeholder_shows_while_the_image_is_held_back(page: Any, served: str, name: str):
    Held.gate.clear()
    page.goto(f"{served}/{name}/", wait_until="domcontentloaded")
    img = page.locator("img")
    assert img.evaluate("img => img.complete") is False  # its bytes have not come
    box = img.bounding_box()
    assert box["width"] > 100 and box["height"] > 50  # width and height hold its box
    style = img.evaluate(
        "img => getComputedStyle(img).backgroundImage + getComputedStyle(img).backgroundColor"
    )
    held = pixel(page)
    if name == "hero":
        colour = re.search(r"background:#([0-9a-f]{6})", img.get_attribute("style") or "")
        assert colour is not None
        expected = tuple(int(colour.group(1)[i : i + 2], 16) for i in (0, 2, 4))
        assert all(abs(a - b) <= 2 for a, b in zip(held, expected, strict=True)), (held, expected)
    else:
        assert 'url("data:image/webp;base64,' in style
        assert held != (255, 255, 255)  # the preview, not the page's white
    Held.gate.set()
    deadline = time.monotonic() + 20
    while not img.evaluate("img => img.complete && img.naturalWidth > 0"):
        assert time.monotonic() < deadline
        page.wait_for_timeout(50)
    assert page.evaluate("window.__cls") == 0
