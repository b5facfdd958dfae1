"""Responsive images and click-to-load videos in headless Chromium: which candidate the
browser takes at two widths, and what the network sees before and after a click."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.media.imageinfo import probe
from mediashortcodes.site.builder import BuildOptions, build_site

from .conftest import demo_env_while, small_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHOTO = """---
title: Photo
---
<% media_image 101 widths="480,960,1440" sizes="(min-width: 60em) 50vw, 100vw" loading=eager %>
"""
FILMS = """---
title: Films
---
<% media_video 201 load=click %>

<% media_video 202 load=click embed=script %>

<% media_video 204 load=click embed=script %>
"""
LAYOUT = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ page.title }}</title>
<style>body{margin:0} img{display:block;max-width:100%;height:auto}</style></head>
<body>{{ page.content }}</body></html>
"""


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serving(sandbox: Any, root: Path, files: dict[str, str], settings: str = "") -> Iterator[str]:
    """The site built from ``files``, over HTTP on 127.0.0.1 (another origin than the
    sandbox's player), until the block ends."""
    site = small_site(root / "site", sandbox, {"templates/page.html": LAYOUT, **files}, player=True)
    config = site / "mediashortcodes.toml"
    config.write_text(config.read_text() + settings)
    # Playwright's sync API may hold an event loop on this thread; the build runs its own.
    with demo_env_while(root / "cache"), ThreadPoolExecutor(1) as worker:
        worker.submit(build_site, config_mod.load(site), BuildOptions()).result()
    handler = functools.partial(Quiet, directory=str(site / "_site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def served(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    files = {"content/photo.md": PHOTO, "content/films.md": FILMS}
    with serving(sandbox_server, tmp_path_factory.mktemp("chromium"), files) as url:
        yield url


@pytest.mark.parametrize(
    ("viewport", "chosen"),
    [
        (400, 480),  # 100vw of 400 px: the 480 px candidate covers it
        (1400, 960),  # 50vw of 1400 px = 700 px: the 960 px candidate
    ],
)
def test_the_browser_takes_the_candidate_that_fits_its_width(
    served: str, browser: Any, viewport: int, chosen: int
) -> None:
    import urllib.request

    context = browser.new_context(
        viewport={"width": viewport, "height": 900}, device_scale_factor=1
    )
    try:
        page = context.new_page()
        page.goto(f"{served}/photo/")
        image = page.locator("img")
        image.evaluate("img => img.decode()")
        current = image.evaluate("img => img.currentSrc")
    finally:
        context.close()
    srcset = dict(
        (int(w.removesuffix("w")), url)
        for url, w in (c.rsplit(" ", 1) for c in page_srcset(served).split(", "))
    )
    assert current == served + srcset[chosen]
    with urllib.request.urlopen(current) as response:  # the chosen file is in the output
        assert probe(response.read()).width == chosen


def page_srcset(served: str) -> str:
    import re
    import urllib.request

    with urllib.request.urlopen(f"{served}/photo/") as response:
        html = response.read().decode()
    found = re.search(r'srcset="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def test_nothing_reaches_the_player_before_a_click_and_the_player_after_it(
    served: str, browser: Any, sandbox_server: Any
) -> None:
    from playwright.sync_api import expect

    player = sandbox_server.player_url
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{served}/films/", wait_until="networkidle")
        play = page.get_by_role("button", name="Play video: Welcome to the park")
        expect(play).to_be_visible()
        assert [url for url in requests if url.startswith(player)] == []

        play.click()
        expect(page.locator(f'iframe[src="{player}/ovp/11/Xk7Pq2Lm"]')).to_have_count(1)
        page.wait_for_load_state("networkidle")
        assert f"{player}/ovp/11/Xk7Pq2Lm" in requests
        assert not any(url.startswith(f"{player}/js/") for url in requests)

        # Keyboard: Enter on one script embed, Space on the other; one player script.
        page.get_by_role("button", name="Play video: Drone flight over the coast").focus()
        page.keyboard.press("Enter")
        expect(page.locator('[data-mfp-media-id="Rt5Vn8Wz"] iframe.mfp-frame')).to_have_count(1)
        page.get_by_role("button", name="Play video: City traffic time-lapse").focus()
        page.keyboard.press(" ")
        expect(page.locator("iframe.mfp-frame")).to_have_count(2)  # both built by the player
    finally:
        context.close()
    scripts = [url for url in requests if url.startswith(f"{player}/js/")]
    assert scripts == [f"{player}/js/mediaflowplayer.min.js"]
    assert errors == []


REMEMBERED = """---
title: Remembered
---
<% media_video 201 load=click %>

<% media_video 203 load=click %>
"""


def test_a_remembered_consent_loads_later_embeds_at_once_until_it_is_withdrawn(
    browser: Any, sandbox_server: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    player = sandbox_server.player_url
    files = {"content/index.md": REMEMBERED}
    with serving(sandbox_server, tmp_path, files, "\n[video]\nremember = true\n") as url:
        context = browser.new_context()
        requests: list[str] = []
        context.on("request", lambda request: requests.append(request.url))
        try:
            page = context.new_page()
            page.goto(url + "/", wait_until="networkidle")
            forget = page.get_by_role("button", name="Ask me before loading videos again")
            expect(forget.first).to_be_hidden()  # nothing to withdraw yet
            assert not any(u.startswith(player) for u in requests)
            page.get_by_role("button", name="Play video: Welcome to the park").click()
            expect(page.locator("iframe")).to_have_count(1)
            expect(forget.first).to_be_visible()

            page.reload(wait_until="networkidle")  # consent given: both load, no click
            expect(page.locator("iframe")).to_have_count(2)
            assert f"{player}/ovp/11/Hd3Fs9Qa" in requests

            requests.clear()
            forget.first.click()  # withdrawn: the page loads again and asks again
            expect(
                page.get_by_role("button", name="Play video: Welcome to the park")
            ).to_be_visible()
            page.wait_for_load_state("networkidle")
            expect(page.locator("iframe")).to_have_count(0)
            assert not any(u.startswith(player) for u in requests)
        finally:
            context.close()
