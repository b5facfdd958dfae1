"""Click-to-load videos: built against the sandbox, nothing of the player in the page
until the visitor asks for it."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.media.imageinfo import probe
from mediashortcodes.site.builder import BuildOptions, BuildResult, build_site

from .conftest import demo_env_while, small_site

FILMS = """---
title: Films
---
<% media_video 201 load=click %>

<% media_video 202 load=click embed=script %>

<% media_video 204 load=click embed=script %>

<% media_video 203 %>
"""
OTHER = "---\ntitle: Again\n---\n<% media_video 201 load=click %>\n"


class Outside(HTMLParser):
    """The URLs a page loads by itself: src and href outside <template> and <noscript>."""

    def __init__(self) -> None:
        super().__init__()
        self.inert = 0
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("template", "noscript"):
            self.inert += 1
        elif not self.inert:
            self.urls += [v or "" for k, v in attrs if k in ("src", "href", "srcset")]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("template", "noscript"):
            self.inert -= 1


def loaded_urls(html: str) -> list[str]:
    parser = Outside()
    parser.feed(html)
    return parser.urls


@pytest.fixture(scope="module")
def site(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("click")
    files = {
        "templates/page.html": "<main>{{ page.content }}</main>\n",
        "content/index.md": FILMS,
        "content/again.md": OTHER,
    }
    site = small_site(root / "site", sandbox_server, files, player=True)
    config = site / "mediashortcodes.toml"
    config.write_text(config.read_text() + '\n[site]\nbase_url = "https://www.example.org"\n')
    with demo_env_while(root / "cache"):
        yield root / "site"


@pytest.fixture(scope="module")
def cold(site: Path) -> BuildResult:
    return build_site(config_mod.load(site), BuildOptions())


def test_the_page_loads_nothing_from_the_player_hosts_before_a_click(cold, site, sandbox_server):
    html = (site / "_site" / "index.html").read_text()
    player_host = sandbox_server.player_url
    loaded = loaded_urls(html)
    assert [url for url in loaded if url.startswith(player_host)] == [
        f"{player_host}/ovp/11/Hd3Fs9Qa"  # only the eager embed of 203
    ]
    templates = re.findall(r"<template>(.*?)</template>", html, re.S)
    assert len(templates) == 3
    assert f'src="{player_host}/ovp/11/Xk7Pq2Lm"' in templates[0]  # the eager iframe as is
    assert "new MFPlayer(" in templates[1] and "new MFPlayer(" in templates[2]


def test_each_click_embed_shows_its_poster_a_named_button_the_consent_and_a_link(
    cold, site, sandbox_server
):
    out = site / "_site"
    html = (out / "index.html").read_text()
    boxes = re.findall(r"<div class=\"mediashortcodes-click\".*?</template>\n</div>", html, re.S)
    assert len(boxes) == 3
    first = boxes[0]
    src, width, height = re.search(
        r'<img src="([^"]+)" alt="" width="(\d+)" height="(\d+)"', first
    ).groups()  # type: ignore[union-attr]
    poster = probe((out / src.lstrip("/")).read_bytes())
    assert (poster.width, poster.height) == (int(width), int(height))
    assert ">&#9654; Play video: Welcome to the park</button>" in first
    host = sandbox_server.player_url.split("//", 1)[1]
    assert f"Playing this video loads the player from {host}." in first
    assert f'<noscript><a href="{sandbox_server.player_url}/ovp/11/Xk7Pq2Lm">' in first


def test_the_script_is_one_small_local_file_for_the_whole_site(cold, site) -> None:
    out = site / "_site"
    scripts = sorted((out / "media").glob("mediashortcodes-click-*.js"))
    assert len(scripts) == 1
    assert scripts[0].stat().st_size < 3500
    for page in (out / "index.html", out / "again" / "index.html"):
        html = page.read_text()
        assert f'<script src="/media/{scripts[0].name}" defer></script>' in html
        assert "<script>" not in html.split("<template>")[0], "no inline script needed"


def test_posters_are_fetched_once_and_a_warm_build_asks_nothing(cold, site, sandbox_server):
    posters = sorted((site / "_site" / "media").glob("*-poster-*"))
    assert [p.name.split("-poster-")[0] for p in posters] == [
        "coast-drone-202", "traffic-timelapse-204", "welcome-201",
    ] or len(posters) == 3  # fmt: skip
    sandbox_server.reset_stats()
    result = build_site(config_mod.load(site), BuildOptions())
    assert result.requests == 0
    assert sum(sandbox_server.stats.values()) == 0
    assert sorted((site / "_site" / "media").glob("*-poster-*")) == posters


def test_the_manifest_counts_click_to_load_videos(cold, site) -> None:
    assert cold.manifest is not None
    pages = cold.manifest.pages
    assert sorted(pages["https://www.example.org/"].files) == [201, 202, 203, 204]


CSP_FILMS = """---
title: Films
---
<% media_video 201 load=click %>

<% media_video 202 load=click embed=script %>
"""
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


@contextlib.contextmanager
def served_with(folder: Path, headers: dict[str, str]) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 with ``headers`` on every answer."""

    class Handler(SimpleHTTPRequestHandler):
        def end_headers(self) -> None:
            for name, value in headers.items():
                self.send_header(name, value)
            super().end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def csp_site(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("csp")
    files = {
        "templates/page.html": "<main>{{ page.content }}</main>\n",
        "content/index.md": CSP_FILMS,
    }
    site = small_site(root / "site", sandbox_server, files, player=True)
    # Built before the module's browser starts (its event loop stays current after).
    with demo_env_while(root / "cache"), ThreadPoolExecutor(1) as worker:
        worker.submit(build_site, config_mod.load(site), BuildOptions()).result()
    return site / "_site"


@pytest.mark.browser
def test_a_click_constructs_the_player_under_a_csp_without_unsafe_inline(
    csp_site: Path, browser: Any, sandbox_server: Any
) -> None:
    from playwright.sync_api import expect

    static = sandbox_server.static_url
    policy = f"script-src 'self' {static}; object-src 'none'; base-uri 'none'"
    with served_with(csp_site, {"Content-Security-Policy": policy}) as url:
        context = browser.new_context()
        requests: list[str] = []
        errors: list[str] = []
        context.on("request", lambda request: requests.append(request.url))
        context.add_init_script(WATCH)
        try:
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("console", lambda m: errors.append(m.text) if "Policy" in m.text else None)
            page.goto(url + "/", wait_until="networkidle")
            assert not any(u.startswith(sandbox_server.player_url) for u in requests)

            page.get_by_role("button", name="Play video: Drone flight over the coast").click()
            player = page.locator('[data-mfp-media-id="Rt5Vn8Wz"] iframe.mfp-frame')
            expect(player).to_have_count(1)  # constructed by the player script
            assert f"{static}/js/mediaflowplayer.min.js" in requests
            assert f"{static}/css/mediaflowplayer.min.css" in requests

            page.get_by_role("button", name="Play video: Welcome to the park").click()
            frame = f'iframe[src="{sandbox_server.player_url}/ovp/11/Xk7Pq2Lm"]'
            expect(page.locator(frame)).to_have_count(1)
            violations = page.evaluate("window.__violations")
        finally:
            context.close()
    assert violations == [] and errors == []
